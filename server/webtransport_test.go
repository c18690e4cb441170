package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wtclient"
)

// startWT runs a server with the WebTransport binding on 127.0.0.1.
func startWT(t testing.TB, cfg Config) *Server {
	t.Helper()
	cfg.WebTransportAddr = "127.0.0.1:0"
	return startServer(t, cfg)
}

// wtDial opens a session of the binding and its stream, trusting the
// server's published hashes.
func wtDial(t testing.TB, s *Server) (net.Conn, *wtclient.Transport) {
	t.Helper()
	info, ok := s.WebTransport()
	if !ok {
		t.Fatal("no WebTransport binding")
	}
	tr := &wtclient.Transport{CertHashes: info.CertHashes}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := tr.DialStream(ctx, info.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, tr
}

// wtLogin logs in over the binding and returns the stream, the session's
// datagram channel and the LoginAccepted.
func wtLogin(t testing.TB, s *Server, version uint8, name string) (net.Conn, net.Conn, wire.Message) {
	t.Helper()
	c, tr := wtDial(t, s)
	writeAll(t, c, loginRequest(version, name))
	m := expectMsg(t, c, wire.MsgLoginAccepted, -1)
	d, err := tr.DialDatagrams(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return c, d, m
}

// TestWebTransportStreamIsTCP: the session's stream takes the TCP rules
// of the login (9.2): a malformed LoginRequest or a frame too long gets
// Logout(Kicked) and the end of the stream, a bad name LoginRejected,
// and MaxSessionsPerIP counts the sessions of both bindings from the QUIC
// peer's address.
func TestWebTransportStreamIsTCP(t *testing.T) {
	cfg := testConfig()
	cfg.MaxSessionsPerIP = 2
	s := startWT(t, cfg)
	c, _ := wtDial(t, s)
	writeAll(t, c, []byte{4, 0, 1, 1, 0xFF, 0xFF}) // a LoginRequest whose name overruns it
	expectLogout(t, c, wire.LogoutKicked)

	c, _ = wtDial(t, s)
	writeAll(t, c, []byte{0xFF, 0xFF, 1}) // a frame longer than allowed (3.1)
	expectLogout(t, c, wire.LogoutKicked)

	c, _ = wtDial(t, s)
	writeAll(t, c, loginRequest(1, "x"))
	expectMsg(t, c, wire.MsgLoginRejected, int(wire.RejectInvalidName))

	loginAs(t, s.Addr(), 1, "tcp")
	wtLogin(t, s, 1, "web")
	c, _ = wtDial(t, s)
	writeAll(t, c, loginRequest(1, "third"))
	expectMsg(t, c, wire.MsgLoginRejected, int(wire.RejectRateLimited))
}

// TestWebTransportNoStream: a session that opens no stream within the
// LoginTimeout is closed, and while MaxPending sessions wait for theirs
// another is closed at once (9.5).
func TestWebTransportNoStream(t *testing.T) {
	cfg := testConfig()
	cfg.LoginTimeout = 2 * time.Second
	cfg.MaxPending = 1
	s := startWT(t, cfg)
	sess := rawWT(t, s, nil)
	testutil.WaitFor(t, wait, "the session waiting for its stream", func() bool {
		s.wt.mu.Lock()
		defer s.wt.mu.Unlock()
		return s.wt.noStream == 1
	})
	second := rawWT(t, s, nil)
	select {
	case <-second.Context().Done():
	case <-time.After(wait):
		t.Fatal("a session beyond MaxPending is still open")
	}
	// At once: before the first one's LoginTimeout, which its own would
	// come after.
	if sess.Context().Err() != nil {
		t.Fatal("the first session was closed before the one beyond MaxPending")
	}
	select {
	case <-sess.Context().Done():
	case <-time.After(wait):
		t.Fatal("the session is still open without a stream")
	}
	// Another path is not the binding's.
	info, _ := s.WebTransport()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	rsp, _, err := wtRawTransport().Dial(ctx, "https://"+info.Addr+"/other", nil)
	if err == nil || rsp == nil || rsp.StatusCode != 404 {
		t.Errorf("/other: %v, %v", rsp, err)
	}
}

// TestWebTransportDatagramsAreUDP: the session's datagrams take the UDP
// rules (9.3): a flood of malformed and unauthorized datagrams gets no
// answer and is counted as the UDP path counts it; then a Bind with the
// token binds, answered with Accept on the same channel, and snapshots
// follow.
func TestWebTransportDatagramsAreUDP(t *testing.T) {
	s := startWT(t, testConfig())
	_, d, acc := wtLogin(t, s, 1, "web")
	if m := s.Metrics(); m.WebTransportSessions != 1 || m.Sessions[wire.Version] != 1 {
		t.Fatalf("metrics: %d WebTransport sessions of %d v1 sessions, want 1 of 1", m.WebTransportSessions, m.Sessions[wire.Version])
	}
	before := s.Metrics().Dropped
	rng := mrand.New(mrand.NewPCG(1, 2))
	sent := 0
	for i := range 600 {
		b := hostileDatagram(rng, i, []uint32{acc.Session}, []wire.Token{acc.Token})
		if _, err := d.Write(b); err == nil {
			sent++
		}
	}
	d.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var buf [wire.MaxDatagram + 1]byte
	if n, err := d.Read(buf[:]); err == nil {
		t.Fatalf("the server answered a hostile datagram with % x", buf[:n])
	}
	after := s.Metrics().Dropped
	dropped := uint64(0)
	for i := range after {
		dropped += after[i] - before[i]
	}
	if dropped == 0 || sent < 500 {
		t.Fatalf("%d hostile datagrams sent, %d counted as dropped", sent, dropped)
	}
	t.Logf("%d hostile datagrams sent over WebTransport, %d counted as dropped by the UDP rules, none answered", sent, dropped)

	// Bind with the token: Accept, then snapshots.
	bind := rawDatagram(wire.TypeBind, 60000, acc.Session, acc.Token[:])
	d.SetReadDeadline(time.Now().Add(wait))
	if _, err := d.Write(bind); err != nil {
		t.Fatal(err)
	}
	var got []wire.Type
	for len(got) < 3 {
		n, err := d.Read(buf[:])
		if err != nil {
			t.Fatalf("after Bind: %v (got %v)", err, got)
		}
		h, _, err := wire.ParseHeader(buf[:n], wire.ToClient)
		if err != nil {
			t.Fatalf("a datagram the client cannot parse: %v", err)
		}
		if h.Type != wire.TypeEvent || len(got) == 0 {
			got = append(got, h.Type)
		}
	}
	if got[0] != wire.TypeAccept || got[1] != wire.TypeSnapshot {
		t.Fatalf("after Bind: %v, want Accept then Snapshots", got)
	}
}

// TestWTAddr: the addresses of the binding's sessions are in 100::/64,
// distinct, and a UDP datagram from one is dropped (9.3).
func TestWTAddr(t *testing.T) {
	a, b := wtAddr(1), wtAddr(1<<40)
	if a == b || !isWTAddr(a) || !isWTAddr(b) || !netip.MustParsePrefix("100::/64").Contains(b.Addr()) {
		t.Fatalf("%v %v", a, b)
	}
	for _, s := range []string{"127.0.0.1:5", "[::1]:5", "[100:0:0:1::1]:5", "[::ffff:1.0.0.0]:5"} {
		if isWTAddr(netip.MustParseAddrPort(s)) {
			t.Errorf("%s taken for a WebTransport session's", s)
		}
	}
	ds := []datagram{{addr: a}, {addr: netip.MustParseAddrPort("127.0.0.1:5")}, {addr: b}}
	if got := dropSpoofed(ds); len(got) != 1 || isWTAddr(got[0].addr) {
		t.Fatalf("dropSpoofed kept %v", got)
	}
}

// writeCert writes a self-signed ECDSA certificate valid for life, and
// its key, as PEM files.
func writeCert(t *testing.T, life time.Duration) (certFile, keyFile string, der []byte) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "operator"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(life),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile, der
}

// TestWebTransportOperatorCert: with the operator's certificate the
// server publishes no hash and a client that trusts its authority logs
// in; a certificate valid for more than 14 days is not trusted by its
// hash (9.4); files that cannot be loaded fail New with their names.
func TestWebTransportOperatorCert(t *testing.T) {
	certFile, keyFile, der := writeCert(t, 365*24*time.Hour)
	cfg := testConfig()
	cfg.TLSCert, cfg.TLSKey = certFile, keyFile
	s := startWT(t, cfg)
	info, ok := s.WebTransport()
	if !ok || len(info.CertHashes) != 0 || info.NotAfter.Before(time.Now().Add(300*24*time.Hour)) {
		t.Fatalf("WebTransport() = %+v, %v: want no hashes and the operator's NotAfter", info, ok)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := (&wtclient.Transport{RootCAs: pool}).DialStream(ctx, info.Addr)
	if err != nil {
		t.Fatalf("with the operator's authority: %v", err)
	}
	defer c.Close()
	writeAll(t, c, loginRequest(1, "operator"))
	expectMsg(t, c, wire.MsgLoginAccepted, -1)

	_, err = (&wtclient.Transport{CertHashes: [][32]byte{sha256.Sum256(der)}}).DialStream(ctx, info.Addr)
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("a year-long certificate trusted by its hash: %v", err)
	}
	_, err = (&wtclient.Transport{}).DialStream(ctx, info.Addr)
	if err == nil {
		t.Fatal("a self-signed certificate trusted without its authority")
	}

	cfg.TLSCert = filepath.Join(t.TempDir(), "missing.pem")
	cfg.Listen, cfg.WebTransportAddr = "127.0.0.1:0", "127.0.0.1:0"
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "missing.pem") {
		t.Fatalf("New with a missing certificate: %v", err)
	}
}

// TestWTRouteNoAllocs: routing a datagram to a WebTransport session's
// sender copies it into the session's queue, allocating nothing; a full
// queue drops it and counts it.
func TestWTRouteNoAllocs(t *testing.T) {
	var r wtRoutes
	p := &wtPeer{addr: wtAddr(1), wake: make(chan struct{}, 1)}
	r.peers = map[netip.AddrPort]*wtPeer{p.addr: p}
	b := make([]byte, wire.MaxDatagram)
	testutil.NoAllocs(t, 100, "routing a datagram to a WebTransport session", func() {
		if !r.send(b, p.addr) {
			t.Fatal("not routed")
		}
		p.mu.Lock()
		p.head, p.count = (p.head+1)%wtQueue, p.count-1
		p.mu.Unlock()
	})
	if r.send(b, netip.MustParseAddrPort("127.0.0.1:9")) {
		t.Fatal("a UDP address routed to WebTransport")
	}
	for range wtQueue + 3 {
		r.send(b, p.addr)
	}
	if p.count != wtQueue || r.dropped.Load() != 3 {
		t.Fatalf("%d queued, %d dropped: want %d and 3", p.count, r.dropped.Load(), wtQueue)
	}
}

// wtRawTransport is a WebTransport client that trusts any certificate.
func wtRawTransport() *webtransport.Transport {
	return &webtransport.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
		QUICConfig: &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true}}
}

// rawWT opens a session of the binding with the webtransport package
// itself, with the request header hdr.
func rawWT(t *testing.T, s *Server, hdr http.Header) *webtransport.Session {
	t.Helper()
	info, _ := s.WebTransport()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, sess, err := wtRawTransport().Dial(ctx, "https://"+info.Addr+WebTransportPath, hdr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.CloseWithError(0, "") })
	return sess
}

// TestWebTransportSessionRules: any origin may connect (9.1); a plain
// HTTP/3 request is answered 400; a second stream is reset and the
// session goes on (9.2); a datagram over 1200 bytes is dropped as UDP's
// (9.3); closing the session without a Logout is leaving (9.2); and a
// session beyond the pending connections is closed (9.5).
func TestWebTransportSessionRules(t *testing.T) {
	cfg := testConfig()
	cfg.MaxPendingPerIP = 1
	s := startWT(t, cfg)
	info, _ := s.WebTransport()

	rt := &http3.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer rt.Close()
	rsp, err := (&http.Client{Transport: rt, Timeout: wait}).Get("https://" + info.Addr + WebTransportPath)
	if err != nil || rsp.StatusCode != http.StatusBadRequest {
		t.Fatalf("GET /rtype: %v, %v", rsp, err)
	}
	rsp.Body.Close()

	sess := rawWT(t, s, http.Header{"Origin": {"https://elsewhere.example"}})
	str, err := sess.OpenStream()
	if err != nil {
		t.Fatal(err)
	}
	c := &wtStreamConn{str}
	writeAll(t, c, loginRequest(1, "origin"))
	acc := expectMsg(t, c, wire.MsgLoginAccepted, -1)

	extra, err := sess.OpenStream()
	if err != nil {
		t.Fatal(err)
	}
	extra.Write([]byte("hello"))
	extra.SetReadDeadline(time.Now().Add(wait))
	var b [8]byte
	if _, err := extra.Read(b[:]); err == nil || isTimeout(err) {
		t.Fatalf("the second stream: read %v, want it reset", err)
	}

	before := s.Metrics().Dropped[DropHeader]
	big := append(rawDatagram(wire.TypeInput, 1, acc.Session, nil), make([]byte, 1201-18)...)
	if err := sess.SendDatagram(big); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, wait, "the datagram over 1200 bytes counted as dropped", func() bool { return s.Metrics().Dropped[DropHeader] > before })

	// Pending: one stream without a LoginRequest takes this address's
	// only place; the next session is closed.
	waiting := rawWT(t, s, nil)
	ws, _ := waiting.OpenStream()
	ws.Write([]byte{0}) // the stream reaches the server, the login not yet
	testutil.WaitFor(t, wait, "the stream pending", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.gate.pending == 1
	})
	third := rawWT(t, s, nil)
	ts, _ := third.OpenStream()
	ts.Write(loginRequest(1, "third"))
	select {
	case <-third.Context().Done():
	case <-time.After(wait):
		t.Fatal("a session beyond MaxPendingPerIP is still open")
	}

	if s.Metrics().Sessions[1] != 1 {
		t.Fatalf("%d v1 sessions, want 1", s.Metrics().Sessions[1])
	}
	sess.CloseWithError(0, "")
	testutil.WaitFor(t, wait, "the closed session gone", func() bool { return s.Metrics().Sessions[1] == 0 })
}

// wtStreamConn gives a raw stream the net.Conn the TCP helpers read.
type wtStreamConn struct{ *webtransport.Stream }

func (wtStreamConn) LocalAddr() net.Addr  { return nil }
func (wtStreamConn) RemoteAddr() net.Addr { return nil }

// TestWebTransportHashValidNow: a client trusts a certificate by its hash
// only while it is valid (9.4).
func TestWebTransportHashValidNow(t *testing.T) {
	s := startWT(t, testConfig())
	info, _ := s.WebTransport()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	later := func() time.Time { return time.Now().Add(11 * 24 * time.Hour) }
	_, err := (&wtclient.Transport{CertHashes: info.CertHashes, Now: later}).DialStream(ctx, info.Addr)
	if err == nil || !strings.Contains(err.Error(), "not now") {
		t.Fatalf("an expired certificate trusted by its hash: %v", err)
	}
	c, err := (&wtclient.Transport{CertHashes: info.CertHashes}).DialStream(ctx, info.Addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// TestWebTransportStopAtOnce: a server stopped as soon as it started
// stops cleanly, with or without a session being opened. Under the race
// detector this failed while the binding ran webtransport.Server.Serve,
// whose WaitGroup's first Add raced Close's Wait.
func TestWebTransportStopAtOnce(t *testing.T) {
	for i := range 10 {
		cfg := testConfig()
		cfg.Listen, cfg.WebTransportAddr = "127.0.0.1:0", "127.0.0.1:0"
		cfg.Logger = testutil.Logger(t)
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		stop := testutil.Go(context.Background(), s)
		if i%2 == 1 { // a session on its way in while the server stops
			info, _ := s.WebTransport()
			tr := &wtclient.Transport{CertHashes: info.CertHashes}
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				defer cancel()
				if c, err := tr.DialStream(ctx, info.Addr); err == nil {
					c.Close()
				}
			}()
		}
		if err := stop(); err != nil {
			t.Fatalf("run %d: stop: %v", i, err)
		}
	}
}
