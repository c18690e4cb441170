package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"rtype/net/wire"
)

// TestPosAtIsAt: posAt gives wire.Motion.At's position bit for bit, for
// every model, at whole and fractional ticks before and after the base
// tick, zero and extreme parameters included.
func TestPosAtIsAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edge := []int16{0, 1, -1, 7, -8, math.MaxInt16, math.MinInt16}
	pick := func() int16 {
		if rng.IntN(4) == 0 {
			return edge[rng.IntN(len(edge))]
		}
		return int16(rng.Uint32())
	}
	for i := range 200000 {
		m := wire.Motion{Model: wire.Model(rng.IntN(4)), T0: rng.Uint32N(1 << 20),
			X0: pick(), Y0: pick(), VX: pick(), VY: pick(),
			Amp: uint16(pick()), Period: uint16(pick()), Phase: uint16(pick())}
		tick := float64(m.T0) + float64(rng.IntN(20000)-1000)
		if i%3 == 0 {
			tick += rng.Float64()
		}
		x, y := posAt(&m, tick)
		ax, ay, _, _ := m.At(tick)
		if math.Float64bits(x) != math.Float64bits(ax) || math.Float64bits(y) != math.Float64bits(ay) {
			t.Fatalf("posAt(%+v, %v) = %v, %v; At gives %v, %v", m, tick, x, y, ax, ay)
		}
	}
}

// TestFrameAtIsFrame: frameAt gives wire.Anim.Frame's frame at every whole
// tick, before and after t0.
func TestFrameAtIsFrame(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		a := wire.Anim{Frame0: uint8(rng.Uint32()), Ticks: uint8(rng.IntN(5)), Count: uint8(rng.IntN(6))}
		if rng.IntN(8) == 0 {
			a.Ticks, a.Count = uint8(rng.Uint32()), uint8(rng.Uint32())
		}
		t0 := rng.Uint32()
		tick := t0 + uint32(rng.IntN(100000)) - 1000
		if rng.IntN(8) == 0 {
			tick = rng.Uint32()
		}
		if got, want := frameAt(a, t0, tick), a.Frame(t0, float64(tick)); got != want {
			t.Fatalf("frameAt(%+v, %d, %d) = %d, Frame gives %d", a, t0, tick, got, want)
		}
	}
}
