package link2

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"rtype/net/link"
	"rtype/net/link/linktest"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// frame2 returns a copy of the world's state at its tick.
func frame(w *simWorld) *wire2.Frame {
	f := new(wire2.Frame)
	f.Set(w.tick, w.players, w.entities(nil))
	return f
}

// encode2 encodes cur against base (nil: full) and decodes each payload,
// as a client would receive them.
func encode(tb testing.TB, cur, base *wire2.Frame, maxPayload int) []*wire2.Snapshot {
	tb.Helper()
	enc := wire2.SnapshotEncoder{MaxPayload: maxPayload}
	var out []*wire2.Snapshot
	for _, p := range enc.EncodeFrame(cur, base) {
		s := new(wire2.Snapshot)
		if err := s.Decode(p); err != nil {
			tb.Fatalf("Decode of an encoded payload: %v", err)
		}
		out = append(out, s)
	}
	return out
}

// checkFrame fails unless r holds the state f.
func checkFrame(tb testing.TB, r *Rebuilt, f *wire2.Frame) {
	tb.Helper()
	if r == nil || r.Tick != f.Tick || !slices.Equal(r.Entities, f.Entities) || !slices.Equal(r.Players, f.Players) {
		tb.Fatalf("rebuilt %v, not the state of tick %d", r, f.Tick)
	}
}

// rebuildAll2 rebuilds every datagram of a snapshot and returns the
// result.
func rebuildAll(tb testing.TB, rb *Rebuilder, snaps []*wire2.Snapshot) *Rebuilt {
	tb.Helper()
	var res *Rebuilt
	for _, s := range snaps {
		var err error
		if res, err = rb.Rebuild(s); err != nil {
			tb.Fatalf("Rebuild of tick %d: %v", s.Tick, err)
		}
	}
	return res
}

// sender2 is a server's side of one client: a v2 Link and a
// SnapshotSender, and the sequences of each snapshot's datagrams.
type sender struct {
	l    *link.Link
	s    SnapshotSender
	seqs map[uint32][]uint16
	peer uint16
}

func newSender(maxPayload int) *sender {
	s := &sender{l: link.NewV2(testSession, t0), seqs: map[uint32][]uint16{}}
	s.s.enc.MaxPayload = maxPayload
	return s
}

// send sends the state f and returns its decoded datagrams.
func (s *sender) send(tb testing.TB, f *wire2.Frame) []*wire2.Snapshot {
	tb.Helper()
	var out []*wire2.Snapshot
	for _, d := range s.s.Datagrams(s.l, f.Tick, f.Players, f.Entities, at(int(f.Tick))) {
		h, p := linktest.MustParse2(tb, d, wire.ToClient)
		if h.Type != wire.TypeSnapshot {
			tb.Fatalf("type %v", h.Type)
		}
		snap := new(wire2.Snapshot)
		if err := snap.Decode(p); err != nil {
			tb.Fatal(err)
		}
		out = append(out, snap)
		s.seqs[f.Tick] = append(s.seqs[f.Tick], h.Seq)
	}
	return out
}

// ack acknowledges one datagram.
func (s *sender) ack(seq uint16) {
	s.l.Accept(linktest.PeerHeader2(s.peer, seq, 0, 0), wire2.HeaderSize, at(0))
	s.peer++
}

func (s *sender) ackAll(tick uint32) {
	for _, q := range s.seqs[tick] {
		s.ack(q)
	}
}

// baseOf returns the baseline tick of a snapshot, and false for a full one.
func baseOf(snaps []*wire2.Snapshot) (uint32, bool) {
	return snaps[0].Tick - snaps[0].BaselineAge, snaps[0].HasBaseline
}

// 4.8 as 7.8 keeps it: the baseline is the newest snapshot whose every
// datagram was acknowledged; with none, the snapshot is full.
func TestSnapshotSenderBaseline(t *testing.T) {
	w := newSimWorld(rand.New(rand.NewPCG(1, 2)), 60)
	s := newSender(200) // several datagrams a snapshot
	next := func() []*wire2.Snapshot {
		for range 3 {
			w.step()
		}
		return s.send(t, frame(w))
	}
	a := next()
	if len(a) < 3 {
		t.Fatalf("%d datagrams: the test needs a split snapshot", len(a))
	}
	ta := a[0].Tick
	for _, q := range s.seqs[ta][1:] {
		s.ack(q)
	}
	if _, ok := baseOf(next()); ok {
		t.Fatal("a baseline of which one datagram is unacknowledged")
	}
	s.ack(s.seqs[ta][0])
	b := next()
	if bt, ok := baseOf(b); !ok || bt != ta {
		t.Fatalf("baseline %d %v, want %d", bt, ok, ta)
	}
	c := next()
	s.ackAll(c[0].Tick) // the newest first
	s.ackAll(b[0].Tick)
	if bt, ok := baseOf(next()); !ok || bt != c[0].Tick {
		t.Fatalf("baseline %d %v, want the newest acknowledged %d", bt, ok, c[0].Tick)
	}
	if !baselines(s.l).Acknowledged(b[0].Tick) || baselines(s.l).Acknowledged(c[0].Tick+3) {
		t.Fatal("Acknowledged")
	}
}

// 7.9: a snapshot goes out when, against the client's baseline, it has an
// entity record or a changed player record; otherwise only when 12 ticks
// (200 ms) passed since the last one. A skipped snapshot takes no
// sequence and no place in the history.
func TestSnapshotSenderRate(t *testing.T) {
	w := newSimWorld(rand.New(rand.NewPCG(3, 4)), 20)
	s := newSender(0)
	f := frame(w)
	send := func(tick uint32) int {
		f.Tick = tick
		n := len(s.send(t, f))
		return n
	}
	if send(603) != 1 {
		t.Fatal("the first snapshot not sent")
	}
	s.ackAll(603)
	seq := s.l.Next()
	for _, tick := range []uint32{606, 609, 612} {
		if n := send(tick); n != 0 {
			t.Fatalf("tick %d: sent a snapshot that repeats its baseline, 9 ticks or less after the last", tick)
		}
	}
	if s.l.Next() != seq || baselines(s.l).find(612) >= 0 {
		t.Fatal("a skipped snapshot took a sequence or a place in the history")
	}
	if send(615) != 1 {
		t.Fatal("no snapshot 12 ticks after the last")
	}
	if send(618) != 0 { // unacknowledged, but the same as the baseline
		t.Fatal("tick 618 sent")
	}
	// A changed player.
	f.Players = slices.Clone(f.Players)
	f.Players[1].Score++
	if send(621) != 1 {
		t.Fatal("a changed player not sent")
	}
	// Not acknowledged: against the baseline, the player is still changed.
	if send(624) != 1 {
		t.Fatal("a change the client has not acknowledged not sent again")
	}
	s.ackAll(624)
	if send(627) != 0 {
		t.Fatal("tick 627 sent")
	}
	// An entity's motion.
	f.Entities = slices.Clone(f.Entities)
	f.Entities[3].F[wire2.FieldVX]++
	if send(630) != 1 {
		t.Fatal("a changed entity not sent")
	}
	s.ackAll(630)
	// An entity removed.
	f.Entities = slices.Delete(f.Entities, 0, 1)
	if send(633) != 1 {
		t.Fatal("a removed entity not sent")
	}
}

// What SnapshotSender sends, rebuilt by Rebuilder, is the state sent,
// over random acknowledgements and losses.
func TestSnapshotSenderRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	w := newSimWorld(r, 200)
	s := newSender(300)
	var rb Rebuilder
	sent, rebuilt := 0, 0
	for range 300 {
		for range 3 {
			w.step()
		}
		f := frame(w)
		snaps := s.send(t, f)
		if len(snaps) > 0 {
			sent++
		}
		var got *Rebuilt
		for k, snap := range snaps {
			if r.IntN(5) == 0 {
				continue // lost
			}
			res, err := rb.Rebuild(snap)
			if err != nil {
				t.Fatalf("tick %d: %v", snap.Tick, err)
			}
			if r.IntN(4) > 0 {
				s.ack(s.seqs[f.Tick][k])
			}
			got = res
		}
		if got != nil && got.Parts == len(snaps) {
			checkFrame(t, got, f)
			rebuilt++
		}
	}
	if rebuilt < 50 || sent < 250 {
		t.Fatalf("weak run: %d sent, %d rebuilt whole", sent, rebuilt)
	}
}

// 7.8: a full snapshot, then a delta against it (unchanged players cost
// 3 bits and come from the baseline), rebuilt exactly.
func TestRebuild2FullThenDelta(t *testing.T) {
	w := newSimWorld(rand.New(rand.NewPCG(7, 8)), 100)
	a := frame(w)
	for range 30 {
		w.step()
	}
	b := frame(w)
	b.Players[0] = a.Players[0] // one player unchanged, one changed
	b.Players[1].Score = a.Players[1].Score + 7
	var rb Rebuilder
	full := encode(t, a, nil, 0)
	res := rebuildAll(t, &rb, full)
	if res.HasBaseline || res.Parts != len(full) {
		t.Fatalf("%+v", res)
	}
	checkFrame(t, res, a)
	delta := encode(t, b, a, 0)
	if !delta[0].Players[0].Same || delta[0].Players[1].Same {
		t.Fatal("the test needs one unchanged player and one changed")
	}
	res = rebuildAll(t, &rb, delta)
	if !res.HasBaseline || res.BaseTick != a.Tick {
		t.Fatalf("%+v", res)
	}
	checkFrame(t, res, b)
	checkFrame(t, rb.Get(a.Tick), a) // the baseline is kept as it was
}

// 4.3, 7.8: the datagrams of a split snapshot rebuild it in any order,
// each against the same baseline; the snapshot so far is usable after
// each.
func TestRebuild2SplitAnyOrder(t *testing.T) {
	w := newSimWorld(rand.New(rand.NewPCG(9, 10)), 300)
	a := frame(w)
	for range 60 {
		w.step()
	}
	b := frame(w)
	for _, order := range [][]int{nil, {-1}} { // in order, reversed
		var rb Rebuilder
		for _, pair := range [][2]*wire2.Frame{{a, nil}, {b, a}} {
			snaps := encode(t, pair[0], pair[1], 150)
			if len(snaps) < 3 {
				t.Fatalf("%d datagrams", len(snaps))
			}
			if order != nil {
				slices.Reverse(snaps)
			}
			var res *Rebuilt
			for _, s := range snaps {
				var err error
				if res, err = rb.Rebuild(s); err != nil {
					t.Fatal(err)
				}
			}
			if res.Parts != len(snaps) {
				t.Fatalf("Parts %d of %d", res.Parts, len(snaps))
			}
			checkFrame(t, res, pair[0])
		}
	}
}

// 4.8 step 1 and 4: a delta against a snapshot not held is dropped, and
// so is a datagram of a tick being rebuilt against another baseline.
func TestRebuild2Baselines(t *testing.T) {
	w := newSimWorld(rand.New(rand.NewPCG(11, 12)), 100)
	a := frame(w)
	w.step()
	b := frame(w)
	w.step()
	c := frame(w)
	var rb Rebuilder
	if _, err := rb.Rebuild(encode(t, b, a, 0)[0]); !errors.Is(err, link.ErrNoBaseline) {
		t.Fatalf("no baseline: %v", err)
	}
	if rb.Get(b.Tick) != nil {
		t.Fatal("a dropped datagram left a snapshot")
	}
	rebuildAll(t, &rb, encode(t, a, nil, 0))
	rebuildAll(t, &rb, encode(t, b, a, 0))
	if _, err := rb.Rebuild(encode(t, c, b, 0)[0]); err != nil {
		t.Fatal(err)
	}
	for _, other := range [][]*wire2.Snapshot{encode(t, c, a, 0), encode(t, c, nil, 0)} {
		if _, err := rb.Rebuild(other[0]); !errors.Is(err, link.ErrOtherBaseline) {
			t.Fatalf("another baseline: %v", err)
		}
	}
	if rb.Get(c.Tick).Parts != 1 {
		t.Fatal("a dropped datagram changed the snapshot")
	}
}

// 7.8: a player record "as in the baseline" of a player the baseline
// lacks, or an updated record of an id it lacks, makes the datagram
// unusable; nothing is kept of it.
func TestRebuild2MissingInBaseline(t *testing.T) {
	w := newSimWorld(rand.New(rand.NewPCG(13, 14)), 50)
	a := frame(w)
	var rb Rebuilder
	rebuildAll(t, &rb, encode(t, a, nil, 0))
	// Player 3 "same", against a baseline with player 0 only.
	noP3 := *a
	noP3.Tick = a.Tick + 1
	noP3.Players = a.Players[:1]
	rebuildAll(t, &rb, encode(t, &noP3, a, 0))
	withP3 := *a
	withP3.Tick = a.Tick + 2
	snap := encode(t, &withP3, a, 0)[0]
	snap.BaselineAge = 1 // against noP3
	if _, err := rb.Rebuild(snap); !errors.Is(err, wire2.ErrMissingBase) || rb.Get(withP3.Tick) != nil {
		t.Fatalf("a same player the baseline lacks: %v", err)
	}
	// An updated record of an id the baseline lacks.
	moved := *a
	moved.Tick = a.Tick + 3
	moved.Entities = slices.Clone(a.Entities)
	moved.Entities[0].F[wire2.FieldX0]++
	snap = encode(t, &moved, a, 0)[0]
	snap.Records[0].ID = wire.MakeID(5000, 0)
	if _, err := rb.Rebuild(snap); !errors.Is(err, wire2.ErrMissingBase) || rb.Get(moved.Tick) != nil {
		t.Fatalf("an updated id the baseline lacks: %v", err)
	}
}

// Client limits (Appendix A, as in v1): more than wire.MaxSnapshotParts
// datagrams of one tick, or more than wire.MaxSnapshotEntities entities in
// a snapshot, are refused, and the snapshot keeps what it had.
func TestRebuild2Limits(t *testing.T) {
	one := &wire2.Frame{Tick: 100, Entities: []wire2.Entity{{ID: wire.MakeID(1, 0), F: [wire2.NumFields]uint32{wire2.FieldKind: 1}}}}
	snap := encode(t, one, nil, 0)[0]
	var rb Rebuilder
	for i := range wire.MaxSnapshotParts {
		if _, err := rb.Rebuild(snap); err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
	}
	if _, err := rb.Rebuild(snap); !errors.Is(err, link.ErrTooManyParts) || rb.Get(100).Parts != wire.MaxSnapshotParts {
		t.Fatalf("part %d: %v", wire.MaxSnapshotParts+1, err)
	}

	big := &wire2.Frame{Tick: 200}
	for i := range wire.MaxSnapshotEntities + 1 {
		big.Entities = append(big.Entities, wire2.Entity{ID: wire.MakeID(uint32(i+1), 0), F: [wire2.NumFields]uint32{wire2.FieldKind: 2}})
	}
	snaps := encode(t, big, nil, 0)
	if len(snaps) > wire.MaxSnapshotParts {
		t.Fatalf("%d datagrams", len(snaps))
	}
	var err error
	var n int
	for _, s := range snaps {
		if _, err = rb.Rebuild(s); err != nil {
			break
		}
		n = len(rb.Get(200).Entities)
	}
	if !errors.Is(err, link.ErrTooManyEntities) || len(rb.Get(200).Entities) != n || n > wire.MaxSnapshotEntities {
		t.Fatalf("%d entities: %v (kept %d)", len(big.Entities), err, n)
	}
}

// 4.8: the last Kept (64) snapshots are kept; a newer one evicts the
// oldest; a snapshot older than all of them is rebuilt but not kept.
func TestRebuild2Keeps64(t *testing.T) {
	var rb Rebuilder
	f := &wire2.Frame{}
	for tick := uint32(10); tick < 10+link.Kept+5; tick++ {
		f.Tick = tick
		if _, err := rb.Rebuild(encode(t, f, nil, 0)[0]); err != nil {
			t.Fatal(err)
		}
	}
	if rb.Get(14) != nil || rb.Get(15) == nil || rb.Get(10+link.Kept+4) == nil {
		t.Fatal("not the last 64 kept")
	}
	f.Tick = 12
	res, err := rb.Rebuild(encode(t, f, nil, 0)[0])
	if err != nil || res.Tick != 12 || rb.Get(12) != nil || rb.Get(15) == nil {
		t.Fatalf("a late snapshot: %v, kept %v", err, rb.Get(12) != nil)
	}
	rb.Reset()
	if rb.Get(15) != nil {
		t.Fatal("Reset")
	}
}
