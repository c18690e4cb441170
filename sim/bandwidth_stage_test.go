package sim_test

import (
	"math/rand/v2"
	"testing"

	"rtype/net/wire"
	"rtype/sim"
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
	rules := sim.DefaultRules()
	rules.Lives = 255
	w, err := sim.NewStage(rules, st, 7, sim.StageOptions{Warp: "boss"})
	if err != nil {
		t.Fatal(err)
	}
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	r := rand.New(rand.NewPCG(7, 7))
	var until [4]uint32
	m.events(w.TakeEvents())
	for w.Tick() < 3600 {
		for p := range uint8(4) {
			if w.Tick() >= until[p] {
				a := uint8(r.IntN(16))
				switch r.IntN(6) {
				case 0, 1, 2: // tap: a missile
					a |= wire.ActionFire
					until[p] = w.Tick() + 2
				case 3: // charge, up to 1.6 s
					a |= wire.ActionFire
					until[p] = w.Tick() + uint32(24+r.IntN(80))
				case 4: // launch or recall the Force
					a |= wire.ActionForce
					until[p] = w.Tick() + 2
				default:
					until[p] = w.Tick() + uint32(15+r.IntN(46))
				}
				w.SetInput(p, a)
			}
		}
		w.Step()
		m.events(w.TakeEvents())
		m.ticks++
		if w.Tick()%wire.SnapshotTicks == 0 {
			m.snapshot(w)
		}
	}
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
