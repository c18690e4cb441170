package wire

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Benchmarks of the v2 snapshot against v1 on the same world states: 120
// entities moving by motions (ships and missiles Linear, Bydos Sine, as the
// simulation moves them), seen at tick 600 and 603. Between the two, 5
// entities are removed, 5 enemy missiles added, and 4 ships change motion;
// v1 sees every position and frame that the motions change, v2 only the
// changed motions. Run with -benchmem; bytes/snapshot is the payload.

var benchPlayers2 = func() []Player2 {
	ps := make([]Player2, len(benchPlayers))
	for i, p := range benchPlayers {
		ps[i] = Player2{PlayerState: p, InvulnStart: 100, InvulnTicks: 120}
	}
	return ps
}()

// benchMotionWorld returns the world at tick 600 and at tick 603, as v2
// entities.
func benchMotionWorld(n int) (base, cur []Entity2) {
	r := rand.New(rand.NewPCG(42, 0))
	for i := 0; i < n; i++ {
		id := MakeID(uint32(i), uint8(r.IntN(3)))
		t0 := uint32(400 + r.IntN(200))
		x, y := r.Float64()*1280, r.Float64()*720
		var m Motion
		var a Anim
		kind := uint8(1 + r.IntN(4))
		switch kind {
		case KindPlayerShip:
			m = Linear(t0, x, y, 360*float64(r.IntN(3)-1), 360*float64(r.IntN(3)-1))
		case KindPlayerMissile:
			m = Linear(t0, x, y, 900, 0)
		case KindBydosSlave:
			m = Sine(t0, x, y, -90-70*r.Float64(), 20+40*r.Float64(), 120, r.Float64()*6.28)
			a = Anim{Ticks: 6, Count: 8}
		case KindEnemyMissile:
			m = Linear(t0, x, y, r.Float64()*600-300, r.Float64()*600-300)
		}
		base = append(base, MakeEntity2(id, kind, &m, a))
	}
	slices.SortFunc(base, cmpID2)
	turned := 0
	for i, e := range base {
		if i%24 == 3 { // removed
			continue
		}
		if e.Kind() == KindPlayerShip && turned < 4 {
			turned++
			m := e.Motion()
			x, y, _, _ := m.At(602)
			m = Linear(602, x, y, 255, -255)
			e = MakeEntity2(e.ID, KindPlayerShip, &m, Anim{Frame0: 1})
		}
		cur = append(cur, e)
	}
	for i := 0; i < 5; i++ {
		m := Linear(603, 1000, float64(100*i), -300, 0)
		cur = append(cur, MakeEntity2(uint32(n+i), KindEnemyMissile, &m, Anim{}))
	}
	slices.SortFunc(cur, cmpID2)
	return base, cur
}

// v1World is what a v1 snapshot carries of a v2 world at tick.
func v1World(w []Entity2, tick uint32) []Entity {
	out := make([]Entity, len(w))
	for i := range w {
		m, a := w[i].Motion(), w[i].Anim()
		x, y, vx, vy := m.At(float64(tick))
		out[i] = MakeEntity(w[i].ID, w[i].Kind(), float32(x), float32(y), float32(vx), float32(vy), int(a.Frame(m.T0, float64(tick))))
	}
	return out
}

func BenchmarkEncodeFull120V2(b *testing.B) {
	_, world := benchMotionWorld(120)
	var enc Snapshot2Encoder
	payloads := enc.Encode(603, benchPlayers2, nil, nil, 0, world)
	b.ReportAllocs()
	for b.Loop() {
		payloads = enc.Encode(603, benchPlayers2, nil, nil, 0, world)
	}
	reportSize(b, payloads)
}

func BenchmarkEncodeFull120V1SameWorld(b *testing.B) {
	_, w2 := benchMotionWorld(120)
	world := v1World(w2, 603)
	var enc SnapshotEncoder
	payloads := enc.Encode(603, benchPlayers, nil, 0, world)
	b.ReportAllocs()
	for b.Loop() {
		payloads = enc.Encode(603, benchPlayers, nil, 0, world)
	}
	reportSize(b, payloads)
}

func BenchmarkEncodeDeltaV2(b *testing.B) {
	base, cur := benchMotionWorld(120)
	var enc Snapshot2Encoder
	payloads := enc.Encode(603, benchPlayers2, benchPlayers2, base, 600, cur)
	b.ReportAllocs()
	for b.Loop() {
		payloads = enc.Encode(603, benchPlayers2, benchPlayers2, base, 600, cur)
	}
	reportSize(b, payloads)
}

func BenchmarkEncodeDeltaV1SameWorld(b *testing.B) {
	b2, c2 := benchMotionWorld(120)
	base, cur := v1World(b2, 600), v1World(c2, 603)
	var enc SnapshotEncoder
	payloads := enc.Encode(603, benchPlayers, base, 600, cur)
	b.ReportAllocs()
	for b.Loop() {
		payloads = enc.Encode(603, benchPlayers, base, 600, cur)
	}
	reportSize(b, payloads)
}

func BenchmarkDecodeDeltaV2(b *testing.B) {
	base, cur := benchMotionWorld(120)
	var enc Snapshot2Encoder
	payloads := clonePayloads(enc.Encode(603, benchPlayers2, benchPlayers2, base, 600, cur))
	var s Snapshot2
	s.Records = make([]Record2, 0, 256)
	out := make([]Entity2, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range payloads {
			if err := s.Decode(p); err != nil {
				b.Fatal(err)
			}
			out, _ = ApplyRecords2(out[:0], base, s.Records)
		}
	}
	reportSize(b, payloads)
}

func BenchmarkMotionAt(b *testing.B) {
	m := Sine(600, 1300, 200, -120, 40, 120, 1)
	l := Linear(600, 100, 200, 900, 0)
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
