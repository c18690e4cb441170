package view

import (
	"testing"
	"time"

	"rtype/render/model"
)

// TestShake: the screen shakes when the own ship blows up and when a boss
// does, fading out; not otherwise; ShakeAt moves it by at most the
// amplitude, and not at all for none.
func TestShake(t *testing.T) {
	clk := &clock{now: t0}
	g := newGame(t, clk, nil, 20*time.Millisecond, 0, 1)
	v := newView(g, clk)
	var f Frame
	at := func(s float64) float64 { return v.Frame(&f, t0.Add(time.Duration(s*float64(time.Second)))).Shake }
	if at(1) != 0 {
		t.Fatalf("shake %v with nothing blowing up", f.Shake)
	}
	v.hitAt = 2
	if s0, s1, s2 := at(2), at(2.2), at(2+hitFlash+0.01); s0 != shakeHit || s1 <= 0 || s1 >= s0 || s2 != 0 {
		t.Errorf("own ship: shake %v, then %v, then %v", s0, s1, s2)
	}
	v.fx.Add(model.Effect{Kind: model.FxBossExplosion, Start: 5})
	dur := model.FxBossExplosion.Duration()
	if s0, s1, s2 := at(5), at(5+dur/4), at(5+dur/2+0.01); s0 != shakeBoss || s1 <= 0 || s1 >= s0 || s2 != 0 {
		t.Errorf("boss: shake %v, then %v, then %v", s0, s1, s2)
	}
	for s := 0.0; s < 2; s += 0.01 {
		dx, dy := ShakeAt(shakeBoss, s)
		if max(dx, -dx) > shakeBoss || max(dy, -dy) > shakeBoss {
			t.Fatalf("ShakeAt(%v, %v) = %v, %v", shakeBoss, s, dx, dy)
		}
	}
	if dx, dy := ShakeAt(0, 1.234); dx != 0 || dy != 0 {
		t.Errorf("no shake moved the screen by %v, %v", dx, dy)
	}
}
