// Package bot is a computer player: from the newest frame of its client's
// world it decides which actions to hold, dodging Bydos and enemy
// missiles, lining up with a Bydos and firing. The bots of cmd/rtype-bot,
// the end-to-end tests and the benchmarks all play with it.
package bot

import (
	"math"
	"math/rand/v2"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
)

// The play area and the sizes of section 4.1, in logical pixels.
const (
	areaW = 1280
	areaH = 720
)

// Brain decides a bot's actions from the world it sees.
type Brain struct {
	player uint8
	homeX  float32 // the x the bot keeps, in the left third
	lookY  float32 // how far from a Bydos' y the bot may be and still fire
}

// New returns the brain of player, its habits drawn from rng.
func New(player uint8, rng *rand.Rand) *Brain {
	return &Brain{
		player: player,
		homeX:  float32(90 + rng.IntN(areaW/3-90-60)), // 90 to 336
		lookY:  float32(14 + rng.IntN(12)),
	}
}

// horizon is how far ahead, in seconds, the bot looks for threats.
const horizon = 1.0

// radius is how close the center of an entity of kind may come to the
// ship's center before it hits, with a margin.
func radius(kind uint8) float32 {
	switch kind {
	case wire.KindBydosSlave:
		return 16 + 12 + 14
	case wire.KindEnemyMissile:
		return 4 + 12 + 14
	}
	return 0
}

// threat describes the most urgent danger: when it comes closest, and
// where it passes relative to the ship (its y minus the ship's, then).
type threat struct {
	t, dy float32
}

// Decide returns the actions to hold, given the newest frame.
func (b *Brain) Decide(f *client.Frame) uint8 {
	ship, ok := b.ship(f)
	if !ok {
		return 0
	}
	var act uint8
	danger, found := b.nearestThreat(f, ship)
	switch {
	case found:
		// Dodge: go to the side the threat does not pass on, unless the
		// screen's edge is there.
		up := danger.dy >= 0
		if danger.dy == 0 {
			up = ship.Y > areaH/2
		}
		if up && ship.Y < 40 {
			up = false
		} else if !up && ship.Y > areaH-40 {
			up = true
		}
		if up {
			act |= wire.ActionUp
		} else {
			act |= wire.ActionDown
		}
	default:
		// Line up with the nearest Bydos ahead.
		if target, ok := nearestBydos(f, ship); ok {
			dy := target.Y - ship.Y
			if dy < -4 {
				act |= wire.ActionUp
			} else if dy > 4 {
				act |= wire.ActionDown
			}
		}
	}
	// Stay near home, in the left third of the screen.
	if ship.X < b.homeX-16 {
		act |= wire.ActionRight
	} else if ship.X > b.homeX+16 || ship.X > areaW/3 {
		act |= wire.ActionLeft
	}
	// Fire when a Bydos is roughly ahead.
	for i := range f.Entities {
		e := &f.Entities[i]
		if e.Kind == wire.KindBydosSlave && e.X > ship.X && e.X < areaW+20 && abs(e.Y-ship.Y) < b.lookY+16 {
			act |= wire.ActionFire
			break
		}
	}
	return act
}

// ship returns the bot's ship.
func (b *Brain) ship(f *client.Frame) (client.Entity, bool) {
	p := f.Players[b.player]
	for i := range f.Entities {
		e := &f.Entities[i]
		if e.Kind == wire.KindPlayerShip && (e.Owner == b.player || (p.HasShip && e.ID == p.Ship)) {
			return *e, true
		}
	}
	return client.Entity{}, false
}

// nearestThreat finds the Bydos or enemy missile that will pass closest
// to the ship soonest within the horizon, the ship standing still.
func (b *Brain) nearestThreat(f *client.Frame, ship client.Entity) (threat, bool) {
	best, found := threat{t: math.MaxFloat32}, false
	for i := range f.Entities {
		e := &f.Entities[i]
		r := radius(e.Kind)
		if r == 0 {
			continue
		}
		dx, dy := e.X-ship.X, e.Y-ship.Y
		vv := e.VX*e.VX + e.VY*e.VY
		var t float32
		if vv > 1 {
			t = -(dx*e.VX + dy*e.VY) / vv // time of the closest approach
		}
		if t < 0 {
			t = 0 // moving away: only a threat if already close
		}
		if t > horizon {
			continue
		}
		cx, cy := dx+e.VX*t, dy+e.VY*t
		if cx*cx+cy*cy > r*r {
			continue
		}
		if t < best.t {
			best, found = threat{t: t, dy: cy}, true
		}
	}
	return best, found
}

// nearestBydos returns the Bydos ahead of the ship closest in x.
func nearestBydos(f *client.Frame, ship client.Entity) (client.Entity, bool) {
	var best client.Entity
	found := false
	for i := range f.Entities {
		e := &f.Entities[i]
		if e.Kind != wire.KindBydosSlave || e.X <= ship.X+20 || e.X > areaW+40 {
			continue
		}
		if !found || e.X < best.X {
			best, found = *e, true
		}
	}
	return best, found
}

func abs(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// maxAhead bounds how far Present moves a frame: half a second.
const maxAhead = 0.5

// Present moves the entities of a v2 frame (those with a motion,
// PROTOCOL.md 7.5) to the server's present as the frame's arrival tells
// it: f.Tick plus the time since f.Received, at most half a second. A v2
// server sends a snapshot only when something changed (every 200 ms when
// nothing did), so a frame may be older than v1's 50 ms; the motions say
// exactly where everything is now. Other entities are left as they are.
func Present(f *client.Frame, now time.Time) {
	if f.Received.IsZero() {
		return
	}
	ahead := min(max(now.Sub(f.Received).Seconds(), 0), maxAhead)
	tick := float64(f.Tick) + ahead*wire.TickRate
	for i := range f.Entities {
		e := &f.Entities[i]
		if !e.HasMotion {
			continue
		}
		x, y, vx, vy := e.At(tick)
		e.X, e.Y, e.VX, e.VY = float32(x), float32(y), float32(vx), float32(vy)
	}
}
