package link

import (
	"errors"
	"math/rand/v2"
	"testing"

	"rtype/net/wire"
)

var testPlayers = []wire.PlayerState{
	{Player: 0, HasShip: true, Ship: wire.MakeID(1, 0), Lives: 3, Score: 100},
	{Player: 2, Ship: wire.NoEntity, Lives: 0, Score: 7},
}

// rebuildAll rebuilds every datagram and returns the last result.
func rebuildAll(tb testing.TB, b *Rebuilder, snaps []*wire.Snapshot) *Rebuilt {
	tb.Helper()
	var r *Rebuilt
	for _, s := range snaps {
		var err error
		if r, err = b.Rebuild(s); err != nil {
			tb.Fatalf("Rebuild of tick %d: %v", s.Tick, err)
		}
	}
	return r
}

func checkRebuilt(tb testing.TB, r *Rebuilt, tick uint32, players []wire.PlayerState, ents []wire.Entity) {
	tb.Helper()
	if r.Tick != tick {
		tb.Fatalf("tick %d, want %d", r.Tick, tick)
	}
	if !equalEntities(r.Entities, ents) {
		tb.Fatalf("tick %d: %d entities rebuilt, differ from the sender's %d", tick, len(r.Entities), len(ents))
	}
	ps := r.PlayerStates()
	if len(ps) != len(players) {
		tb.Fatalf("tick %d: %d players, want %d", tick, len(ps), len(players))
	}
	for i := range ps {
		if ps[i] != players[i] {
			tb.Fatalf("tick %d: player %+v, want %+v", tick, ps[i], players[i])
		}
	}
}

func TestRebuildFullThenDelta(t *testing.T) {
	var b Rebuilder
	w0 := world(10, 0)
	r := rebuildAll(t, &b, encode(t, 600, testPlayers, nil, 0, w0, 0))
	checkRebuilt(t, r, 600, testPlayers, w0)
	if r.HasBaseline || r.Parts != 1 {
		t.Fatalf("full snapshot: HasBaseline %v Parts %d", r.HasBaseline, r.Parts)
	}
	if g := b.Get(600); g == nil || !equalEntities(g.Entities, w0) {
		t.Fatal("full snapshot not kept")
	}
	// A delta: some moved, one removed, one added, one kind changed.
	w1 := append([]wire.Entity(nil), w0...)
	w1[2].F[wire.FieldX] += 40
	w1[3].F[wire.FieldVX] = -7
	w1[5].F[wire.FieldFrame] = 2
	w1[7].Kind = wire.KindEnemyMissile
	w1 = append(w1[:8], w1[9:]...)
	w1 = append(w1, ent(500, 3, wire.KindBydosSlave, 1300, 200))
	p1 := []wire.PlayerState{testPlayers[0]}
	p1[0].Score = 150
	r = rebuildAll(t, &b, encode(t, 603, p1, w0, 600, w1, 0))
	checkRebuilt(t, r, 603, p1, w1)
	if !r.HasBaseline || r.BaseTick != 600 {
		t.Fatalf("delta: HasBaseline %v BaseTick %d", r.HasBaseline, r.BaseTick)
	}
	// The baseline is untouched.
	checkRebuilt(t, b.Get(600), 600, testPlayers, w0)
	// A delta against the delta.
	w2 := append([]wire.Entity(nil), w1...)
	w2[0].F[wire.FieldY] -= 8
	r = rebuildAll(t, &b, encode(t, 606, p1, w1, 603, w2, 0))
	checkRebuilt(t, r, 606, p1, w2)
	// And one against the full snapshot, still kept.
	r = rebuildAll(t, &b, encode(t, 609, testPlayers, w0, 600, w2, 0))
	checkRebuilt(t, r, 609, testPlayers, w2)
}

// TestRebuildSpecExample rebuilds the two payloads of 4.7 and 4.8.
func TestRebuildSpecExample(t *testing.T) {
	full := []byte{0x58, 0x02, 0x00, 0x00, 0xA1, 0xC0, 0x00, 0x99, 0x00, 0x00, 0x01, 0x80, 0x02, 0x32, 0x00, 0x5A, 0x00, 0x00, 0x00, 0x00}
	delta := []byte{0x5B, 0x02, 0x00, 0x00, 0xA1, 0xC0, 0x00, 0xD9, 0x01, 0x01, 0x00, 0x01, 0x00, 0x0A, 0x69, 0xC0, 0x12, 0x00, 0x30, 0x00, 0xD0, 0x40, 0x51, 0x40, 0x06, 0xC4, 0x07, 0x80, 0x00}
	var b Rebuilder
	var s wire.Snapshot
	if err := s.Decode(delta); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Rebuild(&s); !errors.Is(err, ErrNoBaseline) {
		t.Fatalf("delta before its baseline: %v, want ErrNoBaseline", err)
	}
	if err := s.Decode(full); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Rebuild(&s); err != nil {
		t.Fatal(err)
	}
	if err := s.Decode(delta); err != nil {
		t.Fatal(err)
	}
	r, err := b.Rebuild(&s)
	if err != nil {
		t.Fatal(err)
	}
	want := []wire.Entity{
		wire.MakeEntity(2, wire.KindPlayerShip, 105, 360, 300, 0, 0),
		wire.MakeEntity(5, wire.KindBydosSlave, 1300, 200, -120, 0, 1),
	}
	if r.Tick != 603 || r.BaseTick != 600 || !equalEntities(r.Entities, want) {
		t.Fatalf("rebuilt %+v", r)
	}
}

func TestRebuildNoBaseline(t *testing.T) {
	var b Rebuilder
	w := world(4, 0)
	snaps := encode(t, 30, testPlayers, w, 27, w, 0)
	if _, err := b.Rebuild(snaps[0]); !errors.Is(err, ErrNoBaseline) {
		t.Fatalf("err %v, want ErrNoBaseline", err)
	}
	if b.Get(30) != nil {
		t.Fatal("a failed snapshot was kept")
	}
	rebuildAll(t, &b, encode(t, 24, testPlayers, nil, 0, w, 0))
	if _, err := b.Rebuild(encode(t, 30, testPlayers, w, 27, w, 0)[0]); !errors.Is(err, ErrNoBaseline) {
		t.Fatalf("baseline 27 with only 24 held: %v", err)
	}
	// Forgotten: 24 pushed out by 64 newer ticks.
	for k := 1; k <= Kept; k++ {
		rebuildAll(t, &b, encode(t, uint32(24+3*k), testPlayers, nil, 0, w, 0))
	}
	if _, err := b.Rebuild(encode(t, 1000, testPlayers, w, 24, w, 0)[0]); !errors.Is(err, ErrNoBaseline) {
		t.Fatalf("forgotten baseline: %v", err)
	}
}

func TestRebuildOtherBaseline(t *testing.T) {
	var b Rebuilder
	w0, w1 := world(300, 0), world(300, 5)
	rebuildAll(t, &b, encode(t, 3, testPlayers, nil, 0, w0, 0))
	rebuildAll(t, &b, encode(t, 6, testPlayers, nil, 0, w1, 0))
	w2 := world(300, 9)
	againstA := encode(t, 9, testPlayers, w0, 3, w2, 0)
	againstB := encode(t, 9, testPlayers, w1, 6, w2, 0)
	full := encode(t, 9, testPlayers, nil, 0, w2, 0)
	if len(againstA) < 2 || len(againstB) < 2 || len(full) < 2 {
		t.Fatalf("want multi-datagram snapshots: %d %d %d", len(againstA), len(againstB), len(full))
	}
	r, err := b.Rebuild(againstA[0])
	if err != nil {
		t.Fatal(err)
	}
	parts := r.Parts
	if _, err := b.Rebuild(againstB[1]); !errors.Is(err, ErrOtherBaseline) {
		t.Fatalf("second datagram against another baseline: %v, want ErrOtherBaseline", err)
	}
	if _, err := b.Rebuild(full[1]); !errors.Is(err, ErrOtherBaseline) {
		t.Fatalf("full datagram of a delta tick: %v, want ErrOtherBaseline", err)
	}
	if g := b.Get(9); g.Parts != parts || g.BaseTick != 3 {
		t.Fatalf("a refused datagram changed the snapshot: parts %d base %d", g.Parts, g.BaseTick)
	}
	r = rebuildAll(t, &b, againstA[1:])
	checkRebuilt(t, r, 9, testPlayers, w2)
	// And the other way: a full tick, then a delta datagram of it.
	full12 := encode(t, 12, testPlayers, nil, 0, w2, 0)
	rebuildAll(t, &b, full12[:1])
	if _, err := b.Rebuild(encode(t, 12, testPlayers, w1, 6, w2, 0)[0]); !errors.Is(err, ErrOtherBaseline) {
		t.Fatalf("delta datagram of a full tick: %v, want ErrOtherBaseline", err)
	}
}

func TestRebuildMultiDatagram(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := world(400, 0)
	cur := make([]wire.Entity, 0, 450)
	for i, e := range base {
		switch {
		case i%10 == 0: // removed
		case i%3 == 0:
			e.F[wire.FieldX] += int32(r.IntN(100))
			cur = append(cur, e)
		default:
			cur = append(cur, e)
		}
	}
	for k := 0; k < 50; k++ {
		cur = append(cur, ent(uint32(1000+k), 1, wire.KindEnemyMissile, float32(k), 5))
	}
	for _, full := range []bool{false, true} {
		var bb []wire.Entity
		if !full {
			bb = base
		}
		snaps := encode(t, 103, testPlayers, bb, 100, cur, 300)
		if len(snaps) < 3 {
			t.Fatalf("full=%v: %d datagrams, want several", full, len(snaps))
		}
		for trial := 0; trial < 20; trial++ {
			var b Rebuilder
			rebuildAll(t, &b, encode(t, 100, testPlayers, nil, 0, base, 0))
			order := r.Perm(len(snaps))
			if trial == 0 {
				for i := range order {
					order[i] = len(order) - 1 - i
				}
			}
			// Fresh copies: ApplyRecords reorders records in place.
			parts := encode(t, 103, testPlayers, bb, 100, cur, 300)
			for k, i := range order {
				got, err := b.Rebuild(parts[i])
				if err != nil {
					t.Fatalf("full=%v part %d: %v", full, i, err)
				}
				if got.Parts != k+1 {
					t.Fatalf("Parts = %d, want %d", got.Parts, k+1)
				}
				// Until the others arrive, the entities of the baseline
				// they hold keep their values of the baseline (full
				// snapshot: they are absent).
				want := partial(t, bb, snaps, order[:k+1])
				if !equalEntities(got.Entities, want) {
					t.Fatalf("full=%v after parts %v: rebuilt differs from the baseline with those parts", full, order[:k+1])
				}
			}
			checkRebuilt(t, b.Get(103), 103, testPlayers, cur)
		}
	}
}

// partial applies the records of the parts idx of snaps to base, by a
// map, independently of wire.ApplyRecords.
func partial(tb testing.TB, base []wire.Entity, snaps []*wire.Snapshot, idx []int) []wire.Entity {
	m := map[uint32]wire.Entity{}
	for _, e := range base {
		m[e.ID] = e
	}
	for _, i := range idx {
		for _, rec := range snaps[i].Records {
			switch rec.Change {
			case wire.Added:
				m[rec.ID] = rec.Entity
			case wire.Removed:
				delete(m, rec.ID)
			case wire.Updated:
				e := m[rec.ID]
				if rec.Fields&wire.MaskX != 0 {
					e.F[wire.FieldX] = rec.F[wire.FieldX]
				}
				if rec.Fields&wire.MaskY != 0 {
					e.F[wire.FieldY] = rec.F[wire.FieldY]
				}
				if rec.Fields&wire.MaskVel != 0 {
					e.F[wire.FieldVX], e.F[wire.FieldVY] = rec.F[wire.FieldVX], rec.F[wire.FieldVY]
				}
				if rec.Fields&wire.MaskFrame != 0 {
					e.F[wire.FieldFrame] = rec.F[wire.FieldFrame]
				}
				m[rec.ID] = e
			}
		}
	}
	out := make([]wire.Entity, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && wire.Less(out[j].ID, out[j-1].ID); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestRebuildMissingBase(t *testing.T) {
	var b Rebuilder
	w := world(5, 0)
	rebuildAll(t, &b, encode(t, 10, testPlayers, nil, 0, w, 0))
	for _, rec := range []wire.Record{
		{Change: wire.Updated, Fields: wire.MaskX, Entity: wire.Entity{ID: wire.MakeID(2, 0)}},     // index 2: never there
		{Change: wire.Removed, Entity: wire.Entity{ID: wire.MakeID(4, 0)}},                         // idem
		{Change: wire.Updated, Fields: wire.MaskY, Entity: wire.Entity{ID: wire.MakeID(1, 9)}},     // another generation
		{Change: wire.Removed, Entity: wire.Entity{ID: wire.MakeID(100, 0)}},                       // past the end
		{Change: wire.Updated, Fields: wire.MaskFrame, Entity: wire.Entity{ID: wire.MakeID(0, 0)}}, // before the start
	} {
		s := &wire.Snapshot{Tick: 13, HasBaseline: true, BaselineAge: 3, Records: []wire.Record{rec}}
		if _, err := b.Rebuild(s); !errors.Is(err, wire.ErrMissingBase) {
			t.Errorf("record %+v: %v, want wire.ErrMissingBase", rec, err)
		}
		if b.Get(13) != nil {
			t.Fatal("a refused snapshot was kept")
		}
	}
	// A refused second datagram leaves the first one's work alone.
	good := &wire.Snapshot{Tick: 13, HasBaseline: true, BaselineAge: 3, Records: []wire.Record{
		{Change: wire.Removed, Entity: wire.Entity{ID: w[0].ID}}}}
	if _, err := b.Rebuild(good); err != nil {
		t.Fatal(err)
	}
	bad := &wire.Snapshot{Tick: 13, HasBaseline: true, BaselineAge: 3, Records: []wire.Record{
		{Change: wire.Updated, Fields: wire.MaskX, Entity: wire.Entity{ID: w[0].ID}}}} // removed by part 1
	if _, err := b.Rebuild(bad); !errors.Is(err, wire.ErrMissingBase) {
		t.Fatalf("update of an entity removed by an earlier part: %v", err)
	}
	if g := b.Get(13); g.Parts != 1 || !equalEntities(g.Entities, w[1:]) {
		t.Fatalf("refused datagram changed the snapshot")
	}
}

func TestRebuilderKeeps64Newest(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	w := world(2, 0)
	for trial := 0; trial < 5; trial++ {
		var b Rebuilder
		ticks := r.Perm(200)
		recv := map[uint32]bool{}
		for n, tk := range ticks {
			tick := uint32(tk + 1)
			got := rebuildAll(t, &b, encode(t, tick, testPlayers, nil, 0, w, 0))
			if got.Tick != tick {
				t.Fatal("wrong tick returned")
			}
			recv[tick] = true
			// Kept: the Kept newest ticks received so far.
			for t2 := range recv {
				rank := 0
				for t3 := range recv {
					if t3 > t2 {
						rank++
					}
				}
				if kept := b.Get(t2) != nil; kept != (rank < Kept) {
					t.Fatalf("trial %d after %d: tick %d of rank %d kept = %v", trial, n, t2, rank, kept)
				}
			}
		}
	}
}

func TestRebuildLateOldSnapshot(t *testing.T) {
	var b Rebuilder
	w := world(3, 0)
	for k := 0; k < Kept; k++ {
		rebuildAll(t, &b, encode(t, uint32(100+3*k), testPlayers, nil, 0, w, 0))
	}
	before := b.Get(100)
	// Tick 97 arrives late: full, older than every kept one.
	wl := world(3, 50)
	r := rebuildAll(t, &b, encode(t, 97, testPlayers, nil, 0, wl, 0))
	checkRebuilt(t, r, 97, testPlayers, wl)
	if b.Get(97) != nil {
		t.Fatal("a snapshot older than every kept one was kept")
	}
	if b.Get(100) != before || b.Get(100).Tick != 100 {
		t.Fatal("the late snapshot evicted a kept one")
	}
	for k := 0; k < Kept; k++ {
		if b.Get(uint32(100+3*k)) == nil {
			t.Fatalf("tick %d lost", 100+3*k)
		}
	}
	r2, err := b.Rebuild(encode(t, 98, testPlayers, nil, 0, wl, 0)[0])
	if err != nil || r2.Tick != 98 || b.Get(98) != nil {
		t.Fatalf("second late snapshot: %v", err)
	}
	// A newer tick evicts the oldest kept.
	rebuildAll(t, &b, encode(t, 1000, testPlayers, nil, 0, w, 0))
	if b.Get(100) != nil || b.Get(1000) == nil || b.Get(103) == nil {
		t.Fatal("a newer tick did not replace the oldest")
	}
}

func TestRebuilderReset(t *testing.T) {
	var b Rebuilder
	w := world(3, 0)
	rebuildAll(t, &b, encode(t, 3, testPlayers, nil, 0, w, 0))
	b.Reset()
	if b.Get(3) != nil {
		t.Fatal("Reset kept a snapshot")
	}
	if _, err := b.Rebuild(encode(t, 6, testPlayers, w, 3, w, 0)[0]); !errors.Is(err, ErrNoBaseline) {
		t.Fatalf("after Reset: %v", err)
	}
}

// TestRebuildEmptyWorld: a world without entities, full then delta.
func TestRebuildEmptyWorld(t *testing.T) {
	var b Rebuilder
	r := rebuildAll(t, &b, encode(t, 3, nil, nil, 0, nil, 0))
	if r.Tick != 3 || len(r.Entities) != 0 || r.NumPlayers != 0 {
		t.Fatalf("%+v", r)
	}
	w := world(2, 0)
	r = rebuildAll(t, &b, encode(t, 6, nil, []wire.Entity{}, 3, w, 0))
	checkRebuilt(t, r, 6, nil, w)
}

// The datagrams of one tick cannot make a snapshot larger than a client
// accepts, however many there are: the one that would is refused, and the
// snapshot keeps what it had (Appendix A, client limits).
func TestRebuildEntityLimit(t *testing.T) {
	var b Rebuilder
	full := world(wire.MaxSnapshotEntities+200, 0)
	snaps := encode(t, 3, testPlayers, nil, 0, full, 0)
	var err error
	var r *Rebuilt
	n := 0
	for _, s := range snaps {
		if r, err = b.Rebuild(s); err != nil {
			break
		}
		n = len(r.Entities)
	}
	if !errors.Is(err, ErrTooManyEntities) {
		t.Fatalf("a snapshot of %d entities: %v, want ErrTooManyEntities", len(full), err)
	}
	if g := b.Get(3); g == nil || len(g.Entities) != n || n > wire.MaxSnapshotEntities {
		t.Fatalf("the snapshot holds %d entities after the refusal, want the %d it had", len(g.Entities), n)
	}
}

// More datagrams of one tick than a client rebuilds are refused, even
// when they add nothing.
func TestRebuildPartsLimit(t *testing.T) {
	var b Rebuilder
	w0 := world(10, 0)
	rebuildAll(t, &b, encode(t, 3, testPlayers, nil, 0, w0, 0))
	part := encode(t, 6, testPlayers, w0, 3, w0, 0)[0] // no record
	for i := range wire.MaxSnapshotParts {
		if _, err := b.Rebuild(part); err != nil {
			t.Fatalf("datagram %d of the tick: %v", i+1, err)
		}
	}
	if _, err := b.Rebuild(part); !errors.Is(err, ErrTooManyParts) {
		t.Fatalf("datagram %d of the tick: %v, want ErrTooManyParts", wire.MaxSnapshotParts+1, err)
	}
}
