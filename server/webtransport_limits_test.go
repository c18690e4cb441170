package server

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// The WebTransport binding's limits (issue 27, PROTOCOL.md 9.5),
// over real sockets from several loopback addresses: QUIC connections
// per address and in all, sessions waiting for their stream per address,
// connections without a session closed, keep-alives only for sessions.

// wtIP is the address of 127.0.0.n.
func wtIP(n byte) netip.Addr { return netip.AddrFrom4([4]byte{127, 0, 0, n}) }

// wtState returns the binding's count of QUIC connections and of
// sessions waiting for their stream of ip.
func wtState(s *Server, ip netip.Addr) (conns, noStream int) {
	s.wt.mu.Lock()
	defer s.wt.mu.Unlock()
	return s.wt.connIP[ip], s.wt.noStrIP[ip]
}

// isRefused reports a QUIC dial answered CONNECTION_REFUSED.
func isRefused(err error) bool {
	var te *quic.TransportError
	return errors.As(err, &te) && te.ErrorCode == quic.ConnectionRefused
}

// TestWebTransportFloodOtherAddressJoins is the flood, smaller:
// from 127.0.0.2, 70 sessions that never open their stream then 300 QUIC
// connections that never make a request (-wtflood: more). The address
// keeps MaxPendingPerIP (8) sessions waiting and holds
// MaxWebTransportConnsPerIP (16, the default: MaxSessionsPerIP +
// MaxPendingPerIP) connections, the rest refused at their first packet;
// and a player from 127.0.0.1 joins and gets a Snapshot. Before the
// limits 64 sessions took every pending place (MaxPending was global) and
// the player was refused, and every connection stayed.
func TestWebTransportFloodOtherAddressJoins(t *testing.T) {
	cfg := testConfig()
	cfg.MaxSessionsPerIP = 8
	cfg.LoginTimeout = time.Minute // the flood holds until the join
	s := startWT(t, cfg)
	if s.cfg.MaxWebTransportConnsPerIP != 16 || s.cfg.MaxPendingPerIP != 8 {
		t.Fatalf("caps %d connections, %d pending per address: want the defaults 16 and 8",
			s.cfg.MaxWebTransportConnsPerIP, s.cfg.MaxPendingPerIP)
	}
	info, _ := s.WebTransport()
	idle := 300
	if *wtFlood > 0 {
		idle = *wtFlood
	}
	r := flood(newWTFrom(t, "127.0.0.2", info.Addr), 70, idle, 16)
	defer r.close()
	ip := wtIP(2)
	testutil.WaitFor(t, wait, "8 sessions of 127.0.0.2 waiting, the others closed", func() bool {
		sess, _ := r.alive()
		_, pending := wtState(s, ip)
		return sess == 8 && pending == 8
	})
	_, open := r.alive()
	testutil.WaitFor(t, wait, "the server counting the flood's open connections", func() bool {
		conns, _ := wtState(s, ip)
		return conns == 8+open
	})
	if open > 8 || len(r.conns) > 8 || r.connsRefused < idle-8 {
		t.Fatalf("%d idle connections opened (%d open), %d refused: want at most 16 - 8", len(r.conns), open, r.connsRefused)
	}
	if m := s.Metrics(); m.WebTransportConns > 16 || m.WebTransportRefused < uint64(r.connsRefused) {
		t.Fatalf("metrics: %d connections, %d refused; %d refused to the client", m.WebTransportConns, m.WebTransportRefused, r.connsRefused)
	}
	joined, c, err := joinWT(info.Addr, info.CertHashes)
	if c != nil {
		defer c.Close()
	}
	if err != nil {
		t.Fatalf("the player from 127.0.0.1: %v", err)
	}
	t.Logf("flood of 127.0.0.2: %d sessions opened, %d failed; %d idle connections opened, %d refused; "+
		"the player from 127.0.0.1 got a Snapshot in %v", len(r.sessions), r.sessFailed, len(r.conns), r.connsRefused, joined)
}

// TestWebTransportConnCaps: a QUIC connection beyond
// MaxWebTransportConnsPerIP of its address, or beyond
// MaxWebTransportConns, is refused at its first packet
// (CONNECTION_REFUSED); one that closes gives its place back.
func TestWebTransportConnCaps(t *testing.T) {
	cfg := testConfig()
	cfg.MaxWebTransportConns, cfg.MaxWebTransportConnsPerIP = 3, 2
	s := startWT(t, cfg)
	info, _ := s.WebTransport()
	a, b := newWTFrom(t, "127.0.0.2", info.Addr), newWTFrom(t, "127.0.0.3", info.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	dial := func(f *wtFrom, want bool) *quic.Conn {
		t.Helper()
		c, err := f.conn(ctx, nil)
		switch {
		case want && err != nil:
			t.Fatalf("a connection within the caps: %v", err)
		case !want && !isRefused(err):
			t.Fatalf("a connection beyond the caps: %v, want CONNECTION_REFUSED", err)
		}
		if c != nil {
			t.Cleanup(func() { c.CloseWithError(0, "") })
		}
		return c
	}
	a1 := dial(a, true)
	dial(a, true)
	dial(a, false) // 127.0.0.2's two
	dial(b, true)
	dial(b, false) // three in all
	if conns, _ := wtState(s, wtIP(2)); conns != 2 {
		t.Fatalf("127.0.0.2 holds %d connections, want 2", conns)
	}
	if m := s.Metrics(); m.WebTransportConns != 3 || m.WebTransportRefused < 2 {
		t.Fatalf("metrics: %d connections, %d refused: want 3 and at least 2", m.WebTransportConns, m.WebTransportRefused)
	}
	a1.CloseWithError(0, "")
	testutil.WaitFor(t, wait, "the closed connection uncounted", func() bool { return s.Metrics().WebTransportConns == 2 })
	dial(b, true)
}

// TestWebTransportRefusedAttemptStays: quic-go asks the binding about
// every Initial packet of an attempt it has not let in (a ClientHello of
// two packets is judged twice). An attempt refused at its first packet
// stays refused at its second even though a place has freed meanwhile,
// and the same address and port gets the place with its next attempt,
// which begins with an Initial without a token (verifySource). The
// callbacks are called here as quic-go calls them, in that order. Before,
// the second packet was counted as a new connection, whose client had
// gone: TestWebTransportConnCaps's last dial was refused, now and then,
// for that orphan holding 127.0.0.3's second place.
func TestWebTransportRefusedAttemptStays(t *testing.T) {
	cfg := testConfig()
	cfg.MaxWebTransportConns, cfg.MaxWebTransportConnsPerIP = 3, 2
	s := startWT(t, cfg)
	wt := s.wt
	from := func(n byte, port int) *quic.ClientInfo {
		return &quic.ClientInfo{RemoteAddr: &net.UDPAddr{IP: net.IPv4(127, 0, 0, n), Port: port}, AddrVerified: true}
	}
	var cancels []context.CancelFunc
	defer func() {
		for _, c := range cancels {
			c()
		}
	}()
	count := func(ci *quic.ClientInfo) error { // one Initial packet with a valid token
		ctx, cancel := context.WithCancel(context.Background())
		cancels = append(cancels, cancel)
		_, err := wt.connContext(ctx, ci)
		return err
	}
	for i, ci := range []*quic.ClientInfo{from(2, 1000), from(2, 1001), from(3, 1000)} {
		if err := count(ci); err != nil {
			t.Fatalf("connection %d within the caps: %v", i, err)
		}
	}
	late := from(3, 1001)
	if !wt.verifySource(late.RemoteAddr) {
		t.Fatal("no Retry demanded of 127.0.0.3's second connection")
	}
	if err := count(late); !errors.Is(err, errWTBusy) {
		t.Fatalf("the attempt's first packet beyond the caps: %v, want refused", err)
	}
	cancels[0]() // 127.0.0.2's first closes
	testutil.WaitFor(t, wait, "the closed connection uncounted", func() bool { return s.Metrics().WebTransportConns == 2 })
	if err := count(late); !errors.Is(err, errWTBusy) {
		t.Fatalf("the refused attempt's second packet: %v, want refused", err)
	}
	if n, _ := wt.connCount(); n != 2 {
		t.Fatalf("%d connections counted, want 2", n)
	}
	wt.verifySource(late.RemoteAddr) // the next attempt's Initial without a token
	if err := count(late); err != nil {
		t.Fatalf("a new attempt within the caps: %v", err)
	}
	if conns, _ := wtState(s, wtIP(3)); conns != 2 {
		t.Fatalf("127.0.0.3 holds %d connections, want 2", conns)
	}
}

// TestWebTransportPendingPerAddress: sessions waiting for their stream
// count per address: beyond MaxPendingPerIP the session is closed at once
// (wtErrBusy), while another address's session waits as usual.
func TestWebTransportPendingPerAddress(t *testing.T) {
	cfg := testConfig()
	cfg.MaxPendingPerIP = 2
	s := startWT(t, cfg)
	info, _ := s.WebTransport()
	a, b := newWTFrom(t, "127.0.0.2", info.Addr), newWTFrom(t, "127.0.0.3", info.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	open := func(f *wtFrom) *webtransport.Session {
		t.Helper()
		sess, err := f.session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sess.CloseWithError(0, "") })
		return sess
	}
	open(a)
	open(a)
	testutil.WaitFor(t, wait, "two sessions of 127.0.0.2 waiting", func() bool {
		_, n := wtState(s, wtIP(2))
		return n == 2
	})
	third := open(a)
	select {
	case <-third.Context().Done():
	case <-time.After(wait):
		t.Fatal("a third session of 127.0.0.2 is still open")
	}
	var se *webtransport.SessionError
	if _, err := third.AcceptStream(ctx); !errors.As(err, &se) || se.ErrorCode != wtErrBusy || !se.Remote {
		t.Fatalf("the third session: %v, want the server's close %d", err, wtErrBusy)
	}
	other := open(b)
	testutil.WaitFor(t, wait, "the session of 127.0.0.3 waiting", func() bool {
		_, n := wtState(s, wtIP(3))
		return n == 1
	})
	if other.Context().Err() != nil {
		t.Fatal("the session of 127.0.0.3 was closed")
	}
}

// TestWebTransportConnWithoutSession: a QUIC connection that makes no
// request is closed by the server (H3_NO_ERROR) once it has had no
// session for the LoginTimeout. Before, it stayed open as long as its
// client answered the server's keep-alives.
func TestWebTransportConnWithoutSession(t *testing.T) {
	cfg := testConfig()
	cfg.LoginTimeout = time.Second
	s := startWT(t, cfg)
	info, _ := s.WebTransport()
	f := newWTFrom(t, "127.0.0.2", info.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := f.conn(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseWithError(0, "")
	select {
	case <-c.Context().Done():
	case <-ctx.Done():
		t.Fatal("a connection without a session is still open")
	}
	var ae *quic.ApplicationError
	if err := context.Cause(c.Context()); !errors.As(err, &ae) || !ae.Remote || ae.ErrorCode != quic.ApplicationErrorCode(http3.ErrCodeNoError) {
		t.Fatalf("the connection ended with %v, want the server's close H3_NO_ERROR", err)
	}
	if n := s.wt.idled.Load(); n != 1 {
		t.Fatalf("%d connections closed for want of a session, want 1", n)
	}
	testutil.WaitFor(t, wait, "the closed connection uncounted", func() bool { return s.Metrics().WebTransportConns == 0 })
}

// TestWebTransportNoKeepAliveBeforeSession: the server sends no
// keep-alive to a connection without a session, so one whose client is
// silent ends at QUIC's idle timeout (SessionTimeout + 1 s: 2 s here),
// long before the LoginTimeout (20 s) would close it. Before, the
// server's keep-alive every second, which the client acknowledges, kept
// it up until then.
func TestWebTransportNoKeepAliveBeforeSession(t *testing.T) {
	cfg := testConfig()
	cfg.SessionTimeout = time.Second
	cfg.LoginTimeout = 20 * time.Second
	s := startWT(t, cfg)
	info, _ := s.WebTransport()
	f := newWTFrom(t, "127.0.0.2", info.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := f.conn(ctx, nil) // no keep-alive of its own, an idle timeout of a minute
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseWithError(0, "")
	testutil.WaitFor(t, wait, "the silent connection ended on the server", func() bool { return s.Metrics().WebTransportConns == 0 })
	if n := s.wt.idled.Load(); n != 0 || s.wt.pings.Load() != 0 {
		t.Fatalf("the connection lasted until the LoginTimeout closed it (%d closed so), not QUIC's idle timeout: "+
			"something kept it alive (%d session keep-alives)", n, s.wt.pings.Load())
	}
}

// TestWebTransportKeepAliveWithSession: a session in the lobby, from a
// client that sends no keep-alive of its own and nothing else, outlives
// QUIC's idle timeout (SessionTimeout + 1 s: 3 s here) many times over on
// the server's keep-alives, and its connection stays open. (With a 2 s
// timeout a keep-alive goes every second, as the client's ACK of one
// skips the next tick: on a loaded machine a second's delay ended it.)
func TestWebTransportKeepAliveWithSession(t *testing.T) {
	cfg := testConfig()
	cfg.SessionTimeout = 2 * time.Second
	s := startWT(t, cfg)
	info, _ := s.WebTransport()
	f := newWTFrom(t, "127.0.0.2", info.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	sess, err := f.session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.CloseWithError(0, "")
	str, err := sess.OpenStream()
	if err != nil {
		t.Fatal(err)
	}
	c := &wtStreamConn{str}
	writeAll(t, c, wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2,
		Name: "idle", Revision: wire.Revision, Mode: wire.ModeClassic, Flags: wire.LoginLobby}))
	c.SetReadDeadline(time.Now().Add(wait))
	fr := wire.FrameReader{R: c}
	fm, err := fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	if m, err := wire2.ParseMessage(fm); err != nil || m.Type != wire.MsgLoginAccepted {
		t.Fatalf("lobby login answered %+v, %v", m, err)
	}
	before := s.wt.pings.Load()
	testutil.WaitFor(t, wait, "six keep-alives (three idle timeouts)", func() bool { return s.wt.pings.Load() >= before+6 })
	if err := context.Cause(sess.Context()); err != nil {
		t.Fatalf("the idle session ended: %v", err)
	}
	if m := s.Metrics(); m.WebTransportSessions != 1 || m.WebTransportConns != 1 {
		t.Fatalf("metrics: %d sessions, %d connections: want 1 and 1", m.WebTransportSessions, m.WebTransportConns)
	}
}

// deafConn is a socket that sends but never receives: a host forging its
// source address never gets the answers.
// It hides the methods of *net.UDPConn that quic-go would read with.
type deafConn struct{ net.PacketConn }

func (c deafConn) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		if _, _, err := c.PacketConn.ReadFrom(b); err != nil {
			return 0, nil, err
		}
	}
}

// TestWebTransportForgedAddress: first packets that claim 127.0.0.4 but
// never hear back (a forged source address) take at most one of its
// places: the others are answered with a Retry, which they never answer,
// and the real host of 127.0.0.4 still connects (MaxWebTransportConnsPerIP
// 2 here).
func TestWebTransportForgedAddress(t *testing.T) {
	cfg := testConfig()
	cfg.MaxWebTransportConnsPerIP = 2
	s := startWT(t, cfg)
	info, _ := s.WebTransport()
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 4)})
	if err != nil {
		t.Fatal(err)
	}
	forger := &quic.Transport{Conn: deafConn{pc}}
	defer func() { forger.Close(); pc.Close() }()
	to, _ := net.ResolveUDPAddr("udp", info.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for range 5 {
		go forger.Dial(ctx, to, floodTLS(), floodQUIC())
	}
	testutil.WaitFor(t, wait, "the five forged first packets handled", func() bool {
		conns, _ := wtState(s, wtIP(4))
		return conns >= 1 && uint64(conns)+s.wt.retries.Load()+s.wt.refused.Load() >= 5
	})
	c, err := newWTFrom(t, "127.0.0.4", info.Addr).conn(ctx, nil)
	if err != nil {
		t.Fatalf("the real host of 127.0.0.4: %v", err)
	}
	c.CloseWithError(0, "")
	if conns, _ := wtState(s, wtIP(4)); conns > 2 {
		t.Fatalf("127.0.0.4 holds %d connections, at most 2", conns)
	}
}

// TestWebTransportConnAfterSession: a connection whose only session ended
// (closed by the server for want of a stream) gets the LoginTimeout
// again, then is closed too, unless a new session opens on it.
func TestWebTransportConnAfterSession(t *testing.T) {
	cfg := testConfig()
	cfg.LoginTimeout = time.Second
	s := startWT(t, cfg)
	info, _ := s.WebTransport()
	f := newWTFrom(t, "127.0.0.2", info.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	qc, err := f.conn(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer qc.CloseWithError(0, "")
	cc, err := f.wt.NewClientConn(qc) // the connection outlives its sessions
	if err != nil {
		t.Fatal(err)
	}
	_, sess, err := cc.Dial(ctx, "https://"+info.Addr+WebTransportPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	var se *webtransport.SessionError
	if _, err := sess.AcceptStream(ctx); !errors.As(err, &se) || se.ErrorCode != wtErrNoStream {
		t.Fatalf("the session without a stream: %v, want the server's close %d", err, wtErrNoStream)
	}
	if qc.Context().Err() != nil || s.wt.idled.Load() != 0 {
		t.Fatal("the connection was closed with its session")
	}
	select {
	case <-qc.Context().Done():
	case <-ctx.Done():
		t.Fatal("the connection whose session ended is still open")
	}
	var ae *quic.ApplicationError
	if err := context.Cause(qc.Context()); !errors.As(err, &ae) || !ae.Remote || ae.ErrorCode != quic.ApplicationErrorCode(http3.ErrCodeNoError) {
		t.Fatalf("the connection ended with %v, want the server's close H3_NO_ERROR", err)
	}
	if n := s.wt.idled.Load(); n != 1 {
		t.Fatalf("%d connections closed for want of a session, want 1", n)
	}
}
