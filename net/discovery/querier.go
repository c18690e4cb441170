package discovery

import (
	"cmp"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
)

// QuerierConfig configures a Querier. The zero value of a field means its
// default.
type QuerierConfig struct {
	// Dest is where queries go. Default DefaultBroadcast
	// ("255.255.255.255:4243"); on a build machine "127.255.255.255:4243"
	// finds the servers of this machine only.
	Dest string
	// Local is the address the querier's socket binds. Default: any
	// address, a free port, of Dest's family.
	Local string
	// Interval between two queries; the first goes at once. Default 1 s.
	Interval time.Duration
	// Timeout is how long after a query its answers count; later ones
	// are dropped (8.3). Default 1 s.
	Timeout time.Duration
	// MaxAge is how long a server stays listed after its last answer.
	// Default 2.5 s: it missed two queries.
	MaxAge time.Duration
	// MaxServers caps the servers listed at once. Default 64.
	MaxServers int
	// Logger receives the querier's logs. Default slog.Default().
	Logger *slog.Logger
}

func (c QuerierConfig) withDefaults() QuerierConfig {
	if c.Dest == "" {
		c.Dest = DefaultBroadcast
	}
	if c.Interval <= 0 {
		c.Interval = time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = time.Second
	}
	if c.MaxAge <= 0 {
		c.MaxAge = 2500 * time.Millisecond
	}
	if c.MaxServers <= 0 {
		c.MaxServers = 64
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Server is a server that answered.
type Server struct {
	// Addr is where to join it: the address its answer came from, and
	// the game port it gave.
	Addr netip.AddrPort
	Info
	// RTT is the time from the query to its answer, for the last answer.
	RTT time.Duration
	// Seen is when the last answer arrived.
	Seen time.Time
}

// Querier sends queries and gathers the answers (8.3), until Close.
type Querier struct {
	cfg  QuerierConfig
	conn *net.UDPConn
	dest netip.AddrPort
	done chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	sent    [4]sentQuery // the last queries, the newest at sent[next-1]
	next    int
	servers map[netip.AddrPort]*Server
}

type sentQuery struct {
	nonce Nonce
	at    time.Time
}

// NewQuerier opens a socket and starts querying cfg.Dest.
func NewQuerier(cfg QuerierConfig) (*Querier, error) {
	cfg = cfg.withDefaults()
	if noUDP {
		return nil, errors.New("discovery: a browser has no UDP: no LAN discovery")
	}
	ua, err := net.ResolveUDPAddr("udp", cfg.Dest)
	if err != nil {
		return nil, fmt.Errorf("discovery: query address %q: %w", cfg.Dest, err)
	}
	dest := ua.AddrPort()
	network := "udp4"
	if !dest.Addr().Unmap().Is4() {
		network = "udp6"
	}
	dest = netip.AddrPortFrom(dest.Addr().Unmap(), dest.Port())
	var local *net.UDPAddr
	if cfg.Local != "" {
		if local, err = net.ResolveUDPAddr(network, cfg.Local); err != nil {
			return nil, fmt.Errorf("discovery: local address %q: %w", cfg.Local, err)
		}
	}
	conn, err := net.ListenUDP(network, local)
	if err != nil {
		return nil, fmt.Errorf("discovery: querier socket: %w", err)
	}
	q := &Querier{cfg: cfg, conn: conn, dest: dest, done: make(chan struct{}), servers: make(map[netip.AddrPort]*Server)}
	q.wg.Add(2)
	go func() { defer q.wg.Done(); q.sendLoop() }()
	go func() { defer q.wg.Done(); q.readLoop() }()
	return q, nil
}

// Servers returns the servers that answered within MaxAge, by name, then
// address.
func (q *Querier) Servers() []Server {
	now := time.Now()
	q.mu.Lock()
	out := make([]Server, 0, len(q.servers))
	for k, s := range q.servers {
		if now.Sub(s.Seen) > q.cfg.MaxAge {
			delete(q.servers, k)
			continue
		}
		out = append(out, *s)
	}
	q.mu.Unlock()
	slices.SortFunc(out, func(a, b Server) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), a.Addr.Compare(b.Addr))
	})
	return out
}

// Close stops querying and closes the socket.
func (q *Querier) Close() error {
	select {
	case <-q.done:
		return nil
	default:
	}
	close(q.done)
	err := q.conn.Close()
	q.wg.Wait()
	return err
}

func (q *Querier) sendLoop() {
	t := time.NewTicker(q.cfg.Interval)
	defer t.Stop()
	buf := make([]byte, 0, QuerySize)
	for {
		var nonce Nonce
		rand.Read(nonce[:])
		q.mu.Lock()
		q.sent[q.next%len(q.sent)] = sentQuery{nonce: nonce, at: time.Now()}
		q.next++
		q.mu.Unlock()
		buf = AppendQuery(buf[:0], nonce)
		if _, err := q.conn.WriteToUDPAddrPort(buf, q.dest); err != nil && !errors.Is(err, net.ErrClosed) {
			q.cfg.Logger.Debug("discovery query not sent", "to", q.dest, "err", err)
		}
		select {
		case <-q.done:
			return
		case <-t.C:
		}
	}
}

func (q *Querier) readLoop() {
	buf := make([]byte, 1500)
	for {
		n, from, err := q.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			select {
			case <-q.done:
				return
			default:
			}
			continue
		}
		now := time.Now()
		nonce, info, err := ParseAnswer(buf[:n])
		if err != nil {
			q.cfg.Logger.Debug("discovery answer dropped", "from", from, "err", err)
			continue
		}
		q.answer(from, nonce, info, now)
	}
}

// answer records an answer that arrived at now, if it echoes a query sent
// less than Timeout ago.
func (q *Querier) answer(from netip.AddrPort, nonce Nonce, info Info, now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var sent time.Time
	for _, s := range q.sent {
		if s.nonce == nonce && !s.at.IsZero() {
			sent = s.at
		}
	}
	if sent.IsZero() || now.Sub(sent) > q.cfg.Timeout {
		return
	}
	addr := netip.AddrPortFrom(from.Addr().Unmap(), info.Port)
	s := q.servers[addr]
	if s == nil {
		for k, old := range q.servers {
			if len(q.servers) < q.cfg.MaxServers {
				break
			}
			if now.Sub(old.Seen) > q.cfg.MaxAge {
				delete(q.servers, k)
			}
		}
		if len(q.servers) >= q.cfg.MaxServers {
			return
		}
		s = &Server{}
		q.servers[addr] = s
	}
	*s = Server{Addr: addr, Info: info, RTT: now.Sub(sent), Seen: now}
}
