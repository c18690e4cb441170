package render

import (
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/net/wire"
	"rtype/render/model"
	"rtype/sim"
)

// withStyle runs f with s in use, then the normal style again.
func withStyle(t *testing.T, s Style, f func()) {
	t.Helper()
	SetStyle(s)
	defer SetStyle(Style{})
	f()
}

// TestSpriteScaleDrawsLarger: with SpriteScale 1.25 the sprites of ships,
// foes and shots cover about 1.25 times their width and height, bosses do
// not grow, and the simulation's hitboxes (the seed's sizes) stay what
// they were.
func TestSpriteScaleDrawsLarger(t *testing.T) {
	a, _ := LoadAtlas()
	img := ebiten.NewImage(300, 300)
	defer img.Deallocate()
	size := func(k uint8) (w, h int) {
		img.Clear()
		a.DrawWorld(img, []Sprite{{Kind: k, X: 150, Y: 150}}, 0)
		b := read(img).bounds(opaque)
		return b.Dx(), b.Dy()
	}
	rules := sim.DefaultRules()
	for _, k := range []uint8{wire.KindPlayerShip, wire.KindBydosSlave, wire.KindPlayerMissile, wire.KindEnemyMissile, wire.KindChaser, wire.KindPowerUp} {
		w1, h1 := size(k)
		var w2, h2 int
		withStyle(t, Style{SpriteScale: 1.25}, func() { w2, h2 = size(k) })
		if w1 == 0 || h1 == 0 {
			t.Fatalf("kind %d: nothing drawn", k)
		}
		rw, rh := float64(w2)/float64(w1), float64(h2)/float64(h1)
		small := w1 < 10 || h1 < 10 // a pixel more or less is a large ratio
		if w2 <= w1 || (!small && (rw < 1.12 || rw > 1.4 || rh < 1.12 || rh > 1.45)) {
			t.Errorf("kind %d: %dx%d drawn %dx%d at ×1.25 (×%.2f, ×%.2f)", k, w1, h1, w2, h2, rw, rh)
		}
	}
	w1, h1 := size(wire.KindMidBoss)
	var w2, h2 int
	withStyle(t, Style{SpriteScale: 1.25}, func() { w2, h2 = size(wire.KindMidBoss) })
	if w1 != w2 || h1 != h2 {
		t.Errorf("the mid-boss grew from %dx%d to %dx%d", w1, h1, w2, h2)
	}
	// The hitboxes are the simulation's: drawing changes none of them.
	if after := sim.DefaultRules(); after != rules {
		t.Errorf("the rules changed while drawing:\n%+v\n%+v", rules, after)
	}
	if rules.ShipW != 33 || rules.ShipH != 17 {
		t.Errorf("the ship's hitbox is %gx%g, want the seed's 33x17", rules.ShipW, rules.ShipH)
	}
}

// TestPaletteColoursShipsAndShots: a palette recolours the ships' accents
// and draws the shots in its own variants.
func TestPaletteColoursShipsAndShots(t *testing.T) {
	a, _ := LoadAtlas()
	img := ebiten.NewImage(100, 100)
	defer img.Deallocate()
	shot := func(k uint8) pixels {
		img.Clear()
		a.DrawWorld(img, []Sprite{{Kind: k, X: 50, Y: 50}}, 0)
		return read(img)
	}
	normal := shot(wire.KindPlayerMissile)
	for p := model.PaletteDeuteranopia; p < model.NumPalettes; p++ {
		withStyle(t, Style{Palette: p}, func() {
			if PlayerColors != model.Palettes[p].Players || ColAccent != model.Palettes[p].Accent {
				t.Fatalf("%s: the colours are not the palette's", p)
			}
			for pl := uint8(0); pl < 4; pl++ {
				img.Fill(ColBackground)
				a.DrawWorld(img, []Sprite{{Kind: wire.KindPlayerShip, Owner: pl, X: 50, Y: 50}}, 0)
				if n := read(img).count(30, 35, 70, 65, near(model.Palettes[p].Players[pl], 70)); n < 10 {
					t.Errorf("%s: ship of player %d has %d pixels of its colour", p, pl, n)
				}
			}
			if got := shot(wire.KindPlayerMissile); string(got.pix) == string(normal.pix) {
				t.Errorf("%s: the player's bolt is drawn as in the normal palette", p)
			}
		})
	}
	if PlayerColors != model.Palettes[0].Players {
		t.Error("the normal palette is not back")
	}
}

// TestNoFlashes: without flashes the boss explosion has no white flash,
// the ship explosion no coloured flash, and the muzzle flash is dim.
func TestNoFlashes(t *testing.T) {
	a, _ := LoadAtlas()
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	lit := func(e model.Effect, now float64) int {
		img.Clear()
		a.DrawEffects(img, []model.Effect{e}, now)
		n := 0
		p := read(img)
		for i := 3; i < len(p.pix); i += 4 {
			n += int(p.pix[i]) // the light drawn: the sum of the opacities
		}
		return n
	}
	for _, e := range []model.Effect{
		{Kind: model.FxBossExplosion, X: 640, Y: 360},
		{Kind: model.FxShipExplosion, X: 640, Y: 360, Owner: 0},
		{Kind: model.FxMuzzle, X: 640, Y: 360},
	} {
		on := lit(e, 0.01)
		var off int
		withStyle(t, Style{NoFlashes: true}, func() { off = lit(e, 0.01) })
		if on == 0 || off*10 > on*8 {
			t.Errorf("effect %d: %d of light with flashes, %d without", e.Kind, on, off)
		}
	}
}

// TestHUDTextsCached: once drawn, the HUD's texts (scores, names cut to
// their panel) are not made again while they do not change, and a new
// score makes one string only when it changes.
func TestHUDTextsCached(t *testing.T) {
	a, _ := LoadAtlas()
	f, err := LoadFonts()
	if err != nil {
		t.Fatal(err)
	}
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	players := hudPlayers()
	a.DrawHUD(img, f, players)
	ht := &a.hud[1]
	if ht.fit == players[1].Name || ht.fit == "" {
		t.Fatalf("the long name was not cut: %q", ht.fit)
	}
	if n := testing.AllocsPerRun(100, func() {
		for p := range players {
			a.hud[p].fitName(players[p].Name, f.Small, a.hud[p].room)
		}
		a.scoreWidth(f.MonoBig)
	}); n != 0 {
		t.Errorf("the HUD's texts: %v allocations per frame, want 0", n)
	}
	// At 150 % the panels grow and the name is cut again.
	f.SetScale(1.5)
	a.DrawHUD(img, f, players)
	if ht.size != f.Small.Size || f.Small.Size != 19*1.5 {
		t.Errorf("the cached name is for size %v, the face is %v", ht.size, f.Small.Size)
	}
	b := read(img).bounds(opaque)
	if b.Max.Y < HUDTop+int(HUDPanelHeight(1.5))-2 {
		t.Errorf("the panels end at y=%d at 150%%, want %v", b.Max.Y, HUDTop+HUDPanelHeight(1.5))
	}
}
