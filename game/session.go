package game

import (
	"time"

	"rtype/net/client"
	"rtype/net/wire"
	"rtype/sim"
	"rtype/sim/stage"
)

// HostConfig is what a hosted game plays.
type HostConfig struct {
	// Mode is the game's mode: wire.ModeStage (the default when 0) or
	// wire.ModeClassic. The host's own client asks for it too.
	Mode uint8
	// Stage is the stage a Stage game plays; nil: the server's default
	// (the built-in stage "1").
	Stage *stage.Stage
	// Warp starts a Stage game later in its stage: seconds ("90") or a
	// marker ("boss"); "" from the start.
	Warp string
	// Name is the game's name in LAN discovery answers: the host's name.
	Name string
	// Discovery is the UDP address that answers LAN discovery queries
	// (PROTOCOL.md section 8), ":4243" by default in the game; "" answers
	// none.
	Discovery string
	// WebTransport is the UDP address of the WebTransport binding for
	// browsers (PROTOCOL.md Part IV); "" serves none.
	WebTransport string
	// DB is the leaderboard's SQLite file (server/store): every game's
	// scores are kept there, and players see them in the Leaderboard
	// menu (PROTOCOL.md 7.16); "" keeps no scores.
	DB string
	// Rules are the games' rules; nil: sim.DefaultRules (tests make
	// games short with theirs).
	Rules *sim.Rules
	// Rendezvous is where the server registers its room codes, so that
	// friends anywhere join by code (PROTOCOL.md Part V; the sessions go
	// over the WebTransport binding, on a free port when WebTransport is
	// ""); "" none. PortMap asks the router for a port mapping meanwhile:
	// "auto" (the default when ""), "natpmp", "upnp" or "off".
	Rendezvous string
	PortMap    string
	// WebPort is the TCP port of the game's page (Options.WebURL's; 0
	// none): with a rendezvous, the router is asked to map it too.
	WebPort int
}

// mode returns the hosted mode, defaults applied.
func (hc HostConfig) mode() uint8 {
	if hc.Mode == wire.ModeClassic {
		return wire.ModeClassic
	}
	return wire.ModeStage
}

// loadStage returns the stage -stage names: a built-in stage's name or a
// stage file's path. "" is the server's default stage (nil).
func loadStage(nameOrFile string) (*stage.Stage, error) {
	if nameOrFile == "" {
		return nil, nil
	}
	return resolveStage(nameOrFile)
}

// checkStage checks that a Stage game can start with st warped as warp
// (a warp to a marker the stage lacks, or beyond its end, is an error),
// with the rules of a hosted game.
func checkStage(st *stage.Stage, warp string) error {
	if st == nil {
		if warp == "" {
			return nil
		}
		var err error
		if st, err = resolveStage("1"); err != nil {
			return err
		}
	}
	_, err := sim.NewStage(sim.DefaultRules(), st, 1, sim.StageOptions{Warp: warp})
	return err
}

// Session is this client's connection to a game.
type Session struct {
	C       *client.Client
	Addr    string
	Hosting bool
	Started time.Time
	// Path is how the session found its host through a rendezvous:
	// "direct", "mapped", "punched" or "relayed"; "" without one.
	Path  string
	rec   *recording   // the game's recording, or nil
	watch *watchTarget // what a spectator's session watches (7.17), or nil
}

// NewSession wraps a connected client.
func NewSession(c *client.Client, addr string, hosting bool) *Session {
	return &Session{C: c, Addr: addr, Hosting: hosting, Started: time.Now()}
}

// Close leaves the game (Logout Left) and ends its recording.
func (s *Session) Close() {
	s.C.Close()
	s.rec.close()
}
