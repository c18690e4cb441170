package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/quic-go/quicvarint"
	"github.com/quic-go/webtransport-go"

	"rtype/net/ipkey"
	"rtype/net/wire"
)

// The WebTransport binding (PROTOCOL.md Part IV): an HTTP/3 listener on
// its own UDP port. A session's first bidirectional stream is a TCP
// connection for the server (serveConn: the login, then the session's
// messages); its datagrams are UDP datagrams from an address of its own
// (a wtAddr, which no UDP datagram can come from), so that they take the
// read loop's path (receiveLocked) and what the server sends to that
// address goes out as the session's datagrams (outbox.push routes it).

// WebTransportPath is the path of the session URL: https://HOST:PORT/rtype.
const WebTransportPath = "/rtype"

// certCheck is how often the certificates are brought up to date when
// nothing else asks for them.
const certCheck = time.Hour

// wtQueue is how many datagrams wait for a WebTransport session's sender;
// beyond it they are dropped, as a full socket buffer drops them.
const wtQueue = 64

// wtBinding is the server's WebTransport listener and its sessions.
type wtBinding struct {
	pc     *net.UDPConn
	tr     *quic.Transport // on pc: counts and refuses connections (connContext)
	h3     *http3.Server
	srv    *webtransport.Server
	certs  *certs
	routes wtRoutes
	ctx    context.Context // cancelled at shutdown
	cancel context.CancelFunc
	cfg    *Config       // the server's
	ping   time.Duration // wtKeepAlive, or a quarter of QUIC's idle timeout

	mu        sync.Mutex
	closed    bool
	running   bool                         // runWebTransport began: close waits for accepted
	noStream  int                          // sessions waiting for their stream: at most MaxPending
	noStrIP   map[netip.Addr]int           // those of each address: at most MaxPendingPerIP
	nconns    int                          // QUIC connections: at most MaxWebTransportConns
	connIP    map[netip.Addr]int           // those of each address: at most MaxWebTransportConnsPerIP
	refusedAt map[netip.AddrPort]time.Time // attempts refused after their Retry (wtRefusedFor)
	wg        sync.WaitGroup               // the sessions' handlers
	refused   atomic.Uint64                // connection attempts refused by the caps
	idled     atomic.Uint64                // connections closed for having no session
	retries   atomic.Uint64                // first packets answered with a Retry
	pings     atomic.Uint64                // keep-alives sent to the sessions' connections

	// accepted is closed when the accept loop has ended; conns are the
	// QUIC connections it handed to srv, each served until it closes.
	accepted   chan struct{}
	conns      sync.WaitGroup
	acceptCtx  context.Context // cancelled after srv.Close: the accept loop's end
	stopAccept context.CancelFunc
}

// wtRoutes are the datagram senders of the WebTransport sessions, by
// their address. The map is written with the server's mutex held and read
// with it held (by the read loop, or by the tick's shards at once).
type wtRoutes struct {
	peers   map[netip.AddrPort]*wtPeer
	next    uint64        // the last address given
	dropped atomic.Uint64 // datagrams not sent: queue full, too large, or no session
}

// wtPrefix is the first half of every wtAddr: 100::/64, the IPv6 prefix
// for discarding (RFC 6666), which no UDP peer of ours can hold.
var wtPrefix = [8]byte{0x01, 0x00}

// wtAddr returns the n-th session address of the binding.
func wtAddr(n uint64) netip.AddrPort {
	var a [16]byte
	copy(a[:], wtPrefix[:])
	for i := range 8 {
		a[15-i] = byte(n >> (8 * i))
	}
	return netip.AddrPortFrom(netip.AddrFrom16(a), 0)
}

// isWTAddr reports whether a is a WebTransport session's address.
func isWTAddr(a netip.AddrPort) bool {
	ip := a.Addr()
	if !ip.Is6() || ip.Is4In6() {
		return false
	}
	b := ip.As16()
	return [8]byte(b[:8]) == wtPrefix
}

// send queues b for the session of to, if there is one; it does not
// block. It reports whether to is a WebTransport address (then b is
// taken care of, sent or dropped).
func (r *wtRoutes) send(b []byte, to netip.AddrPort) bool {
	if !isWTAddr(to) {
		return false
	}
	if p := r.peers[to]; p == nil || !p.queue(b) {
		r.dropped.Add(1)
	}
	return true
}

// dropSpoofed removes from ds the UDP datagrams that claim to come from a
// WebTransport session's address, in place.
func dropSpoofed(ds []datagram) []datagram {
	out := ds[:0]
	for _, d := range ds {
		if !isWTAddr(d.addr) {
			out = append(out, d)
		}
	}
	return out
}

// wtPeer sends one session's datagrams from a goroutine of its own, so
// that a slow peer (QUIC's congestion control, its bounded queue) never
// holds the server's mutex.
type wtPeer struct {
	sess *webtransport.Session
	addr netip.AddrPort

	mu    sync.Mutex
	buf   [wtQueue][wire.MaxDatagram]byte
	size  [wtQueue]int
	head  int
	count int
	wake  chan struct{}
}

// queue copies b into the queue; false when it is full or b too large.
func (p *wtPeer) queue(b []byte) bool {
	if len(b) > wire.MaxDatagram {
		return false
	}
	p.mu.Lock()
	if p.count == wtQueue {
		p.mu.Unlock()
		return false
	}
	i := (p.head + p.count) % wtQueue
	p.size[i] = copy(p.buf[i][:], b)
	p.count++
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return true
}

// run sends the queued datagrams until the session ends.
func (p *wtPeer) run(dropped *atomic.Uint64) {
	var b [wire.MaxDatagram]byte
	done := p.sess.Context().Done()
	for {
		p.mu.Lock()
		if p.count == 0 {
			p.mu.Unlock()
			select {
			case <-p.wake:
				continue
			case <-done:
				return
			}
		}
		n := copy(b[:], p.buf[p.head][:p.size[p.head]])
		p.head = (p.head + 1) % wtQueue
		p.count--
		p.mu.Unlock()
		if err := p.sess.SendDatagram(b[:n]); err != nil {
			dropped.Add(1)
			if p.sess.Context().Err() != nil {
				return
			}
		}
	}
}

// openWebTransport opens the binding's UDP socket and certificates when
// cfg asks for it, and routes the outboxes' datagrams of its sessions.
func (s *Server) openWebTransport() error {
	cfg := s.cfg
	if cfg.WebTransportAddr == "" {
		return nil
	}
	ua, err := net.ResolveUDPAddr("udp", cfg.WebTransportAddr)
	if err != nil {
		return fmt.Errorf("server: WebTransport address %q: %w", cfg.WebTransportAddr, err)
	}
	var cs *certs
	if cfg.TLSCert != "" || cfg.TLSKey != "" {
		cs, err = loadOperatorCert(cfg.TLSCert, cfg.TLSKey, cfg.CertReload, s.log)
	} else {
		var hosts []string
		if ua.IP != nil && !ua.IP.IsUnspecified() {
			hosts = append(hosts, ua.IP.String())
		}
		cs, err = newSelfCerts(time.Now, hosts)
		if cs != nil {
			cs.log = s.log
		}
	}
	if err != nil {
		return err
	}
	pc, err := net.ListenUDP("udp", ua)
	if err != nil {
		return fmt.Errorf("server: WebTransport listen on %s: %w", cfg.WebTransportAddr, err)
	}
	return s.serveWebTransport(pc, cs)
}

// serveWebTransport sets up the binding on pc with the certificates cs.
func (s *Server) serveWebTransport(pc *net.UDPConn, cs *certs) error {
	wt := &wtBinding{pc: pc, certs: cs, accepted: make(chan struct{}), cfg: &s.cfg,
		noStrIP: make(map[netip.Addr]int), connIP: make(map[netip.Addr]int),
		refusedAt: make(map[netip.AddrPort]time.Time)}
	wt.tr = &quic.Transport{Conn: pc, ConnContext: wt.connContext, VerifySourceAddress: wt.verifySource}
	idle := s.cfg.SessionTimeout + time.Second
	wt.ping = min(wtKeepAlive, idle/4)
	wt.routes.peers = make(map[netip.AddrPort]*wtPeer)
	wt.ctx, wt.cancel = context.WithCancel(context.Background())
	wt.acceptCtx, wt.stopAccept = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc(WebTransportPath, s.serveWT)
	wt.h3 = &http3.Server{
		Handler: mux,
		TLSConfig: http3.ConfigureTLSConfig(&tls.Config{
			GetCertificate: cs.get,
			MinVersion:     tls.VersionTLS13,
		}),
		// No KeepAlivePeriod: a connection without a session gets no
		// keep-alive (it would keep an idle connection up for nothing);
		// those of sessions get keepAlive's.
		QUICConfig: &quic.Config{
			EnableDatagrams:                  true,
			EnableStreamResetPartialDelivery: true,
			MaxIdleTimeout:                   idle,
		},
	}
	webtransport.ConfigureHTTP3Server(wt.h3)
	wt.srv = &webtransport.Server{
		H3: wt.h3,
		// Any page may open a session: the binding carries what anyone
		// may send to the game's TCP and UDP port (9.1).
		CheckOrigin: func(*http.Request) bool { return true },
	}
	s.wt = wt
	s.rxOut.wt = &wt.routes
	for _, sh := range s.shards.all {
		sh.out.wt = &wt.routes
	}
	return nil
}

// runWebTransport serves the binding until shutdown.
func (s *Server) runWebTransport() {
	wt := s.wt
	hs, notAfter := wt.certs.info()
	for _, h := range hs {
		s.log.Info("webtransport certificate", "sha256", fmt.Sprintf("%x", h), "not_after", notAfter)
	}
	s.log.Info("webtransport listening", "addr", wt.pc.LocalAddr().String(), "path", WebTransportPath,
		"operator_cert", len(hs) == 0)
	check := certCheck
	if wt.certs.certFile != "" && wt.certs.reload > 0 {
		check = wt.certs.reload
	}
	go func() { // rotate or reload on time, and log it, without waiting for a handshake
		t := time.NewTicker(check)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				wt.certs.info()
			case <-wt.ctx.Done():
				return
			}
		}
	}()
	if err := wt.accept(); err != nil && wt.acceptCtx.Err() == nil {
		select {
		case <-s.done:
		default:
			s.log.Error("webtransport stopped", "err", err)
		}
	}
}

// accept hands every QUIC connection of the binding's socket to srv until
// shutdown. It is webtransport.Server.Serve's loop, run here because
// Serve counts itself in a WaitGroup that Close waits for: a server
// stopped while Serve was starting raced the two (the race detector's
// "Add concurrently with Wait"). Every conns.Add happens before accepted
// is closed, which closeWebTransport waits for before conns.Wait. The
// listener closes (and with it the socket's QUIC transport) only after
// srv.Close has sent its connections their CONNECTION_CLOSE.
func (wt *wtBinding) accept() error {
	defer close(wt.accepted)
	wt.mu.Lock()
	if wt.closed {
		wt.mu.Unlock()
		return nil
	}
	wt.running = true
	wt.mu.Unlock()
	ln, err := wt.tr.ListenEarly(wt.h3.TLSConfig, wt.h3.QUICConfig)
	if err != nil {
		return err
	}
	defer wt.tr.Close() // after ln: stops reading pc, which closeWebTransport closes
	defer ln.Close()
	for {
		qc, err := ln.Accept(wt.acceptCtx)
		if err != nil {
			return err
		}
		if c, ok := qc.Context().Value(wtQUICKey{}).(*wtQUIC); ok {
			wt.mu.Lock()
			c.qc = qc
			wt.armIdle(c)
			wt.mu.Unlock()
		}
		wt.conns.Add(1)
		go func() {
			defer wt.conns.Done()
			wt.srv.ServeQUICConn(qc) // ends when qc closes (srv.Close closes it)
		}()
	}
}

// closeWebTransport ends the binding: no new session, the remaining
// handlers waited for, the socket closed. The logged-in sessions were
// logged out before.
func (s *Server) closeWebTransport() {
	wt := s.wt
	if wt == nil {
		return
	}
	wt.mu.Lock()
	wt.closed = true
	running := wt.running
	wt.mu.Unlock()
	wt.cancel()
	// The sessions were told Logout(ServerShutdown): give their streams
	// wtCloseGrace to carry it and their peers to answer the close, then
	// close every connection left. A peer that vanished never answers,
	// and its session would otherwise last until QUIC's idle timeout.
	done := make(chan struct{})
	go func() { wt.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wtCloseGrace):
	}
	wt.srv.Close()
	<-done
	wt.stopAccept()
	if running {
		<-wt.accepted
	}
	wt.conns.Wait()
	wt.pc.Close()
}

// wtCloseGrace is how long a stopping server waits for its WebTransport
// sessions to close before it closes their connections.
const wtCloseGrace = 2 * time.Second

// serveWT runs one WebTransport session: its first bidirectional stream,
// within LoginTimeout, is the session's TCP connection (serveConn), its
// datagrams the UDP datagrams of its own address.
func (s *Server) serveWT(w http.ResponseWriter, r *http.Request) {
	wt := s.wt
	wt.mu.Lock()
	if wt.closed {
		wt.mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	wt.wg.Add(1)
	wt.mu.Unlock()
	defer wt.wg.Done()
	sess, err := wt.srv.Upgrade(w, r)
	if err != nil {
		s.log.Debug("webtransport upgrade", "remote", r.RemoteAddr, "err", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if qc, ok := r.Context().Value(wtQUICKey{}).(*wtQUIC); ok {
		wt.sessionOpen(qc)
		defer wt.sessionDone(qc)
	}
	ip := addrKey(sess.RemoteAddr())
	wt.mu.Lock()
	full := wt.noStream >= s.cfg.MaxPending || wt.noStrIP[ip] >= s.cfg.MaxPendingPerIP
	if !full {
		wt.noStream++
		wt.noStrIP[ip]++
	}
	wt.mu.Unlock()
	if full {
		sess.CloseWithError(wtErrBusy, "too many connections")
		return
	}
	ctx, cancel := context.WithTimeout(wt.ctx, s.cfg.LoginTimeout)
	stop := context.AfterFunc(sess.Context(), cancel)
	str, err := sess.AcceptStream(ctx)
	stop()
	cancel()
	wt.mu.Lock()
	wt.noStream--
	if wt.noStrIP[ip]--; wt.noStrIP[ip] <= 0 {
		delete(wt.noStrIP, ip)
	}
	wt.mu.Unlock()
	if err != nil {
		sess.CloseWithError(wtErrNoStream, "no stream within the login timeout")
		return
	}
	go refuseStreams(sess)
	c := &wtConn{Stream: str, sess: sess}
	if !s.gate.admit(c, ip) {
		sess.CloseWithError(wtErrBusy, "too many connections")
		return
	}
	s.mu.Lock()
	wt.routes.next++
	p := &wtPeer{sess: sess, addr: wtAddr(wt.routes.next), wake: make(chan struct{}, 1)}
	wt.routes.peers[p.addr] = p
	s.mu.Unlock()
	var peers sync.WaitGroup
	peers.Add(2)
	go func() { defer peers.Done(); p.run(&wt.routes.dropped) }()
	go func() { defer peers.Done(); s.readWT(sess, p.addr) }()
	s.serveConn(c, ip) // which closes c, gently (closeGently) or not
	s.mu.Lock()
	delete(wt.routes.peers, p.addr)
	s.mu.Unlock()
	peers.Wait()
}

// The WebTransport session error codes the server closes with (9.3).
const (
	wtErrNoStream webtransport.SessionErrorCode = 1 // no stream within LoginTimeout
	wtErrBusy     webtransport.SessionErrorCode = 2 // MaxPending or MaxPendingPerIP
)

// addrPort is the address and port of a, a *net.UDPAddr, or the zero
// AddrPort.
func addrPort(a net.Addr) netip.AddrPort {
	if ua, ok := a.(*net.UDPAddr); ok {
		ap := ua.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	return netip.AddrPort{}
}

// addrKey is the key of a's IP address for the per-address counts
// (ipkey.Of: an IPv6 /64 counts as one address), a a *net.UDPAddr, or
// the zero Addr.
func addrKey(a net.Addr) netip.Addr {
	if ua, ok := a.(*net.UDPAddr); ok {
		return ipkey.Of(ua.AddrPort().Addr())
	}
	return netip.Addr{}
}

// The QUIC connections of the binding (PROTOCOL.md 9.5). Each is
// counted from its first packet (connContext, before its handshake) to
// its close, in all and by address: beyond MaxWebTransportConns or
// MaxWebTransportConnsPerIP the first packet is answered
// CONNECTION_REFUSED, which costs neither a handshake nor memory. So
// that Initial packets of a forged source address cannot take another
// host's places, only the first connection of an address, while the
// binding is less than half full, is counted as it comes: the others
// must first prove their address with a Retry (verifySource), which a
// forger never receives. An accepted connection that has no WebTransport
// session for LoginTimeout (from its accept, or from the end of its last
// session) is closed; and only the connections of sessions get
// keep-alives, so that one that never makes a request is not kept up by
// the server.
//
// quic-go asks connContext about every Initial packet of an attempt that
// it has not let in, not once per attempt: a ClientHello of two Initial
// packets (X25519MLKEM768's key share makes it longer than one), or an
// Initial the client sent again, is judged twice. Were a place freed
// between the two, the attempt's later packet would be counted as a new
// connection while its client, refused by the first, has gone: an orphan
// holding the place until its handshake times out. So a verified attempt
// that was refused stays refused: its address and port are remembered
// (refusedAt) until the next Initial without a token from them, which
// begins a new attempt (verifySource), or until its Retry token has
// expired (wtRefusedFor).

// wtRefusedFor is how long a refused attempt is remembered: quic-go's
// Retry token age, twice the default HandshakeIdleTimeout (5 s). Later,
// its Initial packets are answered INVALID_TOKEN before connContext.
const wtRefusedFor = 10 * time.Second

// wtRefusedMax bounds the refused attempts remembered; beyond it the
// expired are forgotten, and if none has, the new one is not remembered.
const wtRefusedMax = 4096

// wtQUICKey is the context key of a connection's wtQUIC: on its context,
// and so on those of its requests.
type wtQUICKey struct{}

// wtQUIC is one QUIC connection of the binding. Its fields are guarded by
// the binding's mutex.
type wtQUIC struct {
	ip       netip.Addr
	qc       *quic.Conn // once accepted
	closed   bool       // released: the connection is gone
	sessions int        // WebTransport sessions open on it
	idle     *time.Timer
	stopPing context.CancelFunc // ends keepAlive while sessions > 0
}

// wtKeepAlive is how long a session's connection may hear nothing before
// the server sends it a keep-alive, at most: a quarter of QUIC's idle
// timeout (SessionTimeout + 1 s) when that is shorter.
const wtKeepAlive = time.Second

// wtGrease is a keep-alive: a unidirectional stream of a reserved type
// (0x21, RFC 9114 6.2.3), which every HTTP/3 peer reads no further but
// acknowledges, which restarts both sides' idle timers.
var wtGrease = quicvarint.Append(nil, 0x21)

// verifySource tells quic-go to send a Retry to a connection's first
// packet that carries no token, when its address must prove itself before
// it is counted.
func (wt *wtBinding) verifySource(a net.Addr) bool {
	ip := addrKey(a)
	wt.mu.Lock()
	delete(wt.refusedAt, addrPort(a)) // a new attempt from there
	retry := wt.mustVerify(ip)
	wt.mu.Unlock()
	if retry {
		wt.retries.Add(1)
	}
	return retry
}

// mustVerify: ip holds a connection already, or the binding is half full.
// The binding's mutex is held.
func (wt *wtBinding) mustVerify(ip netip.Addr) bool {
	return wt.connIP[ip] > 0 || wt.nconns >= wt.cfg.MaxWebTransportConns/2
}

// connContext counts a new QUIC connection of the binding, or refuses it
// (an error: quic-go answers CONNECTION_REFUSED). ctx ends when the
// connection closes, or its handshake fails: the count is released then.
func (wt *wtBinding) connContext(ctx context.Context, info *quic.ClientInfo) (context.Context, error) {
	ip := addrKey(info.RemoteAddr)
	now := time.Now()
	wt.mu.Lock()
	if wt.closed || wt.nconns >= wt.cfg.MaxWebTransportConns || wt.connIP[ip] >= wt.cfg.MaxWebTransportConnsPerIP ||
		!info.AddrVerified && wt.mustVerify(ip) || info.AddrVerified && wt.refusedBefore(addrPort(info.RemoteAddr), now) {
		if info.AddrVerified {
			wt.rememberRefused(addrPort(info.RemoteAddr), now)
		}
		wt.mu.Unlock()
		wt.refused.Add(1)
		return nil, errWTBusy
	}
	wt.nconns++
	wt.connIP[ip]++
	wt.mu.Unlock()
	c := &wtQUIC{ip: ip}
	context.AfterFunc(ctx, func() { wt.release(c) })
	return context.WithValue(ctx, wtQUICKey{}, c), nil
}

// refusedBefore reports whether the attempt of ap was refused (its
// earlier Initial packet). The binding's mutex is held.
func (wt *wtBinding) refusedBefore(ap netip.AddrPort, now time.Time) bool {
	at, ok := wt.refusedAt[ap]
	return ok && now.Sub(at) < wtRefusedFor
}

// rememberRefused notes the refused attempt of ap, within wtRefusedMax.
// The binding's mutex is held.
func (wt *wtBinding) rememberRefused(ap netip.AddrPort, now time.Time) {
	if _, ok := wt.refusedAt[ap]; !ok && len(wt.refusedAt) >= wtRefusedMax {
		for k, at := range wt.refusedAt {
			if now.Sub(at) >= wtRefusedFor {
				delete(wt.refusedAt, k)
			}
		}
		if len(wt.refusedAt) >= wtRefusedMax {
			return
		}
	}
	wt.refusedAt[ap] = now
}

// connCount returns the connections now and the attempts refused.
func (wt *wtBinding) connCount() (int, uint64) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	return wt.nconns, wt.refused.Load()
}

// errWTBusy refuses a QUIC connection beyond the caps.
var errWTBusy = errors.New("server: too many WebTransport connections")

// release uncounts a connection that closed.
func (wt *wtBinding) release(c *wtQUIC) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	c.closed = true
	if c.idle != nil {
		c.idle.Stop()
	}
	if c.stopPing != nil {
		c.stopPing()
	}
	wt.nconns--
	if wt.connIP[c.ip]--; wt.connIP[c.ip] <= 0 {
		delete(wt.connIP, c.ip)
	}
}

// armIdle starts c's clock: closed LoginTimeout from now unless a session
// opens meanwhile. The binding's mutex is held.
func (wt *wtBinding) armIdle(c *wtQUIC) {
	if c.closed || c.qc == nil || c.sessions > 0 {
		return
	}
	if c.idle == nil {
		c.idle = time.AfterFunc(wt.cfg.LoginTimeout, func() { wt.closeIdle(c) })
		return
	}
	c.idle.Reset(wt.cfg.LoginTimeout)
}

// closeIdle closes c if it still has no session.
func (wt *wtBinding) closeIdle(c *wtQUIC) {
	wt.mu.Lock()
	idle := !c.closed && c.sessions == 0
	wt.mu.Unlock()
	if idle {
		wt.idled.Add(1)
		c.qc.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "no session within the login timeout")
	}
}

// sessionOpen counts a session of c: c's clock stops, and its keep-alive
// starts with its first session.
func (wt *wtBinding) sessionOpen(c *wtQUIC) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	c.sessions++
	if c.idle != nil {
		c.idle.Stop()
	}
	if c.sessions == 1 && !c.closed && c.qc != nil {
		ctx, cancel := context.WithCancel(c.qc.Context())
		c.stopPing = cancel
		go wt.keepAlive(ctx, c.qc)
	}
}

// sessionDone uncounts a session of c: with its last, the keep-alive
// ends and the clock starts again.
func (wt *wtBinding) sessionDone(c *wtQUIC) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	if c.sessions--; c.sessions > 0 {
		return
	}
	if c.stopPing != nil {
		c.stopPing()
		c.stopPing = nil
	}
	wt.armIdle(c)
}

// keepAlive sends qc a keep-alive (wtGrease) whenever it heard nothing
// for wt.ping, until ctx ends: QUIC's own (KeepAlivePeriod) cannot
// start with a session, as the QUIC config is fixed at the handshake. A
// session in play hears a datagram every few milliseconds and needs
// none; an idle one (in the lobby) gets one every other period, the
// peer's acknowledgement counting as hearing.
func (wt *wtBinding) keepAlive(ctx context.Context, qc *quic.Conn) {
	t := time.NewTicker(wt.ping)
	defer t.Stop()
	last := qc.ConnectionStats().PacketsReceived
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n := qc.ConnectionStats().PacketsReceived
		if n != last {
			last = n
			continue
		}
		str, err := qc.OpenUniStream() // none when the peer grants no stream now: next time
		if err != nil {
			continue
		}
		str.SetWriteDeadline(time.Now().Add(wt.ping))
		str.Write(wtGrease)
		str.Close()
		wt.pings.Add(1)
	}
}

// refuseStreams resets every stream but the first of a session (9.2).
func refuseStreams(sess *webtransport.Session) {
	for {
		str, err := sess.AcceptStream(sess.Context())
		if err != nil {
			return
		}
		str.CancelRead(0)
		str.CancelWrite(0)
	}
}

// readWT hands the session's datagrams to the read loop's path, as if
// they came from UDP address from.
func (s *Server) readWT(sess *webtransport.Session, from netip.AddrPort) {
	var rd reader
	var d [1]datagram
	for {
		b, err := sess.ReceiveDatagram(sess.Context())
		if err != nil {
			return
		}
		d[0] = datagram{b: b, addr: from}
		s.in.receive(&rd, d[:], time.Now())
	}
}

// wtConn is a session's stream as the server's TCP connection: closing it
// closes the session, and CloseWrite (closeGently) ends the stream only.
type wtConn struct {
	*webtransport.Stream
	sess *webtransport.Session
}

func (c *wtConn) Close() error {
	// A Read that saw the peer's session go away waits, in
	// webtransport-go, for the session's close without a deadline of its
	// own (a vanished peer never sends it): the deadline ends that Read.
	c.Stream.SetReadDeadline(time.Now())
	c.Stream.CancelRead(0)
	return c.sess.CloseWithError(0, "")
}

// CloseWrite ends what the server sends on the stream (FIN).
func (c *wtConn) CloseWrite() error { return c.Stream.Close() }

func (c *wtConn) LocalAddr() net.Addr  { return c.sess.LocalAddr() }
func (c *wtConn) RemoteAddr() net.Addr { return c.sess.RemoteAddr() }
