package sim_test

import (
	"math/rand/v2"
	"testing"

	"rtype/net/wire"
	"rtype/sim"
	"rtype/sim/stage"
)

// runStretch plays 3600 ticks (60 s) of st from warp with 4 players
// moving as runBusy's do, tapping Fire, charging the wave cannon and
// launching and recalling the Force, with 255 lives each, so that four
// ships play the whole minute.
func runStretch(t testing.TB, st *stage.Stage, warp string, m *bwMeter) {
	runFor(t, st, warp, 3600, m)
}

// runFor is runStretch for ticks ticks.
func runFor(t testing.TB, st *stage.Stage, warp string, ticks uint32, m *bwMeter) {
	rules := sim.DefaultRules()
	rules.Lives = 255
	w, err := sim.NewStage(rules, st, 7, sim.StageOptions{Warp: warp})
	if err != nil {
		t.Fatal(err)
	}
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	r := rand.New(rand.NewPCG(7, 7))
	var until [4]uint32
	m.events(w.TakeEvents())
	for w.Tick() < ticks {
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

// TestBandwidthTerrain checks issue 30's target: the terrain goes on no
// wire (the client has the stage), so a client's bytes (v2 snapshots and
// the events in their tails) over stage 1's terrain, from 0:40 for a minute, stay within
// 1.1 times the same minute of the same stage without its terrain. The
// figures are logged.
func TestBandwidthTerrain(t *testing.T) {
	with, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	without, _ := stage.Builtin("1")
	without.Terrain = nil
	var a, b bwMeter
	runStretch(t, with, "0:40", &a)
	runStretch(t, without, "0:40", &b)
	logMeter(t, "terrain", &a)
	logMeter(t, "no terrain", &b)
	x, y := a.perSecond(a.v2+a.tail), b.perSecond(b.v2+b.tail)
	t.Logf("v2 snapshots and events per client, stage 1 0:40-1:40: with its terrain %.0f B/s, without %.0f B/s, ratio %.3f", x, y, x/y)
	if x > 1.1*y {
		t.Errorf("with the terrain %.0f B/s: more than 1.1 times %.0f B/s", x, y)
	}
}
