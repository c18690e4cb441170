package bot

import (
	"testing"

	"rtype/net/wire"
	"rtype/sim"
	"rtype/sim/stage"
)

// terrainRun plays stage 1 from checkpoint-1 (0:30) past its terrain
// (0:40 to 1:40) with four brains fed as RoomBots feeds them (the world's
// frame and events), or without the events (brains blind to the
// terrain), and returns the deaths and those against a wall.
func terrainRun(t testing.TB, seed uint64, events bool) (deaths, walls int) {
	st, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	r := sim.DefaultRules()
	r.Lives = 255
	w, err := sim.NewStage(r, st, seed, sim.StageOptions{Warp: "checkpoint-1"})
	if err != nil {
		t.Fatal(err)
	}
	rb := NewRoomBots(wire.ModeStage, seed)
	for p := range uint8(wire.MaxPlayers) {
		w.AddPlayer(p, "bot")
		rb.Add(p)
	}
	note := func(evs []wire.Event) {
		if events {
			rb.Note(evs)
			return
		}
		for i := range evs { // the owners only
			switch ev := &evs[i]; ev.Type {
			case wire.EventSpawn:
				rb.owner[ev.ID] = ev.Owner
			case wire.EventDestroy:
				delete(rb.owner, ev.ID)
			}
		}
	}
	note(w.TakeEvents())
	for range 70 * wire.TickRate {
		rb.Drive(w)
		d := w.StageDistance() // the collisions' distance
		w.Step()
		evs := w.TakeEvents()
		for i := range evs {
			if ev := &evs[i]; ev.Type == wire.EventDeath {
				deaths++
				if atWall(st, d, ev) {
					walls++
				}
			}
		}
		note(evs)
	}
	return deaths, walls
}

// atWall reports whether the Death ev was against st's terrain at
// distance d: the ship's box (33 × 17), a pixel wider, touches it.
func atWall(st *stage.Stage, d float64, ev *wire.Event) bool {
	x, y := float64(ev.X), float64(ev.Y)
	return st.Solid(d, x-33.0/2-1, y-17.0/2-1, x+33.0/2+1, y+17.0/2+1)
}

// Bots read the terrain: against stage 1's walls they die in fewer than
// 10% of their deaths (blind to it, many more). The figures are logged.
func TestBotsAvoidTerrain(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a minute of stage 1 twice per seed")
	}
	var deaths, walls, blindDeaths, blindWalls int
	for seed := range uint64(3) {
		d, w := terrainRun(t, seed+1, true)
		bd, bw := terrainRun(t, seed+1, false)
		deaths, walls, blindDeaths, blindWalls = deaths+d, walls+w, blindDeaths+bd, blindWalls+bw
	}
	t.Logf("reading the terrain: %d deaths, %d against a wall; blind to it: %d deaths, %d against a wall",
		deaths, walls, blindDeaths, blindWalls)
	if deaths > 0 && walls*10 >= deaths {
		t.Errorf("%d of %d deaths against a wall: 10%% or more", walls, deaths)
	}
	if blindWalls <= walls {
		t.Errorf("blind bots died against walls %d times, seeing ones %d: the terrain changes nothing", blindWalls, walls)
	}
}
