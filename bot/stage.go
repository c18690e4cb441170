package bot

import (
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/sim"
	"rtype/vocab"
)

// Stage mode (PROTOCOL.md 7.12, README "How to play"): the bot means to
// fetch the items near it, else to line up with the foes of its lane, and
// makes that move only when it is safe (steerStage, dodge.go); it charges
// the wave cannon at what a missile barely scratches, releasing the beam
// when it will meet it, taps Fire at the rest, and launches its Force at a
// boss or a crowd, recalling it when it is far, idle or stopped.

// The server's arms rules: chargeMin and chargeMax bound how long a brain
// holds Fire for a beam, level 2 (1 s) to level 3 (1.6 s), in ticks;
// beamSpeed is a beam's speed, px/s: the bot leads its target by the
// beam's flight.
var (
	arms      = sim.DefaultArmsRules()
	chargeMin = arms.ChargeTicks[1]
	chargeMax = arms.ChargeTicks[2]
	beamSpeed = float32(arms.BeamSpeed)
)

// Timings, in ticks (calls of Decide).
const (
	// beamMin is the shortest hold that still fires a beam (level 1 is at
	// 0.4 s): a charge whose target went away is released after it.
	beamMin = 30
	// chargeWait: a charge is released when the beam will meet its target,
	// or this long after it is full.
	chargeWait = 60
	// tapOn and tapOff are the tap cycle: Fire down, then up. Each press
	// shoots a missile; a hold that short charges nothing.
	tapOn, tapOff = 5, 5
	// forceHold is how long the Force button is held for one press (a few
	// ticks, so that a client sampling the input misses none), forceRest
	// the least time between two presses.
	forceHold = 3
	forceRest = 60
	// forceIdle: a loose Force with no foe ahead of the ship for this long
	// is recalled; forceWait: so is one that stopped (at the end of its
	// launch, or new and waiting to be caught) for this long, to be
	// launched again.
	forceIdle = 120
	forceWait = 30
)

// Distances, in pixels.
const (
	// forceNear: a Force this close to its ship is attached to it.
	forceNear = 44
	// forceFar: a loose Force farther than this is recalled (a launch takes
	// it about 480 px away).
	forceFar = 600
	// squarely: a beam meets a heavy foe squarely when it passes within
	// this fraction of the foe's half height of its centre.
	squarely = 0.6
	// lineBand: foes within this of the ship's y are in the beam's line;
	// denseLine of them make a line worth a charge.
	lineBand  = 36
	denseLine = 3
	// crowdBand and crowdReach: foes within crowdBand of the ship's y and
	// crowdReach ahead of it are a group worth the Force; crowd of them.
	crowdBand  = 100
	crowdReach = 600
	crowd      = 3
	// behindReach: a foe within crowdBand of the ship's y and this far
	// behind it is worth a Force attached at the back: launched backward,
	// it meets what comes from behind (a Force flies in from the left, so
	// it mostly attaches at the back).
	behindReach = 400
	// itemBack and itemFront bound the x of an item the bot goes for: a
	// little behind the ship, up to the middle of the screen.
	itemBack  = 160
	itemFront = areaW * 0.55
	// laneWeight: how many pixels ahead a pixel off the bot's lane counts
	// for when it chooses a target.
	laneWeight = 2
	// laneTop is the middle of the top lane (player 0's), px from the top;
	// the bottom lane's is as far from the bottom.
	laneTop = 110
	// edge keeps the bot that far from the top and bottom of the screen
	// when it lines up or fetches an item (turrets sit there).
	edge = 60
)

// stageState is what a Stage brain remembers from one tick to the next.
type stageState struct {
	held      int // ticks Fire has been held for a charge; 0 when not charging
	rest      int // ticks Fire stays up after a beam
	tap       int // ticks into the tap cycle
	force     int // ticks the Force button stays down
	forceRest int // ticks before the next press of the Force button
	idle      int // ticks a loose Force had no foe to fight
	still     int // ticks a loose Force has not moved
}

// foeHalfH is the half height of the box of each foe kind, 0 for what is
// not a foe (or a boss's body, which absorbs shots without damage).
var foeHalfH = func() (r [256]float32) {
	rules := sim.DefaultRules()
	for _, k := range []uint8{wire.KindBydosSlave, wire.KindPowArmor, wire.KindChaser, wire.KindTurret,
		wire.KindArmored, wire.KindMidBoss, wire.KindBossCore, vocab.KindHatch, vocab.KindCrawler, vocab.KindPlate} {
		_, h := sim.KindSize(&rules, k)
		r[k] = float32(h / 2)
	}
	return r
}()

// foes and cores are the sets of the kinds of foes (foeHalfH) and of
// bosses' weak points (and the warship's plates, which stand before its
// core: the nearest ahead is shot first).
var (
	foes = func() (r [256]bool) {
		for k, h := range foeHalfH {
			r[k] = h != 0
		}
		return r
	}()
	cores = [256]bool{wire.KindBossCore: true, vocab.KindPlate: true}
)

// heavy reports whether a foe of kind is worth a charged beam.
func heavy(kind uint8) bool {
	return kind == wire.KindArmored || kind == wire.KindBossCore || kind == wire.KindMidBoss || kind == vocab.KindPlate
}

// bossKind reports whether kind is part of a boss.
func bossKind(kind uint8) bool {
	return kind == wire.KindMidBoss || kind == wire.KindBoss || kind == wire.KindBossCore ||
		kind == vocab.KindWarship || kind == vocab.KindPlate
}

// decideStage is Decide in Stage mode: the move it means (fetch an item,
// else line up with a foe, and keep home), made safe by steerStage; Fire;
// the Force.
func (b *Brain) decideStage(f *client.Frame, ship client.Entity) uint8 {
	var meant uint8
	if item, ok := nearestItem(f, ship); ok {
		meant = goTo(item, ship)
	} else {
		target, ok := b.stageTarget(f, ship)
		if !ok { // nothing to shoot: back to the lane
			target.Y = b.laneY()
		}
		meant = lineUp(target, ship)
		meant |= b.keepHome(ship)
	}
	act := b.steerStage(f, ship, meant)
	act |= b.fireStage(f, ship)
	act |= b.forceStage(f, ship)
	return act
}

// within keeps a y the bot heads for away from the screen's edges.
func within(y float32) float32 { return min(max(y, edge), areaH-edge) }

// goTo moves the ship towards e, away from the edges.
func goTo(e, ship client.Entity) uint8 {
	e.Y = within(e.Y)
	act := lineUp(e, ship)
	if dx := e.X - ship.X; dx < -8 {
		act |= wire.ActionLeft
	} else if dx > 8 {
		act |= wire.ActionRight
	}
	return act
}

// nearestItem returns the item closest to the ship among those it may
// fetch: a little behind it up to the middle of the screen.
func nearestItem(f *client.Frame, ship client.Entity) (client.Entity, bool) {
	var best client.Entity
	bestD, found := float32(0), false
	for i := range f.Entities {
		e := &f.Entities[i]
		if e.Kind != wire.KindPowerUp || e.X < ship.X-itemBack || e.X > itemFront || e.Y < 0 || e.Y > areaH {
			continue
		}
		dx, dy := e.X-ship.X, e.Y-ship.Y
		if d := dx*dx + dy*dy; !found || d < bestD {
			best, bestD, found = *e, d, true
		}
	}
	return best, found
}

// stageTarget returns the foe to line up with: a boss's weak point if one
// is ahead, else the foe ahead nearest to the bot's lane (laneY), counting
// a pixel off its lane as laneWeight pixels ahead, so that the bots spread
// over the screen instead of bunching in one line where every aimed shot
// flies (not a boss's body, which absorbs shots). Its y is where a shot
// fired now meets it (lead), kept away from the edges.
func (b *Brain) stageTarget(f *client.Frame, ship client.Entity) (client.Entity, bool) {
	best, found := nearestAhead(f, ship, &cores)
	if !found {
		lane := b.laneY()
		var bestCost float32
		for i := range f.Entities {
			e := &f.Entities[i]
			if !foes[e.Kind] || e.X <= ship.X+20 || e.X > areaW+40 {
				continue
			}
			if c := e.X - ship.X + laneWeight*abs(lead(e, ship)-lane); !found || c < bestCost {
				best, bestCost, found = *e, c, true
			}
		}
	}
	best.Y = within(lead(&best, ship))
	return best, found
}

// laneY is the middle of the bot's lane: players 0 to 3 from laneTop to
// areaH-laneTop, evenly.
func (b *Brain) laneY() float32 {
	return laneTop + float32(b.player%wire.MaxPlayers)*(areaH-2*laneTop)/(wire.MaxPlayers-1)
}

// fireStage decides Fire: a charge held at least chargeFor ticks when
// something heavy or a dense line is in front, released when the beam
// will meet it (or after chargeWait more ticks), taps at any other foe in
// front, nothing otherwise.
func (b *Brain) fireStage(f *client.Frame, ship client.Entity) uint8 {
	s := &b.st
	aimed, charge, onTarget := b.inLine(f, ship)
	switch {
	case s.held > 0:
		if s.held >= b.chargeFor && (onTarget || s.held >= b.chargeFor+chargeWait) || !charge && s.held >= beamMin {
			s.held, s.rest, s.tap = 0, tapOff-1, 0 // release: the beam goes; up tapOff calls
			return 0
		}
		s.held++
		return wire.ActionFire
	case s.rest > 0:
		s.rest--
		return 0
	case charge:
		s.held, s.tap = 1, 0
		return wire.ActionFire
	case aimed:
		s.tap++
		if (s.tap-1)%(tapOn+tapOff) < tapOn {
			return wire.ActionFire
		}
		return 0
	}
	s.tap = 0
	return 0
}

// lead returns the y at which a shot fired now from ship meets e: its y
// when the shot has flown to its x, by its motion (v2: exact, a hovering
// boss's sine included, until it turns), else going on straight.
func lead(e *client.Entity, ship client.Entity) float32 {
	t := max(e.X-ship.X, 0) / beamSpeed
	if e.HasMotion {
		_, y, _, _ := e.Motion.At(float64(e.Tick) + float64(t)*wire.TickRate)
		return float32(y)
	}
	return e.Y + e.VY*t
}

// inLine reports whether a foe is in front of the ship, in the line of its
// shots when they reach it (aimed); whether what is in front is worth a
// charge: a heavy foe, or a dense line of foes; and whether a beam
// released now meets it squarely (onTarget).
func (b *Brain) inLine(f *client.Frame, ship client.Entity) (aimed, charge, onTarget bool) {
	n := 0
	for i := range f.Entities {
		e := &f.Entities[i]
		h := foeHalfH[e.Kind]
		if h == 0 || e.X <= ship.X || e.X > areaW+20 {
			continue
		}
		dy := abs(lead(e, ship) - ship.Y)
		if dy >= b.lookY+h {
			continue
		}
		aimed = true
		if heavy(e.Kind) {
			charge = true
			onTarget = onTarget || dy < h*squarely
		}
		if dy < lineBand {
			n++
		}
	}
	if n >= denseLine {
		charge, onTarget = true, true
	}
	return aimed, charge, onTarget
}

// forceStage decides the Force button: launch an attached Force at a boss
// or a crowd in front, recall a loose one that is far, idle or stopped, so
// that it sweeps the way again.
func (b *Brain) forceStage(f *client.Frame, ship client.Entity) uint8 {
	s := &b.st
	if s.force > 0 {
		s.force--
		return wire.ActionForce
	}
	if s.forceRest > 0 {
		s.forceRest--
	}
	fo, ok := b.force(f)
	if !ok {
		s.idle, s.still = 0, 0
		return 0
	}
	dx, dy := fo.X-ship.X, fo.Y-ship.Y
	d2 := dx*dx + dy*dy
	worth := worthTheForce(f, ship)
	var press bool
	if d2 < forceNear*forceNear { // attached
		s.idle, s.still = 0, 0
		press = dx > 0 && worth || dx < 0 && worthBehind(f, ship)
	} else {
		if worth {
			s.idle = 0
		} else {
			s.idle++
		}
		if abs(fo.VX)+abs(fo.VY) < 1 {
			s.still++
		} else {
			s.still = 0
		}
		press = d2 > forceFar*forceFar || s.idle > forceIdle || s.still > forceWait
	}
	if !press || s.forceRest > 0 {
		return 0
	}
	s.force, s.forceRest, s.idle, s.still = forceHold-1, forceRest, 0, 0
	return wire.ActionForce
}

// force returns the bot's own Force.
func (b *Brain) force(f *client.Frame) (client.Entity, bool) {
	for i := range f.Entities {
		e := &f.Entities[i]
		if e.Kind == wire.KindForce && e.Owner == b.player {
			return *e, true
		}
	}
	return client.Entity{}, false
}

// worthBehind reports whether a foe comes from behind the ship, near its
// line, within behindReach: worth launching a Force attached at the back.
func worthBehind(f *client.Frame, ship client.Entity) bool {
	for i := range f.Entities {
		e := &f.Entities[i]
		if e.X < ship.X && e.X > ship.X-behindReach && e.X >= 0 && foeHalfH[e.Kind] != 0 &&
			!bossKind(e.Kind) && abs(e.Y-ship.Y) < crowdBand {
			return true
		}
	}
	return false
}

// worthTheForce reports whether a boss is in front of the ship on screen,
// or a crowd of foes near its line.
func worthTheForce(f *client.Frame, ship client.Entity) bool {
	n := 0
	for i := range f.Entities {
		e := &f.Entities[i]
		if e.X <= ship.X || e.X > areaW {
			continue
		}
		if bossKind(e.Kind) {
			return true
		}
		if foeHalfH[e.Kind] != 0 && e.X < ship.X+crowdReach && abs(e.Y-ship.Y) < crowdBand {
			n++
		}
	}
	return n >= crowd
}
