package view

import (
	"math"
	"testing"

	"rtype/net/wire"
	"rtype/render/model"
	"rtype/sim"
	"rtype/sim/stage"
)

// The terrain clock follows the server's scroll from the events a client
// gets: a host knowing its warp from the intro on; a client that does not
// know it (a joiner), from the first marker on. Checked against the
// world's own StageDistance, tick by tick, through stage 1's terrain.
func TestTerrainClockFollowsTheWorld(t *testing.T) {
	for _, c := range []struct {
		warp, told string // the game's warp; the one the client knows
		exactFrom  uint32 // the world tick from which it must be right
	}{
		{"1:00", "1:00", 1},
		{"checkpoint-2", "", 1},            // the marker at the intro's tick says it
		{"0:50", "", 25*wire.TickRate + 2}, // right from checkpoint-2 (1:15) on
	} {
		st, err := stage.Builtin("1")
		if err != nil {
			t.Fatal(err)
		}
		r := sim.DefaultRules()
		r.Lives = 255 // no game over: it would stop the timeline
		w, err := sim.NewStage(r, st, 1, sim.StageOptions{Warp: c.warp})
		if err != nil {
			t.Fatal(err)
		}
		w.AddPlayer(0, "P")
		var told *stage.Stage
		if c.told != "" {
			told = st
		}
		clk := newTerrainClock(told, c.told)
		var tr model.Terrain
		worst := 0.0
		for range 40 * wire.TickRate {
			w.SetInput(0, 0)
			w.Step()
			for _, ev := range w.TakeEvents() {
				clk.event(&ev, false, nil)
			}
			clk.frame(&tr, float64(w.Tick()))
			if w.Tick() < c.exactFrom {
				continue
			}
			if len(tr.Tiles) == 0 {
				t.Fatalf("warp %s: no terrain at tick %d", c.warp, w.Tick())
			}
			worst = math.Max(worst, math.Abs(tr.D-w.StageDistance()))
		}
		// The server counts the timeline's tick after its collisions:
		// one tick (1 px at 60 px/s) apart at most.
		if worst > 1 {
			t.Errorf("warp %s (told %q): the drawn terrain up to %g px from the server's", c.warp, c.told, worst)
		}
	}
}

// A boss stops the terrain until it is destroyed, a game over for good;
// a stage not built in (or another version of it) and not given draws
// none, and the player is told once until another stage comes.
func TestTerrainClockBossAndUnknown(t *testing.T) {
	st, _ := stage.Builtin("1")
	// begin gives c the File and the Intro of a stage: it returns
	// whether c said the stage is not known here.
	begin := func(c *terrainClock, tick, loop uint32, name string, sum uint32) bool {
		unknown := c.event(&wire.Event{Type: wire.EventStage, What: wire.StageFile, Value: sum, Tick: tick, Name: name}, false, nil)
		c.event(&wire.Event{Type: wire.EventStage, What: wire.StageIntro, Value: loop, Tick: tick, Name: "ANY TITLE"}, false, nil)
		return unknown
	}
	clk := newTerrainClock(nil, "")
	if begin(&clk, 100, 1, st.Name, st.FileSum()) {
		t.Fatal("stage 1 said unknown")
	}
	var tr model.Terrain
	clk.frame(&tr, 160)
	if len(tr.Tiles) == 0 || tr.D != 60 {
		t.Fatalf("found by its name and checksum: %d tiles, D %g; want stage 1's, 60", len(tr.Tiles), tr.D)
	}
	var mid uint32
	for _, e := range st.Entries {
		if e.Kind == stage.EntryMidBoss {
			mid = e.Tick
		}
	}
	clk.event(&wire.Event{Type: wire.EventStage, What: wire.StageMarker, Value: sim.MarkerMidBoss, Tick: 9000, Name: "midboss"}, false, nil)
	clk.frame(&tr, 9500)
	if want := float64(mid); tr.D != want {
		t.Errorf("during the mid-boss: D %g, want %g", tr.D, want)
	}
	clk.event(&wire.Event{Type: wire.EventDestroy, Tick: 9600}, true, nil)
	clk.frame(&tr, 9660)
	if want := float64(mid + 60); tr.D != want {
		t.Errorf("after it: D %g, want %g", tr.D, want)
	}
	clk.event(&wire.Event{Type: wire.EventGameOver, Tick: 9700}, false, nil)
	clk.frame(&tr, 9900)
	if want := float64(mid + 100); tr.D != want {
		t.Errorf("after the game over: D %g, want %g (the timeline stops)", tr.D, want)
	}

	other := newTerrainClock(nil, "")
	if !begin(&other, 100, 1, "amod", 1) {
		t.Error("a stage not built here: not said")
	}
	if begin(&other, 900, 2, "amod", 1) {
		t.Error("said twice")
	}
	if other.frame(&tr, 200); len(tr.Tiles) != 0 {
		t.Error("terrain drawn for a stage not known here")
	}
	// A campaign's next stage comes with its File: stage 1 after the
	// mod's stage, then another version of stage 1, then stage 1.
	if begin(&other, 1000, 2, st.Name, st.FileSum()) {
		t.Error("stage 1 said unknown")
	}
	if other.frame(&tr, 1060); len(tr.Tiles) == 0 || tr.D != 60 {
		t.Errorf("stage 1 after the mod's: %d tiles, D %g; want stage 1's, 60", len(tr.Tiles), tr.D)
	}
	if !begin(&other, 2000, 2, st.Name, st.FileSum()^1) {
		t.Error("another version of stage 1: not said")
	}
	if other.frame(&tr, 2060); len(tr.Tiles) != 0 {
		t.Error("stage 1's terrain drawn for another version of it")
	}
	begin(&other, 3000, 3, st.Name, st.FileSum())
	if other.frame(&tr, 3030); len(tr.Tiles) == 0 || tr.D != 30 {
		t.Errorf("stage 1 in loop 3: %d tiles, D %g; want stage 1's, 30", len(tr.Tiles), tr.D)
	}
}
