package wire2

import (
	"math/rand/v2"
	"rtype/net/wire"
	"slices"
	"testing"
)

// Benchmarks of the v2 snapshot against v1 on the same world states: 120
// entities moving by motions (ships and missiles Linear, Bydos Sine, as the
// simulation moves them), seen at tick 600 and 603. Between the two, 5
// entities are removed, 5 enemy missiles added, and 4 ships change motion;
// v1 sees every position and frame that the motions change, v2 only the
// changed motions. Run with -benchmem; bytes/snapshot is the payload.

var benchPlayers = func() []Player {
	ps := make([]Player, len(benchStates))
	for i, p := range benchStates {
		ps[i] = Player{PlayerState: p, InvulnStart: 100, InvulnTicks: 120}
	}
	return ps
}()

// benchMotionWorld returns the world at tick 600 and at tick 603, as v2
// entities.
func benchMotionWorld(n int) (base, cur []Entity) {
	r := rand.New(rand.NewPCG(42, 0))
	for i := 0; i < n; i++ {
		id := wire.MakeID(uint32(i), uint8(r.IntN(3)))
		t0 := uint32(400 + r.IntN(200))
		x, y := r.Float64()*1280, r.Float64()*720
		var m wire.Motion
		var a wire.Anim
		kind := uint8(1 + r.IntN(4))
		switch kind {
		case wire.KindPlayerShip:
			m = wire.Linear(t0, x, y, 360*float64(r.IntN(3)-1), 360*float64(r.IntN(3)-1))
		case wire.KindPlayerMissile:
			m = wire.Linear(t0, x, y, 900, 0)
		case wire.KindBydosSlave:
			m = wire.Sine(t0, x, y, -90-70*r.Float64(), 20+40*r.Float64(), 120, r.Float64()*6.28)
			a = wire.Anim{Ticks: 6, Count: 8}
		case wire.KindEnemyMissile:
			m = wire.Linear(t0, x, y, r.Float64()*600-300, r.Float64()*600-300)
		}
		base = append(base, MakeEntity(id, kind, &m, a))
	}
	slices.SortFunc(base, cmpID)
	turned := 0
	for i, e := range base {
		if i%24 == 3 { // removed
			continue
		}
		if e.Kind() == wire.KindPlayerShip && turned < 4 {
			turned++
			m := e.Motion()
			x, y, _, _ := m.At(602)
			m = wire.Linear(602, x, y, 255, -255)
			e = MakeEntity(e.ID, wire.KindPlayerShip, &m, wire.Anim{Frame0: 1})
		}
		cur = append(cur, e)
	}
	for i := 0; i < 5; i++ {
		m := wire.Linear(603, 1000, float64(100*i), -300, 0)
		cur = append(cur, MakeEntity(uint32(n+i), wire.KindEnemyMissile, &m, wire.Anim{}))
	}
	slices.SortFunc(cur, cmpID)
	return base, cur
}

// v1World is what a v1 snapshot carries of a v2 world at tick.
func v1World(w []Entity, tick uint32) []wire.Entity {
	out := make([]wire.Entity, len(w))
	for i := range w {
		m, a := w[i].Motion(), w[i].Anim()
		x, y, vx, vy := m.At(float64(tick))
		out[i] = wire.MakeEntity(w[i].ID, w[i].Kind(), float32(x), float32(y), float32(vx), float32(vy), int(a.Frame(m.T0, float64(tick))))
	}
	return out
}

func BenchmarkEncodeFull120(b *testing.B) {
	_, world := benchMotionWorld(120)
	var enc SnapshotEncoder
	payloads := enc.Encode(603, benchPlayers, nil, nil, 0, world)
	b.ReportAllocs()
	for b.Loop() {
		payloads = enc.Encode(603, benchPlayers, nil, nil, 0, world)
	}
	reportSize(b, payloads)
}

func BenchmarkEncodeFull120V1SameWorld(b *testing.B) {
	_, w2 := benchMotionWorld(120)
	world := v1World(w2, 603)
	var enc wire.SnapshotEncoder
	payloads := enc.Encode(603, benchStates, nil, 0, world)
	b.ReportAllocs()
	for b.Loop() {
		payloads = enc.Encode(603, benchStates, nil, 0, world)
	}
	reportSize(b, payloads)
}

func BenchmarkEncodeDelta(b *testing.B) {
	base, cur := benchMotionWorld(120)
	var enc SnapshotEncoder
	payloads := enc.Encode(603, benchPlayers, benchPlayers, base, 600, cur)
	b.ReportAllocs()
	for b.Loop() {
		payloads = enc.Encode(603, benchPlayers, benchPlayers, base, 600, cur)
	}
	reportSize(b, payloads)
}

func BenchmarkEncodeDeltaV1SameWorld(b *testing.B) {
	b2, c2 := benchMotionWorld(120)
	base, cur := v1World(b2, 600), v1World(c2, 603)
	var enc wire.SnapshotEncoder
	payloads := enc.Encode(603, benchStates, base, 600, cur)
	b.ReportAllocs()
	for b.Loop() {
		payloads = enc.Encode(603, benchStates, base, 600, cur)
	}
	reportSize(b, payloads)
}

func BenchmarkDecodeDelta(b *testing.B) {
	base, cur := benchMotionWorld(120)
	var enc SnapshotEncoder
	payloads := clonePayloads(enc.Encode(603, benchPlayers, benchPlayers, base, 600, cur))
	var s Snapshot
	s.Records = make([]Record, 0, 256)
	out := make([]Entity, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range payloads {
			if err := s.Decode(p); err != nil {
				b.Fatal(err)
			}
			out, _ = ApplyRecords(out[:0], base, s.Records)
		}
	}
	reportSize(b, payloads)
}

func BenchmarkMotionAt(b *testing.B) {
	m := wire.Sine(600, 1300, 200, -120, 40, 120, 1)
	l := wire.Linear(600, 100, 200, 900, 0)
	var sink float64
	b.ReportAllocs()
	t := 600.0
	for b.Loop() {
		x, y, _, _ := m.At(t)
		x2, _, _, _ := l.At(t)
		sink += x + y + x2
		t += 0.25
	}
	_ = sink
}
