// Package predict predicts the local player's own ship: it replays the
// inputs the server has not applied yet on top of the server's newest
// position, with the server's movement rules, so that the ship answers a
// key press at once instead of ~100 ms later through the interpolation.
//
// It is headless (no Ebitengine), pure and deterministic: no goroutines,
// no clock (every time is passed in), and no allocation per call.
package predict

import (
	"math"
	"time"

	"rtype/net/wire"
	"rtype/sim"
)

// ringSize is the number of input steps kept: a little over 2 s at 60 per
// second (a power of 2).
const ringSize = 128

// Ship frames returned by Position (those of sim).
const (
	frameLevel = sim.ShipFrameLevel
	frameClimb = sim.ShipFrameClimb
	frameDive  = sim.ShipFrameDive
)

// Config holds the movement rules and the smoothing of a Predictor. Zero
// fields take the defaults given with each field, except Rules.
type Config struct {
	// Rules are the server's gameplay rules; the ship moves as
	// Rules.MoveShip says, one step per Input call. Required: the
	// protocol does not carry them, so the caller says which server's
	// rules it predicts (New panics on a zero TickRate).
	Rules sim.Rules
	// CorrectionTime is the time constant of the exponential decay of a
	// prediction error: when a snapshot changes the prediction, the
	// difference is drawn as an offset that falls by a factor e every
	// CorrectionTime (100 ms).
	CorrectionTime time.Duration
	// SnapTo is the prediction change, in px, above which the ship snaps
	// to the new prediction instead of gliding to it (64).
	SnapTo float64
	// StageSpeeds, set (not all zero) in a Stage game (PROTOCOL.md 7.12),
	// are the ship's speeds along an axis by the number of speed-ups its
	// player took, 0 to 3 (sim.ArmsRules.ShipSpeeds: 270, 330, 390 and
	// 450 px/s): at a tick, the ship moves at StageSpeeds[n], n the
	// speed-ups of the newest Arms event (SpeedUps) of an earlier tick, 0
	// before any, instead of Rules.ShipSpeed. Zero (the default, a
	// Classic game): Rules.ShipSpeed at every tick. Only the exact
	// prediction of v2 (Step, Motion) uses them: Stage games are v2's.
	StageSpeeds [4]float64
}

// withDefaults fills in the zero fields.
func (c Config) withDefaults() Config {
	if c.CorrectionTime <= 0 {
		c.CorrectionTime = 100 * time.Millisecond
	}
	if c.SnapTo <= 0 {
		c.SnapTo = 64
	}
	return c
}

// step is one recorded input: the actions held at one 1/TickRate step.
type step struct {
	at      time.Time
	actions uint8
}

// Predictor predicts the own ship's present position. It is not safe for
// concurrent use; the zero value is not ready: use New.
type Predictor struct {
	cfg            Config
	correctionSecs float64

	ring  [ringSize]step
	head  int // index of the next step to write
	n     int // steps held
	lastT time.Time
	lastA uint8 // the actions of the last Input

	has        bool    // a snapshot was fed since New or Reset
	tick       uint32  // tick of the last snapshot fed
	px, py     float64 // the prediction at lastT
	frame      uint8   // frame of the last step of the prediction
	offX, offY float64 // correction offset at offAt
	offAt      time.Time

	// The exact prediction of v2 (exact.go).
	exact      bool // fed by Step and Motion
	geo        geometry
	xring      [ringSize]xstep
	newestStep uint32
	hasSteps   bool
	ship       shipState // the predicted ship after the newest step

	// The last Motion fed, which SpeedUps predicts from again.
	snap       shipState
	snapLast   uint32
	snapHasLst bool
	// Stage mode: the speed-ups of the own player from its Arms events
	// (SpeedUps), by tick.
	stage  bool
	speeds speedTable
	// The speed-up items in sight (Items), and the half sizes of the
	// ship's box and of an item's.
	items          [MaxItems]wire.Motion
	nItems         int
	shipHW, shipHH float64
	itemHW, itemHH float64
}

// New returns a Predictor with cfg (zero fields take their defaults).
func New(cfg Config) *Predictor {
	if cfg.Rules.TickRate <= 0 {
		panic("predict: Config.Rules not set")
	}
	p := &Predictor{cfg: cfg.withDefaults()}
	p.correctionSecs = p.cfg.CorrectionTime.Seconds()
	r := &p.cfg.Rules
	p.geo = newGeometry(r.ShipSpeed, r.ShipW, r.ShipH, r.AreaW, r.AreaH, float64(r.TickRate))
	p.stage = p.cfg.StageSpeeds != [4]float64{}
	p.shipHW, p.shipHH = r.ShipW/2, r.ShipH/2
	w, h := sim.KindSize(r, wire.KindPowerUp)
	p.itemHW, p.itemHH = w/2, h/2
	return p
}

// Config returns the configuration in use, defaults filled in.
func (p *Predictor) Config() Config { return p.cfg }

// Reset forgets the ship (it is gone): Position reports nothing until the
// next Snapshot, which places the ship without smoothing. The inputs are
// kept; the speed-ups (SpeedUps) are not: a player without a ship has
// none (a Death takes them, PROTOCOL.md 7.12), and the next ship may be
// another game's, whose ticks start again.
func (p *Predictor) Reset() {
	p.has = false
	p.offX, p.offY = 0, 0
	p.speeds = speedTable{}
}

// Input records the actions (wire.Action* bits) held during one step, at
// local time now; the game calls it once per tick, with the actions it
// gives the client. It advances the prediction by that step.
func (p *Predictor) Input(actions uint8, now time.Time) {
	p.ring[p.head] = step{at: now, actions: actions}
	p.head = (p.head + 1) % ringSize
	if p.n < ringSize {
		p.n++
	}
	p.lastT, p.lastA = now, actions
	if p.has {
		p.px, p.py, p.frame = p.move(p.px, p.py, actions)
	}
}

// move applies one step of actions to (x, y) with the server's rules and
// returns the new position and the frame it shows.
func (p *Predictor) move(x, y float64, a uint8) (nx, ny float64, frame uint8) {
	nx, ny = p.cfg.Rules.MoveShip(x, y, a)
	switch {
	case ny < y:
		frame = frameClimb
	case ny > y:
		frame = frameDive
	default:
		frame = frameLevel
	}
	return nx, ny, frame
}

// Snapshot feeds the server's position (x, y) of the own ship at a new
// snapshot tick, the local time the snapshot was received
// (client.Frame.Received), the round-trip time, and whether the ship was
// respawned (a Death teleport) since the previous snapshot fed. Snapshots
// not newer than the last one fed are ignored.
//
// The server's state at that snapshot includes the inputs that reached it
// before: those recorded before about received - rtt (one way up, one way
// down). The prediction becomes (x, y) plus the replay of the inputs
// recorded after that, up to the last Input. The change from the previous
// prediction becomes a correction offset decaying over CorrectionTime,
// unless the ship respawned or the change exceeds SnapTo: the ship then
// snaps to the new prediction.
func (p *Predictor) Snapshot(x, y float32, tick uint32, received time.Time, rtt time.Duration, respawned bool) {
	if p.has && tick <= p.tick {
		return
	}
	cutoff := received.Add(-rtt)
	nx, ny := float64(x), float64(y)
	frame := uint8(frameLevel)
	// Replay the steps recorded after cutoff, oldest first.
	first := -1 // nothing to replay
	for k := p.n - 1; k >= 0; k-- {
		if !p.ring[(p.head-1-k+2*ringSize)%ringSize].at.After(cutoff) {
			continue
		}
		first = k
		break
	}
	for k := first; k >= 0; k-- {
		nx, ny, frame = p.move(nx, ny, p.ring[(p.head-1-k+2*ringSize)%ringSize].actions)
	}
	now := p.lastT
	if now.Before(received) {
		now = received
	}
	p.correct(nx, ny, now, respawned)
	p.has, p.tick = true, tick
	p.px, p.py, p.frame = nx, ny, frame
}

// offset returns the correction offset at now.
func (p *Predictor) offset(now time.Time) (x, y float64) {
	if p.offX == 0 && p.offY == 0 {
		return 0, 0
	}
	dt := now.Sub(p.offAt).Seconds()
	if dt <= 0 {
		return p.offX, p.offY
	}
	k := math.Exp(-dt / p.correctionSecs)
	return p.offX * k, p.offY * k
}

// Position returns where to draw the own ship at now: the prediction plus
// the decaying correction offset, kept inside the area, and its frame (1
// moving up, 2 down, 0 level, from the last step). ok is false before the
// first Snapshot (or after Reset).
//
// Between two Inputs the ship goes on with the last Input's actions for
// the time since it, up to one step: a display faster than the Inputs
// (144 Hz against 60) shows it moving at every frame rather than in
// steps. A release is known at the next Input only: the ship then stops up
// to a step short of where the last frames showed it going.
func (p *Predictor) Position(now time.Time) (x, y float32, frame uint8, ok bool) {
	if !p.has {
		return 0, 0, 0, false
	}
	ox, oy := p.offset(now)
	px, py := p.px+ox, p.py+oy
	if p.exact {
		if f := now.Sub(p.lastT).Seconds() * float64(p.cfg.Rules.TickRate); f > 0 && p.lastA != 0 {
			f = min(f, 1)
			next := p.ship
			p.advance(&next, p.lastA)
			px += (next.x - p.px) * f
			py += (next.y - p.py) * f
		}
		return float32(min(max(px, p.geo.loX), p.geo.hiX)), float32(min(max(py, p.geo.loY), p.geo.hiY)), p.frame, true
	}
	if f := now.Sub(p.lastT).Seconds() * float64(p.cfg.Rules.TickRate); f > 0 && p.lastA != 0 {
		f = min(f, 1)
		nx, ny := p.cfg.Rules.MoveShip(p.px, p.py, p.lastA)
		px += (nx - p.px) * f
		py += (ny - p.py) * f
	}
	dx, dy := p.cfg.Rules.MoveShip(px, py, 0) // kept inside the area
	return float32(dx), float32(dy), p.frame, true
}

// Predicted returns the prediction without the correction offset (for
// measures and tests); ok as for Position.
func (p *Predictor) Predicted() (x, y float32, ok bool) {
	return float32(p.px), float32(p.py), p.has
}
