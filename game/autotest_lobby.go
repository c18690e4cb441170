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
// Each step done is logged ("autotest step"). The steps are read here;
// autotest_drive.go takes them, in the tests' build only (-tags autotest).

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
