package wire2

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/vocab/vocabtest"
)

// rebuild2 decodes every payload of one v2 snapshot and applies it to the
// baseline, datagram after datagram, as a client does.
func rebuild(t *testing.T, payloads [][]byte, limit int, tick uint32, players, basePlayers []Player, base []Entity, age uint32) ([]Entity, int) {
	t.Helper()
	world, tmp := base, []Entity(nil)
	var s Snapshot
	nrec := 0
	for k, p := range payloads {
		if len(p) > limit {
			t.Fatalf("payload %d is %d bytes, over %d", k, len(p), limit)
		}
		h := wire.Header{Type: wire.TypeSnapshot, Seq: uint16(k), Session: 1}
		dg := append(AppendHeader(nil, h), p...)
		if _, pp, err := ParseHeader(dg, wire.ToClient); err != nil || !bytes.Equal(pp, p) {
			t.Fatalf("datagram %d (%d bytes): %v", k, len(dg), err)
		}
		if err := s.Decode(p); err != nil {
			t.Fatalf("payload %d of %d: %v", k, len(payloads), err)
		}
		if s.Tick != tick || s.HasBaseline != (base != nil) || s.BaselineAge != age {
			t.Fatalf("payload %d: tick %d baseline %v age %d", k, s.Tick, s.HasBaseline, s.BaselineAge)
		}
		pl, err := ApplyPlayers(nil, basePlayers, s.PlayerRecords())
		if err != nil || !slices.Equal(pl, players) && !(len(players) == 0 && len(pl) == 0) {
			t.Fatalf("payload %d: players\n got %+v\nwant %+v (%v)", k, pl, players, err)
		}
		if len(s.Records) == 0 && len(payloads) > 1 {
			t.Fatalf("payload %d of %d has no record", k, len(payloads))
		}
		if k > 0 { // a payload is closed only when the next record does not fit
			var prev Snapshot
			if err := prev.Decode(payloads[k-1]); err != nil {
				t.Fatal(err)
			}
			last, next := prev.Records[len(prev.Records)-1], s.Records[0]
			bits := len(payloads[k-1])*8 + wire.VarintBits(wire.Index(next.ID)-wire.Index(last.ID)) + recordBits(&next, tick)
			if bits <= limit*8 {
				t.Fatalf("payload %d closed early", k-1)
			}
		}
		nrec += len(s.Records)
		tmp, err = ApplyRecords(tmp[:0], world, s.Records)
		if err != nil {
			t.Fatalf("payload %d: %v", k, err)
		}
		if k == 0 {
			world = nil
		}
		world, tmp = tmp, world
	}
	return world, nrec
}

func randTick(r interface{ Uint32() uint32 }) uint32 {
	t := r.Uint32()
	if t%4 == 0 {
		t %= 5000
	}
	return t + 1
}

func TestRoundTrip2Full(t *testing.T) {
	r := vocabtest.NewRand(t, 21)
	var enc SnapshotEncoder
	for it := 0; it < 1000; it++ {
		tick := randTick(r)
		world := randWorld(r, vocabtest.RandWorldSize(r), tick)
		players := randPlayers(r, tick)
		payloads := enc.Encode(tick, players, nil, nil, 0, world)
		got, nrec := rebuild(t, payloads, MaxPayload, tick, players, nil, nil, 0)
		if !slices.Equal(got, world) || nrec != len(world) {
			t.Fatalf("iteration %d: %d entities rebuilt as %d (%d records)", it, len(world), len(got), nrec)
		}
		if enc.Changes() != len(world)+len(players) {
			t.Fatalf("Changes %d", enc.Changes())
		}
	}
}

func TestRoundTrip2Delta(t *testing.T) {
	r := vocabtest.NewRand(t, 22)
	var enc SnapshotEncoder
	for it := 0; it < 1000; it++ {
		tick := randTick(r) + 100
		age := 1 + r.Uint32N(100)
		base := randWorld(r, vocabtest.RandWorldSize(r), tick-age)
		cur := mutate(r, base, tick)
		bp := randPlayers(r, tick-age)
		players := slices.Clone(bp)
		if r.IntN(2) == 0 {
			players = randPlayers(r, tick)
		}
		payloads := enc.Encode(tick, players, bp, base, tick-age, cur)
		got, _ := rebuild(t, payloads, MaxPayload, tick, players, bp, base, age)
		if !slices.Equal(got, cur) {
			t.Fatalf("iteration %d: rebuilt %d entities, want %d", it, len(got), len(cur))
		}
	}
}

func TestRoundTrip2Split(t *testing.T) {
	r := vocabtest.NewRand(t, 23)
	for _, limit := range []int{0, 100, 200} {
		enc := SnapshotEncoder{MaxPayload: limit}
		want := limit
		if want == 0 {
			want = MaxPayload
		}
		for it := 0; it < 100; it++ {
			tick := randTick(r) + 10
			world := randWorld(r, 300+r.IntN(300), tick)
			players := randPlayers(r, tick)
			payloads := enc.Encode(tick, players, nil, nil, 0, world)
			if len(payloads) < 2 {
				t.Fatalf("limit %d: %d entities in one payload", limit, len(world))
			}
			got, _ := rebuild(t, payloads, want, tick, players, nil, nil, 0)
			if !slices.Equal(got, world) {
				t.Fatal("split full snapshot rebuilt wrong")
			}
			cur := mutate(r, world, tick+3)
			payloads = enc.Encode(tick+3, players, players, world, tick, cur)
			got, _ = rebuild(t, payloads, want, tick+3, players, players, world, 3)
			if !slices.Equal(got, cur) {
				t.Fatal("split delta rebuilt wrong")
			}
		}
	}
}

// Nothing changed: the delta carries no record, every player without a
// step costs 4 bits, and Changes says so (the rate rule of 7.9). A new
// last_step is sent but is no change: it alone never makes a snapshot due.
func TestSnapshot2Unchanged(t *testing.T) {
	r := vocabtest.NewRand(t, 24)
	world := randWorld(r, 100, 5000)
	players := randPlayers(r, 5000)
	for i := range players {
		players[i].HasStep, players[i].LastStep = false, 0
	}
	var enc SnapshotEncoder
	p := enc.Encode(5003, players, players, world, 5000, world)
	if len(p) != 1 || enc.Changes() != 0 {
		t.Fatalf("%d payloads, %d changes", len(p), enc.Changes())
	}
	if bits := 32 + 3 + 4*len(players) + 1 + 8 + 16; len(p[0]) != (bits+7)/8 {
		t.Fatalf("%d bytes, want %d", len(p[0]), (bits+7)/8)
	}
	// The recipient's step moved on (300 -> 303): 16 more bits, no change.
	cur := slices.Clone(players)
	base := slices.Clone(players)
	base[0].HasStep, base[0].LastStep = true, 300
	cur[0].HasStep, cur[0].LastStep = true, 303
	p = enc.Encode(5003, cur, base, world, 5000, world)
	if len(p) != 1 || enc.Changes() != 0 {
		t.Fatalf("step only: %d payloads, %d changes", len(p), enc.Changes())
	}
	if bits := 32 + 3 + 4*len(players) + 16 + 1 + 8 + 16; len(p[0]) != (bits+7)/8 {
		t.Fatalf("step only: %d bytes, want %d", len(p[0]), (bits+7)/8)
	}
	var d Snapshot
	if err := d.Decode(p[0]); err != nil {
		t.Fatal(err)
	}
	got, err := ApplyPlayers(nil, base, d.PlayerRecords())
	if err != nil || !slices.Equal(got, cur) {
		t.Fatalf("rebuilt players %+v %v, want %+v", got, err, cur)
	}
}

// One table: every field of fields is compared, sent and applied, one at
// a time.
func TestFieldTable(t *testing.T) {
	base := []Entity{exBydos(5, 590)}
	var enc SnapshotEncoder
	for f := range fieldsV {
		if f == FieldKind {
			continue // below
		}
		cur := slices.Clone(base)
		cur[0].F[f] ^= 1
		if f == FieldT0 {
			cur[0].F[f] = 600
		}
		recs := enc.Diff(base, cur)
		if len(recs) != 1 || recs[0].Change != wire.Updated || recs[0].Mask != 1<<f {
			t.Fatalf("field %s: records %+v", fieldsV[f].name, recs)
		}
		p := enc.Encode(603, nil, nil, base, 600, cur)
		got, _ := rebuild(t, p, MaxPayload, 603, nil, nil, base, 3)
		if !slices.Equal(got, cur) {
			t.Fatalf("field %s: rebuilt %+v", fieldsV[f].name, got)
		}
		want := 32 + 3 + 1 + 8 + 16 + 8 + 8 + 2 + 4 + (f + 1) + fieldBits(f, cur[0].F[f], 603)
		if len(p[0]) != (want+7)/8 {
			t.Fatalf("field %s: %d bytes, want %d bits", fieldsV[f].name, len(p[0]), want)
		}
	}
	// A kind change is an added record.
	cur := slices.Clone(base)
	cur[0].F[FieldKind] = 9
	if recs := enc.Diff(base, cur); len(recs) != 1 || recs[0].Change != wire.Added {
		t.Fatalf("kind change: %+v", recs)
	}
}

func TestEntity2Accessors(t *testing.T) {
	r := vocabtest.NewRand(t, 25)
	for range 1000 {
		m := randMotion(r, 1e6)
		m.Model &= 15
		a := wire.Anim{Frame0: uint8(r.IntN(256)), Ticks: uint8(r.IntN(256)), Count: uint8(r.IntN(256))}
		k := uint8(r.IntN(256))
		e := MakeEntity(7, k, &m, a)
		if e.Motion() != m || e.Anim() != a || e.Kind() != k {
			t.Fatalf("%+v %+v %d: got %+v %+v %d", m, a, k, e.Motion(), e.Anim(), e.Kind())
		}
	}
}

func TestRoundTripEvents(t *testing.T) {
	r := vocabtest.NewRand(t, 26)
	for range 2000 {
		ev := vocabtest.RandEvent(r)
		if ev.Type == wire.EventSpawn {
			ev.X, ev.Y, ev.VX, ev.VY = 0, 0, 0, 0
			ev.Motion = randMotion(r, ev.Tick)
			ev.Motion.Model &= 15
			ev.Anim = wire.Anim{Frame0: uint8(r.IntN(256)), Ticks: uint8(r.IntN(256)), Count: uint8(r.IntN(256))}
		}
		b := AppendEvent(nil, &ev)
		var got wire.Event
		if err := ParseEvent(b, &got); err != nil {
			t.Fatalf("%+v: %v", ev, err)
		}
		if !vocabtest.SameEvent(got, ev) || got.Motion != ev.Motion || got.Anim != ev.Anim {
			t.Fatalf("got %+v\nwant %+v", got, ev)
		}
	}
}

func TestSnapshot2Allocs(t *testing.T) {
	r := vocabtest.NewRand(t, 27)
	base := randWorld(r, 150, 1000)
	cur := mutate(r, base, 1003)
	players := randPlayers(r, 1003)
	var enc SnapshotEncoder
	var s Snapshot
	var out []Entity
	run := func() {
		for _, p := range enc.Encode(1003, players, players, base, 1000, cur) {
			if err := s.Decode(p); err != nil {
				t.Fatal(err)
			}
			out, _ = ApplyRecords(out[:0], base, s.Records)
		}
		enc.Encode(1003, players, nil, nil, 0, cur)
	}
	run()
	testutil.NoAllocs(t, 50, "an encode and decode", run)
}

// ---- 7.5: motion ---------------------------------------------------------

func TestMotionAt(t *testing.T) {
	lin := wire.Motion{Model: wire.ModelLinear, T0: 100, X0: 800, Y0: -16, VX: 5760, VY: -160}
	for _, tick := range []float64{100, 101, 160, 99, 100.5, 1e6} {
		dt := tick - 100
		x, y, vx, vy := lin.At(tick)
		if x != 100+360*dt/60 || y != -2-10*dt/60 || vx != 360 || vy != -10 {
			t.Errorf("Linear at %v: (%v, %v, %v, %v)", tick, x, y, vx, vy)
		}
	}
	st := wire.Motion{Model: wire.ModelStationary, T0: 5, X0: 12, Y0: 20, VX: 99, Amp: 9, Period: 3}
	if x, y, vx, vy := st.At(1000); x != 1.5 || y != 2.5 || vx != 0 || vy != 0 {
		t.Errorf("Stationary: (%v, %v, %v, %v)", x, y, vx, vy)
	}
	// Sine: a quarter turn of phase starts at the crest; half a period
	// later it is at the trough, a period later back at the crest.
	sn := wire.Sine(600, 1300, 200, -120, 40, 120, math.Pi/2)
	if sn.Phase != 16384 || sn.Amp != 320 || sn.VX != -1920 || sn.Y0 != 1600 {
		t.Fatalf("Sine quantized: %+v", sn)
	}
	for _, c := range []struct{ tick, x, y float64 }{{600, 1300, 240}, {660, 1180, 160}, {720, 1060, 240}} {
		x, y, vx, vy := sn.At(c.tick)
		if math.Abs(x-c.x) > 1e-9 || math.Abs(y-c.y) > 1e-9 || vx != -120 || math.Abs(vy) > 1e-9 {
			t.Errorf("Sine at %v: (%v, %v, %v, %v), want (%v, %v, -120, 0)", c.tick, x, y, vx, vy, c.x, c.y)
		}
	}
	if _, y, _, vy := sn.At(630); math.Abs(y-200) > 1e-9 || math.Abs(vy-(-40*2*math.Pi/2)) > 1e-9 {
		t.Errorf("Sine at a quarter period: y %v vy %v", y, vy)
	}
	// Period 0: the centre line; unknown models stay at (x0, y0).
	flat := sn
	flat.Period = 0
	if _, y, _, vy := flat.At(630); y != 200 || vy != 0 {
		t.Errorf("period 0: y %v vy %v", y, vy)
	}
	unk := lin
	unk.Model = 3
	if x, y, vx, vy := unk.At(500); x != 100 || y != -2 || vx != 0 || vy != 0 {
		t.Errorf("model 3: (%v, %v, %v, %v)", x, y, vx, vy)
	}
	// The example of PROTOCOL.md 7.6, half a turn after its spawn.
	if x, y, vx, vy := exSineBydos.At(642); x != 1240 || math.Abs(y-200) > 1e-9 || vx != -120 ||
		math.Abs(vy-(-40*math.Pi)) > 1e-9 || exBydosAnim.Frame(exSineBydos.T0, 642) != 5 {
		t.Errorf("7.6 example at tick 642: (%v, %v, %v, %v)", x, y, vx, vy)
	}
	if vx, vy := lin.Velocity(); vx != 360 || vy != -10 {
		t.Errorf("Velocity %v %v", vx, vy)
	}
}

func TestQuantizeMotion(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want int16
	}{{0, 0}, {1.0 / 16, 1}, {-1.0 / 16, -1}, {100, 800}, {4095.875, 32767}, {5000, 32767}, {-4096, -32768}, {-5000, -32768}, {math.NaN(), 0}} {
		if got := wire.QuantizePos(c.v); got != c.want {
			t.Errorf("QuantizePos(%v) = %d, want %d", c.v, got, c.want)
		}
	}
	if wire.QuantizeVel(360) != 5760 || wire.QuantizeVel(360/math.Sqrt2) != 4073 || wire.QuantizeVel(1e9) != 32767 {
		t.Error("QuantizeVel")
	}
	if wire.QuantizeAmp(-1) != 0 || wire.QuantizeAmp(40) != 320 || wire.QuantizeAmp(1e9) != 65535 || wire.QuantizeAmp(math.NaN()) != 0 {
		t.Error("QuantizeAmp")
	}
	for _, c := range []struct {
		rad  float64
		want uint16
	}{{0, 0}, {math.Pi, 32768}, {2 * math.Pi, 0}, {-math.Pi / 2, 49152}, {math.NaN(), 0}, {math.Inf(1), 0}} {
		if got := wire.QuantizePhase(c.rad); got != c.want {
			t.Errorf("QuantizePhase(%v) = %d, want %d", c.rad, got, c.want)
		}
	}
}

func TestAnimFrame(t *testing.T) {
	a := wire.Anim{Frame0: 0, Ticks: 6, Count: 8}
	for _, c := range []struct {
		tick float64
		want uint8
	}{{100, 0}, {105, 0}, {106, 1}, {147.9, 7}, {148, 0}, {99, 7}, {94, 7}, {93.5, 6}} {
		if got := a.Frame(100, c.tick); got != c.want {
			t.Errorf("Frame at %v = %d, want %d", c.tick, got, c.want)
		}
	}
	if (wire.Anim{Frame0: 5, Ticks: 2, Count: 8}).Frame(0, 4) != 7 || (wire.Anim{Frame0: 5, Ticks: 2, Count: 8}).Frame(0, 6) != 0 {
		t.Error("Frame0 offset")
	}
	for _, a := range []wire.Anim{{Frame0: 9}, {Frame0: 9, Ticks: 3, Count: 1}, {Frame0: 9, Count: 8}} {
		if a.Frame(0, 1000) != 9 {
			t.Errorf("%+v is not constant", a)
		}
	}
}

func TestFrame(t *testing.T) {
	r := vocabtest.NewRand(t, 28)
	var ring [4]Frame
	var enc SnapshotEncoder
	world := randWorld(r, 120, 1000)
	players := randPlayers(r, 1000)
	ring[0].Set(1000, players, world)
	world[3].F[FieldX0]++ // the frame is a copy
	if ring[0].Entities[3].F[FieldX0] == world[3].F[FieldX0] {
		t.Fatal("Set does not copy")
	}
	got, _ := rebuild(t, enc.EncodeFrame(&ring[0], nil), MaxPayload, 1000, players, nil, nil, 0)
	if !slices.Equal(got, ring[0].Entities) {
		t.Fatal("full frame rebuilt wrong")
	}
	var empty Frame
	empty.Set(997, players, nil)
	got, _ = rebuild(t, enc.EncodeFrame(&ring[0], &empty), MaxPayload, 1000, players, players, []Entity{}, 3)
	if !slices.Equal(got, ring[0].Entities) {
		t.Fatal("frame against an empty baseline rebuilt wrong")
	}
	tick := uint32(1000)
	step := func() {
		cur, base := &ring[(tick/3+1)%4], &ring[(tick/3)%4]
		world = mutate(r, base.Entities, tick+3)
		cur.Set(tick+3, players, world)
		enc.EncodeFrame(cur, base)
		tick += 3
	}
	for range 20 {
		step()
	}
	cur, base := ring[(tick/3)%4], ring[(tick/3+3)%4]
	got, _ = rebuild(t, enc.EncodeFrame(&cur, &base), MaxPayload, tick, players, players, base.Entities, 3)
	if !slices.Equal(got, cur.Entities) {
		t.Fatal("delta frame rebuilt wrong")
	}
}
