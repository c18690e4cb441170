package model

import (
	"math"
	"reflect"
	"testing"
)

func TestEffectTiming(t *testing.T) {
	var fx Effects
	fx.Add(Effect{Kind: FxExplosion, Start: 10})
	fx.Add(Effect{Kind: FxShipExplosion, Start: 10})
	fx.Add(Effect{Kind: FxMuzzle, Start: 10.2})
	e := fx.List[0]
	if e.Active(9.99) || !e.Active(10) || !e.Active(10.49) || e.Active(10.5) {
		t.Errorf("explosion must show for 0.5 s from its start")
	}
	if e.Frame(10, 8) != 0 || e.Frame(10.25, 8) != 4 || e.Frame(10.499, 8) != 7 || e.Frame(11, 8) != 7 || e.Frame(9, 8) != 0 {
		t.Errorf("explosion frames wrong")
	}
	if d := FxShipExplosion.Duration(); d <= FxExplosion.Duration() {
		t.Errorf("ship explosion (%v s) must last longer than an explosion", d)
	}
	fx.Update(10.25) // the muzzle flash has not started: kept
	if len(fx.List) != 3 {
		t.Fatalf("%d effects at 10.25", len(fx.List))
	}
	fx.Update(10.5)
	if len(fx.List) != 1 || fx.List[0].Kind != FxShipExplosion {
		t.Fatalf("at 10.5: %+v", fx.List)
	}
	fx.Update(10.8)
	if len(fx.List) != 0 {
		t.Fatalf("at 10.8: %+v", fx.List)
	}
	for range MaxEffects + 10 {
		fx.Add(Effect{Kind: FxMuzzle})
	}
	if len(fx.List) != MaxEffects {
		t.Fatalf("effects not bounded: %d", len(fx.List))
	}
}

func TestNoticeFade(t *testing.T) {
	var ns Notices
	ns.Add(Notice{Text: "Ripley joined", Start: 1})
	n := ns.List[0]
	if n.Alpha(1.5) != 1 || n.Alpha(3) != 1 {
		t.Errorf("a notice is fully visible at first")
	}
	if a := n.Alpha(3.8); a <= 0 || a >= 1 {
		t.Errorf("fading at 2.8 s: alpha %v", a)
	}
	if n.Alpha(4) != 0 {
		t.Errorf("gone after 3 s")
	}
	ns.Update(3.9)
	if len(ns.List) != 1 {
		t.Errorf("removed too early")
	}
	ns.Update(4)
	if len(ns.List) != 0 {
		t.Errorf("not removed after 3 s")
	}
	for i := range MaxNotices + 3 {
		ns.Add(Notice{Text: string(rune('a' + i))})
	}
	if len(ns.List) != MaxNotices || ns.List[0].Text != "d" {
		t.Errorf("notices not bounded: %+v", ns.List)
	}
}

func TestStarfieldDeterministicAndScrolling(t *testing.T) {
	a, b := Starfield(1280, 720), Starfield(1280, 720)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the starfield differs between two runs")
	}
	for i := 1; i < 3; i++ {
		if a[i].Speed <= a[i-1].Speed {
			t.Errorf("layer %d is not faster than layer %d", i, i-1)
		}
	}
	l := &a[2]
	s := &l.Stars[0]
	x0, y0 := l.Pos(s, 0, 1280)
	x1, y1 := l.Pos(s, 0.1, 1280)
	if y0 != y1 {
		t.Errorf("stars move vertically")
	}
	if d := x0 - x1; math.Abs(d-l.Speed*0.1) > 1e-9 && x1 < x0 {
		t.Errorf("moved %v px in 0.1 s, want %v", d, l.Speed*0.1)
	}
	for _, tt := range []float64{0, 1, 100, 12345.6} {
		for i := range l.Stars {
			x, _ := l.Pos(&l.Stars[i], tt, 1280)
			if x < -8 || x >= 1288 {
				t.Fatalf("star at x=%v out of the wrapped span", x)
			}
		}
	}
}

func TestHUDSlotAt(t *testing.T) {
	if HUDSlotAt(HUDSlotX(2)+5, HUDTop+10, 0) != 2 {
		t.Error("point in panel 2")
	}
	if HUDSlotAt(640, 400, 16) != -1 {
		t.Error("point in the middle of the screen")
	}
	// Under a panel 90 px high (150 %), not under one of 60.
	if y := float64(HUDTop + 80); HUDSlotAt(HUDSlotX(1)+5, y, 0) != -1 || HUDSlotAtHeight(HUDSlotX(1)+5, y, 0, 90) != 1 {
		t.Error("the panel's height is not taken")
	}
}
