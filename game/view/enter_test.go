package view

import (
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/sim"
)

// advancer is a test game (v1 or v2) that the clock drives.
type advancer interface {
	Source
	advance()
}

// stillAtEntry drives g's View with Updates at 60 Hz and frames at hz for
// d, and returns, over the Bydos that appeared, how many frames each
// showed at its first position before it moved (the most, and the
// number of Bydos seen enter).
func stillAtEntry(t *testing.T, g advancer, clk *clock, hz int, d time.Duration) (worst, entered int) {
	v := newView(g, clk)
	firstX := map[uint32]float64{}
	still := map[uint32]int{}
	moved := map[uint32]bool{}
	drive(g, clk, v, hz, d, nil, func(f *Frame) {
		for _, sp := range f.Sprites {
			if sp.Kind != wire.KindBydosSlave || moved[sp.ID] {
				continue
			}
			x, seen := firstX[sp.ID]
			switch {
			case !seen:
				firstX[sp.ID] = sp.X
				still[sp.ID] = 1
			case x == sp.X:
				still[sp.ID]++
			default:
				moved[sp.ID] = true
			}
		}
	})
	for id, n := range still {
		if moved[id] {
			entered++
			worst = max(worst, n)
		}
	}
	return worst, entered
}

// TestNewBydosEntersMoving: a Bydos entering the screen moves from the
// first frame it shows in to the next (v1 and v2 sessions, 60 and 144 Hz
// displays, 40 ± 20 ms each way, v2 with 10% loss), instead of standing
// still for two frames at its first known state until the render time
// reached it (the interpolation moves a new entity back along its
// velocity to its Spawn tick, game/interp; v2 motions are exact).
func TestNewBydosEntersMoving(t *testing.T) {
	rules := sim.DefaultRules()
	rules.FirstWave = 30
	rules.JoinInvulnTicks = 1 << 30
	for _, hz := range []int{60, 144} {
		for _, v2 := range []bool{false, true} {
			clk := &clock{now: t0}
			var g advancer
			if v2 {
				g = newGame2(t, clk, &rules, 40*time.Millisecond, 20*time.Millisecond, 0.1, 3)
			} else {
				g = newGame(t, clk, &rules, 40*time.Millisecond, 20*time.Millisecond, 3)
			}
			worst, n := stillAtEntry(t, g, clk, hz, 6*time.Second)
			t.Logf("v2 %v, %d Hz: %d Bydos entered, the worst shown %d frames at its first place", v2, hz, n, worst)
			if n < 5 {
				t.Fatalf("v2 %v: only %d Bydos entered", v2, n)
			}
			if worst > 1 {
				t.Errorf("v2 %v, %d Hz: a new Bydos stood still for %d frames", v2, hz, worst)
			}
		}
	}
}
