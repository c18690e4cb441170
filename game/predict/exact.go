package predict

import (
	"math"
	"time"

	"rtype/net/wire"
)

// The exact prediction of a v2 session (PROTOCOL.md 7.4, 7.5): the server
// applies the client's numbered input steps in order, one per tick, and
// moves ships by quantized Linear motions; each snapshot says which step it
// applied last (last_step) and carries the ship's motion. The prediction is
// then the server's own computation: the ship's state at the snapshot's
// tick, plus the steps sent after last_step, each one tick, by the
// server's ship rules (those of the v2 LoginAccepted, 7.1). As long as the
// server applies the steps on consecutive ticks, the predicted ship is
// where the server will have it, to the bit.

// Step records an input step the client sent (v2): its number and the
// actions of that step, at local time now. Steps are given in increasing
// order; the game gives each step the client sends once. It advances the
// prediction by one tick, and switches the Predictor to the exact
// prediction of v2 (Input is then not used).
func (p *Predictor) Step(step uint32, actions uint8, now time.Time) {
	p.exact = true
	p.xring[step%ringSize] = xstep{step: step, actions: actions, at: now, valid: true}
	p.newestStep, p.hasSteps = step, true
	p.lastT, p.lastA = now, actions
	if p.has {
		p.ship.step(&p.geo, actions)
		p.px, p.py, p.frame = p.ship.x, p.ship.y, p.ship.frame()
	}
}

// Motion feeds the server's state of the own ship at a snapshot of tick
// (v2): its motion (7.5), and the last input step the server had applied
// (hasStep false: none yet), with the local time the snapshot arrived and
// whether the ship respawned since the previous snapshot fed. Snapshots
// not newer than the last one fed are ignored. The prediction becomes the
// ship at tick plus the replay of the steps after lastStep; a change from
// the previous prediction is smoothed as Snapshot says.
func (p *Predictor) Motion(m wire.Motion, tick uint32, lastStep uint32, hasStep bool, received time.Time, respawned bool) {
	if p.has && tick <= p.tick {
		return
	}
	p.exact = true
	s := shipState{mo: m, tick: tick}
	s.x, s.y, _, _ = m.At(float64(tick))
	if p.hasSteps && !(hasStep && lastStep >= p.newestStep) {
		first := p.newestStep - min(p.newestStep, ringSize-1) // the oldest kept
		if hasStep {
			first = max(first, lastStep+1)
		}
		for n, k := p.newestStep-first+1, first; n > 0; n, k = n-1, k+1 {
			st := &p.xring[k%ringSize]
			if st.valid && st.step == k {
				s.step(&p.geo, st.actions)
			}
		}
	}
	now := p.lastT
	if now.Before(received) {
		now = received
	}
	p.correct(s.x, s.y, now, respawned)
	p.has, p.tick = true, tick
	p.ship = s
	p.px, p.py, p.frame = s.x, s.y, s.frame()
}

// correct turns the change from the previous prediction to (nx, ny) into
// the decaying correction offset, or snaps when the ship respawned or the
// change exceeds SnapTo (Snapshot).
func (p *Predictor) correct(nx, ny float64, now time.Time, respawned bool) {
	if p.has && !respawned {
		ox, oy := p.offset(now)
		ex, ey := p.px+ox-nx, p.py+oy-ny
		if math.Hypot(p.px-nx, p.py-ny) <= p.cfg.SnapTo {
			p.offX, p.offY, p.offAt = ex, ey, now
		} else {
			p.offX, p.offY = 0, 0
		}
	} else {
		p.offX, p.offY = 0, 0
	}
}

// xstep is a recorded v2 input step.
type xstep struct {
	step    uint32
	actions uint8
	at      time.Time
	valid   bool
}

// geometry is what the server's ship rules need (7.1's rules): the speed,
// and the box a ship's centre stays in, on the 1/8 px grid.
type geometry struct {
	speed          float64
	loX, hiX       float64
	loY, hiY       float64
	tickRate       float64
	shipVelDiagMul float64
}

func newGeometry(speed, shipW, shipH, areaW, areaH, tickRate float64) geometry {
	in := func(lo, hi float64) (float64, float64) {
		return math.Ceil(lo*wire.PosScale) / wire.PosScale, math.Floor(hi*wire.PosScale) / wire.PosScale
	}
	g := geometry{speed: speed, tickRate: tickRate, shipVelDiagMul: math.Sqrt2 / 2}
	g.loX, g.hiX = in(shipW/2, areaW-shipW/2)
	g.loY, g.hiY = in(shipH/2, areaH-shipH/2)
	return g
}

// velocity returns the velocity of a ship holding actions, in 1/16 px/s:
// the speed along each axis, diagonals normalized, opposite arrows
// cancelling (7.5, the reference server's ships).
func (g *geometry) velocity(actions uint8) (vx, vy int16) {
	var dx, dy float64
	if actions&wire.ActionLeft != 0 {
		dx--
	}
	if actions&wire.ActionRight != 0 {
		dx++
	}
	if actions&wire.ActionUp != 0 {
		dy--
	}
	if actions&wire.ActionDown != 0 {
		dy++
	}
	v := g.speed
	if dx != 0 && dy != 0 {
		v *= g.shipVelDiagMul
	}
	return wire.QuantizeVel(dx * v), wire.QuantizeVel(dy * v)
}

// shipState is a ship as the server moves it: its motion, and its
// position at tick.
type shipState struct {
	mo   wire.Motion
	tick uint32
	x, y float64
}

// step moves the ship by one tick holding actions, as the reference
// server does (7.5, PlayerShip): a new Linear motion from the tick before
// when the velocity changes, stopped by the walls, then evaluated.
func (s *shipState) step(g *geometry, actions uint8) {
	s.tick++
	vx, vy := g.velocity(actions)
	if vx < 0 && s.x <= g.loX || vx > 0 && s.x >= g.hiX {
		vx = 0
	}
	if vy < 0 && s.y <= g.loY || vy > 0 && s.y >= g.hiY {
		vy = 0
	}
	if vx != s.mo.VX || vy != s.mo.VY {
		s.mo = shipMotion(s.tick-1, s.x, s.y, vx, vy)
	}
	x, y, _, _ := s.mo.At(float64(s.tick))
	cx, cy := min(max(x, g.loX), g.hiX), min(max(y, g.loY), g.hiY)
	if cx != x || cy != y {
		if cx != x {
			vx = 0
		}
		if cy != y {
			vy = 0
		}
		s.mo = shipMotion(s.tick, cx, cy, vx, vy)
	}
	s.x, s.y, _, _ = s.mo.At(float64(s.tick))
}

// shipMotion is a ship's quantized Linear motion from (x, y) at t0.
func shipMotion(t0 uint32, x, y float64, vx, vy int16) wire.Motion {
	return wire.Motion{Model: wire.ModelLinear, T0: t0, X0: wire.QuantizePos(x), Y0: wire.QuantizePos(y), VX: vx, VY: vy}
}

// frame is the ship's frame by its vertical velocity: climbing, diving or
// level.
func (s *shipState) frame() uint8 {
	switch {
	case s.mo.VY < 0:
		return frameClimb
	case s.mo.VY > 0:
		return frameDive
	}
	return frameLevel
}
