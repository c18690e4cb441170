package game

import (
	"math"
	"slices"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/net/wire"
	"rtype/render"
)

// drawBackdrop draws the menus' background: the gradient and the
// starfield, scrolling slower than in play.
func (g *Game) drawBackdrop(screen *ebiten.Image) {
	g.atlas.Backdrop(screen)
	g.stars.Draw(screen, g.atlas, g.T()*0.6)
}

// TitleScene is the main menu.
type TitleScene struct {
	menu Menu
}

// NewTitleScene returns the main menu.
func NewTitleScene(g *Game) *TitleScene {
	s := &TitleScene{}
	s.menu = Menu{X: render.Width/2 - 170, Y: 340, W: 340, RowH: 38, Gap: 4, Face: g.fonts.Body, Align: render.Center}
	host := func(mode uint8) func() {
		return func() {
			g.hostCfg.Mode = mode
			g.setScene(g.withName(func() Scene { return NewHostingScene(g) }))
		}
	}
	s.menu.Items = []MenuItem{
		{Label: "Host Stage", Activate: host(wire.ModeStage)},
		{Label: "Host Classic", Activate: host(wire.ModeClassic)},
		{Label: "Join game", Activate: func() { g.setScene(g.withName(func() Scene { return NewJoinScene(g) })) }},
		{Label: "Leaderboard", Activate: func() { g.setScene(g.withName(func() Scene { return NewLeaderboardScene(g, nil) })) }},
		{Label: "Replays", Activate: func() { g.setScene(NewReplaysScene(g)) }},
		{Label: "Settings", Activate: func() { g.setScene(NewSettingsScene(g)) }},
		{Label: "Quit", Activate: func() { g.quit = true }},
	}
	if !canHost { // the browser: no hosting, no recordings, no quitting the page
		s.menu.Items = slices.DeleteFunc(s.menu.Items, func(it MenuItem) bool {
			return it.Label != "Join game" && it.Label != "Settings"
		})
	}
	return s
}

// Update implements Scene.
func (s *TitleScene) Update(g *Game) error {
	if g.in.Back {
		s.menu.Sel = len(s.menu.Items) - 1 // Escape goes to Quit
		return nil
	}
	s.menu.Update(&g.in)
	return nil
}

// Draw implements Scene.
func (s *TitleScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	t := g.T()
	// Attract mode: the four ships cross in formation, Bydos the other way.
	cycle := math.Mod(t, 12) / 12
	fx := -160 + cycle*(render.Width+320)
	for p := range 4 {
		x := fx - float64(p)*58
		y := 292 + float64(p%2)*30 + 3*math.Sin(t*2.2+float64(p))
		g.atlas.DrawShipScaled(screen, x, y, 0, uint8(p), t, 2)
	}
	for i := range 2 {
		bx := render.Width + 80 - math.Mod(t*90+float64(i)*700, render.Width+200)
		by := 305 + 14*math.Sin(t*1.7+float64(i)*2)
		render.DrawSprite(screen, g.atlas.Bydos[(int(t*10)+i*3)&7], bx, by, render.DrawOpts{Scale: 1.5})
	}
	g.atlas.Logo(screen, g.fonts, render.Width/2, 40, t)
	render.Text(screen, "Cooperative shoot-'em-up for 1 to 4 pilots", g.fonts.Body, render.Width/2, 222, render.Center, render.ColDim)
	s.menu.Draw(screen, g)
	if name := g.Name(); name != "" {
		render.Text(screen, "Pilot: "+name, g.fonts.Small, render.Width/2, 640, render.Center, render.Fade(render.ColText, 0.7))
	}
	render.Hint(screen, g.fonts, "Arrows or d-pad to choose  ·  Enter or A to confirm  ·  F11 fullscreen")
	render.Text(screen, g.version, g.fonts.Tiny, render.Width-16, render.Height-26, render.Right, render.Fade(render.ColDim, 0.7))
}
