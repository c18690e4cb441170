package game

import (
	"errors"
	"log/slog"

	"rtype/sim"
	"rtype/sim/stage"
)

// Host is the in-process server of a hosted game. The browser build has
// none: a page cannot listen for other players, and leaving the server
// out keeps it (and its database drivers) out of the wasm.
type Host struct {
	// Port is the port it listens on; Addrs the addresses friends can
	// join.
	Port  int
	Addrs []string
	// Rules are the server's rules.
	Rules sim.Rules
	// Mode is the mode of its games.
	Mode uint8
	// Stage and Warp are the stage its Stage games play, and where they
	// start: never set in the browser.
	Stage *stage.Stage
	Warp  string
}

// canHost tells that this build can host games: the browser's cannot.
const canHost = false

// errNoHosting is StartHost's answer in the browser.
var errNoHosting = errors.New("hosting a game is not possible in the browser: join a game instead, or run the game on a computer to host one")

// StartHost fails: a browser cannot host.
func StartHost(port int, hc HostConfig, log *slog.Logger) (*Host, error) {
	return nil, errNoHosting
}

// LocalAddr is the address the host's own client joins.
func (h *Host) LocalAddr() string { return "" }

// Reach is none: there is no server.
func (h *Host) Reach() Reach { return Reach{} }

// Stop does nothing: there is no server to stop.
func (h *Host) Stop() {}
