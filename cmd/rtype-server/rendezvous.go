package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"rtype/net/rendezvous"
	"rtype/server"
)

// rendezvousStats is how often the rendezvous logs its counters (when
// they changed).
const rendezvousStats = 5 * time.Second

// rendezvousFlags are the flags of the rendezvous (PROTOCOL.md Part V):
// running one, and registering this server's rooms at one.
type rendezvousFlags struct {
	listen, addr, portmap *string
	relayAddr             *string
	maxBrowsers           *int
	run                   *rendezvousRun
}

// rendezvousRun is the rendezvous run by -rendezvous-listen, made by open.
type rendezvousRun struct {
	pc  *net.UDPConn
	rv  *rendezvous.Server
	web *rendezvous.Web
}

// addRendezvousFlags registers -rendezvous-listen and -rendezvous.
func addRendezvousFlags() rendezvousFlags {
	return rendezvousFlags{
		listen: flag.String("rendezvous-listen", "",
			`run a rendezvous on this UDP address (e.g. ":4250"), on a public machine: hosted games register their room codes there, and friends find them by code (PROTOCOL.md Part V); with -listen "" only the rendezvous runs; "" runs none`),
		addr: flag.String("rendezvous", "",
			"register this server's room codes at the rendezvous at this host:port, so that they work from anywhere (needs -webtransport: the sessions go over its UDP socket)"),
		portmap: flag.String("portmap", "auto",
			"with -rendezvous: ask the router to map the -webtransport port while hosting: auto (NAT-PMP, then UPnP IGD), natpmp, upnp or off"),
		relayAddr: flag.String("rendezvous-relay-addr", "",
			`with -rendezvous-listen: the host:port browsers reach the rendezvous' UDP port by, for its WebTransport relay (default: the host name the browser opened the page of -web by, with -rendezvous-listen's port)`),
		maxBrowsers: flag.Int("rendezvous-max-browsers", 256,
			"with -rendezvous-listen: browser sessions the rendezvous relays at once (8 per IP address)"),
		run: &rendezvousRun{},
	}
}

// open makes the rendezvous of -rendezvous-listen, and its browsers'
// side (the lookup that -web serves at /join, the WebTransport relay on
// its UDP port); start serves them.
func (f rendezvousFlags) open(log *slog.Logger) error {
	if *f.listen == "" {
		return nil
	}
	ua, err := net.ResolveUDPAddr("udp", *f.listen)
	if err != nil {
		return fmt.Errorf("-rendezvous-listen %q: %w", *f.listen, err)
	}
	pc, err := net.ListenUDP("udp", ua)
	if err != nil {
		return fmt.Errorf("-rendezvous-listen: %w", err)
	}
	rv := rendezvous.NewServer(rendezvous.Config{Logger: log})
	web, err := rendezvous.NewWeb(rv, rendezvous.WebConfig{Logger: log, RelayAddr: *f.relayAddr, MaxSessions: *f.maxBrowsers})
	if err != nil {
		pc.Close()
		return fmt.Errorf("-rendezvous-listen: %w", err)
	}
	*f.run = rendezvousRun{pc: pc, rv: rv, web: web}
	return nil
}

// join is the lookup of room codes for -web's page, or nil when no
// rendezvous runs here.
func (f rendezvousFlags) join() http.Handler {
	if f.run.web == nil {
		return nil
	}
	return f.run.web
}

// setPage tells the hosts registering at the rendezvous of
// -rendezvous-listen the port of -web's page, which then joins by code
// (PROTOCOL.md 10.8): their lobbies give browsers its link.
func (f rendezvousFlags) setPage(port uint16) {
	if f.run.rv != nil && f.run.web != nil {
		f.run.rv.SetPage(port)
	}
}

// check refuses -rendezvous without -webtransport, and an unknown
// -portmap.
func (f rendezvousFlags) check(cfg *server.Config) error {
	if *f.addr != "" && cfg.WebTransportAddr == "" {
		return fmt.Errorf("-rendezvous needs -webtransport (the friends' sessions go over its UDP port)")
	}
	switch *f.portmap {
	case "auto", "natpmp", "upnp", "off":
	default:
		return fmt.Errorf("-portmap %q: auto, natpmp, upnp or off", *f.portmap)
	}
	return nil
}

// start runs what the flags ask for until ctx ends; stop waits for it.
func (f rendezvousFlags) start(ctx context.Context, srv *server.Server, log *slog.Logger) (stop func(), err error) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	stop = func() { cancel(); wg.Wait() }
	if r := f.run; r.rv != nil {
		rv, pc := r.rv, r.pc
		log.Info("rendezvous listening", "addr", pc.LocalAddr().String())
		wg.Go(func() {
			if err := r.web.Serve(ctx, pc); err != nil {
				log.Error("rendezvous", "err", err)
			}
		})
		wg.Go(func() { // its counters every rendezvousStats when they changed, and at the end
			logStats := func(msg string, st rendezvous.Stats, ws rendezvous.WebStats) {
				log.Info(msg, "hosts", st.Hosts, "pairs", st.Pairs, "registers", st.Registers,
					"lookups", st.Lookups, "web_lookups", st.WebLookups, "relayed_packets", st.RelayedPackets, "relayed_bytes", st.RelayedBytes,
					"bytes_in", st.BytesIn, "bytes_out", st.BytesOut, "over_budget", st.OverBudget,
					"rate_limited", st.RateLimited, "dropped", st.Dropped,
					"browser_sessions", ws.Sessions, "browser_opened", ws.Opened, "browser_refused", ws.Refused,
					"browser_quic_in", ws.QUICIn)
			}
			t := time.NewTicker(rendezvousStats)
			defer t.Stop()
			var last rendezvous.Stats
			var lastW rendezvous.WebStats
			for {
				select {
				case <-ctx.Done():
					logStats("rendezvous stopped", rv.Stats(), r.web.Stats())
					pc.Close()
					return
				case <-t.C:
					if st, ws := rv.Stats(), r.web.Stats(); st != last || ws != lastW {
						last, lastW = st, ws
						logStats("rendezvous stats", st, ws)
					}
				}
			}
		})
	}
	if *f.addr != "" && srv != nil {
		wg.Go(func() {
			if err := srv.RunRendezvous(ctx, server.RendezvousConfig{Addr: *f.addr, Logger: log, PortMap: *f.portmap}); err != nil {
				log.Error("rendezvous", "err", err)
			}
		})
	}
	return stop, nil
}

// alone reports whether the flags ask for a rendezvous and no game
// server (-listen "").
func (f rendezvousFlags) alone(listen string) bool { return listen == "" && *f.listen != "" }

// runAlone runs the rendezvous alone until SIGINT or SIGTERM; it returns
// the exit status.
func (f rendezvousFlags) runAlone(log *slog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := f.open(log); err != nil {
		log.Error("cannot start the rendezvous", "err", err)
		return 1
	}
	pageDone, pagePort, err := pagef.start(ctx, nil, f.join(), log)
	if err != nil {
		log.Error("cannot serve the game's page", "err", err)
		return 1
	}
	f.setPage(pagePort)
	end, err := f.start(ctx, nil, log)
	if err != nil {
		log.Error("cannot start the rendezvous", "err", err)
		return 1
	}
	<-ctx.Done()
	end()
	if err := <-pageDone; err != nil {
		log.Error("the game's page failed", "err", err)
		return 1
	}
	return 0
}
