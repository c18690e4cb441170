package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
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
	if *f.listen != "" {
		ua, err := net.ResolveUDPAddr("udp", *f.listen)
		if err != nil {
			stop()
			return nil, fmt.Errorf("-rendezvous-listen %q: %w", *f.listen, err)
		}
		pc, err := net.ListenUDP("udp", ua)
		if err != nil {
			stop()
			return nil, fmt.Errorf("-rendezvous-listen: %w", err)
		}
		rv := rendezvous.NewServer(rendezvous.Config{Logger: log})
		log.Info("rendezvous listening", "addr", pc.LocalAddr().String())
		wg.Go(func() { rv.Serve(pc) })
		wg.Go(func() { // its counters every rendezvousStats when they changed, and at the end
			logStats := func(msg string, st rendezvous.Stats) {
				log.Info(msg, "hosts", st.Hosts, "pairs", st.Pairs, "registers", st.Registers,
					"lookups", st.Lookups, "relayed_packets", st.RelayedPackets, "relayed_bytes", st.RelayedBytes,
					"bytes_in", st.BytesIn, "bytes_out", st.BytesOut, "over_budget", st.OverBudget,
					"rate_limited", st.RateLimited, "dropped", st.Dropped)
			}
			t := time.NewTicker(rendezvousStats)
			defer t.Stop()
			var last rendezvous.Stats
			for {
				select {
				case <-ctx.Done():
					logStats("rendezvous stopped", rv.Stats())
					pc.Close()
					return
				case <-t.C:
					if st := rv.Stats(); st != last {
						last = st
						logStats("rendezvous stats", st)
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
	end, err := f.start(ctx, nil, log)
	if err != nil {
		log.Error("cannot start the rendezvous", "err", err)
		return 1
	}
	<-ctx.Done()
	end()
	return 0
}
