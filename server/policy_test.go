package server

// The reference server's policy (PROTOCOL.md 3.3): the sessions of one IP
// address are capped, and the login rate limit's table stays bounded
// without refusing newcomers.

import (
	"bytes"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/net/wire"
)

// The limiter's table, with its clock: more addresses than it holds all
// pass; it keeps the ones seen last; a limited address stays limited
// while it is tracked; the address idle longest is evicted first; idle
// addresses are swept a window after their last request.
func TestLoginLimiterBounded(t *testing.T) {
	t.Parallel()
	const maxAddrs = 4
	l := newLoginLimiter(5, 10*time.Second, maxAddrs)
	ip := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}) }
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for i := range 40 {
		if !l.allow(ip(i), at(i)) {
			t.Fatalf("new address %d refused with %d tracked", i, l.len())
		}
		if l.len() > maxAddrs {
			t.Fatalf("%d addresses tracked, cap %d", l.len(), maxAddrs)
		}
	}
	for i := 36; i < 40; i++ {
		if _, ok := l.seen[ip(i)]; !ok {
			t.Fatalf("address %d, among the last %d, not tracked", i, maxAddrs)
		}
	}
	// Address 100 uses up its five, then is limited.
	now := 100
	for range 5 {
		if !l.allow(ip(100), at(now)) {
			t.Fatal("address 100 refused within its five")
		}
		now++
	}
	if l.allow(ip(100), at(now)) {
		t.Fatal("address 100: sixth allowed")
	}
	// Three newcomers fill the table: 100 is still tracked and limited.
	for i := 101; i <= 103; i++ {
		now++
		if !l.allow(ip(i), at(now)) {
			t.Fatalf("newcomer %d refused", i)
		}
	}
	now++
	if l.allow(ip(100), at(now)) {
		t.Fatal("address 100 forgotten while the table had room for it")
	}
	// Address 100 was seen last; 101 is now idle longest: the next
	// newcomer takes its place.
	now++
	if !l.allow(ip(104), at(now)) {
		t.Fatal("newcomer 104 refused")
	}
	if _, ok := l.seen[ip(101)]; ok {
		t.Fatal("address 101, idle longest, not evicted")
	}
	if _, ok := l.seen[ip(100)]; !ok || l.len() != maxAddrs {
		t.Fatalf("address 100 evicted, or %d tracked", l.len())
	}
	// A window after the last request, every address is swept: the next
	// request finds the table empty.
	if !l.allow(ip(200), at(now+10001)) || l.len() != 1 {
		t.Fatalf("after a window: %d addresses tracked, want 1", l.len())
	}
	if !l.allow(ip(100), at(now+10002)) {
		t.Fatal("address 100 still limited a window after its last request")
	}
}

// Once full, the limiter takes newcomers without allocating: the evicted
// entry is reused.
func TestLoginLimiterFullNoAlloc(t *testing.T) {
	const maxAddrs = 64
	l := newLoginLimiter(5, 10*time.Second, maxAddrs)
	now := time.Unix(1000, 0)
	i := uint32(0)
	next := func() {
		i++
		now = now.Add(time.Microsecond)
		l.allow(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), now)
	}
	for range 4 * maxAddrs {
		next()
	}
	if n := testing.AllocsPerRun(1000, next); n != 0 {
		t.Fatalf("%v allocations per newcomer with the table full", n)
	}
	if l.len() != maxAddrs {
		t.Fatalf("%d addresses tracked, want %d", l.len(), maxAddrs)
	}
}

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// loginFrom logs in as name from the local address ip (in 127.0.0.0/8)
// and returns the connection and the answer.
func loginFrom(t *testing.T, s *Server, ip string, name string) (net.Conn, wire.Message) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: wait}
	c, err := d.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	writeAll(t, c, loginRequest(wire.Version, name))
	m, err := readMsg(c, wait)
	if err != nil {
		t.Fatalf("login %q from %s: %v", name, ip, err)
	}
	return c, m
}

// 3.3, the reference server's policy: at most MaxSessionsPerIP sessions
// (default 8) from one IP address at once. The ninth login is refused
// with RateLimited and a text that says why, and logged; another address
// is not affected; once a session ends, the address may log in again.
func TestMaxSessionsPerIP(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	cfg := testConfig()
	cfg.MaxSessionsPerIP = 0 // the default
	cfg.Rules = noWaveRules()
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	s := startServer(t, cfg)
	var conns []net.Conn
	for i := range 8 {
		c, m := loginFrom(t, s, "127.0.0.1", "Player"+string(rune('A'+i)))
		if m.Type != wire.MsgLoginAccepted {
			t.Fatalf("login %d of 8: %+v", i+1, m)
		}
		conns = append(conns, c)
	}
	c, m := loginFrom(t, s, "127.0.0.1", "PlayerI")
	if m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectRateLimited || !strings.Contains(m.Text, "at most 8") {
		t.Fatalf("ninth login from one address: %+v, want LoginRejected(RateLimited) saying at most 8", m)
	}
	expectClosed(t, c, wait)
	if !strings.Contains(logs.String(), "too many sessions from this address") {
		t.Fatalf("refusal not logged:\n%s", logs.String())
	}
	if _, m := loginFrom(t, s, "127.0.0.2", "PlayerJ"); m.Type != wire.MsgLoginAccepted {
		t.Fatalf("login from another address: %+v", m)
	}
	// One session of 127.0.0.1 ends; then a login from it goes through.
	writeAll(t, conns[0], wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutLeft}))
	expectClosed(t, conns[0], wait)
	deadline := time.Now().Add(wait)
	for {
		c, m := loginFrom(t, s, "127.0.0.1", "PlayerK")
		if m.Type == wire.MsgLoginAccepted {
			break
		}
		c.Close()
		if m.Reason != wire.RejectRateLimited || time.Now().After(deadline) {
			t.Fatalf("login after a Logout: %+v", m)
		}
	}
}

// MaxSessionsPerIP is configurable: with 2, the third is refused.
func TestMaxSessionsPerIPConfigured(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxSessionsPerIP = 2
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	connect(t, s, "Alpha")
	connect(t, s, "Bravo")
	expectRejected(t, s.Addr(), "Charlie", wire.RejectRateLimited)
}

// An address's memory grows with its requests, not with the limit: a
// huge limit (as the tests set to lift it) costs nothing up front.
func TestLoginLimiterEntrySize(t *testing.T) {
	t.Parallel()
	l := newLoginLimiter(1<<20, 10*time.Second, 100)
	ip := mustAddr("192.0.2.1")
	l.allow(ip, time.Unix(1000, 0))
	if c := cap(l.seen[ip].times); c > 4 {
		t.Fatalf("one request holds room for %d times", c)
	}
}
