package client

import (
	"math"
	"testing"
	"time"

	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
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
		w := NewWorld(wire.Features{})
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
		checkWorld(t, w)
	})
}

// FuzzWorld2 is FuzzWorld for a v2 session (7.5 to 7.8): v2 Spawns with
// motions, and v2 snapshots of motions, in any order. Besides FuzzWorld's
// checks, every entity shown carries its motion, and its position is its
// motion's at its tick.
func FuzzWorld2(f *testing.F) {
	bydos := wire.Sine(612, 1300, 200, -120, 40, 120, math.Pi/2)
	spawn := wire2.AppendEvent(nil, &wire.Event{Type: wire.EventSpawn, Tick: 612, ID: 5, Kind: wire.KindBydosSlave, Owner: wire.NoPlayer,
		Motion: bydos, Anim: wire.Anim{Ticks: 6, Count: 8}})
	missile := wire.Linear(617, 154.25, 175.75, 900, 0)
	shot := wire2.AppendEvent(nil, &wire.Event{Type: wire.EventSpawn, Tick: 617, ID: 9, Kind: wire.KindPlayerMissile, Owner: 0, Motion: missile})
	destroy := wire2.AppendEvent(nil, &wire.Event{Type: wire.EventDestroy, Tick: 650, ID: 5, Reason: wire.DestroyKilled, X: 900, Y: 240})
	joined := wire2.AppendEvent(nil, &wire.Event{Type: wire.EventPlayerJoined, Tick: 1, Player: 0, Name: "\u202eEvil\nName"})
	reserved := wire2.AppendEvent(nil, &wire.Event{Type: wire.EventSpawn, Tick: 613, ID: 6, Kind: wire.KindBydosSlave, Owner: wire.NoPlayer,
		Motion: wire.Motion{Model: 9, T0: 600, X0: 100}})
	frame := func(b []byte) []byte { return append([]byte{byte(len(b))}, b...) }
	var seed []byte
	for _, e := range [][]byte{joined, spawn, shot, reserved, destroy, spawn} {
		seed = append(seed, frame(e)...)
	}
	// records: tick/3, then 14-byte records: id (2 bytes), kind, model,
	// t0 age, x0, y0 (2 bytes each), vx, vy, frame0, ticks, count.
	f.Add(seed, []byte{205, 5, 0, 3, 2, 3, 0xA0, 0x28, 0x40, 0x06, 0x80, 0xF8, 0, 6, 8, 9, 0, 2, 1, 1, 0xD2, 0x04, 0x7E, 0x05, 0x40, 0x38, 0, 0, 0})
	f.Add(seed, []byte{255, 0xFF, 0xFF, 1, 15, 255, 0xFF, 0x7F, 0x00, 0x80, 0xFF, 0x7F, 255, 255, 255})
	f.Add(stageSeed21(), []byte{205, 5, 0, 3, 2, 3, 0xA0, 0x28, 0x40, 0x06, 0x80, 0xF8, 0, 6, 8})
	f.Fuzz(func(t *testing.T, events, records []byte) {
		w := NewWorld(wire.NewFeatures(wire.Version2, wire.Revision))
		for len(events) > 0 {
			n := int(events[0])
			events = events[1:]
			if n > len(events) {
				break
			}
			var ev wire.Event
			if wire2.ParseEvent(events[:n], &ev) == nil {
				w.ApplyEvent(&ev)
			}
			events = events[n:]
			if len(records) >= 15 {
				r := link2.Rebuilt{}
				r.Tick = uint32(records[0]) * 3
				r.Players = []wire2.Player{{PlayerState: wire.PlayerState{Player: records[1] & 3, HasShip: true, Ship: 9}, HasStep: true, LastStep: uint32(records[2])}}
				records = records[1:]
				for len(records) >= 14 {
					b := records
					m := wire.Motion{Model: wire.Model(b[3] & 15), T0: r.Tick - min(r.Tick, uint32(b[4])),
						X0: int16(uint16(b[5]) | uint16(b[6])<<8), Y0: int16(uint16(b[7]) | uint16(b[8])<<8),
						VX: int16(int8(b[9])) * 16, VY: int16(int8(b[10])) * 16, Amp: uint16(b[11]) * 8, Period: uint16(b[12]), Phase: uint16(b[13]) << 8}
					r.Entities = append(r.Entities, wire2.MakeEntity(uint32(b[0])|uint32(b[1])<<24, b[2]&7, &m, wire.Anim{Frame0: b[11], Ticks: b[12] & 15, Count: b[13] & 15}))
					records = records[14:]
				}
				w.ApplyFrame(&r, time.Time{})
			}
		}
		checkWorld(t, w)
		for _, e := range w.Entities(nil) {
			if !e.HasMotion || e.Motion.Model > wire.ModelSine {
				t.Fatalf("entity %d shown without a motion it can draw: %+v", e.ID, e.Motion)
			}
			x, y, _, _ := e.Motion.At(float64(e.Tick))
			if float32(x) != e.X || float32(y) != e.Y {
				t.Fatalf("entity %d at (%v, %v), its motion at tick %d says (%v, %v)", e.ID, e.X, e.Y, e.Tick, x, y)
			}
			if e.FrameAt(float64(e.Tick)) != e.Frame {
				t.Fatalf("entity %d frame %d, its animation says %d", e.ID, e.Frame, e.FrameAt(float64(e.Tick)))
			}
		}
	})
}

// checkWorld checks what a World keeps whatever it was given: frames that
// list each entity once, sorted by id; its limits; names cleaned; no
// entity shown after its Destroy.
func checkWorld(t *testing.T, w *World) {
	t.Helper()
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
}

// stageSeed21 is a FuzzWorld2 seed of Stage mode (7.12): a Force, a boss
// with its Stage and Health events, Arms, late and invalid ones.
func stageSeed21() []byte {
	var seed []byte
	for _, ev := range []wire.Event{
		{Type: wire.EventStage, Tick: 600, What: wire.StageIntro, Value: 1, Name: "Stage 1"},
		{Type: wire.EventSpawn, Tick: 612, ID: 40, Kind: wire.KindBossCore, Owner: wire.NoPlayer, Motion: wire.Linear(612, 1000, 300, -30, 0)},
		{Type: wire.EventSpawn, Tick: 612, ID: 41, Kind: wire.KindForce, Owner: 0, Motion: wire.Linear(612, 100, 300, 0, 0)},
		{Type: wire.EventStage, Tick: 613, What: wire.StageBoss, Value: 40, Name: "Dobkeratops"},
		{Type: wire.EventHealth, Tick: 614, ID: 40, HP: 700, MaxHP: 800},
		{Type: wire.EventHealth, Tick: 613, ID: 40, HP: 800, MaxHP: 800},
		{Type: wire.EventArms, Tick: 615, Player: 0, Arms: wire.Arms{Force: 1, ForceAt: wire.ForceFront}},
		{Type: wire.EventArms, Tick: 614, Player: 0},
		{Type: wire.EventArms, Tick: 615, Player: 4},
	} {
		b := wire2.AppendEvent(nil, &ev)
		seed = append(append(seed, byte(len(b))), b...)
	}
	return seed
}
