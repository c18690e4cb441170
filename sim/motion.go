package sim

import (
	"math"

	"rtype/net/wire"
)

// posAt is m.At(tick)'s position alone: the same operations in the same
// order (PROTOCOL.md 7.5, every product rounded before it is added), so
// the same bits, without the velocity. A step needs only the position:
// the velocity (a Sine's cosine) is for v1 snapshots and Spawns, which
// vel evaluates when they ask. A term whose velocity is 0 is skipped: it
// adds ±0 to a finite position, which changes nothing (a position from
// an int16 is never -0). TestPosAtIsAt checks it against wire.Motion.At.
func posAt(m *wire.Motion, tick float64) (x, y float64) {
	x = float64(m.X0) / wire.PosScale
	y = float64(m.Y0) / wire.PosScale
	if m.Model != wire.ModelLinear && m.Model != wire.ModelSine {
		return x, y
	}
	dt := tick - float64(m.T0)
	if m.VX != 0 {
		vx := float64(m.VX) / wire.VelScale
		x += float64(vx*dt) / wire.TickRate
	}
	if m.VY != 0 {
		vy := float64(m.VY) / wire.VelScale
		y += float64(vy*dt) / wire.TickRate
	}
	if m.Model == wire.ModelSine && m.Period != 0 {
		a := float64(m.Amp) / wire.AmpScale
		th := 2 * math.Pi * (float64(m.Phase)/wire.PhaseScale + dt/float64(m.Period))
		y += float64(a * math.Sin(th))
	}
	return x, y
}

// eval sets an entity's position to its motion's at the current tick (in
// Stage mode, it also notes the tick for vel).
func (w *World) eval(e *entity) {
	e.x, e.y = posAt(&e.mo, float64(w.tick))
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
func frameAt(a wire.Anim, t0, tick uint32) uint8 {
	if a.Ticks == 0 || a.Count < 2 {
		return a.Frame0
	}
	if tick < t0 || tick-t0 > math.MaxInt32 {
		return a.Frame(t0, float64(tick))
	}
	return uint8((uint32(a.Frame0) + (tick-t0)/uint32(a.Ticks)) % uint32(a.Count))
}
