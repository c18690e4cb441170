// Command rtype-load loads a game server with many real clients from one
// process, to size a machine: each client logs in over TCP, binds its UDP
// socket (with the Challenge and cookie of a version 2 session,
// PROTOCOL.md 7.3), sends 60 Inputs per second while moving up and down
// and firing, so that its game stays busy, and acknowledges the snapshots
// and events it receives as the protocol requires.
//
// Usage:
//
//	rtype-load -addr HOST:PORT -n N -duration D [-protocol 1|2] [-seed S] [-v]
//
// The clients are named load1..loadN. Each is a net/client.Client, the
// client the game uses: its snapshots are rebuilt (4.8, 7.8) before they
// are acknowledged, so that every acknowledgement is honest, and it keeps
// the small world that rebuilding needs; nothing else is drawn or kept.
// One goroutine drives the inputs of every client from a 60 Hz ticker;
// each client has its own UDP socket and its receiving goroutine. Batched
// syscalls (recvmmsg/sendmmsg) are not used yet.
//
// At the end (and every 5 s with -v) it prints the clients connected, the
// datagrams and bytes in and out per second, and its own CPU time (user +
// system, from getrusage) per client-second.
//
// The server allows 5 logins per 10 s and 8 sessions from one IP address
// (server.Config LoginLimit and MaxSessionsPerIP). rtype-server raises the
// second with -max-sessions-per-ip and -max-games bounds the games (4
// players each); the login rate has no flag, so a run of more than 5
// clients against rtype-server needs a server built with a raised
// LoginLimit (as the test does).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"rtype/net/client"
	"rtype/net/link"
	"rtype/net/wire"
)

// Config is one load run.
type Config struct {
	// Addr is the server's TCP and UDP address (HOST:PORT).
	Addr string
	// N clients are played. Default 1.
	N int
	// Duration of the run once the clients have logged in. Default 10 s.
	Duration time.Duration
	// Protocol is the version spoken: 1 or 2. Default 2.
	Protocol uint8
	// Seed seeds the clients' play (0: a fixed seed of 1).
	Seed uint64
	// Progress, when set, receives a report line every Every.
	Progress io.Writer
	// Every is the interval of progress reports. Default 5 s.
	Every time.Duration
	// Logger logs the clients' errors. Default slog.Default().
	Logger *slog.Logger

	atEnd func() // called once measured, before the clients log out
}

// Report is what a run measured.
type Report struct {
	Clients   int // clients that logged in and bound
	Connected int // clients still connected at the end
	Failed    int // clients that could not log in or bind
	// Snapshots and Events received (rebuilt snapshots, distinct events),
	// over every client.
	Snapshots, Events uint64
	// Datagrams and bytes over the run, every client summed.
	DatagramsIn, DatagramsOut uint64
	BytesIn, BytesOut         uint64
	Seconds                   float64 // length of the measured run
	CPU                       float64 // this process's CPU seconds (user+sys) during the run
	// PerClient counts the snapshots and events each client received.
	PerClient []ClientCount
}

// ClientCount is one client's share of a Report.
type ClientCount struct {
	Snapshots, Events uint64
	Err               error // why it ended early, or nil
}

// CPUPerClientSecond is the CPU seconds spent per client and second.
func (r Report) CPUPerClientSecond() float64 {
	if r.Clients == 0 || r.Seconds == 0 {
		return 0
	}
	return r.CPU / (float64(r.Clients) * r.Seconds)
}

// String is the report as printed.
func (r Report) String() string {
	s := r.Seconds
	if s == 0 {
		s = 1
	}
	return fmt.Sprintf("clients %d (connected %d, failed %d) over %.1fs: in %.0f datagrams/s %.0f kB/s, out %.0f datagrams/s %.0f kB/s; snapshots %d, events %d; cpu %.2fs = %.1f µs per client-second",
		r.Clients, r.Connected, r.Failed, r.Seconds,
		float64(r.DatagramsIn)/s, float64(r.BytesIn)/s/1000,
		float64(r.DatagramsOut)/s, float64(r.BytesOut)/s/1000,
		r.Snapshots, r.Events, r.CPU, r.CPUPerClientSecond()*1e6)
}

type player struct {
	c         *client.Client
	rng       *rand.Rand
	move      uint8 // ActionUp, ActionDown or 0
	left      int   // ticks until move changes
	snapshots atomic.Uint64
	events    atomic.Uint64
	evbuf     []wire.Event
	base      link.Stats // counters at the start of the run
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// run logs cfg.N clients in, plays them for cfg.Duration (or until ctx
// ends) and reports.
func run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.N <= 0 {
		cfg.N = 1
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	if cfg.Protocol == 0 {
		cfg.Protocol = wire.Version2
	}
	if cfg.Protocol != 1 && cfg.Protocol != 2 {
		return Report{}, fmt.Errorf("rtype-load: protocol %d: want 1 or 2", cfg.Protocol)
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Every <= 0 {
		cfg.Every = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ps := make([]*player, cfg.N)
	var rep Report
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8) // logins in flight
	for i := range ps {
		p := &player{rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)))}
		ps[i] = p
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := client.Dial(ctx, client.Config{
				Addr: cfg.Addr, Name: fmt.Sprintf("load%d", i+1), Logger: cfg.Logger,
				Version:     cfg.Protocol,
				OnSnapshot:  func(*link.Rebuilt) { p.snapshots.Add(1) },
				OnSnapshot2: func(*link.Rebuilt2) { p.snapshots.Add(1) },
			})
			if err != nil {
				cfg.Logger.Warn("rtype-load: login", "client", i+1, "err", err)
				mu.Lock()
				rep.Failed++
				mu.Unlock()
				return
			}
			p.c = c
		}()
	}
	wg.Wait()
	defer func() {
		for _, p := range ps {
			if p.c != nil {
				p.c.Close()
			}
		}
	}()
	for _, p := range ps {
		if p.c != nil {
			rep.Clients++
			p.base = p.c.Stats().Link
		}
	}
	if rep.Clients == 0 {
		return rep, errors.New("rtype-load: no client logged in")
	}
	start, cpu0 := time.Now(), cpuSeconds()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	every := time.NewTicker(cfg.Every)
	defer every.Stop()
	end := time.NewTimer(cfg.Duration)
	defer end.Stop()
	var n uint64
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-end.C:
			break loop
		case <-every.C:
			if cfg.Progress != nil {
				fmt.Fprintln(cfg.Progress, collect(ps, rep, start, cpu0))
			}
		case <-tick.C:
			n++
			for _, p := range ps {
				p.play(n)
			}
		}
	}
	rep = collect(ps, rep, start, cpu0)
	if cfg.atEnd != nil {
		cfg.atEnd()
	}
	return rep, nil
}

// play sets this tick's input: a move up, down or none held for 0.25 to
// 1.5 s, and fire pressed and released every 8 ticks.
func (p *player) play(n uint64) {
	if p.c == nil {
		return
	}
	p.evbuf = p.c.DrainEvents(p.evbuf[:0])
	p.events.Add(uint64(len(p.evbuf)))
	if p.left--; p.left <= 0 {
		p.move = [...]uint8{0, wire.ActionUp, wire.ActionDown}[p.rng.IntN(3)]
		p.left = 15 + p.rng.IntN(76)
	}
	act := p.move
	if n/8%2 == 0 {
		act |= wire.ActionFire
	}
	p.c.SetInput(act)
}

func collect(ps []*player, rep Report, start time.Time, cpu0 float64) Report {
	rep.Seconds = time.Since(start).Seconds()
	rep.CPU = cpuSeconds() - cpu0
	rep.PerClient = make([]ClientCount, len(ps))
	for i, p := range ps {
		if p.c == nil {
			continue
		}
		st := p.c.Stats().Link
		rep.DatagramsIn += st.RecvDatagrams - p.base.RecvDatagrams
		rep.DatagramsOut += st.SentDatagrams - p.base.SentDatagrams
		rep.BytesIn += st.RecvBytes - p.base.RecvBytes
		rep.BytesOut += st.SentBytes - p.base.SentBytes
		cc := ClientCount{Snapshots: p.snapshots.Load(), Events: p.events.Load()}
		select {
		case <-p.c.Done():
			cc.Err = p.c.Err()
		default:
			rep.Connected++
		}
		rep.Snapshots += cc.Snapshots
		rep.Events += cc.Events
		rep.PerClient[i] = cc
	}
	return rep
}

func main() {
	addr := flag.String("addr", "127.0.0.1:4242", "server TCP and UDP address")
	n := flag.Int("n", 8, "clients to play")
	dur := flag.Duration("duration", 10*time.Second, "length of the run after login")
	proto := flag.Int("protocol", 2, "protocol version: 1 or 2")
	seed := flag.Uint64("seed", 1, "seed of the clients' play")
	verbose := flag.Bool("v", false, "report every 5 s")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *proto != 1 && *proto != 2 {
		fmt.Fprintf(os.Stderr, "rtype-load: -protocol %d: want 1 or 2\n", *proto)
		os.Exit(2)
	}
	cfg := Config{Addr: *addr, N: *n, Duration: *dur, Protocol: uint8(*proto), Seed: *seed}
	if *verbose {
		cfg.Progress = os.Stdout
	}
	rep, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(rep)
	if rep.Failed > 0 || rep.Connected < rep.Clients {
		os.Exit(1)
	}
}
