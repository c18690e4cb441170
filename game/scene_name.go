package game

import (
	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/core"
	"rtype/render"
)

// NameScene asks the player's name, once (it is remembered).
type NameScene struct {
	field  TextField
	errMsg string
	next   func() Scene
	back   func() Scene
}

// NewNameScene asks a name, then shows next(); Escape shows back().
func NewNameScene(g *Game, next, back func() Scene) *NameScene {
	name := g.Name()
	if name == "" {
		name = core.SuggestedName()
	}
	return &NameScene{field: TextField{Text: name, Max: 20}, next: next, back: back}
}

// Update implements Scene.
func (s *NameScene) Update(g *Game) error {
	g.in.TextMode = true
	if s.field.Update(&g.in) {
		s.errMsg = ""
	}
	switch {
	case g.in.Back:
		g.setScene(s.back())
	case g.in.Confirm:
		n, err := core.NormalizeName(s.field.Text)
		if err != nil {
			s.errMsg = capitalize(err.Error()) + "."
			return nil
		}
		g.settings.Name = n
		g.opt.Name = ""
		g.saveSettings()
		g.log.Info("name set", "name", n)
		g.setScene(s.next())
	}
	return nil
}

// Draw implements Scene.
func (s *NameScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	const w = 620.0
	x := render.Width/2 - w/2
	g.atlas.Panel(screen, x-40, 170, w+80, 360)
	render.Text(screen, "Your pilot name", g.fonts.Title, render.Width/2, 200, render.Center, render.ColText)
	render.Text(screen, "Your friends see it next to your ship and your score.", g.fonts.Small, render.Width/2, 272, render.Center, render.ColDim)
	g.atlas.Field(screen, g.fonts, x, 320, w, 68, s.field.Text, "Pilot", true, g.T())
	if s.errMsg != "" {
		render.Text(screen, s.errMsg, g.fonts.Small, render.Width/2, 404, render.Center, render.ColWarn)
	} else {
		render.Text(screen, "3 to 20 letters, digits, spaces, _ or -", g.fonts.Small, render.Width/2, 404, render.Center, render.Fade(render.ColDim, 0.8))
	}
	render.Text(screen, "Press Enter to continue", g.fonts.Body, render.Width/2, 460, render.Center, render.ColAccent)
	render.Hint(screen, g.fonts, "Enter: OK  ·  Esc: back")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	if r[0] >= 'a' && r[0] <= 'z' {
		r[0] -= 'a' - 'A'
	}
	return string(r)
}
