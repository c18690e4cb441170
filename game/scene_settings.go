package game

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/settings"
	"rtype/render"
)

// SettingsScene edits the settings; every change applies and is saved at
// once.
type SettingsScene struct {
	menu    Menu
	binding int // the action waiting for a key, or -1
	msg     string
}

// NewSettingsScene returns the settings screen.
func NewSettingsScene(g *Game) *SettingsScene {
	s := &SettingsScene{binding: -1}
	st := &g.settings
	changed := func() {
		g.in.SetBindings(st.Keys, st.Pad)
		g.applySound()
		g.saveSettings()
	}
	vol := func(v *float64) func(int) {
		return func(d int) {
			*v = min(max(float64(int(*v*10+0.5)+d)/10, 0), 1)
			changed()
		}
	}
	pct := func(v *float64) func() string { return func() string { return fmt.Sprintf("%d%%", int(*v*100+0.5)) } }
	onOff := func(b *bool) func() string {
		return func() string {
			if *b {
				return "On"
			}
			return "Off"
		}
	}
	items := []MenuItem{
		{Label: "Pilot name", Value: func() string { return g.Name() }, Activate: func() {
			g.setScene(NewNameScene(g, func() Scene { return NewSettingsScene(g) }, func() Scene { return NewSettingsScene(g) }))
		}},
		{Label: "Music volume", Value: pct(&st.MusicVolume), Slider: func() float64 { return st.MusicVolume }, Adjust: vol(&st.MusicVolume)},
		{Label: "Effects volume", Value: pct(&st.EffectsVolume), Slider: func() float64 { return st.EffectsVolume }, Adjust: vol(&st.EffectsVolume)},
		{Label: "Mute", Value: func() string {
			if g.opt.Mute {
				return "On (-mute)"
			}
			return onOff(&st.Mute)()
		}, Activate: func() { st.Mute = !st.Mute; changed() }},
		{Label: "Fullscreen", Value: onOff(&st.Fullscreen), Activate: func() { g.toggleFullscreen() }},
		{Label: "Display & accessibility…", Activate: func() { g.setScene(NewAccessScene(g)) }},
		{Label: "Mode when joining", Value: func() string { return settings.ModeLabel(st.JoinMode) },
			Activate: func() { st.JoinMode = nextMode(st.JoinMode, 1); changed() },
			Adjust:   func(d int) { st.JoinMode = nextMode(st.JoinMode, d); changed() }},
	}
	for a := range settings.NumShipActions {
		items = append(items, MenuItem{
			Label: a.Label(),
			Value: func() string {
				if s.binding == int(a) {
					return "press a key…"
				}
				var ls []string
				for _, k := range st.Keys.Keys(a) {
					ls = append(ls, KeyLabel(k))
				}
				return strings.Join(ls, "  or  ")
			},
			Active:   func() bool { return s.binding == int(a) },
			Activate: func() { s.binding = int(a); s.msg = "" },
		})
	}
	items = append(items,
		MenuItem{Label: "Reset to defaults", Activate: func() {
			name, recent := st.Name, st.Recent
			*st = settings.Default()
			st.Name, st.Recent = name, recent
			ebiten.SetFullscreen(st.Fullscreen)
			g.applyDisplay()
			changed()
			s.msg = "Settings reset to the defaults."
		}},
		MenuItem{Label: "Back", Activate: func() { g.setScene(NewTitleScene(g)) }},
	)
	s.menu = Menu{Items: items, X: render.Width/2 - 360, Y: 100, W: 720, RowH: 34, Gap: 4, Face: g.fonts.Small, Align: render.Left}
	return s
}

// nextMode is the join mode d steps after mode in settings.JoinModes.
func nextMode(mode string, d int) string {
	n := len(settings.JoinModes)
	i := slices.Index(settings.JoinModes, mode)
	return settings.JoinModes[((i+d)%n+n)%n]
}

// Update implements Scene.
func (s *SettingsScene) Update(g *Game) error {
	if s.binding >= 0 {
		if g.in.Back {
			s.binding = -1
			return nil
		}
		a := settings.Action(s.binding)
		if k, ok := g.in.JustPressedKey(a); ok {
			s.bind(g, a, k.String())
		}
		return nil
	}
	if g.in.Back {
		g.setScene(NewTitleScene(g))
		return nil
	}
	s.menu.Update(&g.in)
	return nil
}

// bind makes key a's first key, applies and saves it.
func (s *SettingsScene) bind(g *Game, a settings.Action, key string) {
	g.settings.Keys = g.settings.Keys.Rebind(a, key)
	g.in.SetBindings(g.settings.Keys, g.settings.Pad)
	g.saveSettings()
	s.msg = fmt.Sprintf("%s: %s", a.Label(), KeyLabel(key))
	s.binding = -1
}

// Draw implements Scene.
func (s *SettingsScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	render.Text(screen, "Settings", g.fonts.Title, render.Width/2, 40, render.Center, render.ColText)
	g.atlas.FillRect(screen, s.menu.X, s.menu.Y-8, s.menu.W, s.menu.ShownHeight()+16, render.Fade(render.ColPanel, 0.75))
	s.menu.Draw(screen, g)
	switch {
	case s.binding >= 0:
		render.Text(screen, "Press the key for "+settings.Action(s.binding).Label()+"  ·  Esc to cancel", g.fonts.Small, render.Width/2, 660, render.Center, render.ColGold)
	case s.msg != "":
		render.Text(screen, s.msg, g.fonts.Small, render.Width/2, 660, render.Center, render.ColAccent)
	default:
		render.Text(screen, "Left/Right: change  ·  Enter: select  ·  Esc: back  ·  Gamepad: d-pad or stick, A fires", g.fonts.Small, render.Width/2, 660, render.Center, render.ColDim)
	}
}
