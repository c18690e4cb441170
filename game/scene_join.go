package game

import (
	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/core"
	"rtype/render"
)

// JoinScene asks the address of a server; the recent servers are listed
// under the field.
type JoinScene struct {
	field  TextField
	errMsg string
	// focus is -1 for the field, else the recent server selected.
	focus int
}

// NewJoinScene returns the join screen, the field holding the last server.
func NewJoinScene(g *Game) *JoinScene {
	s := &JoinScene{field: TextField{Max: 64, Allow: func(r rune) bool { return r > ' ' && r < 0x7f }}, focus: -1}
	if len(g.settings.Recent) > 0 {
		s.field.Text = g.settings.Recent[0]
	}
	return s
}

const (
	joinFieldX = render.Width/2 - 330
	joinFieldW = 660
	joinListY  = 376
	joinRowH   = 40
)

func (s *JoinScene) connect(g *Game, text string) {
	addr, err := core.NormalizeAddr(text)
	if err != nil {
		s.errMsg = capitalize(err.Error())
		return
	}
	g.setScene(NewConnectingScene(g, addr, false))
}

// Update implements Scene.
func (s *JoinScene) Update(g *Game) error {
	recent := g.settings.Recent
	g.in.TextMode = s.focus < 0
	if s.focus < 0 && s.field.Update(&g.in) {
		s.errMsg = ""
	}
	for i := range recent {
		if g.in.In(joinFieldX, joinListY+float64(i)*joinRowH, joinFieldW, joinRowH-4) {
			if g.in.MouseMoved {
				s.focus = i
			}
			if g.in.Click {
				s.connect(g, recent[i])
				return nil
			}
		}
	}
	if g.in.Click && g.in.In(joinFieldX, 250, joinFieldW, 68) {
		s.focus = -1
	}
	switch {
	case g.in.Back:
		g.setScene(NewTitleScene(g))
	case g.in.Down && s.focus < len(recent)-1:
		s.focus++
	case g.in.Up && s.focus >= 0:
		s.focus--
	case g.in.Confirm:
		if s.focus >= 0 {
			s.connect(g, recent[s.focus])
		} else {
			s.connect(g, s.field.Text)
		}
	}
	return nil
}

// Draw implements Scene.
func (s *JoinScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	render.Text(screen, "Join a game", g.fonts.Title, render.Width/2, 110, render.Center, render.ColText)
	render.Text(screen, "Server address: the host's IP or name, with :port if not 4242", g.fonts.Small, render.Width/2, 200, render.Center, render.ColDim)
	g.atlas.Field(screen, g.fonts, joinFieldX, 250, joinFieldW, 68, s.field.Text, "192.168.1.20", s.focus < 0, g.T())
	if s.errMsg != "" {
		render.Text(screen, s.errMsg, g.fonts.Small, render.Width/2, 328, render.Center, render.ColWarn)
	}
	recent := g.settings.Recent
	if len(recent) > 0 {
		render.Text(screen, "RECENT SERVERS", g.fonts.Tiny, joinFieldX, joinListY-26, render.Left, render.Fade(render.ColDim, 0.8))
		for i, r := range recent {
			g.atlas.DrawItem(screen, g.fonts, render.Item{
				X: joinFieldX, Y: joinListY + float64(i)*joinRowH, W: joinFieldW, H: joinRowH - 4,
				Label: r, Slider: -1, Selected: i == s.focus, Face: g.fonts.Mono, Align: render.Left,
			}, g.T())
		}
	}
	if len(recent) > 0 {
		render.Hint(screen, g.fonts, "Enter: join  ·  Up/Down: recent servers  ·  Esc: back")
	} else {
		render.Hint(screen, g.fonts, "Enter: join  ·  Esc: back")
	}
}
