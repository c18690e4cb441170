package server

import (
	"testing"

	"rtype/sim"
)

// TestPhasesSpreadSnapshots checks that games whose worlds start stepping
// at the same loop tick (a burst of logins) snapshot on different loop
// ticks, each still every SnapshotInterval ticks of its world, and that a
// lone game keeps the world's multiples of the interval.
func TestPhasesSpreadSnapshots(t *testing.T) {
	const interval = 3
	var p phases
	var games []*game
	newGame := func() *game {
		g := &game{world: sim.New(sim.DefaultRules(), uint64(len(games)+1))}
		p.start(g)
		games = append(games, g)
		return g
	}
	// One game first, alone: offset 0, as before phases.
	lone := newGame()
	p.tick()
	p.tick() // a loop tick at which the world does not step yet
	lone.world.Step()
	p.place(interval)
	if !lone.phased || lone.snapOff != 0 {
		t.Fatalf("a lone game: phased %v, offset %d: want its world's multiples of %d", lone.phased, lone.snapOff, interval)
	}
	// Eight more, all stepping from the same loop tick on.
	for range 8 {
		newGame()
	}
	for range 4 {
		p.tick()
		for _, g := range games {
			g.world.Step()
		}
		p.place(interval)
	}
	if len(p.pending) != 0 || p.load[0]+p.load[1]+p.load[2] != 9 {
		t.Fatalf("pending %d, load %v: want every game placed", len(p.pending), p.load)
	}
	last := make(map[*game]uint32)
	for range 30 {
		p.tick()
		n := 0
		for _, g := range games {
			g.world.Step()
			if g.snapshotTick(interval) {
				n++
				if prev, ok := last[g]; ok && g.world.Tick()-prev != interval {
					t.Fatalf("game snapshots at world ticks %d then %d: want every %d", prev, g.world.Tick(), interval)
				}
				last[g] = g.world.Tick()
			}
		}
		if n != 3 {
			t.Fatalf("loop tick %d: %d of 9 games snapshot: want 3 (load %v)", p.loop, n, p.load)
		}
	}
	// Ending games frees their classes; a pending one leaves the list.
	waiting := newGame()
	p.end(waiting)
	if len(p.pending) != 0 {
		t.Fatalf("an ended pending game stays pending")
	}
	for _, g := range games[:3] {
		p.end(g)
	}
	if sum := p.load[0] + p.load[1] + p.load[2]; sum != 6 {
		t.Fatalf("load %v after 3 of 9 games ended: want 6 in all", p.load)
	}
}
