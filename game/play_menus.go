package game

import (
	"fmt"
	"slices"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/core"
	"rtype/game/settings"
	"rtype/game/view"
	"rtype/net/wire"
	"rtype/render"
)

// The play's surroundings: the controls hint, the pause menu, the network
// overlay and the hand-off to the final scores.

// controlsHint says the keys, from the bindings; a Stage game's the
// Force's too.
func (g *Game) controlsHint(stage bool) string {
	km := g.settings.Keys
	label := func(a settings.Action) string {
		if ks := km.Keys(a); len(ks) > 0 {
			return KeyLabel(ks[0])
		}
		return "?"
	}
	move := "Arrows"
	if label(settings.ActUp) != "Up" || label(settings.ActDown) != "Down" || label(settings.ActLeft) != "Left" || label(settings.ActRight) != "Right" {
		move = label(settings.ActUp) + label(settings.ActLeft) + label(settings.ActDown) + label(settings.ActRight)
	} else if ks := km.Keys(settings.ActUp); len(ks) > 1 && ks[1] == "W" {
		move = "Arrows or WASD"
	}
	fire := label(settings.ActFire)
	if ks := km.Keys(settings.ActFire); len(ks) > 1 {
		fire += " or " + KeyLabel(ks[1])
	}
	if stage {
		return move + ": move  ·  " + fire + ": fire (hold to charge)  ·  " + label(settings.ActForce) + ": Force  ·  Esc: menu"
	}
	return move + ": move  ·  " + fire + ": fire (hold)  ·  Esc: menu  ·  F3: network"
}

// gameOver shows the final scores; without them (the event was lost with
// the session), the last known scores are ranked.
func (s *PlayScene) gameOver(g *Game, scores []wire.Score) {
	players := s.view.Players()
	if scores == nil {
		for p, pl := range players {
			if pl.Present {
				scores = append(scores, wire.Score{Player: uint8(p), Score: pl.Score})
			}
		}
	}
	names := s.view.Names()
	ranked := core.Rank(scores, func(p uint8) string {
		if p < wire.MaxPlayers {
			return names[p]
		}
		return ""
	})
	g.log.Info("game over", "scores", fmt.Sprint(ranked))
	if s.view.Watching() { // a spectator (7.17): nobody's "you"; it may watch again
		gs := NewGameOverScene(g, ranked, wire.NoPlayer)
		if w := g.session.watch; w != nil {
			gs.menu.Items[1] = MenuItem{Label: "Watch again", Activate: func() { g.endSession(); g.setScene(NewSpectateScene(g, *w)) }}
		}
		g.setScene(gs)
		return
	}
	g.setScene(NewGameOverScene(g, ranked, s.view.Me()))
}

// netLines are the network overlay's lines (F3); path is the session's
// path through a rendezvous (Session.Path), shown with its round trip
// when there is one.
func netLines(n *view.Net, path string) []render.NetLine {
	st := n.Stats
	rtt := "—"
	if st.HasRTT {
		rtt = fmt.Sprintf("%.1f ms", float64(st.RTT.Microseconds())/1000)
	}
	// Fewer than 3 in 4 of the snapshots the protocol promises.
	fewSnaps := st.SnapshotsPerSec < 0.75*st.MinSnapshotsPerSec
	var lines []render.NetLine
	if path != "" {
		lines = append(lines, render.NetLine{Label: "path", Value: path + " · " + rtt, Warn: path == "relayed"})
	}
	return append(lines, []render.NetLine{
		{Label: "protocol", Value: fmt.Sprintf("v%d", st.Version)},
		{Label: "round trip", Value: rtt, Warn: st.HasRTT && st.RTT > 150*time.Millisecond},
		{Label: "loss", Value: fmt.Sprintf("%.1f %%", st.Loss*100), Warn: st.Loss > 0.05},
		{Label: "in / out", Value: fmt.Sprintf("%.1f / %.1f kbit/s", st.KbitIn, st.KbitOut)},
		{Label: "snapshots", Value: fmt.Sprintf("%.1f /s", st.SnapshotsPerSec), Warn: fewSnaps},
		{Label: "baseline age", Value: fmt.Sprintf("%d ticks", st.BaselineAge)},
		{Label: "interp delay", Value: fmt.Sprintf("%d ms", n.Delay.Milliseconds())},
		{Label: "behind newest", Value: fmt.Sprintf("%d ms", n.Behind.Milliseconds())},
		{Label: "extrapolating", Value: yesNo(n.Extrapolating), Warn: n.Extrapolating},
		{Label: "input", Value: fmt.Sprintf("%05b", n.Actions)},
		{Label: "fps / tps", Value: fmt.Sprintf("%.0f / %.0f", ebiten.ActualFPS(), ebiten.ActualTPS())},
	}...)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// pauseLayout is the pause panel's top and height, and the height of its
// rows beyond Resume and Leave (the chat's mutes).
func (s *PlayScene) pauseLayout(g *Game) (y, h, extra float64) {
	extra = s.pause.Height() - 110
	h = 300 + extra
	if g.session.Hosting && g.host != nil {
		h += 40 * float64(min(len(g.host.Addrs), 3))
	}
	return max(20, min(200, render.Height-h-20)), h, extra
}

// drawPause draws the pause menu over the play, with the addresses to
// join at when hosting.
func (s *PlayScene) drawPause(screen *ebiten.Image, g *Game) {
	g.atlas.Dim(screen, 0.55)
	const w = 560.0
	y, h, extra := s.pauseLayout(g)
	x := render.Width/2 - w/2
	g.atlas.Panel(screen, x, y, w, h)
	render.Text(screen, "Paused", g.fonts.Title, render.Width/2, y+24, render.Center, render.ColText)
	render.Text(screen, "The game goes on: it is a network game.", g.fonts.Small, render.Width/2, y+90, render.Center, render.ColDim)
	s.pause.Draw(screen, g)
	if g.session.Hosting && g.host != nil {
		hy := y + 260 + extra
		say := "You are the host: leaving ends the game for everyone. Friends join at:"
		if code := g.hostedCode(); code != "" && slices.Contains(g.host.Reach().Codes, code) {
			say = "You are the host: leaving ends the game for everyone. Code " + code + " anywhere, or:"
		}
		render.Text(screen, say, g.fonts.Tiny, render.Width/2, hy, render.Center, render.ColDim)
		for i, addr := range g.host.Addrs[:min(len(g.host.Addrs), 3)] {
			render.Text(screen, addr, g.fonts.Mono, render.Width/2, hy+30+float64(i)*30, render.Center, render.ColAccent)
		}
	}
}
