//go:build !js

package rendezvous

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"

	"rtype/net/ipkey"
	"rtype/net/selfcert"
	"rtype/net/webaddr"
	"rtype/net/wire"
)

// The browsers' side of a rendezvous (PROTOCOL.md 10.8): a browser cannot
// send UDP of its own, so it cannot speak the rendezvous' messages nor
// punch. It looks a code up over HTTPS (Web.ServeHTTP, GET
// /join?code=CODE on the page's server), then opens its WebTransport
// session to the host's binding when the host is direct or mapped, else
// to the rendezvous' relay: a WebTransport server on the rendezvous' own
// UDP port (Web.Serve tells its QUIC packets from the rendezvous'
// messages by their first byte), which opens a session of its own to the
// host through the relay path of the pair it makes (the host takes it as
// any relayed session) and copies the two sessions' stream and datagrams
// into each other.

// WebConfig configures Web. The zero value is usable.
type WebConfig struct {
	// Logger logs. Default the Server's.
	Logger *slog.Logger
	// RelayAddr is the relay's host:port as browsers reach it. Default:
	// the host the browser asked the page from (the lookup's Host
	// header), with the UDP port of Serve's socket.
	RelayAddr string
	// MaxSessions and MaxSessionsPerIP bound the relayed browser
	// sessions at once. Default 256 and 8.
	MaxSessions, MaxSessionsPerIP int
	// MaxConnsPerIP bounds the QUIC connections of one IP address at the
	// relay (sessions, and handshakes that have none yet). Default 16.
	MaxConnsPerIP int
	// HostTimeout is how long the relay waits for the host's session.
	// Default 10 s.
	HostTimeout time.Duration
	// CertLife is the validity of the relay's certificates, which
	// browsers trust by their hashes (at most 14 days). Default 10 days;
	// a new one serves every 4 (2/5 of it).
	CertLife time.Duration
	// RelayOnly has the lookup give the relay alone, whatever the host
	// (the tests of the relay, its figures). Default false.
	RelayOnly bool
}

// WebStats are the counters of Web.
type WebStats struct {
	Sessions        int    // relayed browser sessions now
	Opened, Refused uint64 // sessions opened, refused (caps, lookup, host)
	HostFailed      uint64 // sessions whose host did not answer
	QUICIn          uint64 // datagrams of the relay's QUIC
}

// Web serves the browsers of a Server: the lookup and the relay.
type Web struct {
	s   *Server
	cfg WebConfig

	pc  *net.UDPConn
	in  *Conn // the relay's QUIC packets, from Serve
	tr  *quic.Transport
	wt  *webtransport.Server
	ctx context.Context

	certMu           sync.Mutex
	cur, next        *tls.Certificate
	curHash, nxtHash [32]byte
	rotated          time.Time

	mu       sync.Mutex
	inner    map[netip.AddrPort]*Conn // the relay's sides of the pairs, by their friend address
	nextAddr uint64
	sessions int
	sessIP   map[netip.Addr]int
	connIP   map[netip.Addr]int

	opened, refused, hostFailed, quicIn atomic.Uint64
}

// innerPrefix is the first half of the friend addresses of the relay's
// pairs: 100::/64, the IPv6 prefix for discarding (RFC 6666), which no
// UDP peer holds.
var innerPrefix = [8]byte{0x01, 0x00}

func isInner(a netip.AddrPort) bool {
	ip := a.Addr()
	if !ip.Is6() || ip.Is4In6() {
		return false
	}
	b := ip.As16()
	return [8]byte(b[:8]) == innerPrefix
}

// NewWeb returns the browsers' side of s. Serve runs its relay.
func NewWeb(s *Server, cfg WebConfig) (*Web, error) {
	if cfg.Logger == nil {
		cfg.Logger = s.cfg.Logger
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = 256
	}
	if cfg.MaxSessionsPerIP <= 0 {
		cfg.MaxSessionsPerIP = 8
	}
	if cfg.MaxConnsPerIP <= 0 {
		cfg.MaxConnsPerIP = 16
	}
	if cfg.HostTimeout <= 0 {
		cfg.HostTimeout = 10 * time.Second
	}
	if cfg.CertLife <= 0 || cfg.CertLife > 14*24*time.Hour {
		cfg.CertLife = 10 * 24 * time.Hour
	}
	w := &Web{s: s, cfg: cfg, inner: map[netip.AddrPort]*Conn{}, sessIP: map[netip.Addr]int{}, connIP: map[netip.Addr]int{}}
	if err := w.rotate(time.Now()); err != nil {
		return nil, err
	}
	return w, nil
}

// rotate makes the certificates: the one served and the next, whose
// hashes the lookups give both, so that a lookup answered just before a
// rotation still trusts the certificate served after it. The next takes
// over every 2/5 of a life: a certificate made as the next is served
// from 2/5 to 4/5 of its life.
func (w *Web) rotate(now time.Time) error {
	w.certMu.Lock()
	defer w.certMu.Unlock()
	if w.cur != nil && now.Sub(w.rotated) < w.cfg.CertLife*2/5 {
		return nil
	}
	mk := func() (*tls.Certificate, [32]byte, error) {
		c, err := selfCert(now, w.cfg.CertLife)
		if err != nil {
			return nil, [32]byte{}, err
		}
		return c, sha256.Sum256(c.Certificate[0]), nil
	}
	if w.cur == nil {
		c, h, err := mk()
		if err != nil {
			return err
		}
		w.next, w.nxtHash = c, h
	}
	c, h, err := mk()
	if err != nil {
		return err
	}
	w.cur, w.curHash = w.next, w.nxtHash
	w.next, w.nxtHash = c, h
	w.rotated = now
	return nil
}

// selfCert makes an ECDSA P-256 certificate valid from now for life, as
// browsers take one by its hash.
func selfCert(now time.Time, life time.Duration) (*tls.Certificate, error) {
	c, err := selfcert.Make("R-Type rendezvous relay", nil, now.Add(-time.Minute), now.Add(life-time.Minute))
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// CertHashes returns the SHA-256 hashes of the relay's certificates a
// browser trusts: the one served now and the next.
func (w *Web) CertHashes() [][32]byte {
	w.rotate(time.Now())
	w.certMu.Lock()
	defer w.certMu.Unlock()
	return [][32]byte{w.curHash, w.nxtHash}
}

func (w *Web) getCert(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	w.rotate(time.Now())
	w.certMu.Lock()
	defer w.certMu.Unlock()
	return w.cur, nil
}

// Stats returns the counters.
func (w *Web) Stats() WebStats {
	w.mu.Lock()
	n := w.sessions
	w.mu.Unlock()
	return WebStats{Sessions: n, Opened: w.opened.Load(), Refused: w.refused.Load(), HostFailed: w.hostFailed.Load(), QUICIn: w.quicIn.Load()}
}

// Serve answers the datagrams of pc until ctx ends or pc is closed: the
// rendezvous' messages (Server.Handle) and the relay's QUIC packets.
func (w *Web) Serve(ctx context.Context, pc *net.UDPConn) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.pc, w.ctx = pc, ctx
	w.in = NewConn(func(b []byte, to netip.AddrPort) error {
		_, err := pc.WriteToUDPAddrPort(b, to)
		return err
	}, pc.LocalAddr(), netip.AddrPort{}, nil)
	w.tr = &quic.Transport{Conn: w.in, ConnContext: w.connContext,
		VerifySourceAddress: func(net.Addr) bool { return true }} // a Retry first: no amplification
	mux := http.NewServeMux()
	mux.HandleFunc("/room/{code}/rtype", w.serveRelay)
	h3 := &http3.Server{
		Handler: mux,
		TLSConfig: http3.ConfigureTLSConfig(&tls.Config{
			GetCertificate: w.getCert,
			MinVersion:     tls.VersionTLS13,
		}),
		QUICConfig: &quic.Config{
			EnableDatagrams:                  true,
			EnableStreamResetPartialDelivery: true,
			MaxIdleTimeout:                   30 * time.Second,
			KeepAlivePeriod:                  5 * time.Second,
		},
	}
	webtransport.ConfigureHTTP3Server(h3)
	w.wt = &webtransport.Server{H3: h3, CheckOrigin: func(*http.Request) bool { return true }}
	ln, err := w.tr.ListenEarly(h3.TLSConfig, h3.QUICConfig)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		for {
			qc, err := ln.Accept(ctx)
			if err != nil {
				return
			}
			wg.Go(func() { w.wt.ServeQUICConn(qc) })
		}
	})
	wg.Go(func() {
		<-ctx.Done()
		pc.Close()
		w.wt.Close()
		ln.Close()
		w.tr.Close()
		w.in.Close()
	})
	buf := make([]byte, 2048)
	send := w.send
	for {
		n, from, err := pc.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) || ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				cancel()
				return err
			}
			continue // an ICMP error of an earlier send
		}
		from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
		switch {
		case isInner(from): // no UDP peer holds one
		case Type(buf[:n]) == 0: // QUIC, or nothing quic-go takes
			w.quicIn.Add(1)
			w.in.Deliver(append([]byte(nil), buf[:n]...), from)
		default:
			w.s.Handle(buf[:n], from, send)
		}
	}
}

// send is the rendezvous' sending: to the socket, or to the relay's side
// of a pair (a Relay from its host). It runs with the Server's mutex
// held; the Web's is taken after it, never before.
func (w *Web) send(b []byte, to netip.AddrPort) {
	if !isInner(to) {
		w.pc.WriteToUDPAddrPort(b, to)
		return
	}
	w.mu.Lock()
	c := w.inner[to]
	w.mu.Unlock()
	if c != nil {
		c.Deliver(append([]byte(nil), b...), c.rv)
	}
}

// errConnCap refuses a QUIC connection over the caps.
var errConnCap = errors.New("rendezvous: too many connections from this address")

// connContext counts a QUIC connection of the relay per IP address, or
// refuses it; the count is released when it closes.
func (w *Web) connContext(ctx context.Context, info *quic.ClientInfo) (context.Context, error) {
	ua, _ := info.RemoteAddr.(*net.UDPAddr)
	var ip netip.Addr
	if ua != nil {
		ip = ipkey.Of(ua.AddrPort().Addr())
	}
	w.mu.Lock()
	if w.connIP[ip] >= w.cfg.MaxConnsPerIP || w.connIP[ip] == 0 && len(w.connIP) >= 4*w.cfg.MaxSessions {
		w.mu.Unlock()
		w.refused.Add(1)
		return nil, errConnCap
	}
	w.connIP[ip]++
	w.mu.Unlock()
	w.cfg.Logger.Debug("rendezvous: a relay connection", "remote", info.RemoteAddr.String())
	context.AfterFunc(ctx, func() {
		w.mu.Lock()
		if w.connIP[ip]--; w.connIP[ip] <= 0 {
			delete(w.connIP, ip)
		}
		w.mu.Unlock()
	})
	return ctx, nil
}

// JoinAnswer is the lookup's answer, in JSON (PROTOCOL.md 10.8): a room
// and where a browser opens its session (Path, Addr, CertHashes: the
// host; Relay, RelayCertHashes: the relay), or an Error.
type JoinAnswer struct {
	Room            string   `json:"room,omitempty"`
	Path            string   `json:"path,omitempty"`
	Addr            string   `json:"addr,omitempty"`
	CertHashes      []string `json:"certHashes,omitempty"`
	Relay           string   `json:"relay,omitempty"`
	RelayCertHashes []string `json:"relayCertHashes,omitempty"`
	Error           string   `json:"error,omitempty"`
}

// JoinPath is the path of the lookup on the page's server.
const JoinPath = "/join"

// The lookup's error messages, as the page shows them.
const (
	msgBadCode = "this is not a room code: 6 letters and digits, as your friend's lobby shows it"
	msgUnknown = "no game has this room code: check it with your friend, whose game must be in its lobby or playing"
	msgGone    = "the game of this room code has stopped: your friend's game ended or lost its network; ask for a new code"
	msgRate    = "too many codes tried from your address: wait a few seconds"
	msgFull    = "the rendezvous is full: try again in a minute"
	msgNoHost  = "your friend's game did not answer through the relay: try again, or ask your friend to check their network"
)

// httpError is the status and message of a lookup's error.
func httpError(err error) (int, string) {
	switch {
	case errors.Is(err, ErrUnknownRoom):
		return http.StatusNotFound, msgUnknown
	case errors.Is(err, ErrHostGone):
		return http.StatusGone, msgGone
	case errors.Is(err, ErrRateLimited):
		return http.StatusTooManyRequests, msgRate
	case errors.Is(err, ErrFull):
		return http.StatusServiceUnavailable, msgFull
	}
	return http.StatusBadGateway, msgNoHost
}

func writeJSON(rw http.ResponseWriter, status int, a JoinAnswer) {
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Cache-Control", "no-store")
	rw.Header().Set("Access-Control-Allow-Origin", "*") // public, as the UDP lookup is
	if status == http.StatusTooManyRequests {
		rw.Header().Set("Retry-After", "2")
	}
	rw.WriteHeader(status)
	json.NewEncoder(rw).Encode(a)
}

// remoteIP is the IP address of a request's peer.
func remoteIP(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// relayAddr is the relay's address for a browser that asked from host
// reqHost.
func (w *Web) relayAddr(reqHost string) string {
	if w.cfg.RelayAddr != "" {
		return w.cfg.RelayAddr
	}
	port := 0
	if w.pc != nil {
		port = w.pc.LocalAddr().(*net.UDPAddr).Port
	}
	return webaddr.Public(net.JoinHostPort("", strconv.Itoa(port)), reqHost) // the host the browser asked
}

// ServeHTTP answers the lookup, GET JoinPath?code=CODE, in JSON: where
// the browser opens its session (PROTOCOL.md 10.8).
func (w *Web) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		rw.Header().Set("Allow", "GET")
		writeJSON(rw, http.StatusMethodNotAllowed, JoinAnswer{Error: "GET " + JoinPath + "?code=CODE"})
		return
	}
	code, ok := wire.ParseRoomCode(strings.ToUpper(strings.TrimSpace(r.URL.Query().Get("code"))))
	if !ok {
		writeJSON(rw, http.StatusBadRequest, JoinAnswer{Error: msgBadCode})
		return
	}
	ip := remoteIP(r)
	h, err := w.s.Find(code, ip)
	if err != nil {
		st, msg := httpError(err)
		writeJSON(rw, st, JoinAnswer{Room: code.String(), Error: msg})
		return
	}
	a := JoinAnswer{Room: code.String(), Path: string(PathRelayed)}
	if w.pc != nil {
		a.Relay, a.RelayCertHashes = w.relayAddr(r.Host), webaddr.HexHashes(w.CertHashes()...)
	}
	if addr, path, ok := h.BrowserAddr(ip); ok && !(w.cfg.RelayOnly && a.Relay != "") {
		a.Path, a.Addr, a.CertHashes = string(path), addr.String(), webaddr.HexHashes(h.CertHash)
	} else if a.Relay == "" {
		writeJSON(rw, http.StatusServiceUnavailable, JoinAnswer{Room: code.String(),
			Error: "your friend's game cannot be reached from a browser, and this rendezvous relays none"})
		return
	}
	writeJSON(rw, http.StatusOK, a)
}

// serveRelay serves a browser's session of the relay,
// /room/CODE/rtype: it opens a session to the room's host through a
// pair's relay path, then copies the two into each other.
func (w *Web) serveRelay(rw http.ResponseWriter, r *http.Request) {
	w.cfg.Logger.Debug("rendezvous: a relay request", "remote", r.RemoteAddr, "path", r.URL.Path)
	code, ok := wire.ParseRoomCode(strings.ToUpper(r.PathValue("code")))
	if !ok {
		w.refused.Add(1)
		rw.WriteHeader(http.StatusBadRequest)
		return
	}
	ip := remoteIP(r)
	key := ipkey.Of(ip)
	w.mu.Lock()
	if w.sessions >= w.cfg.MaxSessions || w.sessIP[key] >= w.cfg.MaxSessionsPerIP {
		w.mu.Unlock()
		w.refused.Add(1)
		rw.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.sessions++
	w.sessIP[key]++
	w.nextAddr++
	var a [16]byte
	copy(a[:], innerPrefix[:])
	binary.BigEndian.PutUint64(a[8:], w.nextAddr)
	friend := netip.AddrPortFrom(netip.AddrFrom16(a), 1)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.sessions--
		if w.sessIP[key]--; w.sessIP[key] <= 0 {
			delete(w.sessIP, key)
		}
		w.mu.Unlock()
	}()
	tok, h, err := w.s.openPair(code, ip, friend, w.send)
	if err != nil {
		w.refused.Add(1)
		st, _ := httpError(err)
		rw.WriteHeader(st)
		return
	}
	defer w.s.closePair(tok)
	// The relay's side of the pair: its datagrams go to the host in
	// Relays through the rendezvous' logic (the pair's budget), and the
	// host's come from send.
	inner := NewConn(func(b []byte, _ netip.AddrPort) error {
		w.s.Handle(b, friend, w.send)
		return nil
	}, w.pc.LocalAddr(), h.Observed, nil)
	w.mu.Lock()
	w.inner[friend] = inner
	w.mu.Unlock()
	itr := &quic.Transport{Conn: inner}
	defer func() {
		itr.Close()
		inner.Close()
		w.mu.Lock()
		delete(w.inner, friend)
		w.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(w.ctx, w.cfg.HostTimeout)
	stop := context.AfterFunc(r.Context(), cancel) // the browser gave up
	_, hsess, err := dialWT(ctx, itr, inner.RelayAddr(tok), h.CertHash)
	stop()
	cancel()
	if err != nil {
		w.hostFailed.Add(1)
		w.refused.Add(1)
		w.cfg.Logger.Info("rendezvous: a browser's host did not answer", "room", code.String(), "err", err)
		rw.WriteHeader(http.StatusBadGateway)
		return
	}
	bsess, err := w.wt.Upgrade(rw, r)
	if err != nil {
		hsess.CloseWithError(0, "")
		w.refused.Add(1)
		return
	}
	w.opened.Add(1)
	w.cfg.Logger.Info("rendezvous: a browser's session relayed", "room", code.String(), "browser", ip.String())
	bridge(w.ctx, bsess, hsess)
	w.cfg.Logger.Info("rendezvous: a browser's relayed session ended", "room", code.String())
}

// bridge copies sessions a and b into each other (a's streams opened by
// its peer to b, their datagrams both ways) until one ends, then closes
// both.
func bridge(ctx context.Context, a, b *webtransport.Session) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	context.AfterFunc(a.Context(), cancel)
	context.AfterFunc(b.Context(), cancel)
	var wg sync.WaitGroup
	wg.Go(func() { // the browser's streams (the game's is its first)
		for {
			as, err := a.AcceptStream(ctx)
			if err != nil {
				cancel()
				return
			}
			bs, err := b.OpenStreamSync(ctx)
			if err != nil {
				as.CancelRead(0)
				as.CancelWrite(0)
				cancel()
				return
			}
			wg.Go(func() { io.Copy(bs, as); bs.Close() })
			wg.Go(func() { io.Copy(as, bs); as.Close() })
		}
	})
	datagrams := func(from, to *webtransport.Session) {
		for {
			d, err := from.ReceiveDatagram(ctx)
			if err != nil {
				cancel()
				return
			}
			to.SendDatagram(d) // a datagram too large for the other side is dropped, as on a path
		}
	}
	wg.Go(func() { datagrams(a, b) })
	wg.Go(func() { datagrams(b, a) })
	<-ctx.Done()
	a.CloseWithError(0, "")
	b.CloseWithError(0, "")
	wg.Wait()
}
