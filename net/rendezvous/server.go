package rendezvous

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"rtype/net/ipkey"
	"rtype/net/wire"
)

// Config is a rendezvous' configuration. The zero value is usable: every
// field has a default.
type Config struct {
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger logs. Default slog.Default().
	Logger *slog.Logger
	// TTL is how long a registration lasts without a refresh. Default
	// 30 s (hosts refresh every 10 s).
	TTL time.Duration
	// RegisterRate and RegisterBurst limit the Registers of one IP
	// address: RegisterRate a second, RegisterBurst at once. Default 2
	// and 10.
	RegisterRate  float64
	RegisterBurst int
	// LookupRate and LookupBurst limit the Lookups of one IP address.
	// Default 5 and 20.
	LookupRate  float64
	LookupBurst int
	// RelayBudget is the most payload bytes relayed for one pair, both
	// ways together. Default 256 MiB (an hour of a game's session).
	RelayBudget int64
	// PairIdle is how long a pair (a friend introduced to a host) lasts
	// without a relayed datagram or a new Lookup. Default 60 s.
	PairIdle time.Duration
	// MaxHosts, MaxPairs and MaxPairsPerHost bound the state. Default
	// 10000, 40000 and 32.
	MaxHosts, MaxPairs, MaxPairsPerHost int
	// MaxTracked is the most IP addresses whose rates are tracked at
	// once; beyond it requests of new addresses are dropped. Default
	// 65536.
	MaxTracked int
}

func (c *Config) defaults() {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.TTL <= 0 {
		c.TTL = 30 * time.Second
	}
	if c.RegisterRate <= 0 {
		c.RegisterRate = 2
	}
	if c.RegisterBurst <= 0 {
		c.RegisterBurst = 10
	}
	if c.LookupRate <= 0 {
		c.LookupRate = 5
	}
	if c.LookupBurst <= 0 {
		c.LookupBurst = 20
	}
	if c.RelayBudget <= 0 {
		c.RelayBudget = 256 << 20
	}
	if c.PairIdle <= 0 {
		c.PairIdle = 60 * time.Second
	}
	if c.MaxHosts <= 0 {
		c.MaxHosts = 10000
	}
	if c.MaxPairs <= 0 {
		c.MaxPairs = 40000
	}
	if c.MaxPairsPerHost <= 0 {
		c.MaxPairsPerHost = 32
	}
	if c.MaxTracked <= 0 {
		c.MaxTracked = 65536
	}
}

// A room code whose host stopped refreshing, or left out of its last
// refresh (the room closed), is remembered for goneFor, at most maxGone
// of them, so that a browser's lookup tells "the game is gone" rather
// than "no such room".
const (
	goneFor = 10 * time.Minute
	maxGone = 4096
)

// cookieEpoch is how long a cookie stays valid (between one and two
// epochs).
const cookieEpoch = 30 * time.Second

// Stats are a rendezvous' counters since it started.
type Stats struct {
	Hosts, Pairs       int    // now
	Registers, Lookups uint64 // answered (Registered, Peer)
	Retries            uint64 // Retry sent
	Refused            uint64 // Error sent
	Probes             uint64 // Probe and Reach sent to hosts
	RateLimited        uint64 // requests dropped by the rates
	Dropped            uint64 // datagrams dropped: malformed, unknown, not of the pair
	RelayedPackets     uint64
	RelayedBytes       uint64 // payload bytes
	OverBudget         uint64 // relayed datagrams dropped by the budget
	BytesIn, BytesOut  uint64 // every datagram, as UDP payload
	WebLookups         uint64 // browsers' lookups answered (Find)
}

// Server is a rendezvous. Handle is its whole logic; Serve runs it on a
// UDP socket.
type Server struct {
	cfg Config
	key [32]byte // of the cookies

	mu       sync.Mutex
	hosts    map[Token]*host
	codes    map[wire.RoomCode]*host
	pairs    map[Token]*pair
	byFriend map[pairKey]*pair // the same pairs, by host and friend's address
	rates    map[netip.Addr]*rate
	swept    time.Time
	gone     map[wire.RoomCode]time.Time // codes of hosts that stopped refreshing, until then
	stats    Stats
	bytesIn  atomic.Uint64
	page     atomic.Uint32 // SetPage's port
	out      []byte
}

type host struct {
	token    Token
	addr     netip.AddrPort // observed
	local    netip.AddrPort
	mapped   netip.AddrPort
	certHash [HashLen]byte
	codes    []wire.RoomCode
	expires  time.Time
	pairs    int
}

// pairKey names a pair by its host and its friend's address.
type pairKey struct {
	host   *host
	friend netip.AddrPort
}

type pair struct {
	token   Token
	host    *host
	friend  netip.AddrPort
	bytes   int64
	last    time.Time
	sprayed bool // the host was told to probe the friend (once a pair)
	opened  bool // the host was told to open sockets toward it (once a pair)
}

// rate is an IP address' token buckets.
type rate struct {
	reg, look float64
	last      time.Time
}

// NewServer returns a rendezvous of cfg.
func NewServer(cfg Config) *Server {
	cfg.defaults()
	s := &Server{cfg: cfg, hosts: map[Token]*host{}, codes: map[wire.RoomCode]*host{},
		pairs: map[Token]*pair{}, byFriend: map[pairKey]*pair{}, rates: map[netip.Addr]*rate{},
		gone: map[wire.RoomCode]time.Time{}}
	rand.Read(s.key[:])
	return s
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Hosts, st.Pairs = len(s.hosts), len(s.pairs)
	st.BytesIn = s.bytesIn.Load()
	return st
}

// Serve answers the datagrams of pc until it is closed.
func (s *Server) Serve(pc *net.UDPConn) error {
	buf := make([]byte, 2048)
	for {
		n, from, err := pc.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return err
			}
			continue // an ICMP error of an earlier send
		}
		s.Handle(buf[:n], from, func(b []byte, to netip.AddrPort) {
			pc.WriteToUDPAddrPort(b, to)
		})
	}
}

// Handle answers datagram b from address from, calling send for every
// datagram to send (b only lives during the call).
func (s *Server) Handle(b []byte, from netip.AddrPort, send func(b []byte, to netip.AddrPort)) {
	from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	s.bytesIn.Add(uint64(len(b)))
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	s.sweepLocked(now)
	out := func(m []byte, to netip.AddrPort) {
		s.stats.BytesOut += uint64(len(m))
		send(m, to)
	}
	switch Type(b) {
	case TRegister:
		s.registerLocked(b, from, now, out)
	case TLookup:
		s.lookupLocked(b, from, now, out)
	case TRelay:
		s.relayLocked(b, from, now, out)
	case TSpray, TOpen:
		s.sprayLocked(b, from, now, out)
	default:
		s.stats.Dropped++
	}
}

// cookie returns the cookie of address a in epoch e.
func (s *Server) cookie(a netip.AddrPort, e int64) Cookie {
	m := hmac.New(sha256.New, s.key[:])
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(e))
	m.Write(b[:])
	ab, _ := a.MarshalBinary()
	m.Write(ab)
	return Cookie(m.Sum(nil)[:CookieLen])
}

// proven reports whether c is a's cookie, of this epoch or the last.
func (s *Server) proven(c Cookie, a netip.AddrPort, now time.Time) bool {
	e := now.UnixNano() / int64(cookieEpoch)
	c0, c1 := s.cookie(a, e), s.cookie(a, e-1)
	return hmac.Equal(c[:], c0[:]) || hmac.Equal(c[:], c1[:])
}

// allow takes a token of ip's bucket for a Register (reg) or a Lookup.
func (s *Server) allow(ip netip.Addr, reg bool, now time.Time) bool {
	ip = ipkey.Of(ip)
	r := s.rates[ip]
	if r == nil {
		if len(s.rates) >= s.cfg.MaxTracked {
			return false
		}
		r = &rate{reg: float64(s.cfg.RegisterBurst), look: float64(s.cfg.LookupBurst), last: now}
		s.rates[ip] = r
	}
	dt := now.Sub(r.last).Seconds()
	if dt > 0 {
		r.reg = min(float64(s.cfg.RegisterBurst), r.reg+dt*s.cfg.RegisterRate)
		r.look = min(float64(s.cfg.LookupBurst), r.look+dt*s.cfg.LookupRate)
		r.last = now
	}
	p := &r.look
	if reg {
		p = &r.reg
	}
	if *p < 1 {
		return false
	}
	*p--
	return true
}

// sweepLocked forgets, at most once a second, the expired hosts, the idle
// pairs and the full buckets.
func (s *Server) sweepLocked(now time.Time) {
	if now.Sub(s.swept) < time.Second {
		return
	}
	s.swept = now
	for t, h := range s.hosts {
		if now.After(h.expires) {
			for _, c := range h.codes {
				if s.codes[c] == h && len(s.gone) < maxGone {
					s.gone[c] = now.Add(goneFor)
				}
			}
			s.dropHostLocked(t, h)
		}
	}
	for c, until := range s.gone {
		if now.After(until) {
			delete(s.gone, c)
		}
	}
	for t, p := range s.pairs {
		if now.Sub(p.last) > s.cfg.PairIdle {
			delete(s.pairs, t)
			delete(s.byFriend, pairKey{p.host, p.friend})
			p.host.pairs--
		}
	}
	for ip, r := range s.rates {
		dt := now.Sub(r.last).Seconds()
		if r.reg+dt*s.cfg.RegisterRate >= float64(s.cfg.RegisterBurst) &&
			r.look+dt*s.cfg.LookupRate >= float64(s.cfg.LookupBurst) {
			delete(s.rates, ip)
		}
	}
}

func (s *Server) dropHostLocked(t Token, h *host) {
	delete(s.hosts, t)
	for _, c := range h.codes {
		if s.codes[c] == h {
			delete(s.codes, c)
		}
	}
	for pt, p := range s.pairs {
		if p.host == h {
			delete(s.pairs, pt)
			delete(s.byFriend, pairKey{p.host, p.friend})
		}
	}
}

// retryLocked answers a request without a valid cookie with a Retry, no
// longer than the request (never an amplifier).
func (s *Server) retryLocked(nonce uint64, from netip.AddrPort, now time.Time, reqLen int, out func([]byte, netip.AddrPort)) {
	if reqLen < RetryLen {
		s.stats.Dropped++
		return
	}
	s.stats.Retries++
	c := s.cookie(from, now.UnixNano()/int64(cookieEpoch))
	s.out = AppendRetry(s.out[:0], &Retry{Nonce: nonce, Cookie: c})
	out(s.out, from)
}

func (s *Server) errorLocked(nonce uint64, code uint8, to netip.AddrPort, out func([]byte, netip.AddrPort)) {
	s.stats.Refused++
	s.out = AppendError(s.out[:0], &Error{Nonce: nonce, Code: code})
	out(s.out, to)
}

func (s *Server) registerLocked(b []byte, from netip.AddrPort, now time.Time, out func([]byte, netip.AddrPort)) {
	m, err := ParseRegister(b)
	if err != nil {
		s.stats.Dropped++
		return
	}
	if !s.allow(from.Addr(), true, now) {
		s.stats.RateLimited++
		return
	}
	if !s.proven(m.Cookie, from, now) {
		s.retryLocked(m.Nonce, from, now, len(b), out)
		return
	}
	var h *host
	if m.HostToken != (Token{}) {
		if h = s.hosts[m.HostToken]; h == nil {
			s.errorLocked(m.Nonce, CodeBadToken, from, out)
			return
		}
	} else {
		if len(s.hosts) >= s.cfg.MaxHosts {
			s.errorLocked(m.Nonce, CodeFull, from, out)
			return
		}
		h = &host{}
		rand.Read(h.token[:])
		s.hosts[h.token] = h
	}
	for _, c := range m.Codes {
		if o := s.codes[c]; o != nil && o != h {
			s.errorLocked(m.Nonce, CodeTaken, from, out)
			return
		}
	}
	h.addr, h.local, h.mapped, h.certHash = from, m.Local, m.Mapped, m.CertHash
	h.expires = now.Add(s.cfg.TTL)
	for _, c := range h.codes {
		if s.codes[c] == h {
			delete(s.codes, c)
			if len(s.gone) < maxGone { // a room closed, unless the refresh keeps it (below)
				s.gone[c] = now.Add(goneFor)
			}
		}
	}
	h.codes = append(h.codes[:0], m.Codes...)
	for _, c := range h.codes {
		s.codes[c] = h
		delete(s.gone, c)
	}
	s.stats.Registers++
	s.out = AppendRegistered(s.out[:0], &Registered{Nonce: m.Nonce, HostToken: h.token, Observed: from,
		TTL: uint16(min(s.cfg.TTL/time.Second, 65535)), Page: uint16(s.page.Load())})
	out(s.out, from)
}

// SetPage tells hosts, in their Registered, the TCP port of this
// rendezvous' HTTPS page for browsers (10.8), on its host; 0 (the
// default) none.
func (s *Server) SetPage(port uint16) { s.page.Store(uint32(port)) }

func (s *Server) lookupLocked(b []byte, from netip.AddrPort, now time.Time, out func([]byte, netip.AddrPort)) {
	m, err := ParseLookup(b)
	if err != nil {
		s.stats.Dropped++
		return
	}
	if !s.allow(from.Addr(), false, now) {
		s.stats.RateLimited++
		return
	}
	if !s.proven(m.Cookie, from, now) {
		s.retryLocked(m.Nonce, from, now, len(b), out)
		return
	}
	h := s.codes[m.Code]
	if h == nil {
		s.errorLocked(m.Nonce, CodeUnknownRoom, from, out)
		return
	}
	// One pair per friend's address and host: a Lookup again (a lost
	// answer) gives the same token.
	pk := pairKey{h, from}
	p := s.byFriend[pk]
	if p == nil {
		if len(s.pairs) >= s.cfg.MaxPairs || h.pairs >= s.cfg.MaxPairsPerHost {
			s.errorLocked(m.Nonce, CodeFull, from, out)
			return
		}
		p = &pair{host: h, friend: from}
		rand.Read(p.token[:])
		s.pairs[p.token] = p
		s.byFriend[pk] = p
		h.pairs++
	}
	p.last = now
	s.stats.Lookups++
	s.out = AppendPeer(s.out[:0], &Peer{Nonce: m.Nonce, Token: p.token, Observed: h.addr, Local: h.local,
		Mapped: h.mapped, CertHash: h.certHash, You: from})
	out(s.out, from)
	s.out = AppendIntro(s.out[:0], &Intro{Token: p.token, Friend: from})
	out(s.out, h.addr)
}

// relayLocked forwards a Relay between the two peers of its pair, as it
// came (the same length): from the friend to the host or back, within the
// pair's budget.
func (s *Server) relayLocked(b []byte, from netip.AddrPort, now time.Time, out func([]byte, netip.AddrPort)) {
	tok, payload, err := ParseRelay(b)
	if err != nil {
		s.stats.Dropped++
		return
	}
	p := s.pairs[tok]
	var to netip.AddrPort
	switch {
	case p == nil:
		s.stats.Dropped++
		return
	case from == p.friend:
		to = p.host.addr
	case from == p.host.addr:
		to = p.friend
	default:
		s.stats.Dropped++
		return
	}
	if p.bytes+int64(len(payload)) > s.cfg.RelayBudget {
		s.stats.OverBudget++
		return
	}
	p.bytes += int64(len(payload))
	p.last = now
	s.stats.RelayedPackets++
	s.stats.RelayedBytes += uint64(len(payload))
	out(b, to)
}

// sprayLocked tells the host of a pair to probe its friend's ports
// (Spray: Probe), or to open sockets toward it (Open: Reach), each once a
// pair, when the friend asks from its proven address.
func (s *Server) sprayLocked(b []byte, from netip.AddrPort, now time.Time, out func([]byte, netip.AddrPort)) {
	open := Type(b) == TOpen
	var m Spray
	var err error
	if open {
		m, err = ParseOpen(b)
	} else {
		m, err = ParseSpray(b)
	}
	if err != nil {
		s.stats.Dropped++
		return
	}
	if !s.allow(from.Addr(), false, now) {
		s.stats.RateLimited++
		return
	}
	if !s.proven(m.Cookie, from, now) {
		s.retryLocked(m.Nonce, from, now, len(b), out)
		return
	}
	p := s.pairs[m.Token]
	if p == nil || p.friend != from || (open && p.opened) || (!open && p.sprayed) {
		s.stats.Dropped++
		return
	}
	p.last = now
	s.stats.Probes++
	if open {
		p.opened = true
		s.out = AppendReach(s.out[:0], &Reach{Token: p.token, Friend: from, Count: SpraySockets})
	} else {
		p.sprayed = true
		s.out = AppendProbe(s.out[:0], &Probe{Token: p.token, Friend: from.Addr(), Count: SprayPorts})
	}
	out(s.out, p.host.addr)
}
