package link2

import (
	"testing"
	"time"

	"rtype/net/link"
	"rtype/net/link/linktest"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// FuzzReceive is link's FuzzReceive for a v2 session: a stream of datagrams, as
// a hostile or broken server would send them, through the client's side
// of a v2 link: header checks (7.2), duplicates, event delivery with the
// 32-bit window (7.7), and snapshot rebuilding (7.8). Nothing may panic;
// every snapshot rebuilt has its entities in snapshot order and within
// the client limits, and no event id is delivered twice.
func FuzzReceive(f *testing.F) {
	var enc wire2.SnapshotEncoder
	m := wire.Linear(590, 100, 360, 0, 0)
	ship := wire2.MakeEntity(2, wire.KindPlayerShip, &m, wire.Anim{})
	players := []wire2.Player{{PlayerState: wire.PlayerState{Player: 0, HasShip: true, Ship: 2, Lives: 3, Score: 100},
		InvulnStart: 590, InvulnTicks: 120}}
	a := &wire2.Frame{Tick: 600, Players: players, Entities: []wire2.Entity{ship}}
	b := &wire2.Frame{Tick: 603, Players: players, Entities: []wire2.Entity{ship}}
	srv := link.NewV2(7, time.Unix(0, 0))
	full, _ := srv.AppendDatagram(nil, wire.TypeSnapshot, enc.EncodeFrame(a, nil)[0], time.Unix(0, 0))
	delta, _ := srv.AppendDatagram(nil, wire.TypeSnapshot, enc.EncodeFrame(b, a)[0], time.Unix(0, 0))
	srv.QueueEvent(linktest.V2Spawn(612))
	srv.QueueEvent(&wire.Event{Type: wire.EventDestroy, Tick: 650, ID: 5, Reason: wire.DestroyKilled, X: 900, Y: 240})
	events, _ := srv.AppendEvents(nil, time.Unix(0, 0))
	f.Add(append(append(append([]byte{}, full...), delta...), events...), uint8(len(full)), uint8(len(delta)))
	f.Add(full, uint8(10), uint8(200))
	f.Add(events, uint8(len(events)), uint8(0))
	f.Fuzz(func(t *testing.T, stream []byte, cut1, cut2 uint8) {
		l := link.NewV2(7, time.Unix(0, 0))
		var rb Rebuilder
		var snap wire2.Snapshot
		var frames []wire.EventFrame
		got := map[uint32]bool{}
		for _, d := range linktest.CutStream(stream, cut1, cut2) {
			h, p, err := wire2.ParseHeader(d, wire.ToClient)
			if err != nil || h.Session != 7 || l.Seen(h.Seq) {
				continue
			}
			switch h.Type {
			case wire.TypeSnapshot:
				if snap.Decode(p) != nil {
					continue
				}
				r, err := rb.Rebuild(&snap)
				if err != nil {
					continue
				}
				if len(r.Entities) > wire.MaxSnapshotEntities || len(r.Players) > wire.MaxPlayers {
					t.Fatalf("%d entities, %d players", len(r.Entities), len(r.Players))
				}
				for i := 1; i < len(r.Entities); i++ {
					if !wire.Less(r.Entities[i-1].ID, r.Entities[i].ID) {
						t.Fatalf("rebuilt entities out of order: %x then %x", r.Entities[i-1].ID, r.Entities[i].ID)
					}
				}
			case wire.TypeEvent:
				var err error
				if frames, err = l.ReceiveEvents(p, frames[:0]); err != nil {
					continue
				}
				for _, fr := range frames {
					if got[fr.ID] {
						t.Fatalf("event %d delivered twice", fr.ID)
					}
					got[fr.ID] = true
					var ev wire.Event
					wire2.ParseEvent(fr.Data, &ev)
				}
			}
			l.Accept(h, len(d), time.Unix(1, 0))
		}
	})
}
