package vocab

import (
	"math"
	"math/rand/v2"
	"testing"
)

// at7_5 is PROTOCOL.md 7.5's motion as the section writes it, every term
// computed (a zero velocity's too), every product rounded before it is
// added: the reference At and Pos must match bit for bit.
func at7_5(m *Motion, tick float64) (x, y, vx, vy float64) {
	dt := tick - float64(m.T0)
	x = float64(m.X0) / PosScale
	y = float64(m.Y0) / PosScale
	if m.Model != ModelLinear && m.Model != ModelSine {
		return x, y, 0, 0
	}
	vx = float64(m.VX) / VelScale
	vy = float64(m.VY) / VelScale
	x += float64(vx*dt) / TickRate
	y += float64(vy*dt) / TickRate
	if m.Model == ModelSine && m.Period != 0 {
		a := float64(m.Amp) / AmpScale
		th := 2 * math.Pi * (float64(m.Phase)/PhaseScale + dt/float64(m.Period))
		y += float64(a * math.Sin(th))
		vy += float64(float64(a*(2*math.Pi*TickRate/float64(m.Period))) * math.Cos(th))
	}
	return x, y, vx, vy
}

// TestPosAndAtAre7_5: At and Pos give 7.5's position (and At its
// velocity) bit for bit, for every model, at whole and fractional ticks
// before and after the base tick, zero and extreme parameters included,
// and NaN and infinite ticks (where a zero velocity's term is NaN).
func TestPosAndAtAre7_5(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edge := []int16{0, 1, -1, 7, -8, math.MaxInt16, math.MinInt16}
	pick := func() int16 {
		if rng.IntN(4) == 0 {
			return edge[rng.IntN(len(edge))]
		}
		return int16(rng.Uint32())
	}
	odd := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, 0}
	// The same bits; a NaN is any NaN (Go specifies no NaN's payload: the
	// compiler may swap the operands of an addition of two NaNs).
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b }
	for i := range 300000 {
		m := Motion{Model: Model(rng.IntN(4)), T0: rng.Uint32N(1 << 20),
			X0: pick(), Y0: pick(), VX: pick(), VY: pick(),
			Amp: uint16(pick()), Period: uint16(pick()), Phase: uint16(pick())}
		tick := float64(m.T0) + float64(rng.IntN(20000)-1000)
		switch {
		case i%3 == 0:
			tick += rng.Float64()
		case i%97 == 1:
			tick = odd[rng.IntN(len(odd))]
		}
		wx, wy, wvx, wvy := at7_5(&m, tick)
		x, y, vx, vy := m.At(tick)
		px, py := m.Pos(tick)
		if !same(x, wx) || !same(y, wy) || !same(vx, wvx) || !same(vy, wvy) {
			t.Fatalf("%+v.At(%v) = %v, %v, %v, %v; 7.5 gives %v, %v, %v, %v", m, tick, x, y, vx, vy, wx, wy, wvx, wvy)
		}
		if !same(px, wx) || !same(py, wy) {
			t.Fatalf("%+v.Pos(%v) = %v, %v; 7.5 gives %v, %v", m, tick, px, py, wx, wy)
		}
	}
}

// BenchmarkMotionPos: Pos as the simulation calls it, at whole ticks,
// over a busy game's motions (Bydos on Sines, missiles on Linears).
func BenchmarkMotionPos(b *testing.B) {
	ms := make([]Motion, 0, 40)
	for i := range 20 {
		ms = append(ms, Sine(uint32(600+i), 1300, 100+float64(i)*5, -120-float64(i), 40, 120, float64(i)),
			Linear(uint32(600+i), 100, 200, 900, float64(i*10-100)))
	}
	var sink float64
	b.ReportAllocs()
	tick := 700
	for b.Loop() {
		for i := range ms {
			x, y := ms[i].Pos(float64(tick))
			sink += x + y
		}
		tick++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ms)), "ns/motion")
	_ = sink
}

// TestSincosIsMath: motion_sin.go's sincos gives math.Sin's and math.Cos's
// bits: for the angles of Sines at whole and fractional ticks, for any
// bits (NaN, infinities, zeros, subnormals, huge), and around the
// octants' edges.
func TestSincosIsMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b }
	check := func(x float64) {
		s, c := sincos(x)
		if ws, wc := math.Sin(x), math.Cos(x); !same(s, ws) || !same(c, wc) {
			t.Fatalf("sincos(%v) = %v, %v; math gives %v, %v", x, s, c, ws, wc)
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, 1 << 29, -(1 << 29),
		math.Nextafter(1<<29, 0), math.Pi, -math.Pi, math.Pi / 2, 2 * math.Pi} {
		check(x)
	}
	for k := -64; k <= 64; k++ { // the octants' edges
		e := float64(k) * math.Pi / 4
		check(e)
		check(math.Nextafter(e, math.Inf(1)))
		check(math.Nextafter(e, math.Inf(-1)))
	}
	for i := range 3000000 {
		var x float64
		switch i % 4 {
		case 0: // a Sine's angle (Motion.at)
			dt := float64(rng.IntN(1<<20) - 1000)
			if i%8 == 0 {
				dt += rng.Float64()
			}
			x = 2 * math.Pi * (float64(uint16(rng.Uint32()))/PhaseScale + dt/float64(1+rng.IntN(math.MaxUint16)))
		case 1:
			x = math.Float64frombits(rng.Uint64())
		case 2:
			x = (rng.Float64()*2 - 1) * (1 << 30)
		case 3:
			x = (rng.Float64()*2 - 1) * 20
		}
		check(x)
	}
}
