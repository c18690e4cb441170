package client

import (
	"testing"

	"rtype/net/link"
	"rtype/net/wire"
)

// FuzzWorld applies events and snapshot records a hostile server could
// send, in any order, to a World. Nothing may panic, the frames must list
// each entity once, sorted by id, and never a destroyed one.
func FuzzWorld(f *testing.F) {
	spawn := wire.AppendEvent(nil, &wire.Event{Type: wire.EventSpawn, Tick: 612, ID: 9, Kind: wire.KindPlayerMissile, X: 120, Y: 360, VX: 900})
	destroy := wire.AppendEvent(nil, &wire.Event{Type: wire.EventDestroy, Tick: 650, ID: 9, Reason: wire.DestroyConsumed, X: 1000, Y: 360})
	joined := wire.AppendEvent(nil, &wire.Event{Type: wire.EventPlayerJoined, Tick: 1, Player: 0, Name: "Ripley"})
	frame := func(b []byte) []byte { return append([]byte{byte(len(b))}, b...) }
	var seed []byte
	for _, e := range [][]byte{joined, spawn, destroy, spawn} {
		seed = append(seed, frame(e)...)
	}
	f.Add(seed, []byte{9, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	// The last tick of the u32 range, a hostile name, a GameOver that
	// repeats a player.
	over := &wire.Event{Type: wire.EventGameOver, Tick: 0xFFFFFFFF, NumScores: 2}
	over.Scores[0], over.Scores[1] = wire.Score{Player: 3, Score: 1}, wire.Score{Player: 3, Score: 2}
	seed = nil
	for _, e := range [][]byte{
		wire.AppendEvent(nil, &wire.Event{Type: wire.EventDestroy, Tick: 0xFFFFFFFF, ID: 9}),
		wire.AppendEvent(nil, &wire.Event{Type: wire.EventPlayerJoined, Tick: 2, Player: 1, Name: "\u202eEvil\nName"}),
		wire.AppendEvent(nil, over),
		spawn,
	} {
		seed = append(seed, frame(e)...)
	}
	f.Add(seed, []byte{255, 9, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, events, records []byte) {
		w := NewWorld()
		// events: a length byte, then that many bytes of an event.
		for len(events) > 0 {
			n := int(events[0])
			events = events[1:]
			if n > len(events) {
				break
			}
			var ev wire.Event
			if wire.ParseEvent(events[:n], &ev) == nil {
				w.ApplyEvent(&ev)
			}
			events = events[n:]
			// Interleave a snapshot built from the record bytes.
			if len(records) >= 12 {
				r := link.Rebuilt{Tick: uint32(records[0]) * 3}
				for len(records) >= 12 {
					e := wire.Entity{ID: uint32(records[1]) | uint32(records[2])<<24, Kind: records[3] & 7}
					for k := range e.F {
						e.F[k] = int32(int8(records[4+k]))
					}
					r.Entities = append(r.Entities, e)
					records = records[12:]
				}
				w.ApplySnapshot(&r)
			}
		}
		for _, fr := range w.Frames(nil) {
			for i := 1; i < len(fr.Entities); i++ {
				if fr.Entities[i-1].ID >= fr.Entities[i].ID {
					t.Fatalf("frame %d lists %d then %d", fr.Tick, fr.Entities[i-1].ID, fr.Entities[i].ID)
				}
			}
		}
		if w.Len() > wire.MaxLiveEntities || len(w.dead) > wire.MaxDestroyed {
			t.Fatalf("%d live and %d destroyed ids, beyond the limits", w.Len(), len(w.dead))
		}
		for _, p := range w.Players() {
			if p.Name != wire.CleanName(p.Name) {
				t.Fatalf("name %q kept as received", p.Name)
			}
		}
		for _, e := range w.Entities(nil) {
			if tick, gone := w.Destroyed(e.ID); gone && tick >= e.Tick {
				t.Fatalf("entity %d shown after its Destroy at tick %d", e.ID, tick)
			}
		}
	})
}
