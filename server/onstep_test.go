package server

import (
	"slices"
	"sync"
	"testing"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// Config.OnStep reports the step applied at every tick (7.4), the
// last_step the snapshots of that tick carry (7.8): the steps one per
// tick, the ticks the queue ran dry (the last step again), and a burst's
// skip.
func TestOnStep(t *testing.T) {
	t.Parallel()
	type report struct {
		game       int
		tick, step uint32
		player     uint8
	}
	var (
		mu      sync.Mutex
		reports []report
	)
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	cfg.OnStep = func(game int, tick uint32, player uint8, step uint32) {
		mu.Lock()
		reports = append(reports, report{game, tick, step, player})
		mu.Unlock()
	}
	s := startServer(t, cfg)
	c := join2(t, s, "Ripley")
	c.keepAlive = false
	ship := c.shipID()
	send := func(in *wire2.Input) { c.send(wire.TypeInput, wire2.AppendInput(nil, in)) }
	const R = wire.ActionRight

	// Steps 0 to 2, then (the queue dry meanwhile) 3 to 10 at once: 3 to
	// 6 are skipped, 7 to 10 applied.
	send(input(2, 0, R, R))
	shipAt(t, c, ship, 2)
	send(input(10, 0, R, R, R, R, R, R, R))
	shipAt(t, c, ship, 10)

	mu.Lock()
	got := slices.Clone(reports)
	mu.Unlock()
	var steps []uint32 // the steps applied, a dry tick's repeat left out
	for i, r := range got {
		if r.game != got[0].game || r.player != c.acc.Player {
			t.Fatalf("report %d: game %d player %d, want game %d player %d", i, r.game, r.player, got[0].game, c.acc.Player)
		}
		if i > 0 && r.tick != got[i-1].tick+1 {
			t.Fatalf("report %d of tick %d after one of tick %d: want every tick", i, r.tick, got[i-1].tick)
		}
		if i == 0 || r.step != got[i-1].step {
			steps = append(steps, r.step)
		}
	}
	if want := []uint32{0, 1, 2, 7, 8, 9, 10}; !slices.Equal(steps, want) {
		t.Fatalf("steps applied %v, want %v", steps, want)
	}
	// Each snapshot's last_step is the one reported at its tick.
	checked := 0
	for _, sn := range c.snaps {
		p, ok := sn.player(c.acc.Player)
		if !ok || !p.HasStep {
			continue
		}
		i, found := slices.BinarySearchFunc(got, sn.tick, func(r report, tick uint32) int { return int(r.tick) - int(tick) })
		if !found {
			t.Fatalf("no report of the tick %d of a snapshot with last_step %d", sn.tick, p.LastStep)
		}
		if got[i].step != p.LastStep {
			t.Fatalf("tick %d: step %d reported, last_step %d in the snapshot", sn.tick, got[i].step, p.LastStep)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no snapshot with a last_step")
	}
}
