package render

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/net/wire"
	"rtype/render/model"
	"rtype/vocab"
)

// opaque reports a pixel something was drawn on (of a cleared image).
func opaque(c color.RGBA) bool { return c.A > 0x40 }

// bounds returns the rectangle of the pixels satisfying f.
func (p pixels) bounds(f func(c color.RGBA) bool) image.Rectangle {
	r := image.Rectangle{}
	for y := 0; y < p.h; y++ {
		for x := 0; x < p.w; x++ {
			if f(p.at(x, y)) {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

// TestStageKindsDraw draws each Stage kind alone at the centre of an
// image: something shows, around its position only; unknown kinds show
// nothing.
func TestStageKindsDraw(t *testing.T) {
	a, err := LoadAtlas()
	if err != nil {
		t.Fatal(err)
	}
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	cases := []struct {
		kind, frame uint8
		y           float64
		min         int // lit pixels at least
		reach       int // how far from the centre it may draw
	}{
		{wire.KindForce, 0, 360, 500, 30},
		{wire.KindWaveBeam, 1, 360, 500, 75},
		{wire.KindWaveBeam, 2, 360, 1200, 75},
		{wire.KindWaveBeam, 3, 360, 2500, 75},
		{wire.KindForceShot, wire.LaserRed, 360, 60, 20},
		{wire.KindForceShot, wire.LaserBlue, 360, 40, 20},
		{wire.KindForceShot, wire.LaserYellow, 360, 60, 20},
		{wire.KindBit, 0, 360, 150, 20},
		{wire.KindPowerUp, wire.ItemLaserRed, 360, 250, 30},
		{wire.KindPowerUp, wire.ItemLaserBlue, 360, 250, 30},
		{wire.KindPowerUp, wire.ItemLaserYellow, 360, 250, 30},
		{wire.KindPowerUp, wire.ItemSpeed, 360, 250, 30},
		{wire.KindPowerUp, wire.ItemBit, 360, 250, 30},
		{wire.KindPowArmor, 0, 360, 700, 30},
		{wire.KindChaser, 0, 360, 400, 20},
		{wire.KindTurret, 2, 600, 400, 20}, // on the floor
		{wire.KindTurret, 6, 100, 400, 20}, // on the ceiling, upside down
		{wire.KindArmored, 0, 360, 1000, 30},
		{wire.KindMidBoss, 0, 360, 14000, 90},
		{wire.KindMidBoss, BossAngry, 360, 14000, 90},
		{wire.KindMidBoss, BossTell, 360, 14000, 90},
		{wire.KindBoss, BossCalm, 360, 25000, 150},
		{wire.KindBoss, BossAngry, 360, 25000, 150},
		{wire.KindBoss, BossTell + 5, 360, 25000, 150},
		{wire.KindBoss, 200, 360, 25000, 150}, // an unknown tell
		{wire.KindBossCore, 0, 360, 1200, 75},
		{wire.KindBossCore, 1, 360, 1200, 75},
		{wire.KindChaser, 2, 360, 400, 20},
		{wire.KindBossBullet, 0, 360, 250, 25},
		{vocab.KindHatch, 0, 700, 500, 25},
		{vocab.KindHatch, 2, 700, 500, 25},
		{vocab.KindHatch, 1 + 4, 20, 500, 25}, // opening, on the ceiling
		{vocab.KindCrawler, 0, 700, 400, 25},
		{vocab.KindCrawler, 1, 20, 400, 25},
		{vocab.KindPlate, 0, 360, 1200, 35},
		{vocab.KindPlate, 1, 360, 1200, 35},
		{vocab.KindBossCore, 2, 360, 800, 30}, // the warship's, shut
		{vocab.KindWarship, BossCalm, 360, 50000, 190},
		{vocab.KindWarship, BossTell + 6, 360, 50000, 190}, // Broadside
	}
	for _, c := range cases {
		img.Clear()
		a.DrawWorld(img, []Sprite{{ID: 7, Kind: c.kind, Frame: c.frame, Owner: 1, X: 640, Y: c.y}}, 0.5)
		p := read(img)
		n := p.count(0, 0, Width, Height, opaque)
		if n < c.min {
			t.Errorf("kind %d frame %d: %d pixels drawn, want %d or more", c.kind, c.frame, n, c.min)
		}
		b := p.bounds(opaque)
		y := int(c.y)
		if !b.In(image.Rect(640-c.reach, y-c.reach, 640+c.reach, y+c.reach)) {
			t.Errorf("kind %d frame %d: drawn over %v, beyond %d px of its centre", c.kind, c.frame, b, c.reach)
		}
	}
	// A turret's base is on the floor below it, or on the ceiling above.
	for _, c := range []struct {
		y    float64
		base int // the side of its base: +1 below, -1 above
	}{{600, 1}, {100, -1}} {
		img.Clear()
		a.DrawWorld(img, []Sprite{{Kind: wire.KindTurret, Frame: 4, X: 640, Y: c.y}}, 0)
		p := read(img)
		y := int(c.y)
		below := p.count(620, y+6, 660, y+16, opaque)
		above := p.count(620, y-16, 660, y-6, opaque)
		if (below-above)*c.base <= 0 {
			t.Errorf("turret at y %v: %d pixels above, %d below: base on the wrong side", c.y, above, below)
		}
	}
	// Unknown kinds are not drawn.
	img.Clear()
	a.DrawWorld(img, []Sprite{{Kind: vocab.KindStageLast + 1, X: 200, Y: 200}, {Kind: 200, X: 200, Y: 200}, {Kind: wire.KindPowerUp, Frame: 9, X: 200, Y: 200}}, 0)
	if n := read(img).count(0, 0, Width, Height, opaque); n != 0 {
		t.Errorf("unknown kinds drew %d pixels", n)
	}
}

// TestBossesTall: the bosses are at least 160 px tall on the screen, the
// end boss about its 200 x 240 box.
func TestBossesTall(t *testing.T) {
	a, _ := LoadAtlas()
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	for _, c := range []struct {
		kind   uint8
		minH   int
		minW   int
		name   string
		wantCr bool
	}{
		{wire.KindBoss, 220, 190, "boss", true},
		{wire.KindMidBoss, 160, 160, "mid-boss", false},
	} {
		img.Clear()
		a.DrawWorld(img, []Sprite{{ID: 1, Kind: c.kind, X: 640, Y: 360}}, 0)
		b := read(img).bounds(func(c color.RGBA) bool { return c.A > 0x80 })
		if b.Dy() < c.minH || b.Dx() < c.minW {
			t.Errorf("%s is %dx%d on the screen, want at least %dx%d", c.name, b.Dx(), b.Dy(), c.minW, c.minH)
		}
		t.Logf("%s: %dx%d px", c.name, b.Dx(), b.Dy())
	}
	// The core glows: bright warm pixels around it.
	img.Clear()
	a.DrawWorld(img, []Sprite{{ID: 2, Kind: wire.KindBossCore, X: 640, Y: 360}}, 0)
	if n := read(img).count(620, 340, 660, 380, func(c color.RGBA) bool { return c.R > 200 && c.G > 100 }); n < 300 {
		t.Errorf("boss core: %d bright pixels", n)
	}
}

// TestForceTintedByOwner: the Force's ring shows its player's colour.
func TestForceTintedByOwner(t *testing.T) {
	a, _ := LoadAtlas()
	img := ebiten.NewImage(100, 100)
	defer img.Deallocate()
	for p := uint8(0); p < 4; p++ {
		img.Fill(ColBackground)
		a.DrawWorld(img, []Sprite{{Kind: wire.KindForce, Owner: p, X: 50, Y: 50}}, 0)
		if n := read(img).count(30, 30, 70, 70, near(PlayerColors[p], 60)); n < 15 {
			t.Errorf("Force of player %d: %d pixels of its colour", p, n)
		}
	}
}

// stageHUD is a full Stage HUD for the tests.
func stageHUD() model.StageHUD {
	return model.StageHUD{
		Active:      true,
		Charge:      0.5,
		ChargeMarks: []float64{0.25, 0.625, 1},
		ChargeLevel: 1,
		Arms:        model.Arms{Force: 2, Laser: wire.LaserBlue, Speed: 1, Bits: 2, ForceAt: wire.ForceFront},
		BossShown:   true,
		BossName:    "DOBKERA-X",
		BossHP:      300,
		BossMax:     1000,
		Results: model.Results{Loop: 1, Total: 4200, Lines: [4]model.ResultLine{
			{Present: true, Name: "Ripley", Score: 3000, Lives: 2},
			{},
			{Present: true, Name: "Hicks", Score: 1200, Lives: 1},
		}},
	}
}

// TestChargeMeterFraction: the meter's fill is its charge.
func TestChargeMeterFraction(t *testing.T) {
	a, _ := LoadAtlas()
	f, _ := LoadFonts()
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	for _, c := range []struct {
		charge float64
		level  int
	}{{0, 0}, {0.2, 0}, {0.5, 1}, {0.8, 2}, {1, 3}} {
		s := model.StageHUD{Active: true, Charge: c.charge, ChargeLevel: c.level, ChargeMarks: []float64{0.25, 0.625, 1}}
		img.Fill(black)
		a.DrawStageHUD(img, f, &s, 0.1)
		p := read(img)
		// One row in the middle of the bar, between the marks' ticks.
		y := int(ChargeY + ChargeH/2)
		filled := p.count(int(ChargeX), y, int(ChargeX+ChargeW), y+1, func(k color.RGBA) bool {
			return near(ChargeColors[c.level], 70)(k) && luma(k) > 90
		})
		want := int(c.charge * ChargeW)
		// The level marks (2 px each) cover the fill where they cross it.
		if d := filled - want; d > 3 || d < -7 {
			t.Errorf("charge %v: %d px filled, want about %d", c.charge, filled, want)
		}
	}
}

// TestBossBarFraction: the boss bar's fill is its health; no boss, no bar.
func TestBossBarFraction(t *testing.T) {
	a, _ := LoadAtlas()
	f, _ := LoadFonts()
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	red := func(k color.RGBA) bool { return k.R > 200 && k.G < 120 && k.B < 90 }
	for _, hp := range []int{1000, 700, 300, 0} {
		s := model.StageHUD{Active: true, BossShown: true, BossName: "BOSS", BossHP: hp, BossMax: 1000}
		img.Fill(black)
		a.DrawStageHUD(img, f, &s, 0)
		p := read(img)
		y := int(BossBarY + BossBarH - 3)
		got := p.count(int(BossBarX), y, int(BossBarX+BossBarW), y+1, red)
		want := hp * int(BossBarW) / 1000
		if d := got - want; d > 3 || d < -6 { // the quarter marks
			t.Errorf("boss hp %d/1000: %d px of bar, want about %d", hp, got, want)
		}
		// The name shows above the bar.
		if n := p.count(int(BossBarX), int(BossBarY)-26, int(BossBarX)+100, int(BossBarY)-4, func(k color.RGBA) bool { return luma(k) > 90 }); n < 40 {
			t.Errorf("boss name: %d text pixels", n)
		}
	}
	s := model.StageHUD{Active: true}
	img.Fill(black)
	a.DrawStageHUD(img, f, &s, 0)
	if n := read(img).count(int(BossBarX), int(BossBarY), int(BossBarX+BossBarW), int(BossBarY+BossBarH), red); n != 0 {
		t.Errorf("no boss, yet %d px of boss bar", n)
	}
}

// TestBannerWarningResults: the banner, the red edges and the results
// draw, and nothing does when off.
func TestBannerWarningResults(t *testing.T) {
	a, _ := LoadAtlas()
	f, _ := LoadFonts()
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	lit := func(k color.RGBA) bool { return luma(k) > 150 }
	draw := func(s model.StageHUD) pixels {
		img.Fill(black)
		a.DrawStageHUD(img, f, &s, 0)
		return read(img)
	}

	off := draw(model.StageHUD{Active: true, Banner: "STAGE 1", BannerAlpha: 0})
	on := draw(model.StageHUD{Active: true, Banner: "STAGE 1", BannerSub: "THE BYDO FRONT", BannerAlpha: 1})
	cy := Height/2 - 40
	if n, m := off.count(300, cy-70, 980, cy+100, lit), on.count(300, cy-70, 980, cy+100, lit); n != 0 || m < 2000 {
		t.Errorf("banner: %d lit pixels off, %d on", n, m)
	}
	warn := draw(model.StageHUD{Active: true, Banner: "WARNING", BannerAlpha: 1, Warning: 1})
	if n := warn.count(300, cy-70, 980, cy+100, func(k color.RGBA) bool { return k.R > 200 && k.G < 140 }); n < 1500 {
		t.Errorf("WARNING banner: %d red pixels", n)
	}
	edgeRed := func(k color.RGBA) bool { return k.R > 80 && k.G < 40 }
	if n := warn.count(0, 200, 6, 500, edgeRed); n < 6*300*9/10 {
		t.Errorf("warning edge: %d red pixels on the left edge", n)
	}
	if n := warn.count(600, 340, 680, 380, edgeRed); n != 0 {
		t.Errorf("warning: %d red pixels in the middle", n)
	}
	if n := on.count(0, 200, 6, 500, edgeRed); n != 0 {
		t.Errorf("no warning, yet %d red edge pixels", n)
	}

	s := stageHUD()
	s.ResultsShown = true
	s.Banner, s.BannerAlpha = "STAGE CLEAR", 1
	res := draw(s)
	x0 := int((Width - ResultsW) / 2)
	panel := image.Rect(x0, ResultsY, x0+int(ResultsW), Height-60)
	for p, l := range s.Results.Lines {
		n := res.count(panel.Min.X, panel.Min.Y, panel.Max.X, panel.Max.Y, near(PlayerColors[p], 30))
		if l.Present && n < 100 {
			t.Errorf("results: player %d's colour on %d pixels", p, n)
		}
		if !l.Present && n > 10 {
			t.Errorf("results: absent player %d's colour on %d pixels", p, n)
		}
	}
	if n := res.count(panel.Min.X, panel.Min.Y, panel.Max.X, panel.Max.Y, near(ColGold, 30)); n < 200 {
		t.Errorf("results: title and total in gold on %d pixels", n)
	}
	if os.Getenv("RTYPE_STAGE_SHOT") != "" {
		shot(t, a, f)
	}
}

// shot writes a screenshot of a Stage frame to $RTYPE_STAGE_SHOT, to look
// at the art.
func shot(t *testing.T, a *Atlas, f *Fonts) {
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	img.Fill(ColBackground)
	NewStarfield().Draw(img, a, 3)
	sprites := []Sprite{
		{ID: 1, Kind: wire.KindBoss, X: 1100, Y: 380, Frame: BossTell + 1},
		{ID: 2, Kind: wire.KindBossCore, X: 1100 - 104, Y: 380},
		{ID: 3, Kind: wire.KindMidBoss, X: 760, Y: 560},
		{ID: 4, Kind: wire.KindPlayerShip, Owner: 0, X: 200, Y: 300},
		{ID: 5, Kind: wire.KindForce, Owner: 0, X: 232, Y: 300},
		{ID: 6, Kind: wire.KindBit, Owner: 0, X: 196, Y: 270},
		{ID: 7, Kind: wire.KindBit, Owner: 0, X: 196, Y: 330},
		{ID: 8, Kind: wire.KindWaveBeam, Frame: 3, X: 360, Y: 300},
		{ID: 9, Kind: wire.KindForceShot, Frame: 0, X: 300, Y: 290},
		{ID: 10, Kind: wire.KindForceShot, Frame: 1, X: 300, Y: 320},
		{ID: 11, Kind: wire.KindPlayerShip, Owner: 1, X: 200, Y: 450},
		{ID: 12, Kind: wire.KindForce, Owner: 1, X: 170, Y: 450},
		{ID: 13, Kind: wire.KindWaveBeam, Frame: 1, X: 300, Y: 450},
		{ID: 14, Kind: wire.KindWaveBeam, Frame: 2, X: 420, Y: 500},
		{ID: 15, Kind: wire.KindForceShot, Frame: 2, X: 280, Y: 470},
		{ID: 16, Kind: wire.KindPowArmor, X: 520, Y: 200},
		{ID: 17, Kind: wire.KindChaser, X: 600, Y: 260},
		{ID: 18, Kind: wire.KindTurret, Frame: 3, X: 500, Y: 700},
		{ID: 19, Kind: wire.KindTurret, Frame: 5, X: 560, Y: 110},
		{ID: 20, Kind: wire.KindArmored, X: 640, Y: 380},
		{ID: 21, Kind: wire.KindBossBullet, X: 900, Y: 300},
		{ID: 22, Kind: wire.KindBossBullet, X: 860, Y: 340},
		{ID: 23, Kind: wire.KindEnemyMissile, X: 700, Y: 320},
		{ID: 24, Kind: wire.KindBydosSlave, X: 520, Y: 300},
	}
	for i := range 5 {
		sprites = append(sprites, Sprite{ID: uint32(30 + i), Kind: wire.KindPowerUp, Frame: uint8(i), X: 380 + float64(i)*40, Y: 620})
	}
	a.DrawWorld(img, sprites, 3)
	var hud [4]HUDPlayer
	hud[0] = HUDPlayer{Present: true, Name: "Ripley", Score: 3000, Lives: 2, HasShip: true, Local: true}
	hud[1] = HUDPlayer{Present: true, Name: "Hicks", Score: 1200, Lives: 1, HasShip: true}
	a.DrawHUD(img, f, hud)
	s := stageHUD()
	s.Warning = 0.6
	s.Banner, s.BannerSub, s.BannerAlpha = "WARNING", "a huge life form approaches", 0.8
	if os.Getenv("RTYPE_STAGE_SHOT_RESULTS") != "" {
		s.Warning, s.ResultsShown, s.BossShown = 0, true, false
		s.Banner, s.BannerSub = "STAGE CLEAR", "the Bydo retreat, for now"
	}
	a.DrawStageHUD(img, f, &s, 3)
	p := read(img)
	out := image.NewNRGBA(image.Rect(0, 0, p.w, p.h))
	copy(out.Pix, p.pix)
	w, err := os.Create(os.Getenv("RTYPE_STAGE_SHOT"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := png.Encode(w, out); err != nil {
		t.Fatal(err)
	}
}

// TestArmsShown: the own arms show right of the charge meter: a pip per
// Force level in its laser's colour, a pip per speed-up, the bits.
func TestArmsShown(t *testing.T) {
	a, _ := LoadAtlas()
	f, _ := LoadFonts()
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	x0, y0 := int(ChargeX+ChargeW), int(ChargeY-12)
	x1, y1 := x0+200, int(ChargeY+ChargeH+12)
	for _, c := range []struct {
		arms model.Arms
	}{
		{model.Arms{}},
		{model.Arms{Force: 1, Laser: wire.LaserRed, ForceAt: wire.ForceFront}},
		{model.Arms{Force: 3, Laser: wire.LaserYellow, Speed: 2, Bits: 1, ForceAt: wire.ForceLoose}},
		{model.Arms{Force: 2, Laser: wire.LaserBlue, Speed: 3, Bits: 2, ForceAt: wire.ForceBack}},
	} {
		img.Fill(black)
		s := model.StageHUD{Active: true, Arms: c.arms}
		a.DrawStageHUD(img, f, &s, 0)
		p := read(img)
		pips := p.count(x0, y0, x1, y1, func(k color.RGBA) bool { return k == LaserColors[min(c.arms.Laser, 2)] })
		if want := int(c.arms.Force) * 7 * 8; pips < want || pips > want+100 {
			t.Errorf("arms %+v: %d px of the laser's colour, want about %d", c.arms, pips, want)
		}
		speed := p.count(x0, y0, x1, y1, func(k color.RGBA) bool { return k == ChargeColors[1] })
		if want := int(c.arms.Speed) * 6 * 10; speed != want {
			t.Errorf("arms %+v: %d px of speed pips, want %d", c.arms, speed, want)
		}
		// Bits: their orange cores, right of the pips.
		bits := p.count(x0+110, y0, x1, y1, func(k color.RGBA) bool { return k.R > 200 && k.G > 100 && k.B < 120 })
		if (c.arms.Bits == 0) != (bits == 0) {
			t.Errorf("arms %+v: %d px of bits", c.arms, bits)
		}
	}
}

// TestBossExplosion: a boss's explosion covers a boss-sized area over its
// time, and is over at its end.
func TestBossExplosion(t *testing.T) {
	a, _ := LoadAtlas()
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	e := model.Effect{Kind: model.FxBossExplosion, X: 640, Y: 360, Start: 10}
	lit := func(now float64) (int, image.Rectangle) {
		img.Clear()
		a.DrawEffects(img, []model.Effect{e}, now)
		p := read(img)
		return p.count(0, 0, Width, Height, opaque), p.bounds(opaque)
	}
	var all image.Rectangle
	for now := 10.0; now < 10+model.FxBossExplosion.Duration(); now += 0.1 {
		n, b := lit(now)
		if n == 0 {
			t.Errorf("nothing drawn at %.1f s", now-10)
		}
		all = all.Union(b)
	}
	if all.Dx() < 180 || all.Dy() < 200 {
		t.Errorf("the explosion covers %v, want a boss-sized area", all)
	}
	if n, _ := lit(10 + model.FxBossExplosion.Duration()); n != 0 {
		t.Errorf("%d pixels after the end", n)
	}
}

// TestBossFramesAndHeadings: a boss glows when angry and more when it
// announces an attack; a chaser looks where it heads.
func TestBossFramesAndHeadings(t *testing.T) {
	a, _ := LoadAtlas()
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	light := func(s Sprite, x0, y0, x1, y1 int, f func(c color.RGBA) int) int {
		img.Clear()
		a.DrawWorld(img, []Sprite{s}, 0.3)
		p := read(img)
		n := 0
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				n += f(p.at(x, y))
			}
		}
		return n
	}
	red := func(c color.RGBA) int { return int(c.R) }
	for _, k := range []uint8{wire.KindBoss, wire.KindMidBoss} {
		calm := light(Sprite{Kind: k, Frame: BossCalm, X: 640, Y: 360}, 500, 220, 780, 500, red)
		angry := light(Sprite{Kind: k, Frame: BossAngry, X: 640, Y: 360}, 500, 220, 780, 500, red)
		tell := light(Sprite{Kind: k, Frame: BossTell, X: 640, Y: 360}, 500, 220, 780, 500, red)
		if !(calm < angry && angry < tell) {
			t.Errorf("kind %d: red light calm %d, angry %d, tell %d: want rising", k, calm, angry, tell)
		}
	}
	// The chaser's eye (its white) is on the side it heads to.
	white := func(c color.RGBA) int {
		if c.R > 220 && c.G > 210 && c.B > 190 {
			return 1
		}
		return 0
	}
	for _, c := range []struct {
		frame uint8
		dir   string
	}{{0, "left"}, {2, "up"}, {4, "right"}, {6, "down"}} {
		s := Sprite{Kind: wire.KindChaser, Frame: c.frame, X: 640, Y: 360}
		l, r := light(s, 624, 352, 639, 368, white), light(s, 641, 352, 656, 368, white)
		u, d := light(s, 632, 344, 648, 359, white), light(s, 632, 361, 648, 376, white)
		ok := map[string]bool{"left": l > r, "right": r > l, "up": u > d, "down": d > u}[c.dir]
		if !ok {
			t.Errorf("chaser frame %d: eye white left %d right %d up %d down %d, want it %s", c.frame, l, r, u, d, c.dir)
		}
	}
}

// TestStageTextsFromElsewhere: names and titles that come from the
// server (a boss's name, a stage's title) stay on their line and in the
// screen, and a negative time does not break the animations.
func TestStageTextsFromElsewhere(t *testing.T) {
	a, _ := LoadAtlas()
	f, _ := LoadFonts()
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	long := strings.Repeat("W", 64)
	s := model.StageHUD{Active: true, BossShown: true, BossName: "Mother\nBydos\u202e" + long, BossMax: 1,
		Banner: long, BannerSub: "line\none" + long, BannerAlpha: 1}
	img.Fill(black)
	a.DrawStageHUD(img, f, &s, -5)
	p := read(img)
	// Nothing drawn in the margins left and right of the banner's text.
	lit := func(c color.RGBA) bool { return luma(c) > 150 }
	if n := p.count(0, int(Height/2-100), 30, int(Height/2+60), lit) + p.count(Width-30, int(Height/2-100), Width, int(Height/2+60), lit); n != 0 {
		t.Errorf("a long banner runs off the screen: %d lit pixels at its edges", n)
	}
	// The boss's name stays on one line over the bar.
	if n := p.count(int(BossBarX), int(BossBarY)+int(BossBarH)+4, int(BossBarX+BossBarW), int(BossBarY)+60, lit); n != 0 {
		t.Errorf("the boss's name spills under its bar: %d lit pixels", n)
	}
	img.Clear()
	a.DrawWorld(img, []Sprite{{Kind: wire.KindChaser, X: 100, Y: 100}, {Kind: wire.KindForce, X: 200, Y: 100}, {Kind: wire.KindBossCore, X: 300, Y: 100}}, -3.7)
}

// TestNoticeClearOfBanner: a notice of the middle (You are out) stays
// where it was without a Stage banner, goes under the banner's band while
// one shows (LOOP 2 over "You are out" was unreadable), and hides behind
// the results.
func TestNoticeClearOfBanner(t *testing.T) {
	const y0 = Height/2 - 60
	if y, show := NoticeY(&model.StageHUD{}, y0); y != y0 || !show {
		t.Errorf("Classic: %v, %v; want %v, true", y, show, float64(y0))
	}
	s := stageHUD()
	s.BannerAlpha, s.Banner = 0, ""
	if y, show := NoticeY(&s, y0); y != y0 || !show {
		t.Errorf("Stage, no banner: %v, %v; want %v, true", y, show, float64(y0))
	}
	s.Banner, s.BannerAlpha = "LOOP 2", 0.5
	y, show := NoticeY(&s, y0)
	bandTop, bandEnd := Height/2-40-70.0, Height/2-40+100.0
	if !show || y < bandEnd || y+66+30 > ChargeY {
		t.Errorf("under a banner (band %v to %v, charge meter at %v): the notice at %v (and its line at %v), shown %v",
			bandTop, bandEnd, ChargeY, y, y+66, show)
	}
	s.ResultsShown = true
	if _, show := NoticeY(&s, y0); show {
		t.Error("the results show, and the notice too")
	}
}

// TestHintClearOfChargeMeter: the controls' line at the start of a game
// stays above the charge meter in a Stage game (it was drawn across it),
// and where it was in Classic.
func TestHintClearOfChargeMeter(t *testing.T) {
	f, err := LoadFonts()
	if err != nil {
		t.Fatal(err)
	}
	if y := HintY(&model.StageHUD{}); y != Height-40 {
		t.Errorf("Classic: the hint at %v, want %v", y, Height-40)
	}
	s := stageHUD()
	_, h := Measure("Arrows or WASD: move · Space or J: fire (hold to charge)", f.Small)
	if y := HintY(&s); y+h > ChargeY || y < Height/2 {
		t.Errorf("Stage: the hint from %v to %v, the charge meter from %v", y, y+h, ChargeY)
	}
}
