package sim

import (
	"math"

	"rtype/vocab"
)

// shifted returns the motion m moved by (dx, dy) pixels: the same base
// tick and velocity, so an attached Force or a bit moves exactly as its
// ship, at a fixed offset.
func shifted(m *vocab.Motion, dx, dy float64) vocab.Motion {
	s := *m
	s.X0 = vocab.QuantizePos(float64(m.X0)/vocab.PosScale + dx)
	s.Y0 = vocab.QuantizePos(float64(m.Y0)/vocab.PosScale + dy)
	return s
}

// bitMotion is the motion of bit i (0 above, 1 below) of a ship moving by
// ship.
func bitMotion(ship *vocab.Motion, i int) vocab.Motion {
	dy := -armsRules.BitDY
	if i == 1 {
		dy = armsRules.BitDY
	}
	return shifted(ship, 0, dy)
}

// toward returns the velocity of speed from (x, y) to (tx, ty), 0 there.
func toward(x, y, tx, ty, speed float64) (vx, vy float64) {
	dx, dy := tx-x, ty-y
	if d := math.Hypot(dx, dy); d > 0 {
		return dx / d * speed, dy / d * speed
	}
	return 0, 0
}

// follow moves e with its ship: its motion is set to the ship's shifted
// by (dx, dy) whenever the ship's changes.
func (w *World) follow(e *entity, ship *entity, dx, dy float64) {
	e.px, e.py = e.x, e.y
	if m := shifted(&ship.mo, dx, dy); m != e.mo {
		e.mo = m
	}
	w.eval(e)
}

// moveArms moves every Force and bit: attached ones with their ship,
// loose ones on their way. The press edge of vocab.ActionForce launches an
// attached Force (forward from the front, backward from the back) and
// recalls a loose one. A loose Force that is not in its launch flight
// attaches to its ship on contact, on the side it touches.
func (w *World) moveArms() {
	for p := range w.pl {
		pl := &w.pl[p]
		if !pl.in || pl.slot == 0 {
			continue
		}
		pa := &pl.arms
		ship := w.ent(pl.slot)
		if pa.force != 0 {
			press := pl.actions&vocab.ActionForce != 0 && pa.prev&vocab.ActionForce == 0
			w.moveForce(pa, w.ent(pa.force), ship, press)
		}
		for i, b := range pa.bits {
			if b != 0 {
				m := bitMotion(&ship.mo, i)
				e := w.ent(b)
				e.px, e.py = e.x, e.y
				if m != e.mo {
					e.mo = m
				}
				w.eval(e)
			}
		}
	}
}

// moveForce moves player's Force e one tick (see moveArms).
func (w *World) moveForce(pa *playerArms, e *entity, ship *entity, press bool) {
	r := &armsRules
	if w.cold(e).arm.mode == forceAttached {
		dx, _ := r.ForceOffset(pa.a.ForceAt)
		if !press {
			w.follow(e, ship, dx, 0)
			return
		}
		w.launchForce(pa, e)
	} else if press {
		w.cold(e).arm.mode = forceRecall
		w.cold(e).arm.until = w.tick
	}
	e.px, e.py = e.x, e.y
	switch w.cold(e).arm.mode {
	case forceFlight:
		if w.tick >= w.cold(e).arm.stop && e.mo.Model != vocab.ModelStationary {
			e.mo = vocab.Stationary(w.tick, e.x, e.y)
		}
		if w.tick >= w.cold(e).arm.until {
			w.cold(e).arm.mode = forceHover
		}
	case forceEnter, forceRecall:
		if w.tick >= w.cold(e).arm.until {
			speed := r.ForceRecallSpeed
			if w.cold(e).arm.mode == forceEnter {
				speed = r.ForceEnterSpeed
			}
			vx, vy := toward(e.x, e.y, ship.x, ship.y, speed)
			e.mo = vocab.Linear(w.tick-1, e.x, e.y, vx, vy)
			w.cold(e).arm.until = w.tick + uint32(max(r.ForceReaimTicks, 1))
		}
	}
	w.eval(e)
	if w.cold(e).arm.mode == forceFlight {
		w.forceOnTerrain(e)
		return
	}
	if _, ok := w.sweep(e, ship); ok {
		pa.a.ForceAt = vocab.ForceBack
		if e.x >= ship.x {
			pa.a.ForceAt = vocab.ForceFront
		}
		w.cold(e).arm.mode = forceAttached
		dx, _ := r.ForceOffset(pa.a.ForceAt)
		px, py := e.px, e.py
		w.follow(e, ship, dx, 0)
		e.px, e.py = px, py
	}
}

// launchForce sends an attached Force away from its ship: forward from
// the front, backward from the back, for ForceLaunchTicks, never closer
// than ForceEdge to the area's left or right edge (it stops at the last
// tick before).
func (w *World) launchForce(pa *playerArms, e *entity) {
	r := &armsRules
	dir := 1.0
	if pa.a.ForceAt == vocab.ForceBack {
		dir = -1
	}
	pa.a.ForceAt = vocab.ForceLoose
	reach := r.ForceLaunchSpeed * float64(r.ForceLaunchTicks) / float64(w.r.TickRate)
	to := min(max(e.x+dir*reach, r.ForceEdge), w.r.AreaW-r.ForceEdge)
	steps := math.Floor(max(dir*(to-e.x), 0) / r.ForceLaunchSpeed * float64(w.r.TickRate))
	w.cold(e).arm.mode = forceFlight
	w.cold(e).arm.until = w.tick + uint32(max(r.ForceLaunchTicks, 1))
	w.cold(e).arm.stop = w.tick + uint32(steps)
	e.mo = vocab.Linear(w.tick-1, e.x, e.y, dir*r.ForceLaunchSpeed, 0)
	if steps == 0 { // against the edge already
		e.mo = vocab.Stationary(w.tick, e.x, e.y)
	}
}
