package vocab

import "math"

// Model is the motion model of an entity in protocol v2 (7.5).
type Model uint8

// Motion models (7.5). Models 3 to 15 are reserved: a receiver keeps the
// entity but does not draw it (as an unknown kind).
const (
	ModelStationary Model = 0 // at (X0, Y0)
	ModelLinear     Model = 1 // from (X0, Y0) at T0, at (VX, VY)
	ModelSine       Model = 2 // Linear, plus Amp·sin(2π·(Phase + dt/Period)) on y
	// 3 is reserved for a path of linear segments.
)

// Steps of the fixed-point motion parameters (7.5).
const (
	PosScale   = 8     // position units per pixel: 1/8 px
	VelScale   = 16    // velocity units per pixel per second: 1/16 px/s
	AmpScale   = 8     // amplitude units per pixel: 1/8 px
	PhaseScale = 65536 // phase units per turn
)

// Motion is where an entity is at any tick, a pure function of the tick
// (7.5), in the fixed-point units the protocol carries. The server
// quantizes a motion when it sets it and moves the entity by At; a client
// evaluates the same At at render time, so both get the same position.
//
// Its fields are ordered for size (20 bytes, not 24 with Model first): the
// simulation keeps one per entity, and an entity fits a cache line.
type Motion struct {
	T0     uint32 // base tick
	X0, Y0 int16  // position at T0 (Sine: its centre line), 1/8 px
	VX, VY int16  // velocity, 1/16 px/s
	Amp    uint16 // Sine: amplitude, 1/8 px
	Period uint16 // Sine: period in ticks; 0 means no oscillation
	Phase  uint16 // Sine: phase at T0, 1/65536 turn
	Model  Model
}

// At returns the position (pixels) and velocity (pixels per second) of the
// motion at tick (a fractional tick is a render time). The operations and
// their order are those of PROTOCOL.md 7.5, with every product rounded
// before it is added (no fused multiply-add), so that every conforming
// implementation in IEEE 754 binary64 computes the same Linear values; Sine
// adds the rounding of the platform's sine and cosine.
func (m *Motion) At(tick float64) (x, y, vx, vy float64) { return m.at(tick, true) }

// Pos returns the position (pixels) of the motion at tick: At's position,
// the same bits, without the velocity (no cosine), for a simulation that
// moves its entities every tick and needs their velocity only when asked.
func (m *Motion) Pos(tick float64) (x, y float64) {
	x, y, _, _ = m.at(tick, false)
	return x, y
}

// at is At, or with vel false Pos: the position alone, where a term whose
// velocity is 0 is skipped when dt is finite (0·dt is then ±0, which
// changes no finite position, and one from an int16 is never -0: the same
// bits without a multiplication and a division); a NaN or infinite tick
// takes every term, as 7.5 writes it.
func (m *Motion) at(tick float64, vel bool) (x, y, vx, vy float64) {
	x = float64(m.X0) / PosScale
	y = float64(m.Y0) / PosScale
	if m.Model != ModelLinear && m.Model != ModelSine {
		return x, y, 0, 0
	}
	dt := tick - float64(m.T0)
	all := vel || dt-dt != 0 // dt-dt != 0: dt is NaN or infinite
	if m.VX != 0 || all {
		vx = float64(m.VX) / VelScale
		x += float64(vx*dt) / TickRate
	}
	if m.VY != 0 || all {
		vy = float64(m.VY) / VelScale
		y += float64(vy*dt) / TickRate
	}
	if m.Model == ModelSine && m.Period != 0 {
		a := float64(m.Amp) / AmpScale
		th := 2 * math.Pi * (float64(m.Phase)/PhaseScale + dt/float64(m.Period))
		sin, cos := sincos(th) // math.Sin's and math.Cos's bits (motion_sin.go)
		y += float64(a * sin)
		if vel {
			vy += float64(float64(a*(2*math.Pi*TickRate/float64(m.Period))) * cos)
		}
	}
	return x, y, vx, vy
}

// Velocity returns the velocity of a Linear or Sine motion's base line,
// pixels per second (0 for other models).
func (m *Motion) Velocity() (vx, vy float64) {
	if m.Model != ModelLinear && m.Model != ModelSine {
		return 0, 0
	}
	return float64(m.VX) / VelScale, float64(m.VY) / VelScale
}

// QuantizePos rounds a position in pixels to 1/8 px, halves away from
// zero, clamped to s16 (−4096 to 4095.875 px). NaN becomes 0.
func QuantizePos(v float64) int16 { return clamp16(v * PosScale) }

// QuantizeVel rounds a velocity in pixels per second to 1/16 px/s, halves
// away from zero, clamped to s16 (−2048 to 2047.9375 px/s). NaN becomes 0.
func QuantizeVel(v float64) int16 { return clamp16(v * VelScale) }

// QuantizeAmp rounds an amplitude in pixels to 1/8 px, clamped to u16.
func QuantizeAmp(v float64) uint16 {
	q := math.Round(v * AmpScale)
	switch {
	case !(q > 0):
		return 0
	case q > math.MaxUint16:
		return math.MaxUint16
	}
	return uint16(q)
}

// QuantizePhase rounds an angle in radians to 1/65536 turn, modulo a turn.
func QuantizePhase(rad float64) uint16 {
	q := math.Round(rad / (2 * math.Pi) * PhaseScale)
	if q != q || math.IsInf(q, 0) {
		return 0
	}
	return uint16(int64(math.Mod(q, PhaseScale)))
}

func clamp16(v float64) int16 {
	q := math.Round(v)
	switch {
	case q != q:
		return 0
	case q < math.MinInt16:
		return math.MinInt16
	case q > math.MaxInt16:
		return math.MaxInt16
	}
	return int16(q)
}

// Stationary returns the quantized Stationary motion at (x, y) from t0.
func Stationary(t0 uint32, x, y float64) Motion {
	return Motion{Model: ModelStationary, T0: t0, X0: QuantizePos(x), Y0: QuantizePos(y)}
}

// Linear returns the quantized Linear motion from (x, y) at t0 at
// (vx, vy) pixels per second.
func Linear(t0 uint32, x, y, vx, vy float64) Motion {
	return Motion{Model: ModelLinear, T0: t0, X0: QuantizePos(x), Y0: QuantizePos(y),
		VX: QuantizeVel(vx), VY: QuantizeVel(vy)}
}

// Sine returns the quantized Sine motion whose centre line starts at
// (x, yc) at t0 and moves at vx pixels per second, with amplitude amp
// pixels, period ticks and phase radians at t0.
func Sine(t0 uint32, x, yc, vx, amp float64, period int, phase float64) Motion {
	return Motion{Model: ModelSine, T0: t0, X0: QuantizePos(x), Y0: QuantizePos(yc),
		VX: QuantizeVel(vx), Amp: QuantizeAmp(amp), Period: uint16(min(max(period, 0), math.MaxUint16)),
		Phase: QuantizePhase(phase)}
}

// Anim is the sprite animation of an entity in protocol v2 (7.5): frames
// that follow from the tick are not sent.
type Anim struct {
	Frame0 uint8 // frame at the motion's base tick
	Ticks  uint8 // ticks per frame; 0: the frame stays Frame0
	Count  uint8 // frames in the cycle, 0 to Count−1; below 2: stays Frame0
}

// Frame returns the frame at tick of an animation that started at t0
// (the motion's base tick):
// (Frame0 + ⌊(tick − t0) / Ticks⌋) mod Count, or Frame0 when Ticks is 0 or
// Count is below 2.
func (a Anim) Frame(t0 uint32, tick float64) uint8 {
	if a.Ticks == 0 || a.Count < 2 {
		return a.Frame0
	}
	dt := int64(math.Floor(tick - float64(t0)))
	k := dt / int64(a.Ticks)
	if dt%int64(a.Ticks) != 0 && dt < 0 {
		k-- // floor division
	}
	f := (int64(a.Frame0) + k) % int64(a.Count)
	if f < 0 {
		f += int64(a.Count)
	}
	return uint8(f)
}
