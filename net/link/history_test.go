package link

import (
	"math/rand/v2"
	"testing"

	"rtype/net/link/linktest"
	"rtype/net/wire"
)

// server is a Link with a History, sending snapshots of arbitrary
// payloads.
type histServer struct {
	l    *Link
	h    *History
	seqs map[uint32][]uint16 // tick -> sequences of its datagrams
}

func newHistServer() *histServer {
	s := &histServer{l: New(testSession, t0), h: new(History), seqs: map[uint32][]uint16{}}
	s.l.Baselines = s.h
	return s
}

// send adds the snapshot of tick with ents and sends it in parts datagrams.
func (s *histServer) send(tb testing.TB, tick uint32, ents []wire.Entity, parts int) []uint16 {
	tb.Helper()
	s.h.Add(tick, ents)
	for i := 0; i < parts; i++ {
		d := s.l.AppendSnapshot(nil, []byte{byte(i), 1, 2, 3}, tick, at(int(tick)))
		h, p := linktest.MustParse(tb, d, wire.ToClient)
		if h.Type != wire.TypeSnapshot || len(p) != 4 || p[0] != byte(i) {
			tb.Fatalf("snapshot datagram %+v %x", h, p)
		}
		s.seqs[tick] = append(s.seqs[tick], h.Seq)
	}
	return s.seqs[tick]
}

// ack makes the peer acknowledge seq alone.
func (s *histServer) ack(seq uint16) {
	s.l.Accept(linktest.PeerHeader(wire.TypeAck, 0, seq, 0), wire.HeaderSize, at(0))
}

func TestBaselineNeedsEveryDatagram(t *testing.T) {
	s := newHistServer()
	if _, _, ok := s.h.Baseline(); ok {
		t.Fatal("baseline of an empty history")
	}
	w := world(5, 0)
	seqs := s.send(t, 3, w, 3)
	if _, _, ok := s.h.Baseline(); ok || s.h.Acknowledged(3) {
		t.Fatal("baseline before any ack")
	}
	s.ack(seqs[0])
	s.ack(seqs[2])
	if _, _, ok := s.h.Baseline(); ok || s.h.Acknowledged(3) {
		t.Fatal("baseline with one datagram of three unacknowledged")
	}
	s.ack(seqs[2]) // again: still two of three
	if _, _, ok := s.h.Baseline(); ok {
		t.Fatal("a repeated ack counted twice")
	}
	s.ack(seqs[1])
	tick, ents, ok := s.h.Baseline()
	if !ok || tick != 3 || !equalEntities(ents, w) || !s.h.Acknowledged(3) {
		t.Fatalf("Baseline = %d %v %v after every datagram was acked", tick, len(ents), ok)
	}
}

func TestBaselineNewestFullyAcked(t *testing.T) {
	s := newHistServer()
	a := s.send(t, 10, world(3, 0), 1)
	b := s.send(t, 13, world(4, 1), 2)
	c := s.send(t, 16, world(5, 2), 1)
	s.ack(c[0]) // 16 complete
	s.ack(a[0]) // 10 complete (older, acked later)
	s.ack(b[0]) // 13 half
	if tick, ents, ok := s.h.Baseline(); !ok || tick != 16 || len(ents) != 5 {
		t.Fatalf("Baseline = %d, %d entities, %v; want 16", tick, len(ents), ok)
	}
	d := s.send(t, 19, world(6, 3), 2)
	s.ack(d[1])
	if tick, _, _ := s.h.Baseline(); tick != 16 {
		t.Fatalf("Baseline = %d with 19 half acked, want 16", tick)
	}
	s.ack(d[0])
	if tick, ents, _ := s.h.Baseline(); tick != 19 || len(ents) != 6 {
		t.Fatalf("Baseline = %d, want 19", tick)
	}
	if !s.h.Acknowledged(10) || s.h.Acknowledged(13) || !s.h.Acknowledged(16) || s.h.Acknowledged(99) {
		t.Fatal("Acknowledged")
	}
}

// TestBaselineAckedInOneHeader: the acknowledgements of several parts
// arrive in one header's ack_bits.
func TestBaselineAckedInOneHeader(t *testing.T) {
	s := newHistServer()
	seqs := s.send(t, 30, world(2, 0), 4)
	last := seqs[3]
	s.l.Accept(linktest.PeerHeader(wire.TypeAck, 0, last, 0b011), wire.HeaderSize, at(50)) // 3 of 4
	if _, _, ok := s.h.Baseline(); ok {
		t.Fatal("baseline with part 0 unacked")
	}
	s.l.Accept(linktest.PeerHeader(wire.TypeAck, 1, last, 0b111), wire.HeaderSize, at(60))
	if tick, _, ok := s.h.Baseline(); !ok || tick != 30 {
		t.Fatal("no baseline once all 4 parts were acked")
	}
}

func TestHistoryCopiesEntities(t *testing.T) {
	s := newHistServer()
	w := world(3, 0)
	s.ack(s.send(t, 1, w, 1)[0])
	w[0].F[wire.FieldX] = 12345
	if _, ents, _ := s.h.Baseline(); ents[0].F[wire.FieldX] == 12345 {
		t.Fatal("History kept the caller's slice")
	}
}

func TestHistoryEvictsAfter32(t *testing.T) {
	s := newHistServer()
	first := s.send(t, 1, world(1, 0), 1)
	for k := 2; k <= Snapshots; k++ {
		s.send(t, uint32(k), world(1, float32(k)), 1)
	}
	// 32 held: the first is still there.
	s.ack(first[0])
	if tick, _, ok := s.h.Baseline(); !ok || tick != 1 {
		t.Fatalf("Baseline = %d %v with 32 snapshots held", tick, ok)
	}
	// The 33rd evicts it.
	s.send(t, 100, world(1, 0), 1)
	if _, _, ok := s.h.Baseline(); ok || s.h.Acknowledged(1) {
		t.Fatal("snapshot 1 still a baseline after 33 snapshots")
	}
	// An ack of a snapshot evicted before its ack arrives does nothing.
	s2 := newHistServer()
	old := s2.send(t, 1, world(1, 0), 2)
	for k := 2; k <= Snapshots+1; k++ {
		s2.send(t, uint32(k), world(1, 0), 1)
	}
	s2.ack(old[0])
	s2.ack(old[1])
	if _, _, ok := s2.h.Baseline(); ok {
		t.Fatal("evicted snapshot became a baseline")
	}
	// Snapshots 2..33 are held: ack 2.
	s2.ack(s2.seqs[2][0])
	if tick, _, ok := s2.h.Baseline(); !ok || tick != 2 {
		t.Fatalf("Baseline = %d %v, want 2", tick, ok)
	}
}

// TestBaselineProperty: a client receiving a random subset of the
// datagrams, acknowledging through its own Link with random losses of its
// acks: the server's baseline is always a snapshot every datagram of which
// the client accepted, and the newest such one that the server could know
// of.
func TestBaselineProperty(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		s := newHistServer()
		client := New(testSession, t0)
		accepted := map[uint16]bool{}    // by the client
		serverKnows := map[uint16]bool{} // acks that reached the server
		lossDown := r.Float64() * 0.6
		lossUp := r.Float64() * 0.6
		var inflight [][]byte
		held := []uint32{} // ticks in History, oldest first
		for tick := uint32(3); tick < 3*400; tick += 3 {
			parts := 1 + r.IntN(3)
			s.h.Add(tick, world(1+r.IntN(3), float32(tick)))
			held = append(held, tick)
			if len(held) > Snapshots {
				held = held[1:]
			}
			for p := 0; p < parts; p++ {
				d := s.l.AppendSnapshot(nil, []byte{1}, tick, at(int(tick)))
				h, _ := linktest.MustParse(t, d, wire.ToClient)
				s.seqs[tick] = append(s.seqs[tick], h.Seq)
				if r.Float64() >= lossDown {
					inflight = append(inflight, d)
				}
			}
			// Deliver a random part of what is in flight, in any order.
			r.Shuffle(len(inflight), func(i, j int) { inflight[i], inflight[j] = inflight[j], inflight[i] })
			keep := inflight[:0]
			for _, d := range inflight {
				if r.IntN(2) == 0 {
					keep = append(keep, d)
					continue
				}
				h, _ := linktest.MustParse(t, d, wire.ToClient)
				if client.Seen(h.Seq) {
					continue
				}
				if r.IntN(8) == 0 {
					continue // the client could not rebuild it: not accepted
				}
				client.Accept(h, len(d), at(int(tick)))
				accepted[h.Seq] = true
			}
			inflight = keep
			if r.Float64() >= lossUp {
				ack, _ := client.AppendDatagram(nil, wire.TypeAck, nil, at(int(tick)))
				h, _ := linktest.MustParse(t, ack, wire.ToServer)
				s.l.Accept(h, len(ack), at(int(tick)))
				serverKnows[h.Ack] = true
				for i := 0; i < 32; i++ {
					if h.AckBits&(1<<i) != 0 {
						serverKnows[h.Ack-1-uint16(i)] = true
					}
				}
			}
			// Expected: the newest held tick whose every datagram the
			// server learned was acknowledged.
			var want uint32
			wantOK := false
			for _, tk := range held {
				all := true
				for _, q := range s.seqs[tk] {
					all = all && serverKnows[q]
				}
				if all {
					want, wantOK = tk, true
				}
			}
			got, ents, ok := s.h.Baseline()
			if ok != wantOK || got != want {
				t.Fatalf("seed %d tick %d: Baseline = %d %v, want %d %v", seed, tick, got, ok, want, wantOK)
			}
			if ok {
				for _, q := range s.seqs[got] {
					if !accepted[q] {
						t.Fatalf("seed %d: baseline %d uses datagram %d the client never accepted", seed, got, q)
					}
				}
				if len(ents) == 0 {
					t.Fatalf("baseline without its entities")
				}
			}
		}
	}
}

// TestBaselineTickZero: a game's first snapshot may be of tick 0; acks of
// other datagrams (events, acks, whose ring entries say tick 0 too) must
// not count for it.
func TestBaselineTickZero(t *testing.T) {
	s := newHistServer()
	seqs := s.send(t, 0, world(3, 0), 2)
	s.l.QueueEvent(linktest.Spawn(1))
	d, _ := s.l.AppendEvents(nil, at(1))
	he, _ := linktest.MustParse(t, d, wire.ToClient)
	ha := sendOne(s.l, at(2))
	s.ack(seqs[0])
	s.ack(he.Seq)
	s.ack(ha)
	if _, _, ok := s.h.Baseline(); ok || s.h.Acknowledged(0) {
		t.Fatal("acks of other datagrams completed the snapshot of tick 0")
	}
	s.ack(seqs[1])
	if tick, _, ok := s.h.Baseline(); !ok || tick != 0 {
		t.Fatalf("Baseline = %d %v, want 0", tick, ok)
	}
}

// TestBaselineOfEmptyWorldIsNotNil: a snapshot without entities is still a
// baseline, and the encoder takes nil to mean full (4.8).
func TestBaselineOfEmptyWorldIsNotNil(t *testing.T) {
	var h History
	h.Add(3, nil)
	h.Carried(3)
	h.Acked(3, 0)
	_, base, ok := h.Baseline()
	if !ok || base == nil || len(base) != 0 {
		t.Fatalf("baseline of an empty world: %v %v", base, ok)
	}
	var enc wire.SnapshotEncoder
	var s wire.Snapshot
	if err := s.Decode(enc.Encode(6, nil, base, 3, nil)[0]); err != nil || !s.HasBaseline {
		t.Fatalf("encoded against it: has_baseline %v, %v", s.HasBaseline, err)
	}
}
