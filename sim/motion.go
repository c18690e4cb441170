package sim

import (
	"math"

	"rtype/vocab"
)

// eval sets an entity's position to its motion's at the current tick (in
// Stage mode, it also notes the tick for vel): vocab.Motion.Pos, At's
// position without the velocity, which only v1 snapshots and Spawns
// carry (vel evaluates it when they ask).
func (w *World) eval(e *entity) {
	e.x, e.y = e.mo.Pos(float64(w.tick))
	if w.colds != nil {
		w.cold(e).evalTick = w.tick
	}
}

// vel returns an entity's velocity (px/s) at the tick of its position:
// its motion's at that tick, as v1 carries it. In a Classic world every
// live entity is evaluated at every step (moveShips, moveOthers) and at
// its spawn, so that tick is the current one; in Stage mode, a Force or
// bit may stay unmoved, and eval notes the tick.
func (w *World) vel(e *entity) (vx, vy float64) {
	t := w.tick
	if w.colds != nil {
		t = w.cold(e).evalTick
	}
	_, _, vx, vy = e.mo.At(float64(t))
	return vx, vy
}

// frameAt is a.Frame(t0, float64(tick)) at a whole tick: the same frame,
// in 32-bit integers when the tick is not before t0 (the divisions are
// cheaper), else by a.Frame.
func frameAt(a vocab.Anim, t0, tick uint32) uint8 {
	if a.Ticks == 0 || a.Count < 2 {
		return a.Frame0
	}
	if tick < t0 || tick-t0 > math.MaxInt32 {
		return a.Frame(t0, float64(tick))
	}
	return uint8((uint32(a.Frame0) + (tick-t0)/uint32(a.Ticks)) % uint32(a.Count))
}
