package sim

import (
	"math"

	"rtype/vocab"
)

// The foes of a warship's hull (stage 2), beside foes.go's:
//
//   - Hatch: 6 hp, 300 points, 60 px/s left (the scroll). A cannon hatch
//     on the floor or the ceiling (as a Turret: on the terrain with
//     y=floor or y=ceiling). Shut (frame 0) it cannot be hurt: its armour
//     absorbs every hit. When its fire delay is over (fireInterval,
//     scaled; a Hatch without fire never opens) it opens: hatchTell ticks
//     opening (frame 1, hurt from now on), then open (frame 2) it fires
//     hatchBurst EnemyMissiles aimed at the nearest ship, hatchGap ticks
//     apart (2 more per loop after the first), stays open hatchLinger
//     ticks more, and shuts until its next delay. A Hatch on the ceiling
//     has 4 added to its frame.
//   - Crawler: 3 hp, 250 points, 90 px/s left. It skims along the floor
//     (a y in the lower half) or the ceiling, following the terrain's
//     contour: every crawlerLook ticks it takes the height of the terrain
//     crawlerAhead ticks ahead of it and a new Linear that gets it there
//     (none when it is already at it). Every fireInterval ticks it fires
//     an EnemyMissile at the nearest ship if that ship is off its hull
//     side (above it on the floor, below it on the ceiling). Frame 0 on
//     the floor, 1 on the ceiling.

// Tunables of the hull's foes.
const (
	hatchTell    = 30 // ticks a Hatch shows it opens before its first shot
	hatchBurst   = 3  // missiles of its burst in loop 1
	hatchGap     = 8  // ticks between two of them
	hatchLinger  = 24 // ticks it stays open after its last shot
	hatchOpening = 1  // its frame while opening (+hatchCeiling on the ceiling)
	hatchOpened  = 2  // its frame while open
	hatchCeiling = 4  // added to its frame on the ceiling
	crawlerLook  = 10 // ticks between two looks of a Crawler at the terrain
	crawlerAhead = 15 // ticks ahead of it that it looks
)

// grounded reports whether foes of kind sit on the floor or the ceiling
// (a stage's y=floor and y=ceiling): they fly no sine.
func grounded(kind uint8) bool {
	return kind == vocab.KindTurret || kind == vocab.KindHatch || kind == vocab.KindCrawler
}

// hatchOpen reports whether the Hatch e is opening or open: it can be
// hurt.
func hatchOpen(e *entity) bool { return e.frame&3 != 0 }

// hatchThink runs a Hatch: shut until its delay is over, then opening,
// open and firing, and shut again. Its fire delay counts only while it is
// shut; foe.aimIn counts the ticks of its present state, foe.homing the
// shots of its burst left.
func (w *World) hatchThink(e *entity) {
	st := &w.cold(e).foe
	ceil := e.anim.Frame0 & hatchCeiling
	switch e.frame &^ hatchCeiling {
	case 0: // shut
		if w.foeReady(e) && w.hasShip() {
			w.setFrame(e, ceil|hatchOpening)
			st.aimIn = hatchTell
		}
	case hatchOpening:
		if st.aimIn--; st.aimIn <= 0 {
			w.setFrame(e, ceil|hatchOpened)
			st.homing = int16(hatchBurst + level{loop: int(st.loop)}.more(2))
			st.aimIn = 1
		}
	default: // open
		if st.aimIn--; st.aimIn > 0 {
			return
		}
		if st.homing > 0 {
			st.homing--
			st.aimIn = hatchGap
			if st.homing == 0 {
				st.aimIn = hatchLinger
			}
			if tx, ty, ok := w.nearestShip(e.x, e.y); ok && w.inArea(e.x, e.y) {
				h := w.halfOf(e)
				y := e.y - h.h // the muzzle: its open side
				if !st.floor {
					y = e.y + h.h
				}
				w.fireShot(vocab.KindEnemyMissile, e.x, y, math.Atan2(ty-y, tx-e.x), w.shot(e))
			}
			return
		}
		w.setFrame(e, ceil)
		e.fireIn = st.every
	}
}

// setFrame shows frame on e from now on.
func (w *World) setFrame(e *entity, frame uint8) {
	e.anim.Frame0, e.frame = frame, frame
}

// hasShip reports whether some player has a ship.
func (w *World) hasShip() bool {
	for p := range w.pl {
		if w.pl[p].slot != 0 {
			return true
		}
	}
	return false
}

// crawlerThink runs a Crawler: it follows the contour of its floor or
// ceiling, and fires at the nearest ship off its hull side.
func (w *World) crawlerThink(e *entity) {
	st := &w.cold(e).foe
	if w.foeReady(e) {
		if tx, ty, ok := w.nearestShip(e.x, e.y); ok && (st.floor && ty < e.y || !st.floor && ty > e.y) {
			w.fireShot(vocab.KindEnemyMissile, e.x, e.y, math.Atan2(ty-e.y, tx-e.x), w.shot(e))
		}
	}
	if st.aimIn--; st.aimIn > 0 {
		return
	}
	st.aimIn = crawlerLook
	h := w.halfOf(e)
	vx, vy0 := w.vel(e)
	ahead := e.x + vx*crawlerAhead/vocab.TickRate
	// The highest floor (lowest ceiling) under it from where it is to
	// where it looks: it never sinks into the hull it leaves.
	y := w.mountY((e.x+ahead)/2, h.w+math.Abs(e.x-ahead)/2, h.h, st.floor, 0)
	y = min(max(y, h.h), w.r.AreaH-h.h)
	vy := (y - e.y) * vocab.TickRate / crawlerAhead
	if math.Abs(y-e.y) < 0.5 {
		vy = 0
	}
	if math.Abs(vy-vy0) < 2 {
		return // on its contour: no new motion to send
	}
	e.mo = vocab.Linear(w.tick, e.x, e.y, vx, vy)
	w.eval(e)
}
