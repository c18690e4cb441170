package sim_test

import (
	"testing"

	"rtype/sim/stage"
)

// runBossFight plays 3600 ticks (60 s) of stage 1's end-boss fight (warp
// "boss") with 4 players moving as runBusy's do, tapping Fire, charging
// the wave cannon and launching and recalling the Force; players have 255
// lives, so the fight goes on with four ships for the whole minute.
func runBossFight(t testing.TB, m *bwMeter) {
	st, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	runStretch(t, st, "boss", m)
}

// TestBandwidthBossFight checks issue 13's target: a client's bytes
// during stage 1's boss fight (v2 snapshots and events) stay under a busy
// Classic game's in v2.
func TestBandwidthBossFight(t *testing.T) {
	var busy, boss bwMeter
	runBusy(&busy)
	runBossFight(t, &boss)
	logMeter(t, "busy", &busy)
	logMeter(t, "boss fight", &boss)
	b, f := busy.perSecond(busy.v2+busy.v2Events), boss.perSecond(boss.v2+boss.v2Events)
	t.Logf("v2 snapshots and events per client: boss fight %.0f B/s, busy Classic game %.0f B/s, ratio %.2f", f, b, f/b)
	if f >= b {
		t.Errorf("boss fight: %.0f B/s, want under the busy game's %.0f B/s", f, b)
	}
}
