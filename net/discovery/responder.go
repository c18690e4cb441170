package discovery

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"rtype/net/ipkey"
)

// ResponderConfig configures a Responder. The zero value of a field means
// its default.
type ResponderConfig struct {
	// Listen is the UDP address queries arrive at. Default ":4243" (every
	// interface, so that broadcasts arrive); port 0 picks a free port.
	Listen string
	// Info returns what the server tells about itself; it is called once
	// per query answered, from the responder's goroutine. Required.
	Info func() Info
	// Rate answers per second per source IP address, at most Burst at
	// once; more queries from that address get no answer (8.4).
	// Defaults 4 and 8.
	Rate  float64
	Burst int
	// MaxAddrs caps the source addresses the rate limit tracks at once,
	// so that its memory is bounded; when the table is full, a new
	// address takes the place of the one idle longest. Default 4096.
	MaxAddrs int
	// Logger receives the responder's logs. Default slog.Default().
	Logger *slog.Logger
	// HostName, when set, makes an answer whose Info has no Name carry
	// the machine's host name (os.Hostname, cleaned) instead. Default
	// off: an answer carries the name the server was given, or none (a
	// client then lists the server by its address); a host name tells
	// more of a machine than its owner may want told (8.3).
	HostName bool
}

func (c ResponderConfig) withDefaults() ResponderConfig {
	if c.Listen == "" {
		c.Listen = fmt.Sprintf(":%d", Port)
	}
	if c.Rate <= 0 {
		c.Rate = 4
	}
	if c.Burst <= 0 {
		c.Burst = 8
	}
	if c.MaxAddrs <= 0 {
		c.MaxAddrs = 4096
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// ResponderStats count what a Responder did with the datagrams it read.
type ResponderStats struct {
	// Answered queries; Limited queries got no answer (rate limit);
	// Dropped datagrams were not valid queries; Refused datagrams came
	// from a source off the LAN (Answers), queries or not, and got no
	// answer.
	Answered, Limited, Dropped, Refused uint64
}

// Responder answers discovery queries (8.2): to the address each came
// from, if on the LAN (Answers), never more bytes than the query, at most
// Rate per second per source IP address.
type Responder struct {
	cfg  ResponderConfig
	conn *net.UDPConn
	lim  *limiter
	host string // the host name answered for an empty Info.Name (HostName)
	done chan struct{}

	answered, limited, dropped, refused atomic.Uint64
	closeOnce                           sync.Once
}

// Answers reports whether a responder answers a query from ip: a
// loopback address (127.0.0.0/8, ::1), a private one (RFC 1918:
// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16; IPv6 unique local
// addresses, fc00::/7) or a link-local one (169.254.0.0/16, fe80::/10),
// an IPv4 address mapped into IPv6 judged as the IPv4 address. Any other
// source, a public address above all, is not on the LAN that discovery
// serves (8.1), and gets no answer.
func Answers(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()
}

// Listen opens the responder's socket; Serve answers on it.
func Listen(cfg ResponderConfig) (*Responder, error) {
	cfg = cfg.withDefaults()
	if cfg.Info == nil {
		return nil, errors.New("discovery: ResponderConfig.Info is required")
	}
	ua, err := net.ResolveUDPAddr("udp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("discovery: listen address %q: %w", cfg.Listen, err)
	}
	conn, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, fmt.Errorf("discovery: UDP listen on %s: %w", cfg.Listen, err)
	}
	r := &Responder{cfg: cfg, conn: conn, lim: newLimiter(cfg.Rate, cfg.Burst, cfg.MaxAddrs), done: make(chan struct{})}
	if cfg.HostName {
		h, _ := os.Hostname()
		r.host = CleanName(h)
	}
	return r, nil
}

// Addr returns the address the responder listens on.
func (r *Responder) Addr() netip.AddrPort { return r.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// Stats returns what the responder did so far.
func (r *Responder) Stats() ResponderStats {
	return ResponderStats{Answered: r.answered.Load(), Limited: r.limited.Load(), Dropped: r.dropped.Load(),
		Refused: r.refused.Load()}
}

// Serve answers queries until Close. It allocates nothing per query in
// steady state (but what Info does).
func (r *Responder) Serve() {
	buf := make([]byte, 1500)
	out := make([]byte, 0, MaxAnswerSize)
	for {
		n, from, err := r.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			select {
			case <-r.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			r.cfg.Logger.Debug("discovery read", "err", err)
			continue
		}
		out = r.handle(out[:0], buf[:n], from, time.Now())
		if len(out) == 0 {
			continue
		}
		if _, err := r.conn.WriteToUDPAddrPort(out, from); err != nil {
			r.cfg.Logger.Debug("discovery answer not sent", "to", from, "err", err)
			continue
		}
		r.answered.Add(1)
	}
}

// handle appends to dst the answer to datagram b from from, received at
// now: nothing when from is off the LAN (Answers), b is not a query, or
// from is over its rate.
func (r *Responder) handle(dst, b []byte, from netip.AddrPort, now time.Time) []byte {
	if !Answers(from.Addr()) {
		// Logged at debug, bounded: the 1st, 2nd, 4th, 8th... only.
		if n := r.refused.Add(1); n&(n-1) == 0 {
			r.cfg.Logger.Debug("discovery: no answer to a source off the LAN", "from", from, "refused", n)
		}
		return dst
	}
	nonce, err := ParseQuery(b)
	if err != nil {
		r.dropped.Add(1)
		return dst
	}
	if !r.lim.allow(from.Addr().Unmap(), now) {
		r.limited.Add(1)
		return dst
	}
	info := r.cfg.Info()
	if info.Name == "" {
		info.Name = r.host
	}
	return AppendAnswer(dst, nonce, &info)
}

// Close stops Serve and closes the socket.
func (r *Responder) Close() error {
	var err error
	r.closeOnce.Do(func() { close(r.done); err = r.conn.Close() })
	return err
}

// limiter is a token bucket per source IP address (per IPv6 /64:
// ipkey.Of), with a bounded table.
type limiter struct {
	rate  float64 // tokens per second
	burst float64
	max   int
	addrs map[netip.Addr]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate float64, burst, max int) *limiter {
	return &limiter{rate: rate, burst: float64(burst), max: max, addrs: make(map[netip.Addr]*bucket, min(max, 64))}
}

// allow takes a token of ip's bucket, if it has one.
func (l *limiter) allow(ip netip.Addr, now time.Time) bool {
	ip = ipkey.Of(ip)
	b := l.addrs[ip]
	if b == nil {
		if len(l.addrs) >= l.max {
			l.evict(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.addrs[ip] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// evict forgets the addresses whose buckets are full again, and if none
// is, the one idle longest.
func (l *limiter) evict(now time.Time) {
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	var oldest netip.Addr
	var at time.Time
	for ip, b := range l.addrs {
		if now.Sub(b.last) >= full {
			delete(l.addrs, ip)
			continue
		}
		if at.IsZero() || b.last.Before(at) {
			oldest, at = ip, b.last
		}
	}
	if len(l.addrs) >= l.max {
		delete(l.addrs, oldest)
	}
}
