package rendezvous

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"rtype/net/wire"
)

// HostConfig configures the host side: a game server registering its
// rooms.
type HostConfig struct {
	// Codes returns the room codes to register (at most MaxCodes are).
	Codes func() []wire.RoomCode
	// CertHash returns the SHA-256 hash of the WebTransport binding's
	// certificate, which friends trust. Default none (zero).
	CertHash func() [HashLen]byte
	// Local is the socket's address as the host sees it. Default none.
	Local netip.AddrPort
	// Mapped returns a port mapping of the host's router, or the zero
	// address. Default none.
	Mapped func() netip.AddrPort
	// Refresh is the time between two Registers. Default 10 s.
	Refresh time.Duration
	// Punches is how many Punches a host sends a friend introduced, every
	// PunchEvery. Default 20 every 100 ms.
	Punches    int
	PunchEvery time.Duration
	// Logger logs. Default slog.Default().
	Logger *slog.Logger
	// OnCodes, when set, is told the codes the rendezvous confirmed each
	// time they change: from then on, friends find those rooms.
	OnCodes func([]wire.RoomCode)
}

// Host registers a game server's rooms at the rendezvous and answers its
// introductions: it punches toward the friend, and takes the pair's
// relayed datagrams (Conn.RelayAddr).
type Host struct {
	cfg HostConfig
	c   *Conn

	mu       sync.Mutex
	cookie   Cookie
	token    Token
	nonce    uint64
	observed netip.AddrPort
	page     uint16 // the rendezvous' page port (Registered.Page)
	intros   int
	sprayed  map[Token]bool  // pairs probed (once each)
	opened   map[Token]bool  // pairs reached by sockets of their own (once each)
	openNow  int             // Reaches being served
	sprayNow int             // Probes being served
	sent     []wire.RoomCode // the codes of the Register of nonce
	acked    []wire.RoomCode // the codes the rendezvous last confirmed
	kick     chan struct{}
	ready    chan struct{} // closed at the first Registered
	readyOne sync.Once
}

// NewHost returns the host side over c, and sets c's control function.
func NewHost(c *Conn, cfg HostConfig) *Host {
	if cfg.Refresh <= 0 {
		cfg.Refresh = 10 * time.Second
	}
	if cfg.Punches <= 0 {
		cfg.Punches = 20
	}
	if cfg.PunchEvery <= 0 {
		cfg.PunchEvery = 100 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Codes == nil {
		cfg.Codes = func() []wire.RoomCode { return nil }
	}
	h := &Host{cfg: cfg, c: c, kick: make(chan struct{}, 1), ready: make(chan struct{})}
	var b [8]byte
	rand.Read(b[:])
	h.nonce = binary.BigEndian.Uint64(b[:])
	c.SetControl(h.control)
	return h
}

// Registered is closed when the rendezvous first answered a Register.
func (h *Host) Registered() <-chan struct{} { return h.ready }

// Page returns the TCP port of the rendezvous' page for browsers, on
// the rendezvous' host (10.8), as its last Registered said; 0 none.
func (h *Host) Page() uint16 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.page
}

// Observed returns the host's address as the rendezvous sees it (zero
// before Registered).
func (h *Host) Observed() netip.AddrPort {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.observed
}

// Intros returns how many introductions the host had.
func (h *Host) Intros() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.intros
}

// Refresh registers the rooms now (a room made or closed).
func (h *Host) Refresh() {
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// Run registers the rooms every Refresh until ctx ends.
func (h *Host) Run(ctx context.Context) error {
	t := time.NewTicker(h.cfg.Refresh)
	defer t.Stop()
	prune := time.NewTicker(openFor / 2) // the sockets of the Reaches
	defer prune.Stop()
	for {
		h.register()
	wait:
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-h.kick:
		case now := <-prune.C:
			h.c.PruneSockets(now, openFor, socketIdle)
			goto wait
		}
	}
}

func (h *Host) register() {
	codes := h.cfg.Codes()
	if len(codes) > MaxCodes {
		codes = codes[:MaxCodes]
	}
	m := Register{Codes: codes, Local: h.cfg.Local}
	if h.cfg.CertHash != nil {
		m.CertHash = h.cfg.CertHash()
	}
	if h.cfg.Mapped != nil {
		m.Mapped = h.cfg.Mapped()
	}
	h.mu.Lock()
	h.nonce++
	m.Nonce, m.Cookie, m.HostToken = h.nonce, h.cookie, h.token
	h.sent = codes
	h.mu.Unlock()
	if err := h.c.SendRaw(AppendRegister(nil, &m), h.c.rv); err != nil {
		h.cfg.Logger.Debug("rendezvous: register", "err", err)
	}
}

// control takes the rendezvous' answers (on the socket's reader).
func (h *Host) control(b []byte, from netip.AddrPort) {
	switch Type(b) {
	case TRetry:
		m, err := ParseRetry(b)
		if err != nil {
			return
		}
		h.mu.Lock()
		fresh := m.Nonce == h.nonce
		h.cookie = m.Cookie
		h.mu.Unlock()
		if fresh {
			h.Refresh()
		}
	case TRegistered:
		m, err := ParseRegistered(b)
		if err != nil {
			return
		}
		h.mu.Lock()
		first := h.observed != m.Observed
		h.token, h.observed, h.page = m.HostToken, m.Observed, m.Page
		var codes []wire.RoomCode
		changed := m.Nonce == h.nonce && !slices.Equal(h.sent, h.acked)
		if changed {
			h.acked, codes = h.sent, h.sent
		}
		h.mu.Unlock()
		if first {
			h.cfg.Logger.Info("rendezvous: registered", "rendezvous", h.c.rv.String(), "observed", m.Observed.String(),
				"local", h.cfg.Local.String())
		}
		if changed {
			cs := make([]string, len(codes))
			for i, c := range codes {
				cs[i] = c.String()
			}
			h.cfg.Logger.Info("rendezvous: rooms registered", "codes", strings.Join(cs, ","))
			if h.cfg.OnCodes != nil {
				h.cfg.OnCodes(slices.Clone(codes))
			}
		}
		h.readyOne.Do(func() { close(h.ready) })
	case TError:
		m, err := ParseError(b)
		if err != nil {
			return
		}
		h.cfg.Logger.Warn("rendezvous: registration refused", "code", m.Code)
		if m.Code == CodeBadToken { // the rendezvous restarted: register anew
			h.mu.Lock()
			h.token = Token{}
			h.mu.Unlock()
			h.Refresh()
		}
	case TIntro:
		m, err := ParseIntro(b)
		if err != nil {
			return
		}
		h.c.RelayAddr(m.Token)
		h.mu.Lock()
		h.intros++
		h.mu.Unlock()
		if !m.Friend.IsValid() { // a browser, whose session the rendezvous relays
			h.cfg.Logger.Info("rendezvous: a browser comes through the relay")
			return
		}
		h.cfg.Logger.Info("rendezvous: a friend comes", "friend", m.Friend.String())
		go h.punch(m.Token, m.Friend)
	case TProbe:
		m, err := ParseProbe(b)
		if err != nil || !h.c.Known(m.Token) || !m.Friend.IsValid() {
			return
		}
		h.mu.Lock()
		again := h.sprayed[m.Token] || h.sprayNow >= maxOpen
		if h.sprayed == nil {
			h.sprayed = map[Token]bool{}
		}
		h.sprayed[m.Token] = true
		if !again {
			h.sprayNow++
		}
		h.mu.Unlock()
		if again {
			return
		}
		h.cfg.Logger.Info("rendezvous: probing a friend's ports", "friend", m.Friend.String(), "ports", m.Count)
		go func() {
			h.spray(m.Token, m.Friend, int(min(m.Count, SprayPorts)))
			h.mu.Lock()
			h.sprayNow--
			h.mu.Unlock()
		}()
	case TReach:
		m, err := ParseReach(b)
		if err != nil || !h.c.Known(m.Token) || !m.Friend.IsValid() {
			return
		}
		h.mu.Lock()
		again := h.opened[m.Token] || h.openNow >= maxOpen
		if h.opened == nil {
			h.opened = map[Token]bool{}
		}
		h.opened[m.Token] = true
		if !again {
			h.openNow++
		}
		h.mu.Unlock()
		if again {
			return
		}
		h.cfg.Logger.Info("rendezvous: opening sockets toward a friend", "friend", m.Friend.String(), "sockets", m.Count)
		go h.open(m.Token, m.Friend, int(min(m.Count, SpraySockets)))
	case TPunch:
		// The friend's punch came through: nothing to do, QUIC follows.
	}
}

// maxOpen is how many Reaches, and how many Probes, a host serves at
// once.
const maxOpen = 2

// openFor is how long the sockets of a Reach wait for the friend's
// probes before those that met none are closed (Run prunes them every
// openFor/2).
const openFor = 10 * time.Second

// open opens n sockets, each punching toward the friend (its NAT gives
// each a port of its own); the friend's probes meet one of them.
func (h *Host) open(tok Token, to netip.AddrPort, n int) {
	network := "udp4"
	if to.Addr().Is6() {
		network = "udp6"
	}
	b := AppendPunch(nil, tok)
	for range n {
		pc, err := net.ListenUDP(network, nil)
		if err != nil {
			break
		}
		h.c.AddSocket(pc, tok)
		pc.WriteToUDPAddrPort(b, to)
	}
	time.AfterFunc(openFor, func() {
		h.mu.Lock()
		h.openNow--
		h.mu.Unlock()
	})
}

// socketIdle is how long a socket of a Reach that met its friend stays
// open without a datagram from it.
const socketIdle = 2 * time.Minute

// spray sends a Punch to n random ports of ip, 64 every 5 ms: one may
// meet a port the friend's NAT gave one of its sockets toward this host.
func (h *Host) spray(tok Token, ip netip.Addr, n int) {
	b := AppendPunch(nil, tok)
	for i := range n {
		if i > 0 && i%64 == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		h.c.SendRaw(b, netip.AddrPortFrom(ip, uint16(1024+mrand.IntN(65536-1024))))
	}
}

// punch sends Punches to the friend: its NAT's mapping toward this host
// then lets the host's datagrams in, and this host's router lets the
// friend's.
func (h *Host) punch(tok Token, to netip.AddrPort) {
	b := AppendPunch(nil, tok)
	for i := range h.cfg.Punches {
		if i > 0 {
			time.Sleep(h.cfg.PunchEvery)
		}
		h.c.SendRaw(b, to)
	}
}
