package game

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"rtype/game/core"
	"rtype/game/settings"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render"
)

// Spectating (PROTOCOL.md 7.17): the game watched through a spectator's
// session, in the play scene. Its View (game/view) follows a player, as
// the replay viewer does, or shows the free view; Tab or 1 to 4 choose,
// as in the replays.

// watchTarget is what a spectator asks for: the busiest game of a server,
// or the game of a room by its code.
type watchTarget struct {
	addr string
	code wire.RoomCode // zero: the busiest game
}

// parseWatch reads -spectate's argument: a server's address (the busiest
// game), a room's CODE on the server last joined, or CODE@ADDR.
func parseWatch(arg string, recent []string) (watchTarget, error) {
	if code, addr, ok := strings.Cut(arg, "@"); ok {
		c, cok := wire.ParseRoomCode(code)
		if !cok {
			return watchTarget{}, fmt.Errorf("%q is no room code: 6 of %s", code, wire.RoomCodeAlphabet)
		}
		a, err := core.NormalizeAddr(addr)
		if err != nil {
			return watchTarget{}, err
		}
		return watchTarget{addr: a, code: c}, nil
	}
	if c, ok := roomCode(arg); ok {
		if len(recent) == 0 {
			return watchTarget{}, errors.New("a room code needs its server: give CODE@ADDR, or join the server once")
		}
		return watchTarget{addr: recent[0], code: c}, nil
	}
	a, err := core.NormalizeAddr(arg)
	if err != nil {
		return watchTarget{}, err
	}
	return watchTarget{addr: a}, nil
}

// NewSpectateScene starts watching w: a ConnectingScene whose client
// spectates.
func NewSpectateScene(g *Game, w watchTarget) *ConnectingScene {
	return &ConnectingScene{addr: w.addr, watch: &w,
		d: startDialWith(g, w.addr, client.Config{Spectate: true, Room: w.code})}
}

// watching goes on after a spectator's dial: to the play scene, which
// sees the client is a spectator's, or to the error screen.
func (g *Game) watching(r dialResult, w watchTarget) {
	if r.err != nil {
		g.log.Warn("could not watch", "addr", w.addr, "room", w.code.String(), "err", r.err)
		g.setScene(NewErrorScene(g, r.err, func() Scene { return NewSpectateScene(g, w) }))
		return
	}
	g.settings.Recent = settings.AddRecent(g.settings.Recent, w.addr)
	g.saveSettings()
	g.session = NewSession(r.c, w.addr, false)
	g.session.rec, g.session.watch = r.rec, &w
	g.log.Info("watching", "addr", w.addr, "room", w.code.String(), "mode", wire.ModeName(r.c.Mode()))
	g.setScene(NewPlayScene(g))
}

// watchFromLobby leaves the lobby's session and watches w (the lobby's
// Spectate action): a spectator logs in on a session of its own.
func (g *Game) watchFromLobby(w watchTarget) {
	if g.lobby != nil {
		g.lobby.Close()
		g.lobby = nil
	}
	g.setScene(NewSpectateScene(g, w))
}

// watchInput takes a spectator's keys: Tab the next player (then the free
// view), 1 to 4 a player.
func (s *PlayScene) watchInput() {
	v := s.view
	if !s.chose && v.Me() == wire.NoPlayer && v.NextFollow() != wire.NoPlayer {
		// The first player known: followed from the start.
		s.chose = true
		v.Follow(v.NextFollow())
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyTab) || inpututil.IsGamepadButtonJustPressed(0, ebiten.GamepadButton5) {
		s.chose = true
		v.Follow(v.NextFollow())
	}
	for p, k := range []ebiten.Key{ebiten.Key1, ebiten.Key2, ebiten.Key3, ebiten.Key4} {
		if inpututil.IsKeyJustPressed(k) && v.Players()[p].Present {
			s.chose = true
			v.Follow(uint8(p))
		}
	}
}

// drawWatch draws a spectator's line: whom it follows, and the keys.
func (s *PlayScene) drawWatch(screen *ebiten.Image, g *Game) {
	v := s.view
	who, col := "free view", render.ColText
	if p := v.Me(); p < wire.MaxPlayers {
		who, col = "following "+v.Names()[p], render.PlayerColor(p)
	}
	y := float64(render.Height - 40)
	render.ShadowText(screen, "SPECTATING · "+who, g.fonts.Small, 16, y, render.Left, col)
	render.ShadowText(screen, "1-4 or Tab: follow · Esc: menu", g.fonts.Tiny, render.Width-16, y+4, render.Right, render.Fade(render.ColText, 0.75))
}

// drawSpectators lists the game's spectators, as the server tells them
// (7.17), under the players' panels.
func (s *PlayScene) drawSpectators(screen *ebiten.Image, g *Game) {
	s.watchers = g.session.C.Spectators(s.watchers[:0])
	if len(s.watchers) == 0 {
		return
	}
	line := fmt.Sprintf("watching (%d): %s", len(s.watchers), strings.Join(s.watchers, ", "))
	render.ShadowText(screen, render.Fit(line, g.fonts.Tiny, render.Width-32), g.fonts.Tiny, render.Width-16, render.Height-60,
		render.Right, render.Fade(render.ColDim, 0.9))
}
