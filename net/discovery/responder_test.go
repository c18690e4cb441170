package discovery

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"rtype/internal/testutil"
)

// startResponder serves a responder on addr (port 0) with exInfo; it stops
// with the test.
func startResponder(t *testing.T, addr string, cfg ResponderConfig) *Responder {
	t.Helper()
	cfg.Listen = addr
	if cfg.Info == nil {
		cfg.Info = func() Info { return exInfo }
	}
	r, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); r.Serve() }()
	t.Cleanup(func() { r.Close(); <-done })
	return r
}

// udpOn opens a client socket on ip, port 0.
func udpOn(t *testing.T, ip string) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.ParseIP(ip)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// read returns the next datagram c receives, failing the test if none
// comes within testutil.Wait (a deadlock guard).
func read(t *testing.T, c *net.UDPConn) ([]byte, netip.AddrPort) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(testutil.Wait))
	b := make([]byte, 1500)
	n, from, err := c.ReadFromUDPAddrPort(b)
	if err != nil {
		t.Fatalf("no datagram: %v", err)
	}
	return b[:n], from
}

// waitFor waits until cond holds (testutil.WaitFor, testutil.Wait).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.WaitFor(t, testutil.Wait, what, cond)
}

// The answer goes to the address that asked, and only there: a second
// socket that did not ask gets nothing before its own answer (8.2).
func TestResponderAnswersOnlyTheAsker(t *testing.T) {
	r := startResponder(t, "127.0.0.1:0", ResponderConfig{})
	to := net.UDPAddrFromAddrPort(r.Addr())
	a, b := udpOn(t, "127.0.0.1"), udpOn(t, "127.0.0.1")
	if _, err := a.WriteToUDP(AppendQuery(nil, Nonce{'a'}), to); err != nil {
		t.Fatal(err)
	}
	got, from := read(t, a)
	n, info, err := ParseAnswer(got)
	if err != nil || n != (Nonce{'a'}) || info != exInfo || from != r.Addr() {
		t.Fatalf("answer %v %+v %v from %v", n, info, err, from)
	}
	if _, err := b.WriteToUDP(AppendQuery(nil, Nonce{'b'}), to); err != nil {
		t.Fatal(err)
	}
	got, _ = read(t, b)
	if n, _, err := ParseAnswer(got); err != nil || n != (Nonce{'b'}) {
		t.Fatalf("b's first datagram is not its own answer: %v %v", n, err)
	}
	// Serve counts an answer after sending it: wait for the count.
	waitFor(t, "2 answers counted", func() bool { return r.Stats().Answered >= 2 })
	if s := r.Stats(); s.Answered != 2 || s.Limited != 0 || s.Dropped != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// What is not a valid query gets no answer: a short query, an answer, a
// game datagram (8.2).
func TestResponderDropsWhatIsNotAQuery(t *testing.T) {
	r := startResponder(t, "127.0.0.1:0", ResponderConfig{})
	to := net.UDPAddrFromAddrPort(r.Addr())
	c := udpOn(t, "127.0.0.1")
	bad := [][]byte{
		AppendQuery(nil, exNonce)[:QuerySize-1],
		AppendAnswer(nil, exNonce, &exInfo),
		[]byte("RTYP\x02\x01"),
		make([]byte, 1400),
	}
	for _, b := range bad {
		c.WriteToUDP(b, to)
	}
	waitFor(t, "the bad datagrams dropped", func() bool { return r.Stats().Dropped == uint64(len(bad)) })
	c.WriteToUDP(AppendQuery(nil, Nonce{'z'}), to)
	got, _ := read(t, c)
	if n, _, err := ParseAnswer(got); err != nil || n != (Nonce{'z'}) {
		t.Fatalf("first datagram back: %v %v", n, err)
	}
}

// One address gets Burst answers at once, then Rate per second; another
// address is answered all the same (8.4).
func TestResponderRateLimitsPerAddress(t *testing.T) {
	r := startResponder(t, "127.0.0.1:0", ResponderConfig{Rate: 0.001, Burst: 3})
	to := net.UDPAddrFromAddrPort(r.Addr())
	a := udpOn(t, "127.0.0.1")
	const sent = 10
	for i := range sent {
		if _, err := a.WriteToUDP(AppendQuery(nil, Nonce{byte(i)}), to); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "every query handled", func() bool { s := r.Stats(); return s.Answered+s.Limited == sent })
	if s := r.Stats(); s.Answered != 3 || s.Limited != sent-3 {
		t.Fatalf("stats %+v, want 3 answered", s)
	}
	for i := range 3 {
		got, _ := read(t, a)
		if n, _, err := ParseAnswer(got); err != nil || n != (Nonce{byte(i)}) {
			t.Fatalf("answer %d: %v %v", i, n, err)
		}
	}
	b := udpOn(t, "127.0.0.2")
	b.WriteToUDP(AppendQuery(nil, Nonce{'b'}), to)
	got, _ := read(t, b)
	if n, _, err := ParseAnswer(got); err != nil || n != (Nonce{'b'}) {
		t.Fatalf("another address: %v %v", n, err)
	}
}

func TestLimiterRefillsAndStaysBounded(t *testing.T) {
	l := newLimiter(2, 2, 3)
	t0 := time.Unix(1000, 0)
	ip := netip.MustParseAddr("127.0.0.1")
	if !l.allow(ip, t0) || !l.allow(ip, t0) || l.allow(ip, t0) {
		t.Fatal("burst of 2")
	}
	if !l.allow(ip, t0.Add(500*time.Millisecond)) || l.allow(ip, t0.Add(500*time.Millisecond)) {
		t.Fatal("one token in 0.5 s at 2/s")
	}
	for i := range 1000 {
		a := netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
		if !l.allow(a, t0.Add(time.Second)) {
			t.Fatalf("newcomer %v refused", a)
		}
		if len(l.addrs) > 3 {
			t.Fatalf("%d addresses tracked, cap 3", len(l.addrs))
		}
	}
}

// TestLimiterCountsAnIPv6PrefixOnce: the addresses of one IPv6 /64 share
// a bucket (values only: no traffic).
func TestLimiterCountsAnIPv6PrefixOnce(t *testing.T) {
	l := newLimiter(2, 2, 8)
	t0 := time.Unix(1000, 0)
	if !l.allow(netip.MustParseAddr("fd00:1:2:3::1"), t0) || !l.allow(netip.MustParseAddr("fd00:1:2:3::2"), t0) {
		t.Fatal("burst of 2")
	}
	if l.allow(netip.MustParseAddr("fd00:1:2:3:4::5"), t0) {
		t.Error("a third query from the /64 allowed")
	}
	if !l.allow(netip.MustParseAddr("fd00:1:2:4::1"), t0) {
		t.Error("another /64 refused")
	}
}

func TestQuerierFindsAResponderByBroadcast(t *testing.T) {
	// A socket bound to 127.0.0.1 does not receive what is sent to
	// 127.255.255.255 (Linux delivers a broadcast to the sockets bound
	// to it or to any address): the responder binds the loopback
	// broadcast address, which keeps the test within 127.0.0.0/8.
	r := startResponder(t, "127.255.255.255:0", ResponderConfig{})
	q, err := NewQuerier(QuerierConfig{Dest: netip.AddrPortFrom(netip.MustParseAddr("127.255.255.255"), r.Addr().Port()).String(),
		Local: "127.0.0.1:0", Interval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var found []Server
	waitFor(t, "the server found", func() bool { found = q.Servers(); return len(found) > 0 })
	s := found[0]
	t.Logf("RTT %v", s.RTT)
	if len(found) != 1 || s.Addr != netip.MustParseAddrPort("127.0.0.1:4242") || s.Info != exInfo || s.RTT <= 0 {
		t.Fatalf("found %+v", found)
	}
}

// A querier drops answers that echo no query of its own, and those that
// come too late (8.3).
func TestQuerierDropsUnaskedAnswers(t *testing.T) {
	fake := udpOn(t, "127.0.0.1")
	q, err := NewQuerier(QuerierConfig{Dest: fake.LocalAddr().String(), Local: "127.0.0.1:0", Interval: time.Hour, Timeout: 200 * time.Millisecond, MaxAge: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	got, from := read(t, fake)
	nonce, err := ParseQuery(got)
	if err != nil {
		t.Fatal(err)
	}
	to := net.UDPAddrFromAddrPort(from)
	wrong := exInfo
	wrong.Port = 1111
	fake.WriteToUDP(AppendAnswer(nil, Nonce{9, 9}, &wrong), to)
	bad := exInfo
	bad.Port = 2222
	b := AppendAnswer(nil, nonce, &bad)
	b[17] = 0 // invalid default mode
	fake.WriteToUDP(b, to)
	fake.WriteToUDP(AppendAnswer(nil, nonce, &exInfo), to)
	waitFor(t, "the good answer", func() bool { return len(q.Servers()) > 0 })
	// The querier reads in order: the good answer listed, the earlier
	// ones were handled, and dropped.
	if found := q.Servers(); len(found) != 1 || found[0].Port != 4242 {
		t.Fatalf("listed %+v", found)
	}
	// An answer later than Timeout after its query is dropped.
	q.mu.Lock()
	sent := q.sent[0].at
	q.mu.Unlock()
	late := exInfo
	late.Port = 3333
	q.answer(netip.MustParseAddrPort("127.0.0.1:1"), nonce, late, sent.Add(201*time.Millisecond))
	q.answer(netip.MustParseAddrPort("127.0.0.1:1"), nonce, late, sent.Add(200*time.Millisecond).Add(-time.Nanosecond))
	found := q.Servers()
	if len(found) != 2 || found[0].Port+found[1].Port != 4242+3333 {
		t.Fatalf("listed %+v, want the answer in time", found)
	}
}
