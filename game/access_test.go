package game

import (
	"slices"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/settings"
	"rtype/internal/testutil"
	"rtype/render"
	"rtype/render/model"
)

// TestAccessSettings: Settings → Display & accessibility changes the
// palette, the flashes, the text size and the sprites' size; each applies
// at once (render's style, the fonts) and is saved.
func TestAccessSettings(t *testing.T) {
	t.Cleanup(func() { render.SetStyle(render.Style{}) })
	g := newTestGame(t, Options{})
	g.setScene(NewSettingsScene(g))
	ss := g.scene.(*SettingsScene)
	row := slices.IndexFunc(ss.menu.Items, func(it MenuItem) bool { return it.Label == "Display & accessibility…" })
	if row < 0 {
		t.Fatal("no Display & accessibility row in Settings")
	}
	ss.menu.Sel = row
	g.in = Input{Confirm: true}
	ss.Update(g)
	as, ok := g.scene.(*AccessScene)
	if !ok {
		t.Fatalf("scene %T, want the access scene", g.scene)
	}
	step := func(sel int, in Input) {
		as.menu.Sel = sel
		g.in = in
		as.Update(g)
	}
	step(0, Input{Right: true}) // Colours
	if g.settings.Palette != "deuteranopia" || render.CurrentStyle().Palette != model.PaletteDeuteranopia || render.PlayerColors != model.Palettes[model.PaletteDeuteranopia].Players {
		t.Errorf("palette %q, style %v", g.settings.Palette, render.CurrentStyle())
	}
	step(2, Input{Confirm: true}) // Flashes
	if g.settings.Flashes || !render.CurrentStyle().NoFlashes {
		t.Errorf("flashes %v, style %+v", g.settings.Flashes, render.CurrentStyle())
	}
	step(1, Input{Confirm: true}) // Screen shake
	step(3, Input{Right: true})   // Text size
	if g.settings.UIScale != 125 || g.fonts.Small.Size != 19*1.25 || g.fonts.Title.Size != 48 {
		t.Errorf("ui scale %d: small %v, title %v", g.settings.UIScale, g.fonts.Small.Size, g.fonts.Title.Size)
	}
	step(4, Input{Left: true}) // Sprite size, wrapping to 150 %
	if g.settings.SpriteScale != 150 || render.CurrentStyle().SpriteScale != 1.5 {
		t.Errorf("sprite scale %d, style %+v", g.settings.SpriteScale, render.CurrentStyle())
	}
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	as.Draw(screen, g)
	s, err := settings.Load(g.settingsPath, settings.Checks{})
	if err != nil || s.Palette != "deuteranopia" || s.Flashes || s.ScreenShake || s.UIScale != 125 || s.SpriteScale != 150 {
		t.Errorf("saved %+v, %v", s, err)
	}
	// A new game reads them back and applies them.
	render.SetStyle(render.Style{})
	g2, err := New(Options{Mute: true, Logger: testutil.Logger(t), SettingsPath: g.settingsPath})
	if err != nil {
		t.Fatal(err)
	}
	if render.CurrentStyle().Palette != model.PaletteDeuteranopia || g2.fonts.Small.Size != 19*1.25 {
		t.Errorf("not applied at start: style %+v, small %v", render.CurrentStyle(), g2.fonts.Small.Size)
	}
	step(5, Input{Confirm: true}) // Back
	if _, ok := g.scene.(*SettingsScene); !ok {
		t.Errorf("Back: scene %T", g.scene)
	}
}

// TestMenuScrolls: a menu taller than the screen moves its rows up so
// that the selected one shows, and shows none beyond its room.
func TestMenuScrolls(t *testing.T) {
	m := Menu{X: 100, Y: 100, W: 200, RowH: 40, Gap: 10}
	for range 30 {
		m.Items = append(m.Items, MenuItem{Label: "row", Activate: func() {}})
	}
	if !m.shown(0) || m.shown(29) {
		t.Fatal("at the top: the first row shows, not the last")
	}
	m.Sel = 29
	if !m.shown(29) || m.shown(0) || m.rowY(29)+m.rowH() > menuBottom+0.5 {
		t.Errorf("the last row selected: shown %v at %v, the first shown %v", m.shown(29), m.rowY(29), m.shown(0))
	}
	if m.ShownHeight() > menuBottom-m.Y {
		t.Errorf("shown height %v", m.ShownHeight())
	}
}
