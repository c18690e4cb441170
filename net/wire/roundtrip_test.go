package wire

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"rtype/vocab/vocabtest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Property tests: random worlds, events and messages, from a fixed seed so
// that a failure is reproducible.

// cmpID orders entities as a snapshot does (Less).
func cmpID(a, b Entity) int {
	switch {
	case Less(a.ID, b.ID):
		return -1
	case Less(b.ID, a.ID):
		return 1
	}
	return 0
}

// randPos returns a position in pixels: mostly in the play area, sometimes
// out of the wire's range (clamped), sometimes on an exact half step.
func randPos(r *rand.Rand) float32 {
	switch r.IntN(8) {
	case 0:
		return float32(r.Float64()*10000 - 5000) // far out of range, too
	case 1:
		return float32(r.IntN(65536)-32768) / 16 // halves of an eighth
	case 2:
		return []float32{-2048, 2047.875, 2047.9375, -2048.0625, 2048, -2049, 0, -0.0625}[r.IntN(8)]
	case 3:
		return float32(r.Float64()*4096 - 2048)
	}
	return float32(r.Float64()*1380 - 50)
}

func randVel(r *rand.Rand) float32 {
	switch r.IntN(6) {
	case 0:
		return float32(r.Float64()*6000 - 3000)
	case 1:
		return float32(r.IntN(8192)-4096) / 2 // halves
	case 2:
		return 0
	}
	return float32(r.Float64()*1800 - 900)
}

func randEntity(r *rand.Rand, id uint32) Entity {
	return MakeEntity(id, uint8(1+r.IntN(7)), randPos(r), randPos(r), randVel(r), randVel(r), r.IntN(21))
}

// randWorld returns n entities of distinct network ids, sorted by Less.
func randWorld(r *rand.Rand, n int) []Entity {
	seen := make(map[uint32]bool, n)
	w := make([]Entity, 0, n)
	for len(w) < n {
		id := MakeID(vocabtest.RandIndex(r, n), uint8(r.IntN(4)*r.IntN(64)))
		if seen[id] {
			continue
		}
		seen[id] = true
		w = append(w, randEntity(r, id))
	}
	slices.SortFunc(w, cmpID)
	return w
}

// mutate returns the world a few ticks after base: moves, velocity and
// frame changes, removals, additions, an index reused with another
// generation, the same id with another kind.
func mutate(r *rand.Rand, base []Entity) []Entity {
	cur := make([]Entity, 0, len(base)+16)
	seen := make(map[uint32]bool, len(base)+16)
	add := func(e Entity) {
		if !seen[e.ID] {
			seen[e.ID] = true
			cur = append(cur, e)
		}
	}
	for _, e := range base {
		seen[e.ID] = true // never re-add a removed id as a fresh one by accident
	}
	churn := r.IntN(4) == 0 // now and then, nearly everything changes
	for _, e := range base {
		k := r.IntN(20)
		if churn {
			k = r.IntN(6)
		}
		switch k {
		case 0: // removed
		case 1: // removed, its index reused with another generation
			id := MakeID(Index(e.ID), Generation(e.ID)+uint8(1+r.IntN(255)))
			if !seen[id] {
				seen[id] = true
				cur = append(cur, randEntity(r, id))
			}
		case 2: // the same id, another kind
			e.Kind = e.Kind%7 + 1
			cur = append(cur, e)
		case 3: // velocity change
			e2 := MakeEntity(e.ID, e.Kind, e.X(), e.Y(), randVel(r), randVel(r), int(e.Frame()))
			cur = append(cur, e2)
		case 4: // frame change
			e.F[FieldFrame] = int32(r.IntN(16))
			cur = append(cur, e)
		case 5: // teleport
			cur = append(cur, MakeEntity(e.ID, e.Kind, randPos(r), randPos(r), e.VX(), e.VY(), int(e.Frame())))
		case 6, 7, 8, 9, 10, 11, 12, 13: // moves in x (and sometimes y)
			dy := float32(0)
			if k&1 == 0 {
				dy = float32(r.IntN(81)-40) / 8
			}
			cur = append(cur, MakeEntity(e.ID, e.Kind, e.X()+float32(r.IntN(161)-80)/8, e.Y()+dy, e.VX(), e.VY(), int(e.Frame())))
		default: // unchanged
			cur = append(cur, e)
		}
	}
	for n := r.IntN(10); n > 0; n-- {
		add(randEntity(r, MakeID(vocabtest.RandIndex(r, len(base)), uint8(r.IntN(256)))))
	}
	if churn && r.IntN(2) == 0 {
		for _, e := range randWorld(r, r.IntN(200)) {
			add(e)
		}
	}
	slices.SortFunc(cur, cmpID)
	return cur
}

// rebuild decodes every payload of one snapshot and applies its records to
// base, datagram after datagram, as a client does. It checks what every
// datagram of the snapshot must carry and returns the world and the
// number of records.
func rebuild(t *testing.T, payloads [][]byte, limit int, tick uint32, players []PlayerState, base []Entity, age uint32) ([]Entity, int) {
	t.Helper()
	world, tmp := base, []Entity(nil)
	var s Snapshot
	nrec := 0
	for k, p := range payloads {
		if len(p) > limit {
			t.Fatalf("payload %d is %d bytes, over %d", k, len(p), limit)
		}
		dg := append(AppendHeader(nil, Header{Type: TypeSnapshot, Seq: uint16(k), Session: 1}), p...)
		if len(dg) > MaxDatagram {
			t.Fatalf("datagram %d is %d bytes", k, len(dg))
		}
		if _, pp, err := ParseHeader(dg, ToClient); err != nil || !bytes.Equal(pp, p) {
			t.Fatalf("datagram %d: %v", k, err)
		}
		if err := s.Decode(p); err != nil {
			t.Fatalf("payload %d of %d: %v", k, len(payloads), err)
		}
		if s.Tick != tick || s.HasBaseline != (base != nil) || s.BaselineAge != age {
			t.Fatalf("payload %d: tick %d baseline %v age %d", k, s.Tick, s.HasBaseline, s.BaselineAge)
		}
		if !slices.Equal(s.PlayerStates(), players) && !(len(players) == 0 && s.NumPlayers == 0) {
			t.Fatalf("payload %d: players\n got %+v\nwant %+v", k, s.PlayerStates(), players)
		}
		if len(s.Records) == 0 && len(payloads) > 1 {
			t.Fatalf("payload %d of %d has no record", k, len(payloads))
		}
		// A payload is only closed when the next record does not fit.
		if k > 0 {
			var prev Snapshot
			if err := prev.Decode(payloads[k-1]); err != nil {
				t.Fatal(err)
			}
			last := prev.Records[len(prev.Records)-1]
			next := s.Records[0]
			bits := len(payloads[k-1])*8 + VarintBits(Index(next.ID)-Index(last.ID)) + recordBits(&next)
			if bits <= limit*8 {
				t.Fatalf("payload %d closed at %d bytes, yet the next record (%d bits) fit", k-1, len(payloads[k-1]), bits-len(payloads[k-1])*8)
			}
		}
		nrec += len(s.Records)
		var err error
		tmp, err = ApplyRecords(tmp[:0], world, s.Records)
		if err != nil {
			t.Fatalf("payload %d: %v", k, err)
		}
		if k == 0 {
			world = nil // from now on, world is ours to reuse
		}
		world, tmp = tmp, world
	}
	return world, nrec
}

func TestRoundTripFull(t *testing.T) {
	r := vocabtest.NewRand(t, 1)
	var enc SnapshotEncoder
	for it := 0; it < 1500; it++ {
		world := randWorld(r, vocabtest.RandWorldSize(r))
		players := vocabtest.RandStates(r, MaxPlayers)
		tick := r.Uint32()
		payloads := enc.Encode(tick, players, nil, 0, world)
		got, nrec := rebuild(t, payloads, MaxPayload, tick, players, nil, 0)
		if !slices.Equal(got, world) {
			t.Fatalf("iteration %d: %d entities rebuilt as %d", it, len(world), len(got))
		}
		if nrec != len(world) {
			t.Fatalf("iteration %d: %d records for %d entities", it, nrec, len(world))
		}
		// ~120 added records per datagram at most, so the split count is
		// bounded from below, and a small world is one datagram.
		if min := (len(world) + 119) / 120; len(payloads) < min {
			t.Fatalf("%d entities in %d datagrams", len(world), len(payloads))
		}
		if len(world) <= 80 && len(payloads) != 1 {
			t.Fatalf("%d entities in %d datagrams", len(world), len(payloads))
		}
	}
}

func TestRoundTripDelta(t *testing.T) {
	r := vocabtest.NewRand(t, 2)
	var enc, diff SnapshotEncoder
	for it := 0; it < 1500; it++ {
		base := randWorld(r, vocabtest.RandWorldSize(r))
		cur := mutate(r, base)
		players := vocabtest.RandStates(r, MaxPlayers)
		age := 1 + r.Uint32N(64)
		tick := age + r.Uint32N(1<<31)
		payloads := enc.Encode(tick, players, base, tick-age, cur)
		got, nrec := rebuild(t, payloads, MaxPayload, tick, players, base, age)
		if !slices.Equal(got, cur) {
			t.Fatalf("iteration %d: base %d, want %d entities, got %d", it, len(base), len(cur), len(got))
		}
		if want := len(diff.Diff(base, cur)); nrec != want {
			t.Fatalf("iteration %d: %d records, Diff has %d", it, nrec, want)
		}
	}
}

// The records on the wire are exactly those of Diff, in its order.
func TestDiffRecords(t *testing.T) {
	r := vocabtest.NewRand(t, 3)
	var enc, diff SnapshotEncoder
	var s Snapshot
	for it := 0; it < 300; it++ {
		base := randWorld(r, vocabtest.RandWorldSize(r))
		cur := mutate(r, base)
		want := diff.Diff(base, cur)
		var got []Record
		for _, p := range enc.Encode(100, nil, base, 99, cur) {
			if err := s.Decode(p); err != nil {
				t.Fatal(err)
			}
			got = append(got, s.Records...)
		}
		if len(got) != len(want) {
			t.Fatalf("%d records, want %d", len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.ID != w.ID || g.Change != w.Change || g.Fields != w.Fields {
				t.Fatalf("record %d: got %+v want %+v", i, g, w)
			}
			switch w.Change {
			case Added:
				if g.Entity != w.Entity {
					t.Fatalf("added %d: %+v want %+v", i, g.Entity, w.Entity)
				}
			case Updated:
				for f := range fields {
					if w.Fields&fields[f].mask != 0 && g.F[f] != w.F[f] {
						t.Fatalf("updated %d field %d", i, f)
					}
				}
			}
		}
	}
}

func TestDiffCases(t *testing.T) {
	base := []Entity{
		MakeEntity(1, 1, 10, 10, 0, 0, 0),
		MakeEntity(2, 3, 10, 10, 5, 0, 0),
		MakeEntity(3, 3, 10, 10, 0, 0, 0),
		MakeEntity(4, 4, 10, 10, 0, 0, 0),
		MakeEntity(5, 4, 10, 10, 0, 0, 0),
	}
	cur := []Entity{
		MakeEntity(1, 1, 10, 10, 0, 0, 0),                   // unchanged: no record
		MakeEntity(2, 3, 10, 10, 5, 1, 0),                   // vy: vx and vy together
		MakeEntity(3, 2, 10, 10, 0, 0, 0),                   // another kind: added
		MakeEntity(MakeID(4, 1), 4, 10, 10, 0, 0, 0),        // another generation
		MakeEntity(5, 4, 10.0625, 10, 0, 0, 0),              // moved by half an eighth: x rounds to 81
		MakeEntity(6, 4, 10, 10, 0, 0, 30),                  // new, frame 30 sent as 15
		MakeEntity(MakeID(6, 1), 4, 10.01, 10.01, 0, 0, 30), // same index, next generation
	}
	var enc SnapshotEncoder
	recs := enc.Diff(base, cur)
	want := []struct {
		id     uint32
		change Change
		fields uint8
	}{
		{2, Updated, MaskVel},
		{3, Added, 0},
		{4, Removed, 0},
		{MakeID(4, 1), Added, 0},
		{5, Updated, MaskX},
		{6, Added, 0},
		{MakeID(6, 1), Added, 0},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	for i, w := range want {
		if recs[i].ID != w.id || recs[i].Change != w.change || recs[i].Fields != w.fields {
			t.Errorf("record %d: got %+v, want %+v", i, recs[i], w)
		}
	}
	// Nothing changed: no record; everything gone: all removed.
	if recs := enc.Diff(base, base); len(recs) != 0 {
		t.Errorf("same world: %d records", len(recs))
	}
	if recs := enc.Diff(base, nil); len(recs) != len(base) || recs[0].Change != Removed {
		t.Errorf("empty world: %+v", recs)
	}
}

// A client that has only some datagrams of a multi-datagram snapshot keeps
// the baseline's values for the entities of the others (4.8 step 4).
func TestRoundTripPartial(t *testing.T) {
	r := vocabtest.NewRand(t, 4)
	var enc SnapshotEncoder
	var s Snapshot
	for it := 0; it < 50; it++ {
		base := randWorld(r, 400+r.IntN(200))
		cur := mutate(r, base)
		payloads := enc.Encode(1000, nil, base, 997, cur)
		if len(payloads) < 2 {
			continue
		}
		// Apply them in reverse order: the result is the same.
		world := base
		for k := len(payloads) - 1; k >= 0; k-- {
			if err := s.Decode(payloads[k]); err != nil {
				t.Fatal(err)
			}
			var err error
			if world, err = ApplyRecords(nil, world, s.Records); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(world, cur) {
			t.Fatalf("reverse order: rebuilt world differs")
		}
	}
}

// 118 dense entities with the player of 4.7 fill one datagram exactly:
// 79 bits of header and player, then 118 added records of 79 bits.
func TestSplitPoint(t *testing.T) {
	dense := func(n int) []Entity {
		w := make([]Entity, n)
		for i := range w {
			w[i] = MakeEntity(uint32(i), KindBydosSlave, float32(i), 100, -120, 0, i)
		}
		return w
	}
	var enc SnapshotEncoder
	for _, tc := range []struct{ n, datagrams int }{{0, 1}, {1, 1}, {100, 1}, {118, 1}, {119, 2}, {236, 2}, {237, 3}, {600, 6}} {
		payloads := enc.Encode(600, seedPlayers, nil, 0, dense(tc.n))
		if len(payloads) != tc.datagrams {
			t.Errorf("%d entities: %d datagrams, want %d", tc.n, len(payloads), tc.datagrams)
		}
		if tc.n == 118 && len(payloads[0]) != (79+118*79+7)/8 {
			t.Errorf("118 entities: %d bytes", len(payloads[0]))
		}
		world, nrec := rebuild(t, payloads, MaxPayload, 600, seedPlayers, nil, 0)
		if nrec != tc.n || !slices.Equal(world, dense(tc.n)) {
			t.Errorf("%d entities: rebuilt %d", tc.n, len(world))
		}
	}
}

func TestRoundTripSmallPayload(t *testing.T) {
	r := vocabtest.NewRand(t, 5)
	for _, limit := range []int{64, 100} {
		enc := SnapshotEncoder{MaxPayload: limit}
		for it := 0; it < 300; it++ {
			base := randWorld(r, r.IntN(80))
			cur := mutate(r, base)
			// Two players with the largest records at most, so that
			// the header and one record always fit in 64 bytes.
			players := vocabtest.RandStates(r, 2)
			payloads := enc.Encode(5000, players, nil, 0, base)
			got, _ := rebuild(t, payloads, limit, 5000, players, nil, 0)
			if !slices.Equal(got, base) {
				t.Fatalf("full, limit %d: rebuilt differs", limit)
			}
			payloads = enc.Encode(5000, players, base, 4999, cur)
			got, _ = rebuild(t, payloads, limit, 5000, players, base, 1)
			if !slices.Equal(got, cur) {
				t.Fatalf("delta, limit %d: rebuilt differs", limit)
			}
		}
	}
}

// The encoder reuses its buffers: payloads of an earlier call are only
// valid until the next, but a call must not corrupt its own payloads.
func TestEncoderReuse(t *testing.T) {
	r := vocabtest.NewRand(t, 6)
	var enc SnapshotEncoder
	for it := 0; it < 200; it++ {
		world := randWorld(r, vocabtest.RandWorldSize(r))
		payloads := enc.Encode(uint32(it), nil, nil, 0, world)
		var fresh SnapshotEncoder
		want := fresh.Encode(uint32(it), nil, nil, 0, world)
		if len(payloads) != len(want) {
			t.Fatalf("%d payloads, fresh encoder %d", len(payloads), len(want))
		}
		for k := range want {
			if !bytes.Equal(payloads[k], want[k]) {
				t.Fatalf("payload %d differs from a fresh encoder's", k)
			}
		}
	}
}

func TestQuantize(t *testing.T) {
	tests := []struct {
		field int
		v     float32
		want  int32
	}{
		{FieldX, 0.0625, 1}, // half an eighth: away from zero
		{FieldX, -0.0625, -1},
		{FieldX, 0.0624, 0},
		{FieldX, 0.1875, 2}, // 1.5 eighths
		{FieldX, -0.1875, -2},
		{FieldX, 100, 800},
		{FieldY, 360, 2880},
		{FieldX, 2047.875, 16383},
		{FieldX, 2047.9375, 16383}, // rounds to 16384: clamped
		{FieldX, 5000, 16383},
		{FieldX, -2048, -16384},
		{FieldX, -2048.0625, -16384},
		{FieldX, -5000, -16384},
		{FieldY, 5000, 16383},
		{FieldY, -5000, -16384},
		{FieldX, float32(math.Inf(1)), 16383},
		{FieldX, float32(math.Inf(-1)), -16384},
		{FieldX, float32(math.NaN()), 0},
		{FieldVX, 0.5, 1},
		{FieldVX, -0.5, -1},
		{FieldVX, 0.49, 0},
		{FieldVX, 2.5, 3},
		{FieldVX, -2.5, -3},
		{FieldVY, 0.5, 1},
		{FieldVY, -0.5, -1},
		{FieldVX, 2047, 2047},
		{FieldVX, 2047.5, 2047},
		{FieldVX, 3000, 2047},
		{FieldVX, -3000, -2048},
		{FieldVY, 3000, 2047},
		{FieldVY, -3000, -2048},
		{FieldVX, -2048, -2048},
		{FieldVX, -2048.5, -2048},
	}
	for _, tc := range tests {
		var in [4]float32
		in[tc.field] = tc.v
		e := MakeEntity(1, 1, in[0], in[1], in[2], in[3], 0)
		if got := e.F[tc.field]; got != tc.want {
			t.Errorf("field %d of %v: got %d, want %d", tc.field, tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want int }{{0, 0}, {15, 15}, {16, 15}, {20, 15}, {1 << 30, 15}, {-1, 0}} {
		if e := MakeEntity(1, 1, 0, 0, 0, 0, tc.in); e.Frame() != uint8(tc.want) {
			t.Errorf("frame %d: got %d, want %d", tc.in, e.Frame(), tc.want)
		}
	}
	e := MakeEntity(1, 1, -0.125, 1.5, -7, 8, 3)
	if e.X() != -0.125 || e.Y() != 1.5 || e.VX() != -7 || e.VY() != 8 || e.Frame() != 3 {
		t.Errorf("accessors: %v %v %v %v %v", e.X(), e.Y(), e.VX(), e.VY(), e.Frame())
	}
	// The error within the range is at most 1/16 pixel and 0.5 pixel per
	// second, and survives the trip through a snapshot.
	r := vocabtest.NewRand(t, 7)
	var enc SnapshotEncoder
	var s Snapshot
	for i := 0; i < 3000; i++ {
		x := float32(r.Float64()*4095.875 - 2048)
		y := float32(r.Float64()*4095.875 - 2048)
		vx := float32(r.Float64()*4095 - 2048)
		vy := float32(r.Float64()*4095 - 2048)
		e := MakeEntity(uint32(i), 1, x, y, vx, vy, 0)
		if err := s.Decode(enc.Encode(1, nil, nil, 0, []Entity{e})[0]); err != nil {
			t.Fatal(err)
		}
		d := s.Records[0].Entity
		if math.Abs(float64(x-d.X())) > 1.0/16 || math.Abs(float64(y-d.Y())) > 1.0/16 ||
			math.Abs(float64(vx-d.VX())) > 0.5 || math.Abs(float64(vy-d.VY())) > 0.5 {
			t.Fatalf("(%v,%v,%v,%v) came back as (%v,%v,%v,%v)", x, y, vx, vy, d.X(), d.Y(), d.VX(), d.VY())
		}
	}
}

// ---- events --------------------------------------------------------------

func TestRoundTripEvents(t *testing.T) {
	r := vocabtest.NewRand(t, 8)
	var frames []EventFrame
	var buf, payload []byte
	for it := 0; it < 2000; it++ {
		ev := vocabtest.RandEvent(r)
		buf = AppendEvent(buf[:0], &ev)
		if len(buf) > MaxEventSize {
			t.Fatalf("%v is %d bytes", ev.Type, len(buf))
		}
		var got Event
		if err := ParseEvent(buf, &got); err != nil || !vocabtest.SameEvent(got, ev) {
			t.Fatalf("%v: %v\n got %+v\nwant %+v", ev.Type, err, got, ev)
		}
		if ev.Type != EventPlayerJoined && ev.Type != EventGameOver && len(buf) != EventSizes[ev.Type] {
			t.Fatalf("%v: %d bytes", ev.Type, len(buf))
		}
	}
	// Framed: count, then id, length and bytes of each.
	for it := 0; it < 500; it++ {
		n := 1 + r.IntN(8)
		if it%50 == 0 {
			n = 255 // the most a payload frames (it may exceed a datagram)
		}
		evs := make([]Event, n)
		payload = append(payload[:0], byte(n))
		id0 := uint16(r.Uint32())
		for i := range evs {
			evs[i] = vocabtest.RandEvent(r)
			buf = AppendEvent(buf[:0], &evs[i])
			payload = AppendEventFrame(payload, id0+uint16(i), buf)
		}
		var err error
		frames, err = ParseEventFrames(payload, frames[:0])
		if err != nil || len(frames) != n {
			t.Fatalf("%d events: %v, %d frames", n, err, len(frames))
		}
		for i, f := range frames {
			var got Event
			if f.ID != uint32(id0+uint16(i)) {
				t.Fatalf("frame %d: id %d", i, f.ID)
			}
			if err := ParseEvent(f.Data, &got); err != nil || !vocabtest.SameEvent(got, evs[i]) {
				t.Fatalf("frame %d: %v", i, err)
			}
		}
	}
}

// ---- TCP messages --------------------------------------------------------

func randMessage(r *rand.Rand) Message {
	m := Message{Type: MsgType(1 + r.IntN(4))}
	switch m.Type {
	case MsgLoginRequest:
		m.Version, m.Name = uint8(r.IntN(256)), vocabtest.RandName(r, 40)
		if r.IntN(10) == 0 {
			m.Name = vocabtest.RandName(r, MaxFrame-4)
		}
	case MsgLoginAccepted:
		m.Player, m.Session, m.Tick = uint8(r.IntN(4)), 1+r.Uint32N(0xFFFFFFFF), r.Uint32()
		for i := range m.Token {
			m.Token[i] = byte(r.Uint32())
		}
	case MsgLoginRejected:
		m.Reason, m.Text = uint8(r.IntN(256)), vocabtest.RandName(r, MaxFrame-4)
	case MsgLogout:
		m.Reason = uint8(r.IntN(256))
	}
	return m
}

func TestRoundTripMessages(t *testing.T) {
	r := vocabtest.NewRand(t, 9)
	for it := 0; it < 200; it++ {
		msgs := make([]Message, 1+r.IntN(20))
		var stream []byte
		for i := range msgs {
			msgs[i] = randMessage(r)
			at := len(stream)
			stream = AppendMessage(stream, &msgs[i])
			if n := len(stream) - at; n < 3 || n > 2+MaxFrame {
				t.Fatalf("%v frame of %d bytes", msgs[i].Type, n)
			}
		}
		fr := FrameReader{R: bytes.NewReader(stream)}
		if it%2 == 1 {
			fr.R = oneByteReader{bytes.NewReader(stream)} // short reads
		}
		for i, want := range msgs {
			got, err := fr.ReadMessage()
			if err != nil || got != want {
				t.Fatalf("message %d: %v\n got %+v\nwant %+v", i, err, got, want)
			}
		}
		if _, err := fr.ReadMessage(); err != io.EOF {
			t.Fatalf("end: got %v, want io.EOF", err)
		}
	}
}

// oneByteReader returns at most one byte per Read.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

func TestMessageLongString(t *testing.T) {
	for _, rn := range []string{"a", "é", "€", "😀"} {
		for pre := 0; pre < 4; pre++ {
			long := strings.Repeat("x", pre) + strings.Repeat(rn, 2000)
			for _, m := range []Message{
				{Type: MsgLoginRequest, Version: 1, Name: long},
				{Type: MsgLoginRejected, Reason: RejectInvalidName, Text: long},
			} {
				b := AppendMessage([]byte{0xAA}, &m)[1:]
				if len(b) > 2+MaxFrame {
					t.Fatalf("%q: frame of %d bytes", rn, len(b))
				}
				got, err := ParseMessage(b[2:])
				if err != nil {
					t.Fatalf("%q+%d: %v", rn, pre, err)
				}
				s := got.Name + got.Text
				if !strings.HasPrefix(long, s) || !utf8.ValidString(s) || len(s) <= MaxFrame-4-utf8.UTFMax {
					t.Fatalf("%q+%d: cut to %d bytes", rn, pre, len(s))
				}
			}
		}
	}
}

// ---- bits ----------------------------------------------------------------

func TestBitsRoundTrip(t *testing.T) {
	r := vocabtest.NewRand(t, 10)
	type op struct {
		kind int // 0 bits, 1 signed, 2 varint, 3 bool
		n    int
		v    uint32
	}
	var w BitWriter
	var rd BitReader
	for it := 0; it < 2000; it++ {
		ops := make([]op, r.IntN(100))
		w.Reset()
		bits := 0
		for i := range ops {
			o := op{kind: r.IntN(4), n: r.IntN(33)}
			switch o.kind {
			case 0:
				o.v = r.Uint32() & uint32(uint64(1)<<o.n-1)
				w.WriteBits(o.v, o.n)
				bits += o.n
			case 1:
				if o.n == 0 {
					o.n = 1
				}
				sv := int32(r.Uint32()) >> (32 - o.n)
				o.v = uint32(sv)
				w.WriteSigned(sv, o.n)
				bits += o.n
			case 2:
				o.v = r.Uint32() >> r.IntN(32)
				w.WriteVarint(o.v)
				bits += VarintBits(o.v)
			case 3:
				o.v = r.Uint32N(2)
				w.WriteBool(o.v == 1)
				bits++
			}
			ops[i] = o
			if w.Len() != bits {
				t.Fatalf("Len %d, want %d", w.Len(), bits)
			}
		}
		if len(w.Bytes()) != (bits+7)/8 {
			t.Fatalf("%d bytes for %d bits", len(w.Bytes()), bits)
		}
		rd.Reset(w.Bytes())
		for i, o := range ops {
			var got uint32
			switch o.kind {
			case 0:
				got = rd.ReadBits(o.n)
			case 1:
				got = uint32(rd.ReadSigned(o.n))
			case 2:
				got = rd.ReadVarint()
			case 3:
				if rd.ReadBool() {
					got = 1
				}
			}
			if got != o.v {
				t.Fatalf("op %d %+v: read %#x", i, o, got)
			}
		}
		if err := rd.Finish(); err != nil {
			t.Fatalf("finish: %v", err)
		}
		// One more bit than written is always past the end: the padding
		// is not data.
		if rd.Remaining() < 8 {
			rd.ReadBits(rd.Remaining() + 1)
			if !errors.Is(rd.Err(), ErrTruncated) {
				t.Fatalf("read past the end: %v", rd.Err())
			}
			if rd.ReadBits(1) != 0 || rd.ReadVarint() != 0 || !errors.Is(rd.Finish(), ErrTruncated) {
				t.Fatal("reads after an error")
			}
		}
	}
}

func TestVarintBoundaries(t *testing.T) {
	tests := []struct {
		v      uint32
		groups int
	}{
		{0, 1}, {1, 1}, {127, 1}, {128, 2}, {16383, 2}, {16384, 3},
		{1<<21 - 1, 3}, {1 << 21, 4}, {1<<28 - 1, 4}, {1 << 28, 5}, {1<<32 - 1, 5},
	}
	for _, tc := range tests {
		var w BitWriter
		w.WriteBits(1, 3) // not byte-aligned
		w.WriteVarint(tc.v)
		if w.Len()-3 != 8*tc.groups || VarintBits(tc.v) != 8*tc.groups {
			t.Errorf("%d: %d bits, VarintBits %d, want %d groups", tc.v, w.Len()-3, VarintBits(tc.v), tc.groups)
		}
		var r BitReader
		r.Reset(w.Bytes())
		r.ReadBits(3)
		if got := r.ReadVarint(); got != tc.v || r.Finish() != nil {
			t.Errorf("%d: read %d, %v", tc.v, got, r.Finish())
		}
		// Without its last byte, it is truncated.
		r.Reset(w.Bytes()[:len(w.Bytes())-1])
		r.ReadBits(3)
		if got := r.ReadVarint(); got != 0 || !errors.Is(r.Err(), ErrTruncated) {
			t.Errorf("%d cut: read %d, %v", tc.v, got, r.Err())
		}
	}
	// The 4.7 example's groups.
	var w BitWriter
	w.WriteVarint(2)
	w.WriteVarint(100)
	if !bytes.Equal(w.Bytes(), []byte{0x02, 0x64}) {
		t.Errorf("varints 2, 100: % X", w.Bytes())
	}
	w.Reset()
	w.WriteVarint(300) // 0101100 1, 0000010 0
	if !bytes.Equal(w.Bytes(), []byte{0xAC, 0x02}) {
		t.Errorf("varint 300: % X", w.Bytes())
	}
}

func TestBitsLayout(t *testing.T) {
	// Bits fill each byte from its least significant bit (1.4).
	var w BitWriter
	w.WriteBool(true)
	w.WriteBits(0, 2)
	w.WriteBits(0b101, 3)
	w.WriteSigned(-1, 4) // 1111, across the byte boundary
	w.WriteBits(0xABC, 12)
	want := []byte{0b11101001, 0b11110011, 0b00101010}
	if !bytes.Equal(w.Bytes(), want) || w.Len() != 22 {
		t.Fatalf("got %08b (%d bits), want %08b", w.Bytes(), w.Len(), want)
	}
	var r BitReader
	r.Reset(want)
	if !r.ReadBool() || r.ReadBits(2) != 0 || r.ReadBits(3) != 5 || r.ReadSigned(4) != -1 || r.ReadBits(12) != 0xABC || r.Remaining() != 2 || r.Finish() != nil {
		t.Fatal("read back")
	}
	// Signed extremes.
	for _, n := range []int{1, 2, 12, 15, 32} {
		lo, hi := int32(-1)<<(n-1), int32(uint32(1)<<(n-1)-1)
		w.Reset()
		w.WriteSigned(lo, n)
		w.WriteSigned(hi, n)
		r.Reset(w.Bytes())
		if a, b := r.ReadSigned(n), r.ReadSigned(n); a != lo || b != hi {
			t.Errorf("s%d: %d %d, want %d %d", n, a, b, lo, hi)
		}
	}
	// Reset keeps no state.
	r.Reset(nil)
	if r.Err() != nil || r.Remaining() != 0 || r.Finish() != nil {
		t.Fatal("reset")
	}
	if r.ReadBits(0) != 0 || r.Err() != nil {
		t.Fatal("reading 0 bits of nothing")
	}
}
