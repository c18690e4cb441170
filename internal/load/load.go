// Package load plays many real game clients from one process, to load a
// server (cmd/rtype-load, and the players-per-core section of
// cmd/rtype-bench): each client logs in over TCP, binds its UDP socket
// (with the Challenge and cookie of a version 2 session, PROTOCOL.md 7.3),
// sends 60 Inputs per second while moving up and down and firing, so that
// its game stays busy, and acknowledges the snapshots and events it
// receives as the protocol requires.
//
// By default the clients are light (light.go): a session keeps its link
// and no world, sessions share UDP sockets (Config.PerSocket) read and
// written in batches, so that the load costs less than the server it
// loads. With Config.Full each client is a net/client.Client, the client
// the game uses: its snapshots are rebuilt (4.8, 7.8) before they are
// acknowledged and it keeps the small world that rebuilding needs; one
// goroutine drives the inputs of every client from a 60 Hz ticker; each
// client has its own UDP socket and its receiving goroutine.
package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"rtype/net/client"
	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
)

// Config is one load run.
type Config struct {
	// Addr is the server's TCP and UDP address (HOST:PORT).
	Addr string
	// N clients are played. Default 1.
	N int
	// Duration of the run once the clients have logged in (Run only).
	// Default 10 s.
	Duration time.Duration
	// Protocol is the version spoken: 1 or 2. Default 2.
	Protocol uint8
	// Seed seeds the clients' play (0: a fixed seed of 1).
	Seed uint64
	// Logins is how many logins are in flight at once. Default 8.
	Logins int
	// Progress, when set, receives a report line every Every (Run only).
	Progress io.Writer
	// Every is the interval of progress reports. Default 5 s.
	Every time.Duration
	// Logger logs the clients' errors. Default slog.Default().
	Logger *slog.Logger
	// AtEnd, when set, is called by Run once the run is measured, before
	// the clients log out.
	AtEnd func()
	// Until, when set, ends Run before Duration at the first report,
	// taken every Every, for which it returns true: a run that lasts
	// until its clients did something rather than for a time, as tests
	// need on a machine whose speed they do not know.
	Until func(Report) bool
	// Full plays each client as a net/client.Client (its own socket and
	// goroutines, its snapshots rebuilt) instead of a light session.
	Full bool
	// PerSocket is how many light sessions share one UDP socket. Default
	// 16; 1 gives every session a socket (and an address) of its own.
	PerSocket int
	// Parked reads each light socket with a goroutine of its own, parked
	// in the runtime's poller until a datagram comes, instead of reading
	// every socket without waiting at each tick (the default, where the
	// system has recvmmsg). On loopback a parked reader is woken by the
	// server's send, which the server's CPU time then includes.
	Parked bool
	// Phases spreads the light sockets' sends over each tick: socket i
	// sends (and, unless Parked, reads) at phase i mod Phases, Phases
	// times a tick, as real clients send at any moment of a tick rather
	// than all at once. Default 8 (every 2.1 ms); 1 sends every socket's
	// Inputs together at each tick.
	Phases int
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
	// EventDatagrams are the Event datagrams received, EventFrames the
	// events they and the Snapshots' tails carried (resent ones included:
	// EventFrames - Events were repeats), TailSnapshots the Snapshots
	// whose tail carried events (v2, PROTOCOL.md 7.8), Acks the Ack
	// datagrams sent (light clients only).
	EventDatagrams, EventFrames, TailSnapshots, Acks uint64
	Seconds                                          float64 // length of the measured run
	CPU                                              float64 // this process's CPU seconds (user+sys) during the run
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
	play      play
	snapshots atomic.Uint64
	events    atomic.Uint64
	evbuf     []wire.Event
	base      link.Stats // counters at the start of the measure
	base0     ClientCount
}

// Load is a running load: its clients logged in and playing.
type Load struct {
	cfg    Config
	light  *light // the light clients, or nil (Config.Full)
	ps     []*player
	failed int
	stop   chan struct{}
	wg     sync.WaitGroup

	mu   sync.Mutex
	t0   time.Time
	cpu0 float64
}

// Start logs cfg.N clients in (cfg.Logins at a time) and plays them until
// Close. It fails when no client logged in.
func Start(ctx context.Context, cfg Config) (*Load, error) {
	if cfg.N <= 0 {
		cfg.N = 1
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	if cfg.Protocol == 0 {
		cfg.Protocol = wire.Version2
	}
	if !wire.Supported(cfg.Protocol) {
		return nil, fmt.Errorf("load: protocol %d: want 1 or 2", cfg.Protocol)
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Logins <= 0 {
		cfg.Logins = 8
	}
	if cfg.Every <= 0 {
		cfg.Every = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.PerSocket <= 0 {
		cfg.PerSocket = 16
	}
	if cfg.Phases <= 0 {
		cfg.Phases = 8
	}
	if !cfg.Full {
		lt, err := startLight(ctx, cfg)
		if err != nil {
			return nil, err
		}
		l := &Load{cfg: cfg, light: lt}
		l.Mark()
		return l, nil
	}
	l := &Load{cfg: cfg, ps: make([]*player, cfg.N), stop: make(chan struct{})}
	for i := range l.ps {
		l.ps[i] = &player{play: play{rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)))}}
	}
	l.failed = logIn(cfg, func(i int) error {
		p := l.ps[i]
		c, err := client.Dial(ctx, client.Config{
			Addr: cfg.Addr, Name: clientName(i), Logger: cfg.Logger,
			Version:    cfg.Protocol,
			OnSnapshot: func(*link.Rebuilt) { p.snapshots.Add(1) },
			OnFrame:    func(*link2.Rebuilt) { p.snapshots.Add(1) },
		})
		p.c = c
		return err
	})
	if l.Clients() == 0 {
		l.Close()
		return nil, errors.New("load: no client logged in")
	}
	l.Mark()
	l.wg.Add(1)
	go l.drive()
	return l, nil
}

// logIn runs login(i) for every client i, cfg.Logins at a time, and
// returns how many failed (each logged).
func logIn(cfg Config, login func(i int) error) int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	failed := 0
	sem := make(chan struct{}, cfg.Logins)
	for i := range cfg.N {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := login(i); err != nil {
				cfg.Logger.Warn("load: login", "client", i+1, "err", err)
				mu.Lock()
				failed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return failed
}

// clientName is the name client i logs in with.
func clientName(i int) string { return fmt.Sprintf("load%d", i+1) }

// Clients returns the number of clients that logged in.
func (l *Load) Clients() int {
	if l.light != nil {
		return l.light.clients()
	}
	n := 0
	for _, p := range l.ps {
		if p.c != nil {
			n++
		}
	}
	return n
}

// drive sets every client's input 60 times a second until Close.
func (l *Load) drive() {
	defer l.wg.Done()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	var n uint64
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
			n++
			for _, p := range l.ps {
				p.tick(n)
			}
		}
	}
}

// Mark starts the measure again: Report counts from here.
func (l *Load) Mark() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t0, l.cpu0 = time.Now(), CPUSeconds()
	if l.light != nil {
		l.light.mark()
		return
	}
	for _, p := range l.ps {
		if p.c != nil {
			p.base = p.c.Stats().Link
			p.base0 = ClientCount{Snapshots: p.snapshots.Load(), Events: p.events.Load()}
		}
	}
}

// Report returns the figures since the last Mark (or the logins).
func (l *Load) Report() Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	rep := Report{Failed: l.failed, Seconds: time.Since(l.t0).Seconds(), CPU: CPUSeconds() - l.cpu0}
	if l.light != nil {
		rep.Failed = l.light.failed
		l.light.report(&rep)
		return rep
	}
	rep.PerClient = make([]ClientCount, len(l.ps))
	for i, p := range l.ps {
		if p.c == nil {
			continue
		}
		rep.Clients++
		st := p.c.Stats().Link
		rep.DatagramsIn += st.RecvDatagrams - p.base.RecvDatagrams
		rep.DatagramsOut += st.SentDatagrams - p.base.SentDatagrams
		rep.BytesIn += st.RecvBytes - p.base.RecvBytes
		rep.BytesOut += st.SentBytes - p.base.SentBytes
		cc := ClientCount{Snapshots: p.snapshots.Load() - p.base0.Snapshots, Events: p.events.Load() - p.base0.Events}
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

// Close stops the inputs and logs every client out.
func (l *Load) Close() {
	if l.light != nil {
		l.light.close()
		return
	}
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wg.Wait()
	var wg sync.WaitGroup
	for _, p := range l.ps {
		if p.c != nil {
			wg.Add(1)
			go func() { defer wg.Done(); p.c.Close() }()
		}
	}
	wg.Wait()
}

// Run logs cfg.N clients in, plays them for cfg.Duration (or until ctx
// ends, or cfg.Until holds) and reports.
func Run(ctx context.Context, cfg Config) (Report, error) {
	l, err := Start(ctx, cfg)
	if err != nil {
		if cfg.N > 0 {
			return Report{Failed: cfg.N}, err
		}
		return Report{}, err
	}
	defer l.Close()
	every := time.NewTicker(l.cfg.Every)
	defer every.Stop()
	end := time.NewTimer(l.cfg.Duration)
	defer end.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-end.C:
			break loop
		case <-every.C:
			if cfg.Progress == nil && cfg.Until == nil {
				continue
			}
			rep := l.Report()
			if cfg.Progress != nil {
				fmt.Fprintln(cfg.Progress, rep)
			}
			if cfg.Until != nil && cfg.Until(rep) {
				break loop
			}
		}
	}
	rep := l.Report()
	if cfg.AtEnd != nil {
		cfg.AtEnd()
	}
	return rep, nil
}

// tick sets this tick's input (play.actions).
func (p *player) tick(n uint64) {
	if p.c == nil {
		return
	}
	p.evbuf = p.c.DrainEvents(p.evbuf[:0])
	p.events.Add(uint64(len(p.evbuf)))
	p.c.SetInput(p.play.actions(n))
}
