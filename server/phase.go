package server

// phases spreads the games' snapshot ticks over the SnapshotInterval
// ticks of the tick loop. A game's snapshots, and the events a v2
// session gets with them (7.9, 7.8), go out at every third tick
// of its world; a world that started stepping at the same loop tick as
// most others (the games of a burst of logins) would put its snapshot
// work on the same loop ticks as theirs, so that one tick in three
// carried every game's encoding and sending and the other two little
// more than the steps. Each game, when its world first steps, takes the
// class of loop ticks (the loop's count modulo SnapshotInterval) that the
// fewest running games use, through an offset added to its world's tick
// (game.snapOff): its snapshots still come every SnapshotInterval ticks
// of its world, and the loop's ticks carry even shares of the work.
type phases struct {
	loop    uint32  // ticks of the loop run, the current one included
	load    []int   // running games per class of loop ticks
	pending []*game // games whose world has not stepped yet
}

// start records a new game, whose class is chosen once its world steps.
func (p *phases) start(g *game) { p.pending = append(p.pending, g) }

// tick counts a tick of the loop; call it before the games step.
func (p *phases) tick() { p.loop++ }

// place gives each pending game whose world stepped in this tick the
// least used class, and keeps the others pending. Call it after the
// games stepped, at most once per tick, with the tick loop's lock held.
func (p *phases) place(interval int) {
	if len(p.pending) == 0 {
		return
	}
	if len(p.load) != interval {
		p.load = make([]int, interval)
	}
	n := uint32(interval)
	kept := p.pending[:0]
	for _, g := range p.pending {
		t := g.world.Tick()
		if t == 0 {
			kept = append(kept, g)
			continue
		}
		// The least used class; among them the one whose snapshot
		// ticks are the world's multiples of n (offset 0), as they are
		// on a server with one game.
		c := int((p.loop%n + n - t%n) % n)
		for i, l := range p.load {
			if l < p.load[c] {
				c = i
			}
		}
		// From now on the loop's tick L+k is the world's tick t+k, a
		// snapshot tick when t+k+off is a multiple of n: L+k in class c
		// for off = L - c - t (mod n).
		g.snapOff = (p.loop%n + 2*n - uint32(c) - t%n) % n
		g.snapClass, g.phased = c, true
		p.load[c]++
	}
	clear(p.pending[len(kept):])
	p.pending = kept
}

// end forgets an ended game.
func (p *phases) end(g *game) {
	if g.phased {
		p.load[g.snapClass]--
		g.phased = false
		return
	}
	for i, q := range p.pending {
		if q == g {
			last := len(p.pending) - 1
			copy(p.pending[i:], p.pending[i+1:])
			p.pending[last] = nil
			p.pending = p.pending[:last]
			return
		}
	}
}
