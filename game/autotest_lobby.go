package game

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rtype/net/wire"
)

// The -autotest-lobby hook: the steps a test's game takes in the menus,
// one after the other, each once the screen allows it, as a player would
// with the keyboard. The end-to-end tests drive two real game windows
// with it through hosting, the LAN, a room, a game and the leaderboard.
// Each step done is logged ("autotest step").

// lobbyStep is one step of the hook.
type lobbyStep struct {
	op  string
	arg string
	n   int
}

// lobbyOps are the steps, with whether they take an argument.
var lobbyOps = map[string]bool{
	"host":        false, // host from the title: the host's room, in its lobby
	"join":        false, // the join screen: the first LAN server's first room
	"members":     true,  // wait for N members in the room
	"say":         true,  // say TEXT in the room's chat
	"hear":        true,  // wait for a chat line with TEXT
	"bots":        true,  // add N bots (the owner)
	"ready":       false, // get ready
	"again":       false, // at the game over: Play again, once the room's game is over
	"lobby":       false, // wait to be in the room's lobby, waiting
	"menu":        false, // back to the title (when the lobby ended, say)
	"leaderboard": false, // open the Leaderboard (lobby's, else the title's) until it shows rows
	"quit":        false,
}

// parseLobbyScript reads a comma-separated list of steps, an argument
// after a colon: "host,members:2,bots:2,ready,again,leaderboard".
func parseLobbyScript(s string) ([]lobbyStep, error) {
	var steps []lobbyStep
	for _, f := range strings.Split(s, ",") {
		op, arg, has := strings.Cut(strings.TrimSpace(f), ":")
		needs, ok := lobbyOps[op]
		if !ok || needs != has {
			return nil, fmt.Errorf("-autotest-lobby: step %q: want one of %v, with :ARG for members, say, hear and bots", f, slices.Sorted(func(yield func(string) bool) {
				for k := range lobbyOps {
					if !yield(k) {
						return
					}
				}
			}))
		}
		st := lobbyStep{op: op, arg: arg}
		if op == "members" || op == "bots" {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 0 || n > wire.MaxPlayers {
				return nil, fmt.Errorf("-autotest-lobby: step %q: want a number from 0 to %d", f, wire.MaxPlayers)
			}
			st.n = n
		}
		steps = append(steps, st)
	}
	return steps, nil
}

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
