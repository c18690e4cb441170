package render

import (
	"math"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/net/wire"
)

// BenchmarkDrawFrame300 is the CPU side of drawing one play frame: the
// starfield, 300 entities of every kind and the HUD, into an offscreen
// 1280 x 720 image. The GPU work is queued, not waited for. A game ends a
// frame after each Draw, which empties Ebitengine's command queue; here
// reading one pixel does that, outside the timer, or the queue would grow
// across iterations and count as allocations of ours.
func BenchmarkDrawFrame300(b *testing.B) {
	a, fonts, dst := benchSetup(b)
	stars := NewStarfield()
	kinds := [...]uint8{wire.KindPlayerMissile, wire.KindBydosSlave, wire.KindEnemyMissile}
	sprites := make([]Sprite, 300)
	for i := range sprites {
		s := &sprites[i]
		s.ID, s.Kind, s.Frame = uint32(i+1), kinds[i%3], uint8(i%8)
		s.X, s.Y = float64(40+(i*37)%1200), float64(100+(i*53)%580)
	}
	for p := range 4 {
		sprites[p] = Sprite{ID: uint32(p + 1), Kind: wire.KindPlayerShip, Owner: uint8(p), X: 100, Y: float64(180 + 120*p)}
	}
	var hud [4]HUDPlayer
	for p := range hud {
		hud[p] = HUDPlayer{Present: true, Name: "Pilot", Score: 12300, Lives: 3, Local: p == 0}
	}
	t := 0.0
	benchDraw(b, dst, func() {
		t += 1.0 / 60
		stars.Draw(dst, a, t)
		a.DrawWorld(dst, sprites, t)
		a.DrawHUD(dst, fonts, hud)
	})
}

// benchDraw times frame, which draws into dst, emptying Ebitengine's
// queue after each outside the timer (a frame's end does it in a game).
func benchDraw(b *testing.B, dst *ebiten.Image, frame func()) {
	flush := ebiten.NewImage(1, 1)
	var px [4]byte
	for range 10 { // glyph caches and queue buffers at their size
		frame()
		flush.DrawImage(dst, nil)
		flush.ReadPixels(px[:])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		frame()
		b.StopTimer()
		flush.DrawImage(dst, nil)
		flush.ReadPixels(px[:])
		b.StartTimer()
	}
}

// BenchmarkDrawStageHUD is the CPU side of drawing the whole Stage HUD
// (charge meter, arms, boss bar, banner, warning edges and results) into
// an offscreen 1280 x 720 image; the queue is emptied outside the timer.
func BenchmarkDrawStageHUD(b *testing.B) {
	a, fonts, dst := benchSetup(b)
	s := stageHUD()
	s.ResultsShown, s.Warning = true, 0.5
	s.Banner, s.BannerSub, s.BannerAlpha = "STAGE CLEAR", "loop 1", 1
	t := 0.0
	benchDraw(b, dst, func() {
		t += 1.0 / 60
		s.Charge = math.Mod(t, 1)
		a.DrawStageHUD(dst, fonts, &s, t)
	})
}

// BenchmarkDrawHUD is the CPU side of drawing the four players' panels
// (names, scores changing every frame, lives) into an offscreen image.
func BenchmarkDrawHUD(b *testing.B) {
	a, fonts, dst := benchSetup(b)
	players := hudPlayers()
	benchDraw(b, dst, func() {
		players[0].Score++
		a.DrawHUD(dst, fonts, players)
	})
}

// hudPlayers are four panels: the local player, a leader with a name too
// long for its panel, one out, an open slot.
func hudPlayers() [4]HUDPlayer {
	return [4]HUDPlayer{
		{Present: true, Name: "Ripley", Score: 1200, Lives: 3, HasShip: true, Local: true},
		{Present: true, Name: "Lieutenant Gorman of the Colonial Marines", Score: 9000, Lives: 1, HasShip: true, Leader: true},
		{Present: true, Name: "Hicks", Score: 300, HasShip: false},
		{},
	}
}

// benchSetup loads the atlas and the fonts and makes a screen-sized image.
func benchSetup(b *testing.B) (*Atlas, *Fonts, *ebiten.Image) {
	a, err := LoadAtlas()
	if err != nil {
		b.Fatal(err)
	}
	fonts, err := LoadFonts()
	if err != nil {
		b.Fatal(err)
	}
	return a, fonts, ebiten.NewImage(Width, Height)
}
