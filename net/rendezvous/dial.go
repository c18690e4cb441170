//go:build !js

package rendezvous

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"rtype/net/wire"
	"rtype/net/wtconn"
)

// maxAttempts is the most paths a dial tries.
const maxAttempts = 8

// wtPath is the path of the WebTransport session URL (PROTOCOL.md 9.1).
const wtPath = "/rtype"

// Dialer is a client.Transport (net/client; this package does not
// import it, which imports the server in its tests) that finds a room's host through a
// rendezvous and opens a session of the WebTransport binding to it over
// the first path that works: DialStream's address is the room code.
type Dialer struct {
	// Rendezvous is the rendezvous' host:port.
	Rendezvous string
	// Logger logs. Default slog.Default().
	Logger *slog.Logger
	// RelayDelay is how long the relay waits before its attempt, so that
	// a path without it wins whenever there is one. Default 1 s.
	RelayDelay time.Duration
	// LookupEvery is the time between Lookups until one is answered.
	// Default 300 ms.
	LookupEvery time.Duration
	// Paths are the paths tried. Default all.
	Paths []Path
	// OnPath, when set, is told the path of each session opened, and
	// its address.
	OnPath func(p Path, addr netip.AddrPort)

	mu   sync.Mutex
	last Result
}

// Result is what a dial found.
type Result struct {
	Path     Path
	Addr     netip.AddrPort // where the session goes: the host's, or a relay address
	Host     Peer           // the rendezvous' answer
	LookedUp time.Duration  // from the dial to the answer of the Lookup
	Opened   time.Duration  // from the dial to the session's stream
	Conn     *Conn          // the socket, for its relay counters
}

// Last returns the result of the last dial that opened a session.
func (d *Dialer) Last() Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

func (d *Dialer) wants(p Path) bool {
	if len(d.Paths) == 0 {
		return true
	}
	for _, q := range d.Paths {
		if q == p {
			return true
		}
	}
	return false
}

// DialStream finds the host of room code and opens a session to it; it
// returns the session's stream.
func (d *Dialer) DialStream(ctx context.Context, code string) (net.Conn, error) {
	start := time.Now()
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	rc, ok := wire.ParseRoomCode(strings.ToUpper(code))
	if !ok {
		return nil, fmt.Errorf("rendezvous: %q is no room code", code)
	}
	ua, err := net.ResolveUDPAddr("udp", d.Rendezvous)
	if err != nil {
		return nil, fmt.Errorf("rendezvous %q: %w", d.Rendezvous, err)
	}
	rv := ua.AddrPort()
	rv = netip.AddrPortFrom(rv.Addr().Unmap(), rv.Port())
	network := "udp4"
	if rv.Addr().Is6() {
		network = "udp6"
	}
	pc, err := net.ListenUDP(network, nil)
	if err != nil {
		return nil, err
	}
	c := ListenConn(pc, rv)
	qtr := &quic.Transport{Conn: c}
	fail := func(err error) (net.Conn, error) {
		qtr.Close()
		c.Close()
		return nil, err
	}
	peer, cookie, err := d.lookup(ctx, c, rc)
	if err != nil {
		return fail(err)
	}
	looked := time.Since(start)
	log.Debug("rendezvous: host found", "room", rc.String(), "observed", peer.Observed.String(),
		"local", peer.Local.String(), "mapped", peer.Mapped.String(), "you", peer.You.String())

	type attempt struct {
		path  Path
		addr  netip.AddrPort
		delay time.Duration
		punch bool
		tr    *quic.Transport // default qtr
	}
	var as []attempt
	if peer.Mapped.IsValid() && peer.Mapped != peer.Local {
		as = append(as, attempt{path: PathMapped, addr: peer.Mapped})
	}
	switch {
	case peer.Observed == peer.Local:
		as = append(as, attempt{path: PathDirect, addr: peer.Observed})
	case peer.Observed.Addr() == peer.You.Addr() && peer.Local.IsValid():
		as = append(as, attempt{path: PathDirect, addr: peer.Local}) // the same home
	case peer.Observed != peer.Mapped: // else the mapping's attempt goes there
		as = append(as, attempt{path: PathPunched, addr: peer.Observed, punch: true})
	}
	delay := d.RelayDelay
	if delay <= 0 {
		delay = time.Second
	}
	// A friend whose NAT changed its port may be behind a NAT that maps
	// each destination to a port of its own, which no punch from the host
	// finds: it sprays (below), and the relay waits longer for it.
	spray := d.wants(PathPunched) && peer.Observed != peer.Local && peer.Observed != peer.Mapped &&
		peer.Observed.Addr() != peer.You.Addr() &&
		peer.You.Port() != uint16(pc.LocalAddr().(*net.UDPAddr).Port)
	// A host whose NAT changed its port may be behind a symmetric NAT:
	// a friend that kept its own port has the host open sockets toward
	// it, and probes the host's address (below).
	reach := d.wants(PathPunched) && !spray && peer.Observed != peer.Local && peer.Observed != peer.Mapped &&
		peer.Observed.Addr() != peer.You.Addr() && peer.Local.IsValid() &&
		peer.Observed.Port() != peer.Local.Port()
	if spray || reach {
		delay = max(delay, 2*time.Second)
	}
	as = append(as, attempt{path: PathRelayed, addr: c.RelayAddr(peer.Token), delay: delay})

	type won struct {
		a    attempt
		sess *webtransport.Session
		wt   *webtransport.Transport
		err  error
	}
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan won, maxAttempts)
	var mu sync.Mutex
	type key struct {
		tr   *quic.Transport
		addr netip.AddrPort
	}
	pending, tried := 0, map[key]bool{}
	launch := func(a attempt) {
		mu.Lock()
		defer mu.Unlock()
		if a.tr == nil {
			a.tr = qtr
		}
		k := key{a.tr, a.addr}
		if !d.wants(a.path) || tried[k] || len(tried) >= maxAttempts || actx.Err() != nil {
			return
		}
		tried[k] = true
		pending++
		go func() {
			if a.delay > 0 {
				select {
				case <-time.After(a.delay):
				case <-actx.Done():
					results <- won{a: a, err: actx.Err()}
					return
				}
			}
			if a.punch {
				go punchFor(actx, c, peer.Token, a.addr)
			}
			wt, sess, err := dialWT(actx, a.tr, a.addr, peer.CertHash)
			results <- won{a: a, sess: sess, wt: wt, err: err}
		}()
	}
	// A host behind a NAT that maps each destination to a port of its
	// own punches from a port the rendezvous never saw: its Punch tells
	// it, and a handshake to it goes through the mapping the Punch made.
	// The attempt punches too: a socket the host opened for this friend
	// (Reach) takes it as its peer at its Punch.
	c.SetControl(func(b []byte, from netip.AddrPort) {
		if Type(b) == TPunch && from != c.rv {
			launch(attempt{path: PathPunched, addr: from, punch: true})
		}
	})
	for _, a := range as {
		launch(a)
	}
	var sprayed *sprayConns
	if spray {
		sprayed = d.spray(c, peer, cookie, network, func(tr *quic.Transport, from netip.AddrPort) {
			launch(attempt{path: PathPunched, addr: from, tr: tr})
		})
	}
	if reach {
		go d.reach(actx, c, peer, cookie)
	}
	var win *won
	var errs []error
	for {
		mu.Lock()
		left := pending
		mu.Unlock()
		if left == 0 {
			break
		}
		r := <-results
		mu.Lock()
		pending--
		mu.Unlock()
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s %v: %w", r.a.path, r.a.addr, r.err))
			continue
		}
		if win != nil {
			r.sess.CloseWithError(0, "")
			continue
		}
		win = &r
		cancel() // the others stop
	}
	var wtr *quic.Transport
	if win != nil {
		wtr = win.a.tr
	}
	winConn := sprayed.closeBut(wtr) // the spray's sockets but the winner's
	if win == nil && len(errs) == 0 {
		return fail(fmt.Errorf("rendezvous: no path to try (of %v)", d.Paths))
	}
	if win == nil {
		return fail(errors.Join(errs...))
	}
	str, err := win.sess.OpenStreamSync(ctx)
	if err != nil {
		win.sess.CloseWithError(0, "")
		return fail(fmt.Errorf("rendezvous: opening the stream: %w", err))
	}
	res := Result{Path: win.a.path, Addr: win.a.addr, Host: peer, LookedUp: looked, Opened: time.Since(start), Conn: c}
	d.mu.Lock()
	d.last = res
	d.mu.Unlock()
	log.Info("rendezvous: session open", "room", rc.String(), "path", string(res.Path), "addr", res.Addr.String(),
		"lookup", looked, "open", res.Opened)
	for _, err := range errs {
		log.Debug("rendezvous: a path failed", "err", err)
	}
	if d.OnPath != nil {
		d.OnPath(res.Path, res.Addr)
	}
	sess := win.sess
	go func() { // the sockets live as long as the session
		<-sess.Context().Done()
		time.Sleep(time.Second) // the CONNECTION_CLOSE goes out
		if winConn != nil {
			wtr.Close()
			winConn.Close()
		}
		qtr.Close()
		c.Close()
	}()
	return wtconn.Stream(str, sess), nil
}

// lookup asks the rendezvous for room rc until it answers.
func (d *Dialer) lookup(ctx context.Context, c *Conn, rc wire.RoomCode) (Peer, Cookie, error) {
	every := d.LookupEvery
	if every <= 0 {
		every = 300 * time.Millisecond
	}
	var nb [8]byte
	rand.Read(nb[:])
	nonce := binary.BigEndian.Uint64(nb[:])
	answers := make(chan []byte, 16)
	c.SetControl(func(b []byte, _ netip.AddrPort) {
		select {
		case answers <- b:
		default:
		}
	})
	var cookie Cookie
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		c.SendRaw(AppendLookup(nil, &Lookup{Nonce: nonce, Cookie: cookie, Code: rc}), c.rv)
	wait:
		select {
		case <-ctx.Done():
			return Peer{}, cookie, fmt.Errorf("rendezvous %v: no answer: %w", c.rv, ctx.Err())
		case <-t.C:
		case b := <-answers:
			switch Type(b) {
			case TRetry:
				m, err := ParseRetry(b)
				if err != nil || m.Nonce != nonce {
					goto wait
				}
				cookie = m.Cookie
			case TPeer:
				m, err := ParsePeer(b)
				if err != nil || m.Nonce != nonce {
					goto wait
				}
				return m, cookie, nil
			case TError:
				m, err := ParseError(b)
				if err != nil || m.Nonce != nonce {
					goto wait
				}
				if m.Code == CodeUnknownRoom {
					return Peer{}, cookie, fmt.Errorf("%w %s", ErrUnknownRoom, rc)
				}
				return Peer{}, cookie, fmt.Errorf("rendezvous: lookup refused (error %d)", m.Code)
			default:
				goto wait
			}
		}
	}
}

// sprayConns are the sockets of a spray, with their QUIC transports.
type sprayConns struct {
	mu    sync.Mutex
	conns []*Conn
	trs   []*quic.Transport
}

// closeBut closes the sockets but the one of transport keep, and returns
// that one (nil if none).
func (s *sprayConns) closeBut(keep *quic.Transport) *Conn {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var kept *Conn
	for i, tr := range s.trs {
		if tr == keep {
			kept = s.conns[i]
			continue
		}
		tr.Close()
		s.conns[i].Close()
	}
	s.conns, s.trs = nil, nil
	return kept
}

// spray opens SpraySockets sockets, each sending a Punch to the host
// (which opens a mapping of the friend's NAT toward it, on a port of its
// own), and asks the rendezvous that the host probe SprayPorts ports of
// the friend's address. A socket a probe reaches calls hit, once, with
// the socket's QUIC transport and the probe's source: a handshake from
// that socket goes through.
func (d *Dialer) spray(c *Conn, peer Peer, cookie Cookie, network string, hit func(*quic.Transport, netip.AddrPort)) *sprayConns {
	s := &sprayConns{}
	punch := AppendPunch(nil, peer.Token)
	for range SpraySockets {
		pc, err := net.ListenUDP(network, nil)
		if err != nil {
			break // out of sockets: spray with those opened
		}
		sc := ListenConn(pc, c.rv)
		sc.RelayAddr(peer.Token) // the pair's Punches are its
		tr := &quic.Transport{Conn: sc}
		var once sync.Once
		sc.SetControl(func(b []byte, from netip.AddrPort) {
			if Type(b) == TPunch && from.Addr() == peer.Observed.Addr() {
				once.Do(func() { hit(tr, from) })
			}
		})
		s.mu.Lock()
		s.conns, s.trs = append(s.conns, sc), append(s.trs, tr)
		s.mu.Unlock()
		sc.SendRaw(punch, peer.Observed)
	}
	var nb [8]byte
	rand.Read(nb[:])
	c.SendRaw(AppendSpray(nil, &Spray{Nonce: binary.BigEndian.Uint64(nb[:]), Cookie: cookie, Token: peer.Token}), c.rv)
	return s
}

// reach asks the rendezvous that the host open sockets toward this
// friend (Open), then probes SprayPorts random ports of the host's
// address from c (64 every 5 ms): a probe that meets one of the host's
// mappings reaches its socket, which answers it, and the answer's source
// is the address to try (c's control function launches it).
func (d *Dialer) reach(ctx context.Context, c *Conn, peer Peer, cookie Cookie) {
	var nb [8]byte
	rand.Read(nb[:])
	c.SendRaw(AppendOpen(nil, &Spray{Nonce: binary.BigEndian.Uint64(nb[:]), Cookie: cookie, Token: peer.Token}), c.rv)
	select { // the host opens its sockets meanwhile
	case <-time.After(reachWait):
	case <-ctx.Done():
		return
	}
	b := AppendPunch(nil, peer.Token)
	for i := range SprayPorts {
		if i > 0 && i%64 == 0 {
			select {
			case <-time.After(5 * time.Millisecond):
			case <-ctx.Done():
				return
			}
		}
		c.SendRaw(b, netip.AddrPortFrom(peer.Observed.Addr(), uint16(1024+mrand.IntN(65536-1024))))
	}
}

// reachWait is how long a friend waits after its Open before it probes.
const reachWait = 300 * time.Millisecond

// punchFor sends Punches to the host until ctx ends (at most 3 s).
func punchFor(ctx context.Context, c *Conn, tok Token, to netip.AddrPort) {
	b := AppendPunch(nil, tok)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for range 30 {
		c.SendRaw(b, to)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// dialWT opens a WebTransport session to addr over qtr, trusting the
// certificate of hash.
func dialWT(ctx context.Context, qtr *quic.Transport, addr netip.AddrPort, hash [HashLen]byte) (*webtransport.Transport, *webtransport.Session, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS13,
		InsecureSkipVerify: true, // checked by its hash instead
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("rendezvous: the host sent no certificate")
			}
			leaf := cs.PeerCertificates[0]
			if sha256.Sum256(leaf.Raw) != hash {
				return fmt.Errorf("rendezvous: the host's certificate is not the one it registered")
			}
			if now := time.Now(); now.Before(leaf.NotBefore) || now.After(leaf.NotAfter) {
				return fmt.Errorf("rendezvous: the host's certificate is valid from %v to %v, not now", leaf.NotBefore, leaf.NotAfter)
			}
			return nil
		},
	}
	ua := net.UDPAddrFromAddrPort(addr)
	wt := &webtransport.Transport{
		TLSClientConfig: tc,
		QUICConfig: &quic.Config{
			EnableDatagrams:                  true,
			EnableStreamResetPartialDelivery: true,
			KeepAlivePeriod:                  time.Second,
		},
		DialAddr: func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			return qtr.DialEarly(ctx, ua, tlsCfg, cfg)
		},
	}
	url := "https://" + addr.String() + wtPath
	rsp, sess, err := wt.Dial(ctx, url, nil)
	if err != nil {
		if rsp != nil {
			return nil, nil, fmt.Errorf("webtransport %s: the host answered %s", url, rsp.Status)
		}
		return nil, nil, err
	}
	return wt, sess, nil
}

// DialDatagrams returns the datagram channel of the session of stream,
// which DialStream opened (or a wrapper of it with a NetConn method).
func (d *Dialer) DialDatagrams(_ context.Context, stream net.Conn) (net.Conn, error) {
	return wtconn.Datagrams(stream)
}
