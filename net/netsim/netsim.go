// Package netsim implements a network impairment relay for testing the game
// under adverse network conditions.
//
// A [Relay] listens on one port number for both TCP (the session channel) and
// UDP (game datagrams), and forwards to a real server listening on the same
// port number for both protocols:
//
//   - TCP connections are piped verbatim in both directions, without
//     impairment.
//   - UDP datagrams are forwarded per client: for every distinct client
//     source address the relay opens its own UDP socket connected to the
//     server, so the server sees one distinct source address per client.
//     Datagrams are subjected to simulated loss, duplication, reordering,
//     delay and jitter, independently for each direction ([Config.Up] and
//     [Config.Down]).
//
// Impairment decisions are drawn from math/rand/v2 generators seeded from
// [Config.Seed], the direction and the client index (order of first
// appearance), so that the sequence of decisions for a given flow is
// reproducible. Actual delivery timing depends on the OS scheduler.
//
// The same impairment model runs in memory, on a clock the caller drives,
// as a [Pipe]: for tests that run both ends of a protocol in simulated
// time, with no sockets and exactly reproducible runs.
package netsim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// MaxDatagram is the largest UDP payload, in bytes, the relay forwards.
// Larger datagrams are discarded and counted as dropped.
const MaxDatagram = 1500

// DefaultIdleTimeout is the [Config.IdleTimeout] used when it is zero.
const DefaultIdleTimeout = 30 * time.Second

// DefaultListen is the [Config.Listen] address used when it is empty.
const DefaultListen = "127.0.0.1:0"

// reorderMinHold is the fixed part of the extra hold-back applied to a
// datagram chosen for reordering.
const reorderMinHold = 20 * time.Millisecond

// Impairment describes the simulated network conditions applied to the
// datagrams of one direction. The zero value forwards everything at once.
//
// For each datagram: with probability Loss it is dropped; otherwise it is
// sent, and with probability Dup a second copy is sent as well. Each copy is
// delivered after Delay plus a uniform offset in [-Jitter, +Jitter], clamped
// at zero. With probability Reorder the datagram (all its copies) is held
// back an extra Delay/2 + Jitter + 20ms so that later datagrams overtake it.
type Impairment struct {
	// Loss is the probability in [0, 1] that a datagram is dropped.
	Loss float64
	// Dup is the probability in [0, 1] that a forwarded datagram is
	// duplicated.
	Dup float64
	// Reorder is the probability in [0, 1] that a forwarded datagram is
	// held back so that it arrives after later ones.
	Reorder float64
	// Delay is the base one-way latency added to every datagram (>= 0).
	Delay time.Duration
	// Jitter is the maximum deviation (>= 0) from Delay; the actual delay
	// is uniform in [Delay-Jitter, Delay+Jitter], never below zero.
	Jitter time.Duration
}

// String returns a compact human-readable description of the impairment.
func (im Impairment) String() string {
	return fmt.Sprintf("loss=%g dup=%g reorder=%g delay=%s jitter=%s",
		im.Loss, im.Dup, im.Reorder, im.Delay, im.Jitter)
}

// Validate returns an error unless all probabilities are in [0, 1] and all
// durations are non-negative.
func (im Impairment) Validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"Loss", im.Loss}, {"Dup", im.Dup}, {"Reorder", im.Reorder}} {
		if math.IsNaN(p.v) || p.v < 0 || p.v > 1 {
			return fmt.Errorf("netsim: %s must be in [0, 1], got %v", p.name, p.v)
		}
	}
	if im.Delay < 0 {
		return fmt.Errorf("netsim: Delay must be >= 0, got %s", im.Delay)
	}
	if im.Jitter < 0 {
		return fmt.Errorf("netsim: Jitter must be >= 0, got %s", im.Jitter)
	}
	return nil
}

// clamped returns a copy of im with probabilities forced into [0, 1] (NaN
// becomes 0) and negative durations set to zero.
func (im Impairment) clamped() Impairment {
	c := func(p float64) float64 {
		if math.IsNaN(p) || p < 0 {
			return 0
		}
		return min(p, 1)
	}
	im.Loss, im.Dup, im.Reorder = c(im.Loss), c(im.Dup), c(im.Reorder)
	im.Delay, im.Jitter = max(im.Delay, 0), max(im.Jitter, 0)
	return im
}

// Config configures a [Relay].
type Config struct {
	// Listen is the "host:port" address on which the relay listens for
	// both TCP and UDP. If the port is 0, a free port number usable for
	// both protocols is chosen. Default: [DefaultListen].
	Listen string
	// To is the "host:port" address of the real server, which must listen
	// on that port for both TCP and UDP. Required.
	To string
	// Up is the impairment applied to client->server datagrams.
	Up Impairment
	// Down is the impairment applied to server->client datagrams.
	Down Impairment
	// Seed seeds the impairment decisions. Default: 0 (which is a valid,
	// deterministic seed like any other).
	Seed int64
	// IdleTimeout is how long a UDP client mapping may see no traffic in
	// either direction before its server-side socket is closed and the
	// mapping forgotten. Default: [DefaultIdleTimeout].
	IdleTimeout time.Duration
	// Logger receives the relay's logs. Default: slog.Default().
	Logger *slog.Logger
}

// Stats counts what the relay did to the datagrams of one direction.
type Stats struct {
	// Forwarded is the number of datagram copies successfully written
	// toward the destination, duplicates included.
	Forwarded uint64
	// Dropped is the number of datagrams discarded, by simulated loss or
	// because they exceeded [MaxDatagram].
	Dropped uint64
	// Duplicated is the number of extra copies scheduled by simulated
	// duplication.
	Duplicated uint64
	// Reordered is the number of datagrams held back by simulated
	// reordering.
	Reordered uint64
}

// String returns a human-readable summary of the counters.
func (s Stats) String() string {
	return fmt.Sprintf("forwarded=%d dropped=%d duplicated=%d reordered=%d",
		s.Forwarded, s.Dropped, s.Duplicated, s.Reordered)
}

// counters is the concurrently updated form of Stats.
type counters struct {
	forwarded, dropped, duplicated, reordered atomic.Uint64
}

func (c *counters) snapshot() Stats {
	return Stats{
		Forwarded:  c.forwarded.Load(),
		Dropped:    c.dropped.Load(),
		Duplicated: c.duplicated.Load(),
		Reordered:  c.reordered.Load(),
	}
}

// impairments is the pair of per-direction impairments swapped atomically by
// SetImpairment.
type impairments struct {
	up, down Impairment
}

// dirIndex identifies a direction; it is mixed into RNG seeds.
type dirIndex uint64

const (
	dirUp   dirIndex = 1
	dirDown dirIndex = 2
)

// Relay is a TCP+UDP impairment relay. Create it with [New], serve with
// [Relay.Run] and stop it with [Relay.Close] or by cancelling Run's context.
type Relay struct {
	cfg   Config
	log   *slog.Logger
	tcpLn *net.TCPListener
	udp   *net.UDPConn
	toUDP *net.UDPAddr
	start time.Time
	pool  bufPool

	imp      atomic.Pointer[impairments]
	upStats  counters
	dnStats  counters
	upSched  *scheduler
	dnSched  *scheduler
	ctx      context.Context // cancelled by Close; used for dials
	cancel   context.CancelFunc
	done     chan struct{} // closed by Close
	closeOne sync.Once
	closeErr error
	wg       sync.WaitGroup

	mu      sync.Mutex // guards the fields below
	closed  bool
	running bool
	clients map[netip.AddrPort]*udpClient
	nextIdx uint64
	conns   map[net.Conn]struct{}
}

// New validates cfg, binds the TCP and UDP listeners and returns a relay
// ready to [Relay.Run]. The caller must eventually call [Relay.Close].
func New(cfg Config) (*Relay, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.To == "" {
		return nil, errors.New("netsim: Config.To is required")
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := cfg.Up.Validate(); err != nil {
		return nil, fmt.Errorf("%w (Config.Up)", err)
	}
	if err := cfg.Down.Validate(); err != nil {
		return nil, fmt.Errorf("%w (Config.Down)", err)
	}
	toUDP, err := net.ResolveUDPAddr("udp", cfg.To)
	if err != nil {
		return nil, fmt.Errorf("netsim: resolve To: %w", err)
	}
	tl, ul, err := listenPair(cfg.Listen)
	if err != nil {
		return nil, err
	}
	_ = ul.SetReadBuffer(1 << 20) // best effort; the OS may cap it

	ctx, cancel := context.WithCancel(context.Background())
	r := &Relay{
		cfg:     cfg,
		log:     cfg.Logger.With("component", "netsim"),
		tcpLn:   tl,
		udp:     ul,
		toUDP:   toUDP,
		start:   time.Now(),
		ctx:     ctx,
		cancel:  cancel,
		done:    make(chan struct{}),
		clients: make(map[netip.AddrPort]*udpClient),
		conns:   make(map[net.Conn]struct{}),
	}
	r.imp.Store(&impairments{up: cfg.Up, down: cfg.Down})
	r.upSched = newScheduler(r.now, &r.pool, r.deliverUp)
	r.dnSched = newScheduler(r.now, &r.pool, r.deliverDown)
	return r, nil
}

// listenPair binds TCP and UDP on the same host and port. With port 0 it
// binds TCP on an ephemeral port first, then UDP on the same number,
// retrying with a fresh TCP port if that UDP port is taken.
func listenPair(addr string) (*net.TCPListener, *net.UDPConn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("netsim: bad listen address %q: %w", addr, err)
	}
	attempts := 1
	if port == "0" {
		attempts = 10
	}
	var lastErr error
	for range attempts {
		ta, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			return nil, nil, fmt.Errorf("netsim: resolve %q: %w", addr, err)
		}
		tl, err := net.ListenTCP("tcp", ta)
		if err != nil {
			return nil, nil, fmt.Errorf("netsim: listen tcp: %w", err)
		}
		p := tl.Addr().(*net.TCPAddr).Port
		ua, err := net.ResolveUDPAddr("udp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err != nil {
			tl.Close()
			return nil, nil, fmt.Errorf("netsim: resolve %q: %w", addr, err)
		}
		ul, err := net.ListenUDP("udp", ua)
		if err == nil {
			return tl, ul, nil
		}
		tl.Close()
		lastErr = err
	}
	return nil, nil, fmt.Errorf("netsim: listen udp: %w", lastErr)
}

// Addr returns the "host:port" address the relay is bound to (the same port
// for TCP and UDP).
func (r *Relay) Addr() string { return r.tcpLn.Addr().String() }

// SetImpairment replaces the impairments of both directions; it takes effect
// for datagrams received from then on (datagrams already scheduled keep their
// delivery time). Out-of-range values are clamped into range. It is safe to
// call concurrently with traffic.
func (r *Relay) SetImpairment(up, down Impairment) {
	up, down = up.clamped(), down.clamped()
	r.imp.Store(&impairments{up: up, down: down})
	r.log.Info("impairment changed", "up", up.String(), "down", down.String())
}

// Stats returns a snapshot of the counters of the client->server (up) and
// server->client (down) directions. It is safe for concurrent use.
func (r *Relay) Stats() (up, down Stats) {
	return r.upStats.snapshot(), r.dnStats.snapshot()
}

// Run serves TCP and UDP until ctx is done or [Relay.Close] is called, then
// closes the relay and returns once all its goroutines have stopped. It
// returns nil on such a shutdown, including when the relay was already
// closed, and an error if called more than once.
func (r *Relay) Run(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	if r.running {
		r.mu.Unlock()
		return errors.New("netsim: Run called more than once")
	}
	r.running = true
	r.wg.Add(5)
	go r.acceptLoop()
	go r.readClients()
	go r.upSched.run(r.done, &r.wg)
	go r.dnSched.run(r.done, &r.wg)
	go r.janitor()
	r.mu.Unlock()

	im := r.imp.Load()
	r.log.Info("relay running", "listen", r.Addr(), "to", r.cfg.To,
		"up", im.up.String(), "down", im.down.String(), "seed", r.cfg.Seed)

	select {
	case <-ctx.Done():
	case <-r.done:
	}
	r.Close()
	up, down := r.Stats()
	r.log.Info("relay stopped", "up", up.String(), "down", down.String())
	return nil
}

// Close stops the relay: it closes the listeners, every TCP connection and
// every UDP client socket, and waits for the relay's goroutines to exit. It
// is safe to call concurrently and more than once; later calls return the
// first call's result.
func (r *Relay) Close() error {
	r.closeOne.Do(func() {
		r.mu.Lock()
		r.closed = true
		for _, c := range r.clients {
			c.conn.Close()
		}
		clear(r.clients)
		for c := range r.conns {
			c.Close()
		}
		clear(r.conns)
		r.mu.Unlock()
		r.cancel()
		close(r.done)
		r.closeErr = errors.Join(r.tcpLn.Close(), r.udp.Close())
	})
	r.wg.Wait()
	return r.closeErr
}

// now returns the monotonic time elapsed since the relay was created.
func (r *Relay) now() time.Duration { return time.Since(r.start) }

// isClosed reports whether Close has been called.
func (r *Relay) isClosed() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// sleep waits for d or until the relay is closed; it reports whether the
// relay is still open.
func (r *Relay) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.done:
		return false
	case <-t.C:
		return true
	}
}
