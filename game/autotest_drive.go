//go:build autotest

package game

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/net/wire"
)

// The hooks' work in the tests' build (-tags autotest, as the game's
// -autotest-* flags are): the -autotest-lobby steps and the screenshot.
// The game players get has autotest_off.go's stubs instead.

// lobbyScript reads the -autotest-lobby steps.
func lobbyScript(s string) ([]lobbyStep, error) { return parseLobbyScript(s) }

// driveLobby takes the next step of the hook when the screen allows it.
func (g *Game) driveLobby() {
	if len(g.autoSteps) == 0 {
		return
	}
	st := g.autoSteps[0]
	if g.lobbyStep(st) {
		g.log.Info("autotest step", "step", st.op, "arg", st.arg)
		g.autoSteps = g.autoSteps[1:]
		g.autoAt = g.ticks
	}
}

// lobbyStep tries st; it reports whether it is done.
func (g *Game) lobbyStep(st lobbyStep) bool {
	ls, _ := g.scene.(*LobbyScene)
	inRoom := ls != nil && ls.in
	switch st.op {
	case "host":
		if _, ok := g.scene.(*TitleScene); ok {
			g.setScene(g.withName(func() Scene { return NewHostingScene(g) }))
			return true
		}
	case "join":
		switch s := g.scene.(type) {
		case *TitleScene:
			g.setScene(g.withName(func() Scene { return NewJoinScene(g) }))
		case *JoinScene:
			if len(s.lan) > 0 && s.focus < 0 {
				s.focus = 0
			}
			if rooms := s.roomRows(); len(rooms) > 0 {
				s.enter(g, s.rooms.addr, roomAction{code: rooms[0].Code})
				return true
			}
		}
	case "members":
		return inRoom && int(ls.st.Count) == st.n
	case "say":
		return inRoom && g.lobby.SendChat(st.arg) == nil
	case "hear":
		if inRoom {
			for _, l := range ls.chat.log.Lines(nil, g.T(), true) {
				if strings.Contains(l.Text, st.arg) {
					return true
				}
			}
		}
	case "bots":
		if inRoom && ls.owner() {
			for range st.n {
				g.lobby.AddBot()
			}
			return true
		}
	case "ready":
		return inRoom && ls.st.State == wire.RoomLobby && g.lobby.Ready(true) == nil
	case "again":
		if s, ok := g.scene.(*GameOverScene); ok && g.lobby != nil {
			// Over, or back in the lobby if the other player was first.
			if r, ok := g.lobby.State(); ok && r.State != wire.RoomPlaying {
				s.again(g)
				return true
			}
		}
	case "lobby":
		return inRoom && ls.st.State == wire.RoomLobby
	case "menu":
		if ls == nil {
			g.toMenu()
			return true
		}
	case "leaderboard":
		switch s := g.scene.(type) {
		case *LobbyScene:
			if s.in && g.lobby.HasScores() {
				g.setScene(NewLeaderboardScene(g, s))
			}
		case *TitleScene:
			g.setScene(g.withName(func() Scene { return NewLeaderboardScene(g, nil) }))
		case *LeaderboardScene:
			if s.have && s.sc.Count > 0 {
				if g.opt.Screenshot != "" && g.ticks-g.sceneAt > 30 {
					g.shotDue = true // past the fade-in
				}
				return g.shotDone || g.opt.Screenshot == ""
			}
			if s.err != "" && s.back == nil && g.ticks-g.sceneAt > 60 {
				g.setScene(NewLeaderboardScene(g, nil)) // the server is not up yet: again
			}
		}
	case "quit":
		g.quit = true
		return true
	}
	return false
}

// saveScreenshot writes the screen to the autotest PNG (ReadPixels works
// in Draw only).
func (g *Game) saveScreenshot(screen *ebiten.Image) {
	b := screen.Bounds()
	pix := make([]byte, 4*b.Dx()*b.Dy())
	screen.ReadPixels(pix)
	img := &image.RGBA{Pix: pix, Stride: 4 * b.Dx(), Rect: image.Rect(0, 0, b.Dx(), b.Dy())}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		g.log.Error("screenshot", "err", err)
		return
	}
	path := g.opt.Screenshot
	if dir := filepath.Dir(path); dir != "" {
		os.MkdirAll(dir, 0o755)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		g.log.Error("screenshot", "err", err)
		return
	}
	if err := os.Rename(tmp, path); err != nil {
		g.log.Error("screenshot", "err", err)
		return
	}
	g.log.Info("screenshot saved", "path", path, "size", fmt.Sprintf("%dx%d", b.Dx(), b.Dy()))
}
