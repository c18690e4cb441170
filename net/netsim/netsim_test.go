package netsim

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
)

func TestNewValidation(t *testing.T) {
	bad := []Config{
		{To: ""},
		{To: "127.0.0.1:1", Up: Impairment{Loss: 1.5}},
		{To: "127.0.0.1:1", Down: Impairment{Dup: -0.1}},
		{To: "127.0.0.1:1", Up: Impairment{Delay: -time.Second}},
		{To: "127.0.0.1:1", Down: Impairment{Jitter: -time.Second}},
		{To: "127.0.0.1:1", Listen: "nonsense"},
	}
	for i, cfg := range bad {
		cfg.Logger = testutil.Logger(t)
		if r, err := New(cfg); err == nil {
			r.Close()
			t.Errorf("config %d: New succeeded, want error", i)
		}
	}
}

func TestTCPEcho(t *testing.T) {
	srv := newTestServer(t, false)
	r := startRelay(t, Config{To: srv.addr(), Up: Impairment{Loss: 1}, Down: Impairment{Loss: 1}})

	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := bytes.Repeat([]byte("r-type session "), 20000) // ~300 KB
	go func() { _, _ = c.Write(msg) }()
	got := make([]byte, len(msg))
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("read echo: %v", err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("echoed bytes differ")
	}

	// Closing the client side closes the relay's server side and vice versa:
	// a half-closed client must see EOF.
	c.(*net.TCPConn).CloseWrite()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(got); err != io.EOF {
		t.Fatalf("after close: n=%d err=%v, want EOF", n, err)
	}
	if !testutil.Eventually(testutil.Wait, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.conns) == 0
	}) {
		t.Error("relay still tracks TCP connections after they closed")
	}
}

func TestUDPNoImpairmentInOrder(t *testing.T) {
	srv := newTestServer(t, true)
	r := startRelay(t, Config{To: srv.addr()})
	c := dialUDP(t, r)

	const n = 1000
	echoed := readSeqsAsync(t, c)
	sendSeq(t, c, 0, n, 50, time.Millisecond)
	got := collect(srv.arrivals, n)
	if len(got) != n {
		t.Fatalf("server got %d datagrams, want %d", len(got), n)
	}
	for i, a := range got {
		if a.seq != uint64(i) {
			t.Fatalf("server arrival %d has seq %d: out of order", i, a.seq)
		}
	}
	echoes := echoed.wait(n)
	if len(echoes) != n {
		t.Fatalf("client got %d echoes, want %d", len(echoes), n)
	}
	for i, s := range echoes {
		if s != uint64(i) {
			t.Fatalf("echo %d has seq %d: out of order", i, s)
		}
	}
	// The relay counts a datagram after its write: the last echo can
	// arrive before its count.
	want := Stats{Forwarded: n}
	testutil.Eventually(testutil.Wait, func() bool { up, down := r.Stats(); return up == want && down == want })
	if up, down := r.Stats(); up != want || down != want {
		t.Errorf("stats up=%v down=%v, want %v both", up, down, want)
	}
}

func TestUDPLoss(t *testing.T) {
	srv := newTestServer(t, true)
	r := startRelay(t, Config{To: srv.addr(), Seed: 7,
		Up: Impairment{Loss: 0.2}, Down: Impairment{Loss: 0.2}})
	c := dialUDP(t, r)

	const n = 5000
	echoed := readSeqsAsync(t, c)
	sendSeq(t, c, 0, n, 50, time.Millisecond)
	if !testutil.Eventually(testutil.Wait, func() bool { up, _ := r.Stats(); return up.Forwarded+up.Dropped == n }) {
		up, _ := r.Stats()
		t.Fatalf("relay accounted for %d of %d datagrams", up.Forwarded+up.Dropped, n)
	}
	up, _ := r.Stats()
	got := collect(srv.arrivals, int(up.Forwarded))
	if uint64(len(got)) != up.Forwarded {
		t.Fatalf("server got %d datagrams, up.Forwarded=%d", len(got), up.Forwarded)
	}
	seen := map[uint64]bool{}
	for _, a := range got {
		if seen[a.seq] {
			t.Fatalf("seq %d arrived twice without duplication", a.seq)
		}
		seen[a.seq] = true
	}
	frac := float64(up.Dropped) / n
	if frac < 0.17 || frac > 0.23 {
		t.Errorf("up drop fraction %.3f, want 0.2 +/- 0.03", frac)
	}

	if !testutil.Eventually(testutil.Wait, func() bool { _, d := r.Stats(); return d.Forwarded+d.Dropped == up.Forwarded }) {
		_, d := r.Stats()
		t.Fatalf("down accounted for %d of %d echoes", d.Forwarded+d.Dropped, up.Forwarded)
	}
	_, down := r.Stats()
	echoes := echoed.wait(int(down.Forwarded))
	if uint64(len(echoes)) != down.Forwarded {
		t.Fatalf("client got %d echoes, down.Forwarded=%d", len(echoes), down.Forwarded)
	}
	frac = float64(down.Dropped) / float64(up.Forwarded)
	if frac < 0.17 || frac > 0.23 {
		t.Errorf("down drop fraction %.3f, want 0.2 +/- 0.03", frac)
	}
	if up.Duplicated != 0 || up.Reordered != 0 || down.Duplicated != 0 || down.Reordered != 0 {
		t.Errorf("unexpected dup/reorder: up=%v down=%v", up, down)
	}
	t.Logf("up: %v; down: %v", up, down)
}

func TestUDPDup(t *testing.T) {
	srv := newTestServer(t, false)
	r := startRelay(t, Config{To: srv.addr(), Seed: 3, Up: Impairment{Dup: 0.3}})
	c := dialUDP(t, r)

	const n = 1000
	sendSeq(t, c, 0, n, 50, time.Millisecond)
	if !testutil.Eventually(testutil.Wait, func() bool { up, _ := r.Stats(); return up.Forwarded == n+up.Duplicated }) {
		up, _ := r.Stats()
		t.Fatalf("stats %v, want Forwarded = %d + Duplicated", up, n)
	}
	up, _ := r.Stats()
	got := collect(srv.arrivals, int(up.Forwarded))
	if uint64(len(got)) != up.Forwarded {
		t.Fatalf("server got %d datagrams, want %d", len(got), up.Forwarded)
	}
	count := map[uint64]int{}
	for _, a := range got {
		count[a.seq]++
	}
	dups := 0
	for s := range uint64(n) {
		switch count[s] {
		case 1:
		case 2:
			dups++
		default:
			t.Fatalf("seq %d arrived %d times", s, count[s])
		}
	}
	if uint64(dups) != up.Duplicated {
		t.Errorf("observed %d duplicates, counter says %d", dups, up.Duplicated)
	}
	if dups < 200 || dups > 400 {
		t.Errorf("%d duplicates of %d, want about 30%%", dups, n)
	}
}

func TestUDPReorder(t *testing.T) {
	srv := newTestServer(t, false)
	r := startRelay(t, Config{To: srv.addr(), Seed: 5, Up: Impairment{Reorder: 0.1}})
	c := dialUDP(t, r)

	const n = 300
	sendSeq(t, c, 0, n, 1, time.Millisecond)
	got := collect(srv.arrivals, n)
	if len(got) != n {
		t.Fatalf("server got %d datagrams, want %d", len(got), n)
	}
	late := 0
	var maxSeen uint64
	for i, a := range got {
		if i > 0 && a.seq < maxSeen {
			late++
		}
		maxSeen = max(maxSeen, a.seq)
	}
	up, _ := r.Stats()
	if up.Reordered == 0 || late == 0 {
		t.Fatalf("no reordering: %d late arrivals, stats %v", late, up)
	}
	t.Logf("%d late arrivals, stats %v", late, up)
}

func TestUDPDelay(t *testing.T) {
	srv := newTestServer(t, true)
	const upDelay, upJitter, downDelay = 40 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond
	r := startRelay(t, Config{To: srv.addr(),
		Up:   Impairment{Delay: upDelay, Jitter: upJitter},
		Down: Impairment{Delay: downDelay}})
	c := dialUDP(t, r)

	minRTT := upDelay - upJitter + downDelay
	for i := range uint64(5) {
		start := time.Now()
		sendSeq(t, c, i, i+1, 0, 0)
		got := readSeqs(c, 1)
		rtt := time.Since(start)
		if len(got) != 1 || got[0] != i {
			t.Fatalf("ping %d: got %v", i, got)
		}
		if rtt < minRTT {
			t.Errorf("ping %d: rtt %v < %v", i, rtt, minRTT)
		}
		t.Logf("ping %d: rtt %v (at least %v)", i, rtt, minRTT)
	}
}

func TestDistinctServerSources(t *testing.T) {
	srv := newTestServer(t, true)
	r := startRelay(t, Config{To: srv.addr()})
	c1, c2 := dialUDP(t, r), dialUDP(t, r)

	sendSeq(t, c1, 1, 2, 0, 0)
	sendSeq(t, c2, 2, 3, 0, 0)
	got := collect(srv.arrivals, 2)
	if len(got) != 2 {
		t.Fatalf("server got %d datagrams, want 2", len(got))
	}
	if got[0].from == got[1].from {
		t.Fatalf("both clients seen from %v", got[0].from)
	}
	relayAddr := netip.MustParseAddrPort(r.Addr())
	for _, a := range got {
		if a.from == relayAddr {
			t.Errorf("server sees the relay's listening address %v", a.from)
		}
	}
	if s := readSeqs(c1, 1); len(s) != 1 || s[0] != 1 {
		t.Errorf("client 1 got %v, want [1]", s)
	}
	if s := readSeqs(c2, 1); len(s) != 1 || s[0] != 2 {
		t.Errorf("client 2 got %v, want [2]", s)
	}
	if n := r.numClients(); n != 2 {
		t.Errorf("%d client mappings, want 2", n)
	}
}

func TestSetImpairmentAtRunTime(t *testing.T) {
	srv := newTestServer(t, false)
	r := startRelay(t, Config{To: srv.addr(), Up: Impairment{Loss: 1}})
	c := dialUDP(t, r)

	sendSeq(t, c, 0, 50, 0, 0)
	if !testutil.Eventually(testutil.Wait, func() bool { up, _ := r.Stats(); return up.Dropped == 50 }) {
		up, _ := r.Stats()
		t.Fatalf("stats %v, want 50 dropped", up)
	}
	r.SetImpairment(Impairment{}, Impairment{})
	sendSeq(t, c, 50, 100, 0, 0)
	got := collect(srv.arrivals, 50)
	if len(got) != 50 {
		t.Fatalf("got %d datagrams after turning impairment off, want 50", len(got))
	}
	for i, a := range got {
		if a.seq != uint64(50+i) {
			t.Fatalf("arrival %d has seq %d", i, a.seq)
		}
	}
	// Out-of-range values are clamped rather than rejected.
	r.SetImpairment(Impairment{Loss: 7, Delay: -time.Second}, Impairment{Dup: -1})
	if im := r.imp.Load(); im.up.Loss != 1 || im.up.Delay != 0 || im.down.Dup != 0 {
		t.Errorf("clamping failed: %+v", *im)
	}
}

func TestIdleTimeout(t *testing.T) {
	srv := newTestServer(t, false)
	const idle = 300 * time.Millisecond
	r := startRelay(t, Config{To: srv.addr(), IdleTimeout: idle})
	c := dialUDP(t, r)

	// A mapping is forgotten only once idle for longer than IdleTimeout:
	// it is there when a datagram came through less than that ago (on a
	// loaded machine, more may have passed: then it is only logged).
	mapped := func(sent time.Time) {
		t.Helper()
		n, d := r.numClients(), time.Since(sent)
		switch {
		case d < idle && n != 1:
			t.Fatalf("%d mappings %v after a datagram, want 1", n, d)
		case d >= idle:
			t.Logf("%d mappings %v after a datagram (the idle timeout passed meanwhile)", n, d)
		}
	}
	sent := time.Now()
	sendSeq(t, c, 0, 1, 0, 0)
	if got := collect(srv.arrivals, 1); len(got) != 1 {
		t.Fatal("first datagram lost")
	}
	mapped(sent)
	if !testutil.Eventually(testutil.Wait, func() bool { return r.numClients() == 0 }) {
		t.Fatal("idle mapping not forgotten")
	}
	sent = time.Now()
	sendSeq(t, c, 1, 2, 0, 0)
	if got := collect(srv.arrivals, 1); len(got) != 1 || got[0].seq != 1 {
		t.Fatalf("datagram after expiry: %v", got)
	}
	mapped(sent)
}

// TestSeedReproducible checks end to end that the same seed drops the same
// datagrams of a flow.
func TestSeedReproducible(t *testing.T) {
	runOnce := func(seed int64) map[uint64]bool {
		srv := newTestServer(t, false)
		r, err := New(Config{Listen: "127.0.0.1:0", To: srv.addr(), Seed: seed,
			Up: Impairment{Loss: 0.3}, Logger: testutil.Logger(t)})
		if err != nil {
			t.Fatal(err)
		}
		go r.Run(context.Background())
		defer r.Close()
		c := dialUDP(t, r)
		const n = 500
		sendSeq(t, c, 0, n, 50, time.Millisecond)
		if !testutil.Eventually(testutil.Wait, func() bool { up, _ := r.Stats(); return up.Forwarded+up.Dropped == n }) {
			t.Fatal("relay did not account for all datagrams")
		}
		up, _ := r.Stats()
		got := collect(srv.arrivals, int(up.Forwarded))
		set := map[uint64]bool{}
		for _, a := range got {
			set[a.seq] = true
		}
		return set
	}
	a, b, other := runOnce(11), runOnce(11), runOnce(12)
	if len(a) != len(b) {
		t.Fatalf("same seed: %d vs %d arrivals", len(a), len(b))
	}
	for s := range a {
		if !b[s] {
			t.Fatalf("same seed: seq %d arrived in one run only", s)
		}
	}
	same := len(a) == len(other)
	for s := range a {
		same = same && other[s]
	}
	if same {
		t.Error("different seeds dropped exactly the same datagrams")
	}
}

func TestCloseStopsEverything(t *testing.T) {
	srv := newTestServer(t, true) // its goroutines run once it returns
	baseline := runtime.NumGoroutine()

	for _, useCtx := range []bool{false, true} {
		r, err := New(Config{Listen: "127.0.0.1:0", To: srv.addr(), Logger: testutil.Logger(t),
			Up: Impairment{Delay: 200 * time.Millisecond, Dup: 0.5}, Down: Impairment{Delay: 100 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		runDone := make(chan error, 1)
		go func() { runDone <- r.Run(ctx) }()

		// Open TCP sessions and UDP flows, leaving datagrams in flight.
		var tcps []net.Conn
		for range 3 {
			tc, err := net.Dial("tcp", r.Addr())
			if err != nil {
				t.Fatal(err)
			}
			tcps = append(tcps, tc)
			_, _ = tc.Write([]byte("hello"))
		}
		var buf [5]byte
		for _, tc := range tcps {
			_ = tc.SetReadDeadline(time.Now().Add(3 * time.Second))
			if _, err := io.ReadFull(tc, buf[:]); err != nil {
				t.Fatalf("tcp echo: %v", err)
			}
		}
		for i := range 4 {
			c := dialUDP(t, r)
			sendSeq(t, c, uint64(i*100), uint64(i*100+20), 0, 0)
		}
		if !testutil.Eventually(testutil.Wait, func() bool { return r.numClients() == 4 }) {
			t.Fatalf("%d UDP mappings, want 4", r.numClients())
		}
		if r.upSched.pending() == 0 {
			t.Error("expected datagrams pending in the scheduler")
		}

		start := time.Now()
		if useCtx {
			cancel()
		} else {
			var wg sync.WaitGroup
			for range 4 { // concurrent Close calls
				wg.Add(1)
				go func() { defer wg.Done(); r.Close() }()
			}
			wg.Wait()
		}
		select {
		case err := <-runDone:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(testutil.Wait):
			t.Fatal("Run did not return")
		}
		t.Logf("shutdown took %v", time.Since(start))
		cancel()
		r.Close()
		for _, tc := range tcps {
			_ = tc.SetReadDeadline(time.Now().Add(2 * time.Second))
			if _, err := tc.Read(buf[:]); err == nil {
				t.Error("TCP connection still open after Close")
			}
			tc.Close()
		}
		if err := r.Run(context.Background()); err != nil {
			t.Errorf("Run after Close: %v", err)
		}
	}

	if !testutil.Eventually(testutil.Wait, func() bool { return runtime.NumGoroutine() <= baseline }) {
		buf := make([]byte, 1<<16)
		t.Fatalf("goroutines: %d, baseline %d\n%s", runtime.NumGoroutine(), baseline,
			buf[:runtime.Stack(buf, true)])
	}
}

func TestStatsString(t *testing.T) {
	s := Stats{Forwarded: 1, Dropped: 2, Duplicated: 3, Reordered: 4}
	if got, want := s.String(), "forwarded=1 dropped=2 duplicated=3 reordered=4"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestListenPairSamePort(t *testing.T) {
	tl, ul, err := listenPair("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	defer ul.Close()
	if tp, up := tl.Addr().(*net.TCPAddr).Port, ul.LocalAddr().(*net.UDPAddr).Port; tp != up {
		t.Fatalf("tcp port %d != udp port %d", tp, up)
	}
}
