package e2e

import (
	"flag"
	"slices"
	"testing"
	"time"

	"rtype/net/wire"
)

// run: go test -count=1 -run TestStageLength ./e2e/ -stage-runs 16 -v [-stage-players 1]
var (
	stageRuns    = flag.Int("stage-runs", 0, "TestStageLength: how many games of the built-in stage the bots play (0: skip)")
	stagePlayers = flag.Int("stage-players", 4, "TestStageLength: how many bots play each game, 1 to 4")
)

// TestStageLength measures how far four bots (-stage-players) get in the built-in stage and
// how long it lasts with them: -stage-runs games of seeds 1.. (stageSim,
// no network). Each game plays loop 1 to its clear, then goes on into loop
// 2 (the results, then the harder loop) to the clear of loop 2, the game
// over or twice stageLimit. It logs each game, how many reached the end
// boss and cleared, how many reached loop 2, its end boss and its clear,
// and the median ticks to the end boss's entrance and to the clear. It
// measures, it does not judge: it fails only on a stage without foes.
func TestStageLength(t *testing.T) {
	if *stageRuns <= 0 {
		t.Skip("a measurement: run with -stage-runs N")
	}
	if *stagePlayers < 1 || *stagePlayers > wire.MaxPlayers {
		t.Fatalf("-stage-players %d: 1 to %d", *stagePlayers, wire.MaxPlayers)
	}
	st := builtinStage(t)
	var boss, clear, over, loop2, boss2, clear2, life2 []uint32
	var beams, launches, forceBots int
	t0 := time.Now()
	for seed := range uint64(*stageRuns) {
		s := newStageSimN(t, st, seed+1, "", *stagePlayers)
		for s.w.Tick() < 2*stageLimit && s.clear2.tick == 0 && s.over == 0 && (s.clear.tick != 0 || s.w.Tick() < stageLimit) {
			s.step()
		}
		if s.foes == 0 {
			t.Fatalf("the stage %q spawned no foe: the built-in stage (stage.Builtin) is not in this build", st.Name)
		}
		t.Logf("seed %d: %s", seed+1, s.report())
		for p := range *stagePlayers {
			beams += s.beams[p]
			launches += s.launches[p]
			if s.launches[p] > 0 {
				forceBots++
			}
		}
		if end, ok := s.endBoss(); ok {
			boss = append(boss, end.tick)
		}
		if s.clear.tick != 0 {
			clear = append(clear, s.clear.tick)
			over = append(over, s.clear.tick)
		} else {
			over = append(over, s.w.Tick())
		}
		if s.loop2.tick != 0 {
			loop2 = append(loop2, s.loop2.tick)
			life2 = append(life2, s.w.Tick()-s.loop2.tick)
			if end, ok := s.endBossAfter(s.loop2.tick); ok {
				boss2 = append(boss2, end.tick-s.loop2.tick)
			}
		}
		if s.clear2.tick != 0 {
			clear2 = append(clear2, s.clear2.tick-s.loop2.tick)
		}
	}
	median := func(v []uint32) string {
		if len(v) == 0 {
			return "-"
		}
		v = slices.Clone(v)
		slices.Sort(v)
		return seconds(v[len(v)/2])
	}
	t.Logf("%d games of %d bots in %v: the end boss entered in %d (median at %s), cleared in %d (median at %s); loop 1 lasted %s (median, to its clear or the game over)",
		*stageRuns, *stagePlayers, time.Since(t0).Round(time.Millisecond), len(boss), median(boss), len(clear), median(clear), median(over))
	t.Logf("loop 2: reached in %d (median at %s), its end boss entered in %d (median %s into loop 2), cleared in %d (median %s into loop 2); the bots lasted %s in loop 2 (median)",
		len(loop2), median(loop2), len(boss2), median(boss2), len(clear2), median(clear2), median(life2))
	t.Logf("the new mechanics: %.0f beams and %.0f Force launches per bot and game; %d bots of %d launched their Force at least once",
		float64(beams)/float64(*stageRuns**stagePlayers), float64(launches)/float64(*stageRuns**stagePlayers), forceBots, *stageRuns**stagePlayers)
}
