package e2e

import (
	"flag"
	"slices"
	"testing"
	"time"
)

// run: go test -count=1 -run TestStageLength ./e2e/ -stage-runs 16 -v
var stageRuns = flag.Int("stage-runs", 0, "TestStageLength: how many games of the built-in stage four bots play (0: skip)")

// TestStageLength measures how far four bots get in the built-in stage and
// how long it lasts with them: -stage-runs games of seeds 1.. (stageSim,
// no network), each to the clear of loop 1, the game over or stageLimit.
// It logs each game, how many reached the end boss and cleared, and the
// median ticks to the end boss's entrance and to the clear. It measures,
// it does not judge: it fails only on a stage without foes.
func TestStageLength(t *testing.T) {
	if *stageRuns <= 0 {
		t.Skip("a measurement: run with -stage-runs N")
	}
	st := builtinStage(t)
	var boss, clear, over []uint32
	t0 := time.Now()
	for seed := range uint64(*stageRuns) {
		s := newStageSim(t, st, seed+1, "")
		for s.w.Tick() < stageLimit && s.clear.tick == 0 && s.over == 0 {
			s.step()
		}
		if s.foes == 0 {
			t.Fatalf("the stage %q spawned no foe: the built-in stage (stage.Builtin) is not in this build", st.Name)
		}
		t.Logf("seed %d: %s", seed+1, s.report())
		if end, ok := s.endBoss(); ok {
			boss = append(boss, end.tick)
		}
		if s.clear.tick != 0 {
			clear = append(clear, s.clear.tick)
		}
		over = append(over, s.w.Tick())
	}
	median := func(v []uint32) string {
		if len(v) == 0 {
			return "-"
		}
		v = slices.Clone(v)
		slices.Sort(v)
		return seconds(v[len(v)/2])
	}
	t.Logf("%d games in %v: the end boss entered in %d (median at %s), cleared in %d (median at %s); games lasted %s (median)",
		*stageRuns, time.Since(t0).Round(time.Millisecond), len(boss), median(boss), len(clear), median(clear), median(over))
}
