package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
)

// stageLimit bounds a whole-stage run: 8 minutes of game, well past the
// 3 to 5 minutes a stage lasts.
const stageLimit = 8 * 60 * wire.TickRate

// raceStageTicks is how much of the stage TestStageDeterminism plays under
// the race detector, which slows the bots' planning tenfold (a whole
// stage, twice, takes half a minute then): the first 40 seconds. The
// simulation has no goroutines for it to check; the whole stage is played
// without it.
const raceStageTicks = 40 * wire.TickRate

// TestStageDeterminism plays the built-in stage twice with the same seed,
// four bot brains fed from the world's own state (stageSim), from the
// first tick to the clear of loop 1 (or to the game over, or
// stageLimit; under the race detector only raceStageTicks): the two
// worlds must emit the same events and hold the same entities, tick for
// tick. It logs how long the stage lasts with bots: the ticks to each
// marker, to each boss's entrance (StageBoss), to the clear, and how each
// bot fared.
func TestStageDeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole stage, twice: not with -short")
	}
	st := builtinStage(t)
	// A seed whose bots clear the stage (TestStageLength: every game of 16
	// clears loop 1 on 2026-11-30), so that the runs compared go through both
	// bosses and the clear; should it no longer clear, the test checks what
	// is played and says how far the bots got.
	const seed = 9
	a, b := newStageSim(t, st, seed, ""), newStageSim(t, st, seed, "")
	limit := uint32(stageLimit)
	if testutil.RaceEnabled {
		limit = raceStageTicks
		t.Logf("race detector on: the first %s of the stage only", seconds(limit))
	}
	t0 := time.Now()
	for a.w.Tick() < limit && a.clear.tick == 0 && a.over == 0 {
		ea, eb := a.step(), b.step()
		if i := firstEventDiff(ea, eb); i >= 0 {
			t.Fatalf("tick %d: event %d differs between two runs of the same seed:\n%s", a.w.Tick(), i, eventDiff(ea, eb, i))
		}
		if !slices.Equal(a.ents, b.ents) {
			t.Fatalf("tick %d: the entities differ between two runs of the same seed", a.frame.Tick)
		}
	}
	t.Logf("two runs in %v: %s", time.Since(t0).Round(time.Millisecond), a.report())
	if a.foes == 0 {
		t.Fatalf("the stage %q spawned no foe in %d ticks", st.Name, a.w.Tick())
	}
	if end, ok := a.endBoss(); ok {
		t.Logf("stage length with 4 bots: the end boss %q enters at tick %d (%s)", end.name, end.tick, seconds(end.tick))
	} else {
		t.Logf("stage length with 4 bots: the end boss never entered")
	}
	if a.clear.tick != 0 {
		t.Logf("stage length with 4 bots: cleared at tick %d (%s)", a.clear.tick, seconds(a.clear.tick))
	}
	if a.w.Tick() >= stageLimit {
		t.Errorf("the stage neither cleared nor ended in %s", seconds(stageLimit))
	}
}

// firstEventDiff returns the index of the first event that differs
// between a and b, -1 if none.
func firstEventDiff(a, b []wire.Event) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// eventDiff shows event i of a and b.
func eventDiff(a, b []wire.Event, i int) string {
	show := func(evs []wire.Event) string {
		if i < len(evs) {
			return fmt.Sprintf("%+v", evs[i])
		}
		return "(none)"
	}
	return "first run:  " + show(a) + "\nsecond run: " + show(b)
}
