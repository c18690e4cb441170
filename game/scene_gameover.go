package game

import (
	"fmt"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/core"
	"rtype/net/wire"
	"rtype/render"
)

// GameOverScene shows the final scores, ranked.
type GameOverScene struct {
	ranked []core.Ranked
	me     uint8
	menu   Menu
}

// NewGameOverScene shows ranked; me is the local player. The session
// stays open until the server's Logout(GameOver) or until leaving.
func NewGameOverScene(g *Game, ranked []core.Ranked, me uint8) *GameOverScene {
	s := &GameOverScene{ranked: ranked, me: me}
	s.menu = Menu{X: render.Width/2 - 170, Y: 540, W: 340, RowH: 50, Gap: 10, Face: g.fonts.Body, Align: render.Center}
	s.menu.Items = []MenuItem{
		{Label: "Back to menu", Activate: func() { g.toMenu() }},
		{Label: "Play again", Activate: func() { s.again(g) }},
	}
	return s
}

// again joins a new game on the same server (the hosted one stays up).
func (s *GameOverScene) again(g *Game) {
	addr, hosting := "", false
	if g.session != nil {
		addr, hosting = g.session.Addr, g.session.Hosting
	}
	g.endSession()
	if l := g.lobby; l != nil { // a room's game (7.14): back to its lobby
		if st, ok := l.State(); ok && st.State == wire.RoomOver {
			l.Again()
		}
		g.setScene(NewLobbyScene(g, addr, hosting))
		return
	}
	if hosting && g.host != nil {
		g.setScene(NewHostingScene(g))
		return
	}
	if addr == "" {
		g.toMenu()
		return
	}
	g.setScene(NewConnectingScene(g, addr, false))
}

// Update implements Scene.
func (s *GameOverScene) Update(g *Game) error {
	if g.in.Back {
		g.toMenu()
		return nil
	}
	s.menu.Update(&g.in)
	return nil
}

// Draw implements Scene.
func (s *GameOverScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	t := g.SceneTime()
	g.atlas.Banner(screen, g.fonts.Logo, "GAME OVER", render.Width/2, 30, render.Mix(render.ColWarn, render.ColGold, 0.5+0.5*math.Sin(g.T()*0.8)))
	render.Text(screen, "Final scores", g.fonts.Body, render.Width/2, 214, render.Center, render.ColDim)
	const w = 640.0
	x := render.Width/2 - w/2
	for i, r := range s.ranked {
		// Lines come in one after the other.
		al := min(1, max(0, (t-0.2-float64(i)*0.15)/0.3))
		if al <= 0 {
			continue
		}
		y := 256 + float64(i)*64
		col := render.PlayerColor(r.Player)
		g.atlas.FillRect(screen, x, y, w, 56, render.Fade(render.ColPanel, 0.85*al))
		if r.Player == s.me {
			g.atlas.FillRect(screen, x, y, w, 56, render.Fade(col, 0.12*al))
			g.atlas.StrokeRect(screen, x, y, w, 56, 2, render.Fade(col, al))
		}
		g.atlas.FillRect(screen, x, y, 6, 56, render.Fade(col, al))
		placeCol := render.ColText
		if r.Place == 1 {
			placeCol = render.ColGold
		}
		render.Text(screen, core.Ordinal(r.Place), g.fonts.Big, x+24, y+8, render.Left, render.Fade(placeCol, al))
		render.DrawSprite(screen, g.atlas.Ship[0], x+130, y+28, render.DrawOpts{Alpha: al})
		render.DrawSprite(screen, g.atlas.ShipAccent[0], x+130, y+28, render.DrawOpts{Tint: col, Alpha: al})
		// A name from the server: one line, cut to leave room for the
		// score.
		scoreW, _ := render.Measure("0000000", g.fonts.MonoBig)
		name := r.Name
		if r.Player == s.me {
			name = render.Fit(name, g.fonts.Body, w-170-20-scoreW-20-90) + "  (you)"
		}
		name = render.Fit(name, g.fonts.Body, w-170-20-scoreW-20)
		render.Text(screen, name, g.fonts.Body, x+170, y+13, render.Left, render.Fade(render.ColText, al))
		render.Text(screen, fmt.Sprintf("%07d", r.Score), g.fonts.MonoBig, x+w-20, y+12, render.Right, render.Fade(placeCol, al))
	}
	if len(s.ranked) == 0 {
		render.Text(screen, "No scores", g.fonts.Body, render.Width/2, 300, render.Center, render.ColDim)
	}
	s.menu.Draw(screen, g)
	render.Hint(screen, g.fonts, "Enter or A: choose  ·  Esc: back to menu")
}
