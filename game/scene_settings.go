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
	if canHost {
		items = append(items, MenuItem{Label: "Rendezvous (friends anywhere)", Value: func() string { return rendezvousLabel(g) },
			Activate: func() { g.setScene(NewRendezvousScene(g)) }})
	}
	for a := range settings.ActChat + 1 {
		if a == settings.ActPause {
			continue // Escape stays the way out
		}
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
			name, recent, rv := st.Name, st.Recent, st.Rendezvous
			*st = settings.Default()
			st.Name, st.Recent, st.Rendezvous = name, recent, rv
			ebiten.SetFullscreen(st.Fullscreen)
			g.applyDisplay()
			changed()
			s.msg = "Settings reset to the defaults."
		}},
		MenuItem{Label: "Back", Activate: func() { g.setScene(NewTitleScene(g)) }},
	)
	s.menu = Menu{Items: items, X: render.Width/2 - 360, Y: 100, W: 720, RowH: 32, Gap: 3, Face: g.fonts.Small, Align: render.Left}
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

// rendezvousLabel is the settings screen's value of the rendezvous.
func rendezvousLabel(g *Game) string {
	if g.opt.Rendezvous != "" {
		return g.opt.Rendezvous + " (-rendezvous)"
	}
	switch g.settings.Rendezvous {
	case settings.RendezvousOff:
		return "Off"
	case "":
		if d := defaultRendezvous(); d != "" {
			return d + " (default)"
		}
		return "None"
	}
	return g.settings.Rendezvous
}

// RendezvousScene edits the rendezvous (Settings.Rendezvous): where a
// hosted game registers its room codes and where a code typed alone is
// looked up, so that friends anywhere join by code.
type RendezvousScene struct {
	field  TextField
	errMsg string
}

// NewRendezvousScene returns the rendezvous' editor, holding the
// settings' value.
func NewRendezvousScene(g *Game) *RendezvousScene {
	return &RendezvousScene{field: TextField{Text: g.settings.Rendezvous, Max: 64, Allow: func(r rune) bool { return r > ' ' && r < 0x7f }}}
}

// Update implements Scene.
func (s *RendezvousScene) Update(g *Game) error {
	g.in.TextMode = true
	if s.field.Update(&g.in) {
		s.errMsg = ""
	}
	switch {
	case g.in.Back:
		g.setScene(NewSettingsScene(g))
	case g.in.Confirm:
		rv, err := settings.ParseRendezvous(s.field.Text)
		if err != nil {
			s.errMsg = capitalize(err.Error())
			return nil
		}
		g.settings.Rendezvous = rv
		g.saveSettings()
		g.log.Info("rendezvous set", "rendezvous", rv)
		g.setScene(NewSettingsScene(g))
	}
	return nil
}

// Draw implements Scene.
func (s *RendezvousScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	const w = 620.0
	x := render.Width/2 - w/2
	g.atlas.Panel(screen, x-40, 170, w+80, 380)
	render.Text(screen, "Rendezvous", g.fonts.Title, render.Width/2, 200, render.Center, render.ColText)
	render.Text(screen, "Games you host register their room codes there, and a code", g.fonts.Small, render.Width/2, 262, render.Center, render.ColDim)
	render.Text(screen, "typed alone is found there: friends anywhere join by code.", g.fonts.Small, render.Width/2, 288, render.Center, render.ColDim)
	placeholder := "None"
	if d := defaultRendezvous(); d != "" {
		placeholder = d + " (default)"
	}
	g.atlas.Field(screen, g.fonts, x, 330, w, 68, s.field.Text, placeholder, true, g.T())
	if s.errMsg != "" {
		render.Text(screen, s.errMsg, g.fonts.Small, render.Width/2, 414, render.Center, render.ColWarn)
	} else {
		render.Text(screen, "host:port (port 4250 if none) · empty: the default · off: none", g.fonts.Small, render.Width/2, 414, render.Center, render.Fade(render.ColDim, 0.8))
	}
	render.Hint(screen, g.fonts, "Enter: OK  ·  Esc: back")
}
