package link

import (
	"testing"
	"time"

	"rtype/net/link/linktest"
	"rtype/net/wire"
)

// FuzzReceive feeds a stream of datagrams, as a hostile or broken server
// would send them, through the client's side of the link: header checks,
// duplicates, event delivery and snapshot rebuilding. Nothing may panic,
// and every snapshot rebuilt must have its entities in snapshot order.
func FuzzReceive(f *testing.F) {
	var enc wire.SnapshotEncoder
	ship := wire.MakeEntity(2, wire.KindPlayerShip, 100, 360, 0, 0, 0)
	players := []wire.PlayerState{{Player: 0, HasShip: true, Ship: 2, Lives: 3, Score: 100}}
	srv := New(7, time.Unix(0, 0))
	full, _ := srv.AppendDatagram(nil, wire.TypeSnapshot, enc.Encode(600, players, nil, 0, []wire.Entity{ship})[0], time.Unix(0, 0))
	delta, _ := srv.AppendDatagram(nil, wire.TypeSnapshot, enc.Encode(603, players, []wire.Entity{ship}, 600, []wire.Entity{ship})[0], time.Unix(0, 0))
	srv.QueueEvent(&wire.Event{Type: wire.EventSpawn, Tick: 612, ID: 9, Kind: wire.KindPlayerMissile, X: 120, Y: 360, VX: 900})
	events, _ := srv.AppendEvents(nil, time.Unix(0, 0))
	f.Add(append(append(append([]byte{}, full...), delta...), events...), uint8(len(full)), uint8(len(delta)))
	f.Add(full, uint8(10), uint8(200))
	f.Fuzz(func(t *testing.T, stream []byte, cut1, cut2 uint8) {
		l := New(7, time.Unix(0, 0))
		var rb Rebuilder
		var snap wire.Snapshot
		var frames []wire.EventFrame
		for _, d := range linktest.CutStream(stream, cut1, cut2) {
			h, p, err := wire.ParseHeader(d, wire.ToClient)
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
					var ev wire.Event
					wire.ParseEvent(fr.Data, &ev)
				}
			}
			l.Accept(h, len(d), time.Unix(1, 0))
		}
	})
}
