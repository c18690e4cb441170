package bot

import (
	"flag"
	"slices"
	"testing"

	"rtype/net/wire"
	"rtype/sim"
	"rtype/sim/stage"
	"rtype/vocab"
)

// run: go test -count=1 -run TestStageTwoBots ./bot/ -stage2-runs 16 -v [-stage2-players 1]
var (
	stage2Runs    = flag.Int("stage2-runs", 0, "TestStageTwoBots: how many games of stage 2 the bots play (0: skip)")
	stage2Players = flag.Int("stage2-players", 4, "TestStageTwoBots: how many bots play each game, 1 to 4")
)

// stage2Game is what one game of stage 2 did.
type stage2Game struct {
	ticks, clear  uint32 // its length; the tick of its clear, 0 if none
	deaths, walls int    // the bots' deaths, and those against the terrain
	bossAt        uint32 // the warship's entrance, 0 if none
}

// playStage2 plays stage 2 from warp with n brains fed as RoomBots feeds
// them (the world's frame and events), under the default rules, until
// its clear, the game over or limit ticks.
func playStage2(t testing.TB, seed uint64, n int, warp string, limit uint32) stage2Game {
	t.Helper()
	st, err := stage.Builtin("2")
	if err != nil {
		t.Fatal(err)
	}
	w, err := sim.NewStage(sim.DefaultRules(), st, seed, sim.StageOptions{Warp: warp})
	if err != nil {
		t.Fatal(err)
	}
	rb := NewRoomBots(wire.ModeStage, seed)
	for p := range uint8(n) {
		w.AddPlayer(p, "bot")
		rb.Add(p)
	}
	var g stage2Game
	rb.Note(w.TakeEvents())
	for w.Tick() < limit && g.clear == 0 && !w.Over() {
		rb.Drive(w)
		d := w.StageDistance() // the collisions' distance
		w.Step()
		evs := w.TakeEvents()
		for i := range evs {
			switch ev := &evs[i]; {
			case ev.Type == wire.EventDeath:
				g.deaths++
				if atWall(st, d, ev) {
					g.walls++
				}
			case ev.Type == wire.EventStage && ev.What == wire.StageClear:
				g.clear = ev.Tick
			case ev.Type == wire.EventSpawn && ev.Kind == vocab.KindWarship:
				g.bossAt = ev.Tick
			}
		}
		rb.Note(evs)
	}
	g.ticks = w.Tick()
	return g
}

// TestStageTwoBots measures how bots do in stage 2: -stage2-runs games
// (seeds 1..) of -stage2-players bots, under the default rules, to the
// clear or the game over: how many clear it, the median length of a
// cleared game, and the share of their deaths against the terrain. It
// measures, it does not judge.
func TestStageTwoBots(t *testing.T) {
	if *stage2Runs <= 0 {
		t.Skip("a measurement: run with -stage2-runs N")
	}
	var clears []uint32
	var deaths, walls, bosses int
	for seed := range uint64(*stage2Runs) {
		g := playStage2(t, seed+1, *stage2Players, "", 12*60*wire.TickRate)
		t.Logf("seed %d: %d ticks (%.1f s), warship at %.1f s, clear at %.1f s, %d deaths, %d against the terrain",
			seed+1, g.ticks, float64(g.ticks)/wire.TickRate, float64(g.bossAt)/wire.TickRate, float64(g.clear)/wire.TickRate, g.deaths, g.walls)
		if g.clear != 0 {
			clears = append(clears, g.clear)
		}
		if g.bossAt != 0 {
			bosses++
		}
		deaths, walls = deaths+g.deaths, walls+g.walls
	}
	med := 0.0
	if len(clears) > 0 {
		slices.Sort(clears)
		med = float64(clears[len(clears)/2]) / wire.TickRate
	}
	share := 0.0
	if deaths > 0 {
		share = 100 * float64(walls) / float64(deaths)
	}
	t.Logf("stage 2, %d bots, %d games: the warship reached in %d, cleared in %d, median length of a cleared game %.1f s (%d:%04.1f); %d deaths, %d against the terrain (%.1f%%)",
		*stage2Players, *stage2Runs, bosses, len(clears), med, int(med)/60, med-float64(int(med)/60*60), deaths, walls, share)
}

// Four bots beat the warship: from the boss marker, its plates fall, then
// its core, and the stage is cleared, within 3 minutes of play.
func TestBotsBeatTheWarship(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the warship's fight")
	}
	g := playStage2(t, 1, 4, "boss", 3*60*wire.TickRate)
	t.Logf("the warship's fight: %d ticks (%.1f s), %d deaths", g.ticks, float64(g.ticks)/wire.TickRate, g.deaths)
	if g.bossAt == 0 || g.clear == 0 {
		t.Errorf("warship at tick %d, clear at tick %d: four bots did not beat it in 3 minutes", g.bossAt, g.clear)
	}
}
