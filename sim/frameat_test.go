package sim

import (
	"math/rand/v2"
	"testing"

	"rtype/net/wire"
)

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
