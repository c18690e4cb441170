//go:build !js

package game

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"rtype/bot"
	"rtype/game/core"
	"rtype/net/portmap"
	"rtype/net/wire"
	"rtype/server"
	"rtype/server/store"
	"rtype/sim"
	"rtype/sim/stage"
	"rtype/web"
)

// canHost tells that this build can host games (the browser's cannot).
const canHost = true

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
	// Stage and Warp are the stage its Stage games play (nil: the
	// server's default, stage 1) and their warp (HostConfig's): the
	// client draws its terrain.
	Stage *stage.Stage
	Warp  string
	db    *store.Store // its leaderboard, or nil

	// The rendezvous, when HostConfig has one: rvCancel ends it, rvDone
	// is closed when it ended (the port mapping removed).
	rvCancel context.CancelFunc
	rvDone   chan struct{}
	mu       sync.Mutex
	reach    Reach
	rvStart  time.Time
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
	wt := hc.WebTransport
	if hc.Rendezvous != "" && wt == "" {
		wt = ":0" // the friends' sessions go over its UDP socket
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
			WebTransportAddr: wt,
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
		h := &Host{srv: srv, cancel: cancel, done: make(chan struct{}), Port: srv.Port(), Rules: rules, Mode: hc.mode(), db: db, Stage: hc.Stage, Warp: hc.Warp}
		h.Addrs = core.JoinAddrs(h.Port)
		hosted.Store(srv)
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
		log.Info("hosting", "port", h.Port, "addrs", h.Addrs, "mode", wire.ModeName(h.Mode), "scores", hc.DB,
			"rendezvous", hc.Rendezvous)
		if hc.Rendezvous != "" {
			h.startRendezvous(hc.Rendezvous, hc.PortMap, hc.WebPort, log.With("component", "rendezvous"))
		}
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
// for the server to stop, and at most 4 s in all for the router's port
// mapping, if it made one, to be removed (a router that never answered
// is not waited for).
func (h *Host) Stop() {
	hosted.CompareAndSwap(h.srv, nil)
	if h.rvCancel != nil {
		h.rvCancel()
	}
	h.cancel()
	h.srv.Close()
	deadline := time.After(4 * time.Second)
	select {
	case <-h.done:
	case <-time.After(2 * time.Second):
	}
	if h.rvDone != nil && h.Reach().Mapped.IsValid() { // a router that answered: its mapping goes
		select {
		case <-h.rvDone:
		case <-deadline:
		}
	}
}

// startRendezvous registers the server's rooms at the rendezvous at addr
// and asks the router for a port mapping (portMap: RendezvousConfig's
// PortMap, "" for auto), until Stop. When the router maps the UDP port,
// it is asked for the TCP port webPort too (the page browsers load; 0
// none), by the same method.
func (h *Host) startRendezvous(addr, portMap string, webPort int, log *slog.Logger) {
	if portMap == "" {
		portMap = "auto"
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.rvCancel, h.rvDone = cancel, make(chan struct{})
	h.mu.Lock()
	h.reach, h.rvStart = Reach{Rendezvous: addr}, time.Now()
	h.mu.Unlock()
	update := func(f func(r *Reach)) {
		h.mu.Lock()
		f(&h.reach)
		r := h.reach
		h.mu.Unlock()
		log.Info("friends anywhere", "registered", r.Registered, "observed", r.Observed.String(), "direct", r.Direct,
			"mapped", r.Mapped.String(), "method", r.Method, "web_mapped", r.WebMapped.String(), "codes", r.Codes)
	}
	var wtPort uint16
	if info, ok := h.srv.WebTransport(); ok {
		if ap, err := netip.ParseAddrPort(info.Addr); err == nil {
			wtPort = ap.Port()
		}
	}
	h.mu.Lock()
	h.reach.WTPort = wtPort
	h.mu.Unlock()
	var wg sync.WaitGroup
	var webOnce sync.Once
	mapWeb := func(how portmap.Method) { // the page's TCP port, within RunRendezvous (wg above zero)
		if webPort <= 0 || webPort > 65535 {
			return
		}
		webOnce.Do(func() {
			wg.Go(func() {
				err := portmap.Keep(ctx, portmap.Config{Methods: []portmap.Method{how}, TCP: true, Logger: log}, uint16(webPort),
					func(a netip.AddrPort, _ portmap.Method) { update(func(r *Reach) { r.WebMapped = a }) })
				if err != nil {
					log.Info("the page's port is not mapped: browsers join on this network only", "err", err)
				}
			})
		})
	}
	wg.Go(func() {
		err := h.srv.RunRendezvous(ctx, server.RendezvousConfig{Addr: addr, PortMap: portMap, Logger: log,
			Registered: func(obs netip.AddrPort, page uint16) {
				update(func(r *Reach) {
					r.Registered, r.Observed, r.Direct = true, obs, obs.Port() == wtPort && isOwnAddr(obs.Addr())
					r.Page = page
				})
			},
			Mapped: func(a netip.AddrPort, how portmap.Method) {
				update(func(r *Reach) { r.Mapped, r.Method = a, string(how) })
				if a.IsValid() {
					mapWeb(how)
				}
			},
			Rooms: func(codes []wire.RoomCode) {
				update(func(r *Reach) {
					r.Codes = make([]string, 0, len(codes)) // a copy the lobby holds keeps its own
					for _, c := range codes {
						r.Codes = append(r.Codes, c.String())
					}
				})
			},
		})
		if err != nil {
			log.Warn("friends join on this network only", "err", err)
			update(func(r *Reach) { r.Err = err.Error() })
		}
	})
	go func() {
		wg.Wait()
		close(h.rvDone)
	}()
}

// Reach tells how friends outside this network reach the game.
func (h *Host) Reach() Reach {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.reach
	if r.Rendezvous != "" {
		r.Waited = time.Since(h.rvStart)
	}
	return r
}

// isOwnAddr reports whether a is an address of this machine's
// interfaces.
func isOwnAddr(a netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, ia := range addrs {
		if p, err := netip.ParsePrefix(ia.String()); err == nil && p.Addr().Unmap() == a.Unmap() {
			return true
		}
	}
	return false
}

// hosted is the server of the game this process hosts now, if any: the
// page of the listen server (HostedWebTransport) is served on goroutines
// of its own.
var hosted atomic.Pointer[server.Server]

// HostedWebTransport tells the page of the listen server (package web)
// where the game hosted now speaks WebTransport: ok false when nothing is
// hosted, or when it does not. Safe for concurrent use.
func HostedWebTransport() (web.Server, bool) {
	srv := hosted.Load()
	if srv == nil {
		return web.Server{}, false
	}
	info, ok := srv.WebTransport()
	return web.Server{Addr: info.Addr, CertHashes: info.CertHashes}, ok
}
