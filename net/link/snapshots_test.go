package link

import (
	"testing"

	"rtype/internal/testutil"
	"rtype/net/link/linktest"
	"rtype/net/wire"
)

// The sender encodes against the newest fully acknowledged snapshot and
// records what it sent; the client's Rebuilder gets the world back.
func TestSnapshotSender(t *testing.T) {
	var s SnapshotSender
	var hist History
	srv := New(testSession, at(0))
	srv.Baselines = &hist
	cli := New(testSession, at(0))
	var rb Rebuilder
	var snap wire.Snapshot
	deliver := func(ds [][]byte, ms int) *Rebuilt {
		t.Helper()
		var r *Rebuilt
		for _, d := range ds {
			h, p := linktest.MustParse(t, d, wire.ToClient)
			if err := snap.Decode(p); err != nil {
				t.Fatal(err)
			}
			var err error
			if r, err = rb.Rebuild(&snap); err != nil {
				t.Fatalf("Rebuild: %v", err)
			}
			cli.Accept(h, len(d), at(ms))
		}
		return r
	}
	ack := func(ms int) {
		d, _ := cli.AppendDatagram(nil, wire.TypeAck, nil, at(ms))
		h, _ := linktest.MustParse(t, d, wire.ToServer)
		srv.Accept(h, len(d), at(ms))
	}

	w1 := world(300, 0) // more than one datagram
	ds := s.Datagrams(srv, 3, testPlayers, w1, at(0))
	if len(ds) < 2 {
		t.Fatalf("%d datagrams for 300 entities, want several", len(ds))
	}
	checkRebuilt(t, deliver(ds, 10), 3, testPlayers, w1)
	if _, _, ok := hist.Baseline(); ok {
		t.Fatal("a baseline before the acknowledgement")
	}
	ack(20)
	if tick, _, ok := hist.Baseline(); !ok || tick != 3 {
		t.Fatalf("baseline %d, %v; want tick 3", tick, ok)
	}
	w2 := world(300, 1)
	ds = s.Datagrams(srv, 6, testPlayers, w2, at(50))
	_, p := linktest.MustParse(t, ds[0], wire.ToClient)
	if err := snap.Decode(p); err != nil || !snap.HasBaseline || snap.BaselineAge != 3 {
		t.Fatalf("second snapshot: baseline %v age %d (%v), want a delta against tick 3", snap.HasBaseline, snap.BaselineAge, err)
	}
	checkRebuilt(t, deliver(ds, 60), 6, testPlayers, w2)

	// Without a History every snapshot is full.
	bare := New(testSession, at(0))
	_, p = linktest.MustParse(t, s.Datagrams(bare, 9, testPlayers, w2, at(70))[0], wire.ToClient)
	if err := snap.Decode(p); err != nil || snap.HasBaseline {
		t.Fatalf("snapshot without History: baseline %v (%v), want full", snap.HasBaseline, err)
	}
}

// In steady state, a client's snapshot costs no allocation.
func TestSnapshotSenderNoAllocs(t *testing.T) {
	var s SnapshotSender
	var hist History
	l := New(testSession, at(0))
	l.Baselines = &hist
	tick := uint32(0)
	worlds := [2][]wire.Entity{world(200, 0), world(200, 1)}
	var seqs [16]uint16
	step := func() {
		tick += 3
		n := 0
		for _, d := range s.Datagrams(l, tick, testPlayers, worlds[tick%2], at(int(tick))) {
			seqs[n] = uint16(d[6]) | uint16(d[7])<<8
			n++
		}
		for _, seq := range seqs[:n] {
			l.Accept(wire.Header{Type: wire.TypeAck, Seq: uint16(tick), Ack: seq, AckBits: 0xFFFFFFFF, Session: testSession}, wire.HeaderSize, at(int(tick)))
		}
	}
	for range 2 * Snapshots {
		step()
	}
	testutil.NoAllocs(t, 200, "SnapshotSender.Datagrams", step)
}
