package sim_test

import (
	"testing"

	"rtype/sim/stage"
)

// TestBandwidthStageTwo: a client's bytes (v2 snapshots and events) over a
// minute of stage 2's hull (from 1:00: hatches, crawlers following the
// contour, turrets, towers and masts) stay within 1.25 times the minute of
// stage 1's terrain (from 0:40), with four players as runStretch's. The
// figures are logged.
func TestBandwidthStageTwo(t *testing.T) {
	one, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	two, err := stage.Builtin("2")
	if err != nil {
		t.Fatal(err)
	}
	var a, b bwMeter
	runStretch(t, two, "1:00", &a)
	runStretch(t, one, "0:40", &b)
	logMeter(t, "stage 2", &a)
	logMeter(t, "stage 1", &b)
	x, y := a.perSecond(a.v2+a.v2Events), b.perSecond(b.v2+b.v2Events)
	t.Logf("v2 snapshots and events per client: stage 2 1:00-2:00 %.0f B/s, stage 1 0:40-1:40 %.0f B/s, ratio %.3f", x, y, x/y)
	if x > 1.25*y {
		t.Errorf("stage 2 %.0f B/s: more than 1.25 times stage 1's %.0f B/s", x, y)
	}
}
