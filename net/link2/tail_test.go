package link2

import (
	"slices"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link"
	"rtype/net/link/linktest"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// tailWorld is a world of n entities at tick, for the tail tests.
func tailWorld(n int, tick uint32) ([]wire2.Player, []wire2.Entity) {
	players := []wire2.Player{{PlayerState: wire.PlayerState{Player: 0, HasShip: true, Ship: 1, Lives: 3}}}
	var ents []wire2.Entity
	for i := range n {
		m := wire.Linear(tick, float64(10*i), 100, float64(i), 0)
		ents = append(ents, wire2.MakeEntity(uint32(2+i), wire.KindBydosSlave, &m, wire.Anim{}))
	}
	slices.SortFunc(ents, func(a, b wire2.Entity) int {
		if wire.Less(a.ID, b.ID) {
			return -1
		}
		return 1
	})
	return players, ents
}

// 7.8: the due events ride in the tail of the first Snapshot datagram,
// oldest first, as many as fit in 1200 bytes; the oldest that do not fit
// go, before it, in Event datagrams; every event once, in id order over
// the datagrams; every datagram at most 1200 bytes. Without Tail
// the Snapshot has no tail.
func TestDatagramsEvents(t *testing.T) {
	for _, tc := range []struct {
		name     string
		events   int // queued, 40 bytes each
		entities int
		before   int // Event datagrams before the Snapshot
	}{
		{"fit", 10, 4, 0},
		{"none", 0, 4, 0},
		{"overflow", 60, 4, 1},
		{"large snapshot", 10, 90, 1},
		{"split snapshot", 10, 100, 1}, // 2 datagrams: the second's tail empty
		{"many", 300, 0, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := link.NewV2(testSession, t0)
			srv.Tail = true
			cli := link.NewV2(testSession, t0)
			for i := range tc.events {
				ev := wire.Event{Type: wire.EventSpawn, Tick: 99, ID: uint32(1000 + i), Kind: wire.KindPlayerMissile}
				if tc.events == 300 {
					ev = wire.Event{Type: wire.EventDeath, Tick: 99, Player: 1, X: 1, Y: 2}
				}
				if err := srv.QueueEvent(&ev); err != nil {
					t.Fatal(err)
				}
			}
			players, ents := tailWorld(tc.entities, 99)
			var s SnapshotSender
			ds, events := s.DatagramsEvents(srv, 99, players, ents, t0)
			var ids []uint32
			var snap wire2.Snapshot
			before := 0
			for i, d := range ds {
				if len(d) > wire.MaxDatagram {
					t.Fatalf("datagram %d of %d bytes", i, len(d))
				}
				h, p := parseAny(t, cli, d, wire.ToClient)
				var frames []wire.EventFrame
				switch h.Type {
				case wire.TypeEvent:
					if i != before {
						t.Fatalf("Event datagram %d after a Snapshot", i)
					}
					before++
					frames, _ = wire2.ParseEventFrames(p, nil)
				case wire.TypeSnapshot:
					tail, err := snap.DecodeTail(p)
					if err != nil {
						t.Fatalf("datagram %d: %v", i, err)
					}
					frames = wire2.TailFrames(tail, nil)
					if tc.entities >= 90 && i == before && len(d) < 1100 {
						t.Fatalf("a Snapshot of %d bytes: not large", len(d))
					}
					if i > before && len(frames) > 0 {
						t.Fatalf("the Snapshot datagram %d of the tick carries events", i-before)
					}
					if i == len(ds)-1 && len(frames) > 0 && len(d)+wire2.FrameOverhead+40 <= wire.MaxDatagram && tc.events > len(ids)+len(frames) {
						t.Fatalf("a tail of %d bytes left room, with events sent before", len(tail))
					}
				}
				for _, f := range frames {
					ids = append(ids, f.ID)
				}
			}
			if tc.name == "split snapshot" && len(ds)-before != 2 {
				t.Fatalf("%d Snapshot datagrams, want 2", len(ds)-before)
			}
			if before != tc.before || events != before {
				t.Errorf("%d Event datagrams before the Snapshot (DatagramsEvents says %d), want %d", before, events, tc.before)
			}
			if len(ids) != tc.events || !slices.IsSorted(ids) {
				t.Fatalf("event ids %v, want 0 to %d once each, in order", ids, tc.events-1)
			}
			// Without 7.8, a plain v2 Snapshot.
			srv2 := link.NewV2(testSession, t0)
			var s2 SnapshotSender
			for _, d := range s2.Datagrams(srv2, 99, players, ents, t0) {
				_, p := parseAny(t, cli, d, wire.ToClient)
				if err := snap.Decode(p); err != nil {
					t.Fatalf("tail-less Snapshot: %v", err)
				}
			}
		})
	}
}

// Both ends of a v2 link allocate nothing per tick in steady state:
// the server queues events and sends them in its Snapshots' tails
// (DatagramsEvents); the client decodes, rebuilds, delivers and
// acknowledges them (DecodeTail, Rebuild, ReceiveEvents, Accept); the
// server takes the acknowledgement.
func TestTailTickNoAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	srv, cli := link.NewV2(testSession, t0), link.NewV2(testSession, t0)
	srv.Tail, cli.Tail = true, true
	evs := make([]*wire.Event, 8)
	for i := range evs {
		evs[i] = linktest.EventFor(i)
	}
	players, ents := tailWorld(8, 3)
	var s SnapshotSender
	var rb Rebuilder
	var snap wire2.Snapshot
	ack := make([]byte, 0, wire.MaxDatagram)
	fresh := make([]wire.EventFrame, 0, 64)
	now := t0
	tick := uint32(0)
	step := func() {
		now = now.Add(time.Second / 60)
		tick++
		if err := srv.QueueEvent(evs[tick%uint32(len(evs))]); err != nil {
			t.Fatal(err)
		}
		if tick%3 != 0 {
			return
		}
		ents[0].F[wire2.FieldT0] = tick // a change: a Snapshot every third tick
		ds, _ := s.DatagramsEvents(srv, tick, players, ents, now)
		for _, d := range ds {
			h, p := parseAny(t, cli, d, wire.ToClient)
			if h.Type != wire.TypeSnapshot {
				t.Fatalf("a datagram of type %d", h.Type)
			}
			tail, err := snap.DecodeTail(p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rb.Rebuild(&snap); err != nil {
				t.Fatal(err)
			}
			if tail[0] > 0 {
				if fresh, err = cli.ReceiveEvents(tail, fresh[:0]); err != nil || len(fresh) != 3 {
					t.Fatalf("%d fresh events, want 3: %v", len(fresh), err)
				}
			}
			cli.Accept(h, len(d), now)
		}
		ack, _ = cli.AppendDatagram(ack[:0], wire.TypeAck, nil, now)
		h, _ := parseAny(t, srv, ack, wire.ToServer)
		srv.Accept(h, len(ack), now)
	}
	for range 6 * sentRing { // the ring of sent datagrams at its size
		step()
	}
	testutil.NoAllocs(t, 600, "a tick of a v2 link", step)
	if srv.Unacked() > 2 { // those of the ticks since the last snapshot tick
		t.Fatalf("%d events unacknowledged", srv.Unacked())
	}
}
