package predict

import (
	"math"
	"time"

	"rtype/net/wire"
	"rtype/sim"
)

// The exact prediction of a v2 session (PROTOCOL.md 7.4, 7.5): the server
// applies the client's numbered input steps in order, one per tick, and
// moves ships by quantized Linear motions; each snapshot says which step it
// applied last (last_step) and carries the ship's motion. The prediction is
// then the server's own computation: the ship's state at the snapshot's
// tick, plus the steps sent after last_step, each one tick, by the
// server's ship rules (those of the v2 LoginAccepted, 7.1, and in a Stage
// game the speed of the player's speed-ups, 7.12: SpeedUps). As long as the
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
		p.advance(&p.ship, actions)
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
	p.snap = shipState{mo: m, tick: tick}
	p.snap.x, p.snap.y, _, _ = m.At(float64(tick))
	p.snapLast, p.snapHasLst = lastStep, hasStep
	p.speeds.forget(tick)
	now := p.lastT
	if now.Before(received) {
		now = received
	}
	p.predict(now, respawned)
	p.tick = tick
}

// SpeedUps takes an Arms event of the own player in a Stage game (7.12):
// at the end of tick its player had taken n speed-ups (the event's speed),
// so that the ship moves at StageSpeeds[n] from the next tick on, until
// the next Arms. An Arms of a tick the prediction has passed already (it
// arrived after the snapshots of the ticks after it) predicts again from
// the last Motion: the change from the previous prediction is smoothed
// as Motion's, at local time now. A Predictor without StageSpeeds (a
// Classic game) ignores it.
func (p *Predictor) SpeedUps(n uint8, tick uint32, now time.Time) {
	if !p.stage || !p.speeds.set(tick, n) {
		return
	}
	if p.has && p.exact && tick < p.ship.tick {
		if now.Before(p.lastT) {
			now = p.lastT
		}
		p.predict(now, false)
	}
}

// predict makes the prediction: the ship of the last Motion, plus the
// replay of the steps after its last step, each one tick at the speed of
// that tick; the change from the previous prediction is smoothed (correct).
func (p *Predictor) predict(now time.Time, respawned bool) {
	s := p.snap
	if p.hasSteps && !(p.snapHasLst && p.snapLast >= p.newestStep) {
		first := p.newestStep - min(p.newestStep, ringSize-1) // the oldest kept
		if p.snapHasLst {
			first = max(first, p.snapLast+1)
		}
		for n, k := p.newestStep-first+1, first; n > 0; n, k = n-1, k+1 {
			st := &p.xring[k%ringSize]
			if st.valid && st.step == k {
				p.advance(&s, st.actions)
			}
		}
	}
	p.correct(s.x, s.y, now, respawned)
	p.has = true
	p.ship = s
	p.px, p.py, p.frame = s.x, s.y, s.frame()
}

// advance moves s by one tick holding actions, at the speed of that tick
// (speed), then, in a Stage game, takes the speed-up items it touches
// (pickups).
func (p *Predictor) advance(s *shipState, actions uint8) {
	x0, y0 := s.x, s.y
	s.step(&p.geo, actions, p.speed(s, s.tick+1))
	if p.stage && p.nItems > 0 {
		p.pickups(s, x0, y0)
	}
}

// speed returns the ship's speed along an axis at tick: Rules.ShipSpeed,
// or in a Stage game that of its speed-ups: those of the newest Arms
// before tick, and those it was predicted to pick up since.
func (p *Predictor) speed(s *shipState, tick uint32) float64 {
	if !p.stage {
		return p.geo.speed
	}
	n := int(p.speeds.at(tick)) + int(s.extra)
	return p.cfg.StageSpeeds[min(n, len(p.cfg.StageSpeeds)-1)]
}

// pickups takes the items s touches during its last tick, moving from
// (x0, y0): the server's pickups (7.12), by the server's collision test
// (sim.Touch). Each gives a speed-up from the next tick on, and is not
// taken again; one taken by the tick of the newest Arms gives nothing
// more: that Arms tells what the player had then. The server hands an
// item to the ship that touches it first: another player's may take it
// before, and the prediction is then corrected when the snapshots say so.
func (p *Predictor) pickups(s *shipState, x0, y0 float64) {
	t := s.tick
	told := t <= p.speeds.newest()
	for i := 0; i < p.nItems; i++ {
		it := &p.items[i]
		if s.taken&(1<<i) != 0 || t < it.T0 {
			continue
		}
		bx1, by1 := it.Pos(float64(t))
		bx0, by0 := bx1, by1 // dropped during tick t: it was there
		if t > it.T0 {
			bx0, by0 = it.Pos(float64(t - 1))
		}
		if _, ok := sim.Touch(x0, y0, s.x, s.y, p.shipHW, p.shipHH, bx0, by0, bx1, by1, p.itemHW, p.itemHH); ok {
			s.taken |= 1 << i
			if !told {
				s.extra++
			}
		}
	}
}

// Items gives the speed-up items of a Stage game (7.12: KindPowerUp
// entities whose frame is wire.ItemSpeed) alive at the tick of the next
// Motion, by their motions, at most MaxItems (the first): the ship is
// predicted to pick up those it touches (pickups). The game gives them
// from the frame whose ship it gives to Motion, before Motion. A
// Predictor without StageSpeeds ignores them.
func (p *Predictor) Items(items []wire.Motion) {
	if !p.stage {
		return
	}
	p.nItems = copy(p.items[:], items)
}

// MaxItems is the number of items Items keeps.
const MaxItems = 16

// speedTable is the own player's speed-ups by tick, from its Arms events:
// the changes after the last snapshot fed, and the newest one before it.
// It has a fixed size: nothing is allocated.
type speedTable struct {
	n    int
	tick [8]uint32 // ascending
	ups  [8]uint8
}

// set records that n speed-ups hold from the end of tick on; it reports
// whether that changes the table. A tick below the newest change's by
// more than the table holds starts it again (a new game).
func (t *speedTable) set(tick uint32, n uint8) bool {
	k := t.n
	for k > 0 && t.tick[k-1] > tick {
		k--
	}
	if k > 0 && t.tick[k-1] == tick {
		if t.ups[k-1] == n {
			return false
		}
		t.ups[k-1] = n
		return true
	}
	if k == 0 && t.n == len(t.tick) {
		t.n = 0 // older than all kept: start again
	}
	if t.n == len(t.tick) { // full: the oldest goes
		copy(t.tick[:], t.tick[1:])
		copy(t.ups[:], t.ups[1:])
		t.n--
		k--
	}
	copy(t.tick[k+1:t.n+1], t.tick[k:t.n])
	copy(t.ups[k+1:t.n+1], t.ups[k:t.n])
	t.tick[k], t.ups[k] = tick, n
	t.n++
	return true
}

// newest returns the tick of the newest change, 0 without one.
func (t *speedTable) newest() uint32 {
	if t.n == 0 {
		return 0
	}
	return t.tick[t.n-1]
}

// at returns the speed-ups at tick: those of the newest change before it,
// 0 before any.
func (t *speedTable) at(tick uint32) uint8 {
	n := uint8(0)
	for k := 0; k < t.n && t.tick[k] < tick; k++ {
		n = t.ups[k]
	}
	return n
}

// forget drops the changes that no tick after tick needs: all those
// before tick but the newest of them.
func (t *speedTable) forget(tick uint32) {
	k := 0
	for k+1 < t.n && t.tick[k+1] < tick {
		k++
	}
	if k > 0 {
		copy(t.tick[:], t.tick[k:t.n])
		copy(t.ups[:], t.ups[k:t.n])
		t.n -= k
	}
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
	speed    float64
	loX, hiX float64
	loY, hiY float64
	tickRate float64
}

func newGeometry(speed, shipW, shipH, areaW, areaH, tickRate float64) geometry {
	in := func(lo, hi float64) (float64, float64) {
		return math.Ceil(lo*wire.PosScale) / wire.PosScale, math.Floor(hi*wire.PosScale) / wire.PosScale
	}
	g := geometry{speed: speed, tickRate: tickRate}
	g.loX, g.hiX = in(shipW/2, areaW-shipW/2)
	g.loY, g.hiY = in(shipH/2, areaH-shipH/2)
	return g
}

// shipState is a ship as the server moves it: its motion, and its
// position at tick.
type shipState struct {
	mo   wire.Motion
	tick uint32
	x, y float64
	// Stage mode: the speed-ups it was predicted to pick up since the
	// last Motion, and which of the Items they were (bits).
	extra uint8
	taken uint16
}

// step moves the ship by one tick holding actions at speed px/s along an
// axis, as the reference server does (7.5, PlayerShip): a new Linear
// motion from the tick before when the velocity changes, stopped by the
// walls, then evaluated.
func (s *shipState) step(g *geometry, actions uint8, speed float64) {
	s.tick++
	vx, vy := sim.ShipVelocity(actions, speed) // the server's

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
