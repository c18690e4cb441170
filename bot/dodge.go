package bot

import (
	"rtype/net/client"
	"rtype/net/wire"
)

// Stage mode's dodging: a Stage screen holds dozens of aimed shots and
// foes that turn, where Classic's "go to the side the nearest threat does
// not pass on" steps into the next one. A Stage brain tries each of the
// nine moves (none, the four directions, the four diagonals) over the
// next steer seconds, the ship and every danger on straight lines, and
// keeps the move that wants: no hit, the most room, and the move it meant
// to make (lining up, fetching an item, going home) when that one leaves
// room enough.

const (
	// steer is how far ahead, in seconds, the moves are tried, in
	// steerSteps steps.
	steer      = 0.6
	steerSteps = 18
	// roomy: a move whose dangers all stay this many times their box's
	// reach away (per axis, the larger) leaves room enough for the move
	// the brain meant.
	roomy = 1.6
	// roomCap caps the room counted: beyond it, more room is no better.
	roomCap = 2.5
	// stageSpeed is the ship's speed along each axis without speed-ups
	// (sim.ArmsRules.ShipSpeeds[0]): the brain takes the fastest it saw
	// its ship move.
	stageSpeed = 270
	// sight: dangers farther than this from the ship, along either axis,
	// cannot reach it within steer seconds.
	sight = 480
	// A ship near an edge has fewer ways out: a move's room is at most
	// 1 + its distance from the nearest edge (the left, top and bottom
	// ones, and the bot's right bound, fieldW) in edgeRoom pixels.
	edgeRoom = 80
	fieldW   = areaW * 0.6
)

// moves are the nine moves a Stage brain tries, the held actions and the
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
}

// dangers gathers the dangers within sight of ship into b.near.
func (b *Brain) dangers(f *client.Frame, ship client.Entity) {
	b.near = b.near[:0]
	for i := range f.Entities {
		e := &f.Entities[i]
		h := &hits[e.Kind]
		if h.hx == 0 {
			continue
		}
		dx, dy := e.X-ship.X, e.Y-ship.Y
		if abs(dx) > sight || abs(dy) > sight {
			continue
		}
		b.near = append(b.near, danger{dx, dy, e.VX, e.VY, h.hx, h.hy})
	}
}

// hits are the half sizes, by kind, of the box within which the ship's
// centre touches an entity of that kind: reaches less the margin.
var hits = func() (r [256]struct{ hx, hy float32 }) {
	for k := range reaches {
		if reaches[k].rx != 0 {
			r[k].hx, r[k].hy = reaches[k].rx-margin, reaches[k].ry-margin
		}
	}
	return r
}()

// steerStage returns the move to hold: meant if it is safe and roomy,
// else the safest of the nine.
func (b *Brain) steerStage(f *client.Frame, ship client.Entity, meant uint8) uint8 {
	if s := max(abs(ship.VX), abs(ship.VY)); s > b.speed {
		b.speed = s // a speed-up
	}
	b.dangers(f, ship)
	if len(b.near) == 0 {
		return meant
	}
	best, bestScore := meant, float32(-1)
	for _, m := range moves {
		score := b.tryMove(ship, m.dx*b.speed, m.dy*b.speed)
		if m.act == meant && score >= 1+roomy {
			score += roomCap // room enough: what the brain meant wins
		}
		if score > bestScore {
			best, bestScore = m.act, score
		}
	}
	return best
}

// tryMove scores moving the ship at (vx, vy) for steer seconds: the time
// of the first hit as a fraction of steer (below 1), or 1 plus the least
// room left to any danger (the larger of the distances along the axes in
// reaches of its box) and to the edges, up to roomCap.
func (b *Brain) tryMove(ship client.Entity, vx, vy float32) float32 {
	ex := min(max(ship.X+vx*steer, shipHW), areaW-shipHW)
	ey := min(max(ship.Y+vy*steer, shipHH), areaH-shipHH)
	edge := min(ex-shipHW, fieldW-ex, ey-shipHH, areaH-shipHH-ey)
	room := min(roomCap, 1+max(edge, 0)/edgeRoom)
	for s := 1; s <= steerSteps; s++ {
		t := steer * float32(s) / steerSteps
		// The ship stops at the area's edges.
		x := min(max(ship.X+vx*t, shipHW), areaW-shipHW) - ship.X
		y := min(max(ship.Y+vy*t, shipHH), areaH-shipHH) - ship.Y
		for i := range b.near {
			d := &b.near[i]
			r := max(abs(d.x+d.vx*t-x)/d.hx, abs(d.y+d.vy*t-y)/d.hy)
			if r < 1 {
				return float32(s-1) / steerSteps
			}
			room = min(room, r)
		}
	}
	return 1 + room
}
