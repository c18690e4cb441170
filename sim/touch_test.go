package sim

import (
	"math/rand/v2"
	"testing"

	"rtype/net/wire"
)

// TestTouchIsSweep: Touch gives the world's sweep's answers, to the bit,
// on boxes that graze, touch and miss.
func TestTouchIsSweep(t *testing.T) {
	r := DefaultRules()
	w := New(r, 1)
	rng := rand.New(rand.NewPCG(28, 5))
	a := entity{alive: true, kind: wire.KindPlayerShip}
	b := entity{alive: true, kind: wire.KindPlayerMissile}
	ha, hb := w.halfOf(&a), w.halfOf(&b)
	hits := 0
	for i := 0; i < 100000; i++ {
		// Around one point, moving up to 10 px, on the 1/8 px grid or not.
		p := func() float64 {
			v := 300 + rng.Float64()*40
			if rng.IntN(2) == 0 {
				v = float64(int(v*8)) / 8
			}
			return v
		}
		a.px, a.py, b.px, b.py = p(), p(), p(), p()
		a.x, a.y = a.px+rng.Float64()*20-10, a.py+rng.Float64()*20-10
		b.x, b.y = b.px+rng.Float64()*20-10, b.py+rng.Float64()*20-10
		wt, wok := w.sweep(&a, &b)
		tt, tok := Touch(a.px, a.py, a.x, a.y, ha.w, ha.h, b.px, b.py, b.x, b.y, hb.w, hb.h)
		if wt != tt || wok != tok {
			t.Fatalf("case %d: sweep %v %v, Touch %v %v", i, wt, wok, tt, tok)
		}
		if wok {
			hits++
		}
	}
	if hits < 1000 || hits > 99000 {
		t.Fatalf("%d contacts of 100000: the cases do not graze", hits)
	}
}
