// Package bot is a computer player: from the newest frame of its client's
// world it decides which actions to hold, dodging Bydos and enemy
// missiles, lining up with a Bydos and firing. In Stage mode (PROTOCOL.md
// 7.12) it also charges the wave cannon, picks up items and uses the
// Force. The bots of cmd/rtype-bot, the end-to-end tests and the
// benchmarks all play with it.
package bot

import (
	"math"
	"math/rand/v2"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
	"rtype/sim"
	"rtype/vocab"
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

	// Stage mode (PROTOCOL.md 7.12): the bot charges, picks up items and
	// uses the Force.
	stage     bool
	chargeFor int     // how long it holds Fire for a beam, in ticks
	speed     float32 // the ship's speed along an axis, px/s, as last seen
	st        stageState
	near      []danger // steerStage's, kept to allocate nothing
	ter       terrain  // the stage's terrain (terrain.go)
	walls     bool     // terrain is on screen or coming: the plans avoid it
	at        []at     // where they are at each step
}

// New returns the brain of player in a Classic game, its habits drawn
// from rng.
func New(player uint8, rng *rand.Rand) *Brain {
	return NewMode(player, wire.ModeClassic, rng)
}

// NewMode returns the brain of player in a game of mode (wire.ModeClassic
// or wire.ModeStage, as client.Client.Mode tells), its habits drawn from
// rng. A Classic brain draws the same habits as New.
func NewMode(player, mode uint8, rng *rand.Rand) *Brain {
	b := &Brain{
		player: player,
		homeX:  float32(90 + rng.IntN(areaW/3-90-60)), // 90 to 336
		lookY:  float32(14 + rng.IntN(12)),
	}
	if mode == wire.ModeStage {
		b.stage, b.speed = true, stageSpeed
		b.chargeFor = chargeMin + rng.IntN(chargeMax-chargeMin+1)
	}
	return b
}

// horizon is how far ahead, in seconds, the bot looks for threats.
const horizon = 1.0

// Ship sizes of section 4.1, halved.
const shipHW, shipHH = 33.0 / 2, 17.0 / 2

// margin is how much farther than touching the bot keeps from a danger.
const margin = 14

// reaches are how close the center of an entity of each kind may come to
// the ship's center before it hits, with a margin: a radius for the
// Classic kinds (round), a box (rx, ry) for the dangers of Stage mode, 0
// for what does not hurt.
var reaches = func() (r [256]struct {
	rx, ry float32
	round  bool
}) {
	r[wire.KindBydosSlave].rx, r[wire.KindBydosSlave].round = 16+12+14, true
	r[wire.KindEnemyMissile].rx, r[wire.KindEnemyMissile].round = 4+12+14, true
	rules := sim.DefaultRules()
	for _, k := range []uint8{wire.KindPowArmor, wire.KindChaser, wire.KindTurret, wire.KindArmored,
		wire.KindMidBoss, wire.KindBoss, wire.KindBossCore, wire.KindBossBullet,
		vocab.KindHatch, vocab.KindCrawler, vocab.KindWarship, vocab.KindPlate} {
		w, h := sim.KindSize(&rules, k)
		r[k].rx, r[k].ry = float32(w/2)+shipHW+margin, float32(h/2)+shipHH+margin
	}
	for k := range r {
		if r[k].round {
			r[k].ry = r[k].rx
		}
	}
	return r
}()

// threat describes the most urgent danger: when it comes closest, and
// where it passes relative to the ship (its y minus the ship's, then).
type threat struct {
	t, dy float32
}

// Decide returns the actions to hold, given the newest frame. It is
// called once per tick (60 times a second): in Stage mode the brain counts
// the calls to time its charges, taps and Force presses.
func (b *Brain) Decide(f *client.Frame) uint8 {
	ship, ok := b.ship(f)
	if !ok {
		b.st = stageState{} // a new ship starts with Fire and Force up
		if b.stage {
			b.speed = stageSpeed // and without speed-ups
		}
		return 0
	}
	if b.stage {
		return b.decideStage(f, ship)
	}
	var act uint8
	danger, found := b.nearestThreat(f, ship)
	switch {
	case found:
		act |= dodge(danger, ship)
	default:
		// Line up with the nearest Bydos ahead.
		if target, ok := nearestBydos(f, ship); ok {
			act |= lineUp(target, ship)
		}
	}
	act |= b.keepHome(ship)
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

// dodge returns the way out of danger: the side the threat does not pass
// on, unless the screen's edge is there.
func dodge(danger threat, ship client.Entity) uint8 {
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
		return wire.ActionUp
	}
	return wire.ActionDown
}

// lineUp moves the ship to the y of target.
func lineUp(target, ship client.Entity) uint8 {
	dy := target.Y - ship.Y
	if dy < -4 {
		return wire.ActionUp
	} else if dy > 4 {
		return wire.ActionDown
	}
	return 0
}

// keepHome keeps the ship near its home x, in the left third.
func (b *Brain) keepHome(ship client.Entity) uint8 {
	if ship.X < b.homeX-16 {
		return wire.ActionRight
	} else if ship.X > b.homeX+16 || ship.X > areaW/3 {
		return wire.ActionLeft
	}
	return 0
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

// nearestThreat finds the foe or enemy shot that will pass closest
// to the ship soonest within the horizon, the ship standing still.
func (b *Brain) nearestThreat(f *client.Frame, ship client.Entity) (threat, bool) {
	best, found := threat{t: math.MaxFloat32}, false
	for i := range f.Entities {
		e := &f.Entities[i]
		r := &reaches[e.Kind]
		if r.rx == 0 {
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
		if r.round && cx*cx+cy*cy > r.rx*r.rx || !r.round && (abs(cx) > r.rx || abs(cy) > r.ry) {
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
	return nearestAhead(f, ship, &bydos)
}

// bydos is the set of the Bydos' kinds.
var bydos = [256]bool{wire.KindBydosSlave: true}

// nearestAhead returns the entity ahead of the ship closest in x whose
// kind is in kinds.
func nearestAhead(f *client.Frame, ship client.Entity, kinds *[256]bool) (client.Entity, bool) {
	var best client.Entity
	found := false
	for i := range f.Entities {
		e := &f.Entities[i]
		if !kinds[e.Kind] || e.X <= ship.X+20 || e.X > areaW+40 {
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
// exactly where everything is now. The present is a whole tick, each
// moved entity's Tick: a brain evaluates its motion further from there.
// Other entities are left as they are.
func Present(f *client.Frame, now time.Time) {
	if f.Received.IsZero() {
		return
	}
	ahead := min(max(now.Sub(f.Received).Seconds(), 0), maxAhead)
	tick := f.Tick + uint32(math.Round(ahead*wire.TickRate))
	for i := range f.Entities {
		e := &f.Entities[i]
		if !e.HasMotion {
			continue
		}
		x, y, vx, vy := e.At(float64(tick))
		e.X, e.Y, e.VX, e.VY, e.Tick = float32(x), float32(y), float32(vx), float32(vy), tick
	}
}
