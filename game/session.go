package game

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"rtype/bot"
	"rtype/game/core"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/server"
	"rtype/server/store"
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

// Host is the in-process server of a hosted game.
type Host struct {
	srv    *server.Server
	cancel context.CancelFunc
	done   chan struct{}
	// Port is the port it listens on (TCP and UDP); Addrs the addresses
	// friends can join (LAN first, then 127.0.0.1).
	Port  int
	Addrs []string
	// Rules are the server's rules (the own ship is predicted with them).
	Rules sim.Rules
	// Mode is the mode of its games (wire.ModeStage or ModeClassic).
	Mode uint8
	db   *store.Store // its leaderboard, or nil
}

// StartHost starts a one-game server playing hc on port, or the next
// free one of the ten after it, or any free port; port 0 takes any free
// port at once.
func StartHost(port int, hc HostConfig, log *slog.Logger) (*Host, error) {
	var ports []int
	if port > 0 {
		for p := port; p <= port+10 && p <= 65535; p++ {
			ports = append(ports, p)
		}
	}
	ports = append(ports, 0)
	var firstErr error
	rules := sim.DefaultRules()
	if hc.Rules != nil {
		rules = *hc.Rules
	}
	var board server.Leaderboard
	var db *store.Store
	if hc.DB != "" {
		err := error(nil)
		if !store.IsPostgres(hc.DB) {
			err = os.MkdirAll(filepath.Dir(hc.DB), 0o755) // the data directory may be new
		}
		if err == nil {
			db, err = store.Open(hc.DB)
		}
		if err != nil {
			// Hosting goes on all the same: the scores are not kept.
			log.Warn("hosting without a leaderboard", "err", err)
		} else {
			board = db
		}
	}
	for _, p := range ports {
		srv, err := server.New(server.Config{
			Listen:           net.JoinHostPort("", strconv.Itoa(p)),
			MaxGames:         1,
			Rules:            &rules,
			Mode:             hc.mode(),
			Stage:            hc.Stage,
			Warp:             hc.Warp,
			Discovery:        hc.Discovery,
			WebTransportAddr: hc.WebTransport,
			Name:             hc.Name,
			Logger:           log.With("component", "server"),
			Bots:             func(mode uint8, seed uint64) server.Bots { return bot.NewRoomBots(mode, seed) },
			Leaderboard:      board,
		})
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			log.Debug("port taken", "port", p, "err", err)
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		h := &Host{srv: srv, cancel: cancel, done: make(chan struct{}), Port: srv.Port(), Rules: rules, Mode: hc.mode(), db: db}
		h.Addrs = core.JoinAddrs(h.Port)
		go func() {
			defer close(h.done)
			if err := srv.Run(ctx); err != nil {
				log.Error("server", "err", err)
			}
			if db != nil { // after Run: every score recorded
				db.Close()
			}
		}()
		if p != port && port > 0 {
			log.Info("hosting port taken, using another", "wanted", port, "port", h.Port)
		}
		log.Info("hosting", "port", h.Port, "addrs", h.Addrs, "mode", wire.ModeName(h.Mode), "scores", hc.DB)
		return h, nil
	}
	if db != nil {
		db.Close()
	}
	return nil, fmt.Errorf("cannot open a port to host the game: %w", firstErr)
}

// LocalAddr is the address the host's own client joins.
func (h *Host) LocalAddr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(h.Port)) }

// Stop ends every session (Logout ServerShutdown) and waits, at most 2 s,
// for the server to stop.
func (h *Host) Stop() {
	h.cancel()
	h.srv.Close()
	select {
	case <-h.done:
	case <-time.After(2 * time.Second):
	}
}

// Session is this client's connection to a game.
type Session struct {
	C       *client.Client
	Addr    string
	Hosting bool
	Started time.Time
	rec     *recording   // the game's recording, or nil
	watch   *watchTarget // what a spectator's session watches (7.17), or nil
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
