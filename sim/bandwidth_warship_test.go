package sim_test

import (
	"testing"

	"rtype/sim/stage"
)

// TestBandwidthStageTwo checks issue 30's target: a client's bytes (v2
// snapshots, and the events in their tails as a revision-4 session gets
// them) over stage 2's first 3.5 minutes (its length on the timeline) are
// at most 1.1 times stage 1's, with four players as runStretch's. The
// busiest minute of stage 2's hull (from 1:00: hatches, crawlers, turrets,
// towers and masts) against stage 1's terrain (from 0:40) is logged.
func TestBandwidthStageTwo(t *testing.T) {
	one, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	two, err := stage.Builtin("2")
	if err != nil {
		t.Fatal(err)
	}
	perSecond := func(m *bwMeter) float64 { return m.perSecond(m.v2 + m.tail) }
	var a, b bwMeter
	runFor(t, two, "", 210*60, &a)
	runFor(t, one, "", 210*60, &b)
	logMeter(t, "stage 2", &a)
	logMeter(t, "stage 1", &b)
	x, y := perSecond(&a), perSecond(&b)
	t.Logf("v2 per client over 3:30: stage 2 %.0f B/s (snapshots %.0f, events %.0f), stage 1 %.0f B/s (%.0f, %.0f), ratio %.3f",
		x, a.perSecond(a.v2), a.perSecond(a.tail), y, b.perSecond(b.v2), b.perSecond(b.tail), x/y)
	var c, d bwMeter
	runStretch(t, two, "1:00", &c)
	runStretch(t, one, "0:40", &d)
	t.Logf("the busiest minutes: stage 2 from 1:00 %.0f B/s, stage 1 from 0:40 %.0f B/s, ratio %.3f",
		perSecond(&c), perSecond(&d), perSecond(&c)/perSecond(&d))
	if x > 1.1*y {
		t.Errorf("stage 2 %.0f B/s: more than 1.1 times stage 1's %.0f B/s", x, y)
	}
}
