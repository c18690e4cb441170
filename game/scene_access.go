package game

import (
	"fmt"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/settings"
	"rtype/net/wire"
	"rtype/render"
	"rtype/render/model"
)

// AccessScene edits the display settings that help players read the
// screen: the palette, the screen shake, the flashes, the UI scale and
// the sprites' size. Every change applies and is saved at once.
type AccessScene struct {
	menu Menu
}

// paletteLabels are how the palettes show in the menu.
var paletteLabels = map[string]string{
	"normal": "Normal", "deuteranopia": "Deuteranopia", "protanopia": "Protanopia", "tritanopia": "Tritanopia",
}

// NewAccessScene returns the display settings screen.
func NewAccessScene(g *Game) *AccessScene {
	s := &AccessScene{}
	st := &g.settings
	changed := func() { g.applyDisplay(); g.saveSettings() }
	onOff := func(b *bool) MenuItem {
		return MenuItem{Value: func() string {
			if *b {
				return "On"
			}
			return "Off"
		}, Activate: func() { *b = !*b; changed() }, Adjust: func(int) { *b = !*b; changed() }}
	}
	cycle := func(label string, value func() string, step func(d int)) MenuItem {
		return MenuItem{Label: label, Value: value, Activate: func() { step(1); changed() }, Adjust: func(d int) { step(d); changed() }}
	}
	pct := func(v *int) func() string { return func() string { return fmt.Sprintf("%d%%", *v) } }
	shake, flashes := onOff(&st.ScreenShake), onOff(&st.Flashes)
	shake.Label, flashes.Label = "Screen shake", "Flashes"
	s.menu = Menu{Items: []MenuItem{
		cycle("Colours", func() string { return paletteLabels[st.Palette] }, func(d int) { st.Palette = settings.Next(settings.Palettes, st.Palette, d) }),
		shake, flashes,
		cycle("Text size (HUD, menus)", pct(&st.UIScale), func(d int) { st.UIScale = settings.Next(settings.UIScales, st.UIScale, d) }),
		cycle("Sprite size (hitboxes unchanged)", pct(&st.SpriteScale), func(d int) { st.SpriteScale = settings.Next(settings.SpriteScales, st.SpriteScale, d) }),
		{Label: "Back", Activate: func() { g.setScene(NewSettingsScene(g)) }},
	}, X: render.Width/2 - 380, Y: 130, W: 760, RowH: 40, Gap: 6, Face: g.fonts.Small, Align: render.Left}
	return s
}

// applyDisplay applies the display settings: the style of the drawing
// and the fonts' scale.
func (g *Game) applyDisplay() {
	p, _ := model.PaletteNamed(g.settings.Palette)
	render.SetStyle(render.Style{Palette: p, NoFlashes: !g.settings.Flashes, SpriteScale: float64(g.settings.SpriteScale) / 100})
	g.fonts.SetScale(float64(g.settings.UIScale) / 100)
}

// Update implements Scene.
func (s *AccessScene) Update(g *Game) error {
	if g.in.Back {
		g.setScene(NewSettingsScene(g))
		return nil
	}
	s.menu.Update(&g.in)
	return nil
}

// Draw implements Scene: the menu, and the four players' ships and shots
// in the palette chosen.
func (s *AccessScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	render.Text(screen, "Display & accessibility", g.fonts.Title, render.Width/2, 40, render.Center, render.ColText)
	g.atlas.FillRect(screen, s.menu.X, s.menu.Y-8, s.menu.W, s.menu.ShownHeight()+16, render.Fade(render.ColPanel, 0.75))
	s.menu.Draw(screen, g)
	y := s.menu.Y + s.menu.ShownHeight() + 70
	for p := range uint8(4) {
		x := render.Width/2 - 300 + float64(p)*200
		g.atlas.DrawShipScaled(screen, x, y, 0, p, g.T(), 2*max(render.CurrentStyle().SpriteScale, 1))
		render.Text(screen, render.PlayerColorName(p), g.fonts.Small, x, y+30, render.Center, render.PlayerColor(p))
	}
	shots := []render.Sprite{
		{Kind: wire.KindPlayerMissile, X: render.Width/2 - 120, Y: y + 100},
		{Kind: wire.KindEnemyMissile, X: render.Width/2 + 120, Y: y + 100},
	}
	g.atlas.DrawWorld(screen, shots, g.T())
	render.Text(screen, "yours", g.fonts.Tiny, render.Width/2-120, y+116, render.Center, render.ColDim)
	render.Text(screen, "the enemy's", g.fonts.Tiny, render.Width/2+120, y+116, render.Center, render.ColDim)
	render.Text(screen, "Left/Right: change  ·  Esc: back", g.fonts.Small, render.Width/2, 660, render.Center, render.ColDim)
}
