package bot

import (
	"rtype/net/client"
	"rtype/net/wire"
)

// Stage mode's dodging: a Stage screen holds dozens of aimed shots and
// foes that turn, where Classic's "go to the side the nearest threat does
// not pass on" steps into the next one. A Stage brain tries plans over the
// next steer seconds, the ship and every danger on straight lines: first
// the nine moves (none, the four directions, the four diagonals) held
// throughout; when none of them leaves even tight room, every pair of a
// first move for firstSteps steps and another after it (a way out of a
// squeeze often turns). It makes the move it meant (lining up, fetching an
// item, going home) when that one leaves room enough from every danger,
// else the first move of the best plan: no hit, the most room from the
// dangers and the edges.

const (
	// steer is how far ahead, in seconds, the plans are tried, at the
	// ticks of stepTicks; a two-move plan turns after firstSteps of them.
	steer      = 0.75
	firstSteps = 10
	// roomy: a plan whose dangers all stay this many times their box's
	// reach away (per axis, the larger) leaves room enough; below tight,
	// the brain looks for two-move plans.
	roomy = 1.6
	tight = 1.25
	// roomCap caps the room counted: beyond it, more room is no better.
	roomCap = 2.5
	// stageSpeed is the ship's speed along each axis without speed-ups
	// (sim.ArmsRules.ShipSpeeds[0]): the brain takes the speed it last saw
	// its ship move at.
	stageSpeed = 270
	// A ship near an edge has fewer ways out: a plan's room is at most its
	// end's distance from the nearest edge (the left, top and bottom ones,
	// and the bot's right bound, fieldW) in edgeRoom pixels, so that a
	// plan ending against an edge is as bad as one grazing a shot.
	edgeRoom = 80
	fieldW   = areaW * 0.6
)

// stepTicks are the ticks ahead at which the plans are checked: every
// tick at first (a shot and the ship close in by up to 10 px a tick, and
// the boxes are 25 px high), then more sparsely, up to steer seconds.
var stepTicks = [...]float32{1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 17, 20, 23, 26, 30, 34, 38, 42, 45}

// hitSlack widens the boxes the plans avoid, in pixels: the simulation's
// positions are finer than a snapshot's, and its collisions sweep each
// tick.
const hitSlack = 2

// moves are the moves a Stage brain tries, the held actions and the
// direction, diagonals normalized as the ship's (README).
var moves = [...]struct {
	act    uint8
	dx, dy float32
}{
	{0, 0, 0},
	{wire.ActionUp, 0, -1},
	{wire.ActionDown, 0, 1},
	{wire.ActionLeft, -1, 0},
	{wire.ActionRight, 1, 0},
	{wire.ActionUp | wire.ActionLeft, -0.70710677, -0.70710677},
	{wire.ActionUp | wire.ActionRight, 0.70710677, -0.70710677},
	{wire.ActionDown | wire.ActionLeft, -0.70710677, 0.70710677},
	{wire.ActionDown | wire.ActionRight, 0.70710677, 0.70710677},
}

// danger is an entity that hurts the ship on contact, seen by the dodge:
// where it is relative to the ship, its velocity, and the half sizes of
// the box within which the ship's centre touches it.
type danger struct {
	x, y, vx, vy float32
	hx, hy       float32
	e            *client.Entity
}

// at is where a danger is, relative to the ship's start, at a step of the
// plans, with the inverses of its box's half sizes.
type at struct {
	x, y, ihx, ihy float32
}

// hits are the half sizes, by kind, of the box within which the ship's
// centre touches an entity of that kind: reaches less the margin.
var hits = func() (r [256]struct{ hx, hy float32 }) {
	for k := range reaches {
		if reaches[k].rx != 0 {
			r[k].hx, r[k].hy = reaches[k].rx-margin+hitSlack, reaches[k].ry-margin+hitSlack
		}
	}
	return r
}()

// dangers gathers into b.near the dangers that may come within roomCap
// reaches of the ship within steer seconds, wherever it goes.
func (b *Brain) dangers(f *client.Frame, ship client.Entity) {
	b.near = b.near[:0]
	for i := range f.Entities {
		e := &f.Entities[i]
		h := &hits[e.Kind]
		if h.hx == 0 {
			continue
		}
		d := danger{e.X - ship.X, e.Y - ship.Y, e.VX, e.VY, h.hx, h.hy, e}
		for s := 1; s <= 5; s++ {
			t := steer * float32(s) / 5
			if abs(d.x+d.vx*t) < roomCap*d.hx+b.speed*t && abs(d.y+d.vy*t) < roomCap*d.hy+b.speed*t {
				b.near = append(b.near, d)
				break
			}
		}
	}
	// Where they are at each step, step by step: on a straight line, or
	// by their motion when it waves (a Bydos' sine strays tens of pixels
	// from its tangent within steer seconds).
	b.at = b.at[:0]
	for _, st := range stepTicks {
		t := st / wire.TickRate
		for i := range b.near {
			d := &b.near[i]
			a := at{d.x + d.vx*t, d.y + d.vy*t, 1 / d.hx, 1 / d.hy}
			if e := d.e; e.HasMotion && e.Motion.Model == wire.ModelSine {
				x, y, _, _ := e.Motion.At(float64(e.Tick) + float64(t)*wire.TickRate)
				a.x, a.y = float32(x)-ship.X, float32(y)-ship.Y
			}
			b.at = append(b.at, a)
		}
	}
}

// observeSpeed keeps the ship's speed along an axis as its last move
// shows it: a speed-up makes it faster, a death slower again.
func (b *Brain) observeSpeed(ship client.Entity) {
	vx, vy := abs(ship.VX), abs(ship.VY)
	switch {
	case vx == 0 && vy == 0:
	case vx == 0 || vy == 0:
		b.speed = vx + vy
	default:
		b.speed = max(vx, vy) * 1.4142135 // diagonal: normalized
	}
}

// steerStage returns the move to hold: meant if it is safe and roomy,
// else the first move of the best plan.
func (b *Brain) steerStage(f *client.Frame, ship client.Entity, meant uint8) uint8 {
	b.observeSpeed(ship)
	b.dangers(f, ship)
	b.walls = b.terrainAt(f)
	if len(b.near) == 0 && !b.walls {
		return meant
	}
	for i, m := range moves {
		if m.act == meant && b.tryPlan(ship, i, i, 0, false) >= 1+roomy {
			return meant // room enough from every danger: what the brain meant
		}
	}
	best, bestScore := meant, float32(-1)
	for i, m := range moves {
		if score := b.tryPlan(ship, i, i, 0, true); score > bestScore {
			best, bestScore = m.act, score
		}
	}
	if bestScore >= 1+tight {
		return best
	}
	for i, m := range moves {
		for j := range moves {
			if j == i {
				continue
			}
			if score := b.tryPlan(ship, i, j, bestScore, true); score > bestScore {
				best, bestScore = m.act, score
			}
		}
	}
	return best
}

// tryPlan scores moving the ship by moves[first] for firstSteps steps,
// then by moves[then], up to steer seconds: the time of the first hit as
// a fraction of steer (below 1), or 1 plus the least room left to any
// danger (the larger of the distances along the axes in reaches of its
// box) and, with edges, to the edges, up to roomCap. It gives up, with a
// score of at most floor, as soon as the plan cannot score above floor.
func (b *Brain) tryPlan(ship client.Entity, first, then int, floor float32, edges bool) float32 {
	room := float32(roomCap)
	x, y := ship.X, ship.Y
	m := &moves[first]
	n := len(b.near)
	prev := float32(0)
	for s, st := range stepTicks {
		if s == firstSteps {
			m = &moves[then]
		}
		dt := (st - prev) / wire.TickRate
		// The ship stops at the area's edges.
		x = min(max(x+m.dx*b.speed*dt, shipHW), areaW-shipHW)
		y = min(max(y+m.dy*b.speed*dt, shipHH), areaH-shipHH)
		if b.walls && b.wall(x, y, st) {
			return prev / (steer * wire.TickRate) // into a wall
		}
		rx, ry := x-ship.X, y-ship.Y
		for _, d := range b.at[s*n : (s+1)*n] {
			r := max(abs(d.x-rx)*d.ihx, abs(d.y-ry)*d.ihy)
			if r < 1 {
				return prev / (steer * wire.TickRate) // the time it lasts
			}
			room = min(room, r)
		}
		prev = st
		if 1+room <= floor {
			return 1 + room
		}
	}
	if !edges {
		return 1 + room
	}
	edge := min(x-shipHW, fieldW-x, y-shipHH, areaH-shipHH-y)
	return 1 + min(room, max(edge, 0)/edgeRoom)
}
