package e2e

// Hostile traffic against the real server (PROTOCOL.md 3.4, 6.1, 6.5):
// floods of datagrams it must drop without an answer while real bots play,
// datagrams to a session not yet bound, TCP connections that break the
// login rules, abandoned connections by the thousand, and the memory of
// the login rate limit. The traffic comes from package rtype/net/flood,
// the generator of cmd/rtype-flood.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/flood"
	"rtype/net/wire"
	"rtype/server"
	"rtype/sim"
)

// raceOn reports whether the test binary was built with -race.
func raceOn() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}

// The flood's parameters: 50,000 datagrams a second for 5 s.
// E2E_FLOOD_RATE overrides the rate (0: as fast as the sockets go), to
// look further; the assertions stay.
const (
	floodDuration = 5 * time.Second
	floodSockets  = 4
	// minFloodRate is what the flood must at least achieve for the test
	// to mean anything, even with -race on this 2-core machine.
	minFloodRate = 20000
)

func floodRate() int {
	if v, err := strconv.Atoi(os.Getenv("E2E_FLOOD_RATE")); err == nil && v >= 0 {
		return v
	}
	return 50000
}

// snapClock records the wall time of the server's snapshot ticks, to
// measure their regularity.
type snapClock struct {
	mu    sync.Mutex
	times []time.Time
}

func (c *snapClock) add() {
	c.mu.Lock()
	c.times = append(c.times, time.Now())
	c.mu.Unlock()
}

// maxGap returns the longest time between two snapshot ticks within
// [from, to], and how many there were.
func (c *snapClock) maxGap(from, to time.Time) (time.Duration, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var gap time.Duration
	n := 0
	var prev time.Time
	for _, at := range c.times {
		if at.Before(from) || at.After(to) {
			continue
		}
		if n > 0 {
			gap = max(gap, at.Sub(prev))
		}
		prev = at
		n++
	}
	return gap, n
}

// The flood windows of TestHostileFloodWhileBotsPlay: at most
// floodAttempts, judged when other processes used less than maxForeign
// CPUs during the flood.
//
// The checks held with other processes on 1.2 to 1.5 CPUs (p99 tick under
// 2.4 ms, every tick run, with -race); they failed when the machine's load
// average was 6 and more. Half the machine left to the test is the bound.
const (
	floodAttempts = 4
	maxForeign    = 1.0
)

// floodWindow is one quiet window and one flood window of
// TestHostileFloodWhileBotsPlay, with what was measured in them.
type floodWindow struct {
	quiet, q0, fs, f0 server.TickStats
	qStart, qEnd      time.Time
	start, end        time.Time
	quietLow, low     []float64 // each bot's lowest snapshots/s
	res               flood.Result
	// foreign and qForeign are the CPUs other processes used during the
	// flood and the quiet window (foreignCPU), -1 where it cannot be read.
	foreign, qForeign float64
	qGap              time.Duration
	fGap              time.Duration
	fSnaps            int
	overruns          int
}

func (w *floodWindow) String() string {
	return fmt.Sprintf("flood: %v (race %v); kinds: %v\n"+
		"ticks without flood: %d in %v, P50 %v, P99 %v, max %v, longest gap between snapshot ticks %v; bots' lowest snapshots/s %.1f; other processes' CPU %.2f\n"+
		"ticks under flood:   %d in %v, P50 %v, P99 %v, max %v, overruns %d, longest gap between snapshot ticks %v (%d snapshot ticks); bots' lowest snapshots/s %.1f; other processes' CPU %.2f",
		w.res, raceOn(), kindCounts(w.res),
		w.quiet.Ticks-w.q0.Ticks, w.qEnd.Sub(w.qStart).Round(time.Millisecond), w.quiet.P50, w.quiet.P99, w.quiet.Max, w.qGap, w.quietLow, w.qForeign,
		w.fs.Ticks-w.f0.Ticks, w.end.Sub(w.start).Round(time.Millisecond), w.fs.P50, w.fs.P99, w.fs.Max, w.overruns, w.fGap, w.fSnaps, w.low, w.foreign)
}

// runFloodWindow samples the bots for 3 s without a flood, then during a
// flood of floodDuration against the sessions.
func runFloodWindow(t *testing.T, ctx context.Context, srv *server.Server, clock *snapClock, sessions []uint32,
	sample func(time.Duration) []float64) *floodWindow {
	t.Helper()
	w := &floodWindow{foreign: -1, qForeign: -1}
	q0CPU, qOK := readCPU()
	w.q0, w.qStart = srv.TickStats(), time.Now()
	w.quietLow = sample(3 * time.Second)
	w.quiet, w.qEnd = srv.TickStatsSince(w.q0.Ticks), time.Now()
	w.qGap, _ = clock.maxGap(w.qStart, w.qEnd)

	in0, drop0, snmp := udpCounters()
	cpu0, cpuOK := readCPU()
	if qOK && cpuOK {
		w.qForeign = foreignCPU(q0CPU, cpu0, w.qEnd.Sub(w.qStart))
	}
	w.f0, w.start = srv.TickStats(), time.Now()
	var floodErr error
	floodDone := make(chan struct{})
	go func() {
		defer close(floodDone)
		w.res, floodErr = flood.Run(ctx, flood.Config{Target: srv.Addr(), Rate: floodRate(), Duration: floodDuration,
			Sockets: floodSockets, Sessions: sessions, Seed: 1, Linger: 500 * time.Millisecond})
	}()
	w.low = sample(floodDuration)
	w.fs, w.end = srv.TickStatsSince(w.f0.Ticks), time.Now()
	cpu1, cpuOK1 := readCPU()
	<-floodDone
	if floodErr != nil {
		t.Fatal(floodErr)
	}
	if cpuOK && cpuOK1 {
		w.foreign = foreignCPU(cpu0, cpu1, w.end.Sub(w.start))
	}
	w.overruns = w.fs.Overruns - w.f0.Overruns
	w.fGap, w.fSnaps = clock.maxGap(w.start, w.end)
	if in1, drop1, _ := udpCounters(); snmp {
		t.Logf("kernel (whole machine) during the flood: %d datagrams delivered to sockets, %d dropped on full receive buffers",
			in1-in0, drop1-drop0)
	}
	return w
}

// cpuReading is the machine's busy CPU time and this process's, in clock
// ticks (USER_HZ, 100 a second on Linux).
type cpuReading struct{ machine, self uint64 }

// readCPU reads /proc/stat (the CPUs' user, nice, system and steal time:
// a VM's host taking the CPU is load too; not the interrupts, where the
// kernel handles the flood's own loopback datagrams) and /proc/self/stat
// (this process's user and system time, every goroutine: the server, the
// bots and the flood of the test).
func readCPU() (cpuReading, bool) {
	var r cpuReading
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return r, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return r, false
	}
	for i, v := range f[1:9] {
		if i >= 3 && i <= 6 { // idle, iowait, irq, softirq
			continue
		}
		n, _ := strconv.ParseUint(v, 10, 64)
		r.machine += n
	}
	b, err = os.ReadFile("/proc/self/stat")
	if err != nil {
		return r, false
	}
	// Fields after the command's closing parenthesis: state is field 3,
	// utime 14 and stime 15.
	i := strings.LastIndexByte(string(b), ')')
	f = strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return r, false
	}
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	r.self = ut + st
	return r, true
}

// foreignCPU returns how many CPUs other processes used on average
// between two readings d apart: the machine's busy time minus this
// process's.
func foreignCPU(a, b cpuReading, d time.Duration) float64 {
	const hz = 100 // USER_HZ
	others := float64(b.machine-a.machine) - float64(b.self-a.self)
	return max(others, 0) / hz / d.Seconds()
}

// While four bots play (two speak v1 and two v2, in one game, 7.11),
// 50,000 hostile datagrams a second for 5 s: the attacker hears nothing,
// the server keeps its 60 ticks a second, every bot keeps its snapshot
// rate (minSnapRate), its session and a world equal to
// the server's, and gets every event once. The timing is judged on a flood
// window the machine's other processes left alone (floodWindow).
func TestHostileFloodWhileBotsPlay(t *testing.T) {
	rules := sim.DefaultRules()
	rules.Lives = 99 // nobody's game ends during the test
	sl := newServerLog()
	var clock snapClock
	srv := testserver.Start(t, server.Config{MaxGames: 1, Seed: 11, Rules: &rules,
		OnSnapshot: func(g int, s server.Snapshot) { clock.add(); sl.onSnapshot(g, s) },
		OnEvents:   sl.onEvents})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type player struct {
		name string
		c    *client.Client
		log  *clientLog
		err  error
		done chan struct{}
	}
	players := make([]*player, 4)
	for i := range players {
		p := &player{name: fmt.Sprintf("bot%d", i+1), log: newClientLog(), done: make(chan struct{})}
		p.c = dial(t, srv.Addr(), p.name, p.log, versions[i%len(versions)])
		players[i] = p
		go func() {
			defer close(p.done)
			p.err = bot.Play(ctx, p.c, rand.New(rand.NewPCG(uint64(i), 5)))
		}()
	}
	// Warm up: every bot at its 20 snapshots a second (v1), or its
	// rate of 7.9 (v2: 20 a second while the world changes for it, at
	// least 5).
	for _, p := range players {
		testutil.WaitFor(t, 10*time.Second, fmt.Sprintf("%s at %.0f snapshots a second before the flood", p.name, minSnapRate(p.c)), func() bool {
			return p.c.Stats().SnapshotsPerSec >= minSnapRate(p.c)
		})
	}
	var sessions []uint32
	for _, p := range players {
		sessions = append(sessions, p.c.Session())
	}

	// sample watches the bots for d: the lowest snapshot rate of each
	// (once a second of the window has passed, as Stats measures over the
	// last second) and that no session ended.
	sample := func(d time.Duration) []float64 {
		lowest := make([]float64, len(players))
		for i := range lowest {
			lowest[i] = 1e9
		}
		start := time.Now()
		for time.Since(start) < d {
			time.Sleep(200 * time.Millisecond)
			for i, p := range players {
				if err := p.c.Err(); err != nil {
					t.Fatalf("%s: session ended: %v", p.name, err)
				}
				if time.Since(start) >= time.Second {
					lowest[i] = min(lowest[i], p.c.Stats().SnapshotsPerSec)
				}
			}
		}
		return lowest
	}

	// The quiet window, then the flood: the timing checks (the tick count,
	// the p99 tick, the bots' snapshot rates, the flood's own rate) are
	// judged on a flood window in which other processes of the machine
	// (other packages' tests, builds) took less than maxForeign of its
	// CPUs: beyond that, late ticks are the machine's, not the flood's.
	// Up to floodAttempts windows are tried; every one must leave the
	// attacker unanswered and every session up.
	var judged *floodWindow
	for a := 1; a <= floodAttempts && judged == nil; a++ {
		w := runFloodWindow(t, ctx, srv, &clock, sessions, sample)
		t.Logf("attempt %d: %s", a, w)
		if w.res.ReceivedBytes != 0 || w.res.Received != 0 {
			t.Errorf("the attacker's sockets received %d datagrams, %d bytes", w.res.Received, w.res.ReceivedBytes)
		}
		switch {
		case w.foreign < 0:
			judged = w // no /proc: judged as it is
		case w.foreign >= maxForeign:
			t.Logf("attempt %d not judged: other processes used %.2f of the %d CPUs during the flood (judged below %.2f)",
				a, w.foreign, runtime.NumCPU(), maxForeign)
		default:
			judged = w
		}
	}
	if judged == nil {
		t.Logf("the machine was busy during every flood window: the timing checks are not judged this run")
	} else {
		w := judged
		if r := w.res.Rate(); r < minFloodRate {
			t.Errorf("the flood reached only %.0f datagrams a second (want >= %d)", r, minFloodRate)
		}
		want := 60 * w.end.Sub(w.start).Seconds()
		if got := float64(w.fs.Ticks - w.f0.Ticks); got < 0.95*want || got > 1.05*want {
			t.Errorf("%.0f ticks during the flood, want %.0f +- 5%%", got, want)
		}
		if w.fs.P99 >= time.Second/60 {
			t.Errorf("P99 tick time %v under the flood, want < 16.6 ms", w.fs.P99)
		}
		for i, p := range players {
			if w.low[i] < minSnapRate(p.c) {
				t.Errorf("%s: %.1f snapshots a second during the flood, want >= %.0f", p.name, w.low[i], minSnapRate(p.c))
			}
		}
	}

	// The bots play on; every event the server made until now must reach
	// every bot once, which takes a few resends at most.
	sl.mu.Lock()
	cut := len(sl.events)
	sl.mu.Unlock()
	for _, p := range players {
		testutil.WaitFor(t, testutil.Wait, p.name+" to receive the events made before the end of the flood", func() bool {
			return receivedUpTo(p.name, p.c.Player(), sl, p.log, cut)
		})
	}
	if st := srv.TickStats(); st.Sessions != 4 {
		t.Errorf("%d sessions on the server after the flood, want 4", st.Sessions)
	}
	cancel()
	for _, p := range players {
		<-p.done
		if !errors.Is(p.err, context.Canceled) {
			t.Errorf("%s stopped playing: %v", p.name, p.err)
		}
	}
	for _, p := range players {
		snaps := checkWorlds(t, p.name, sl, p.log)
		events := checkEventsUpTo(t, p.name, p.c.Player(), sl, p.log, cut)
		st := p.c.Stats()
		t.Logf("%s (v%d): %d snapshots equal to the server's, %d events exactly once, %d datagrams dropped, %.0f ms RTT",
			p.name, p.c.Version(), snaps, events, st.Dropped, float64(st.RTT)/1e6)
		if want := int(10 * minSnapRate(p.c)); snaps < want {
			t.Errorf("%s compared only %d snapshots, want %d", p.name, snaps, want)
		}
	}
}

// minSnapRate is the lowest snapshot rate a bot of TestHostileFloodWhileBotsPlay
// may see: 15 a second of v1's 20; in v2, 4 of the 5 a second 7.9
// guarantees (a busy world gets more: a snapshot when anything changed).
func minSnapRate(c *client.Client) float64 {
	if c.Version() == wire.Version2 {
		return 4
	}
	return 15
}

// udpCounters reads the machine's UDP InDatagrams and RcvbufErrors
// (Linux), to tell how much of a flood reached the server's socket.
func udpCounters() (in, rcvbufErrors uint64, ok bool) {
	b, err := os.ReadFile("/proc/net/snmp")
	if err != nil {
		return 0, 0, false
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "Udp:" {
			continue
		}
		if names == nil {
			names = f
			continue
		}
		for i := 1; i < len(f) && i < len(names); i++ {
			v, _ := strconv.ParseUint(f[i], 10, 64)
			switch names[i] {
			case "InDatagrams":
				in = v
			case "RcvbufErrors":
				rcvbufErrors = v
			}
		}
		return in, rcvbufErrors, true
	}
	return 0, 0, false
}

func kindCounts(r flood.Result) string {
	s := ""
	for k, n := range r.Kinds {
		s += fmt.Sprintf("%s %d  ", flood.Kind(k), n)
	}
	return s
}

// checkEventsUpTo is checkEvents for the first cut events the server
// made: the events after them may still be on their way, and are left out
// of the client's log too.
func checkEventsUpTo(t testing.TB, name string, player uint8, sl *serverLog, cl *clientLog, cut int) int {
	t.Helper()
	// The client's events first, then the server's: the server logs a
	// tick's events before it sends them, so every event the client has
	// is in the server's log read after (read before, an event made and
	// received in between would look like one the server never sent).
	cl.mu.Lock()
	ccl := &clientLog{snaps: cl.snaps}
	received := slices.Clone(cl.events)
	cl.mu.Unlock()
	sl.mu.Lock()
	later := map[wire.Event]int{}
	for _, e := range sl.events[cut:] {
		later[e]++
	}
	ssl := &serverLog{snaps: sl.snaps, events: slices.Clone(sl.events[:cut])}
	sl.mu.Unlock()
	for _, e := range received {
		if later[e] > 0 {
			later[e]--
			continue
		}
		ccl.events = append(ccl.events, e)
	}
	return checkEvents(t, name, player, ssl, ccl)
}

// receivedUpTo reports whether a client received every one of the first
// cut events the server made from its own PlayerJoined on.
func receivedUpTo(name string, player uint8, sl *serverLog, cl *clientLog, cut int) bool {
	cl.mu.Lock()
	got := make(map[wire.Event]bool, len(cl.events))
	for _, e := range cl.events {
		got[e] = true
	}
	cl.mu.Unlock()
	sl.mu.Lock()
	defer sl.mu.Unlock()
	from := slices.IndexFunc(sl.events[:cut], func(e wire.Event) bool {
		return e.Type == wire.EventPlayerJoined && e.Player == player && e.Name == name
	})
	if from < 0 {
		return false
	}
	for _, e := range sl.events[from:cut] {
		if !got[e] {
			return false
		}
	}
	return true
}

// rawLogin logs in over TCP without binding: it returns the connection
// and the LoginAccepted.
func rawLogin(t *testing.T, addr, name string) (net.Conn, wire.Message) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(flood.LoginFrame(name)); err != nil {
		t.Fatal(err)
	}
	m, err := (&wire.FrameReader{R: c}).ReadMessage()
	if err != nil || m.Type != wire.MsgLoginAccepted {
		t.Fatalf("login %s: %+v, %v", name, m, err)
	}
	c.SetDeadline(time.Time{})
	return c, m
}

// udpProbe sends datagrams from a fresh socket and returns the bytes that
// came back within wait.
func udpProbe(t *testing.T, addr string, wait time.Duration, datagrams ...[]byte) (sent, got int, replies [][]byte) {
	t.Helper()
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, d := range datagrams {
		if _, err := c.WriteToUDP(d, ua); err != nil {
			t.Fatal(err)
		}
		sent += len(d)
		if i%64 == 63 {
			time.Sleep(time.Millisecond) // not a flood: every datagram reaches the server
		}
	}
	c.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 2048)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return sent, got, replies
		}
		got += n
		replies = append(replies, slices.Clone(buf[:n]))
	}
}

// 3.4: the server never answers with more bytes than it was sent. Every
// kind of the flood aimed at a session that is logged in but not bound,
// and at a bound one (v1 and v2) from another address, gets nothing; only
// a matching Bind gets an answer, its 23-byte Accept. (The v2 binding's
// own amplification bound, 7.3, is TestBindAttackV2's.)
func TestHostileAmplification(t *testing.T) {
	srv := testserver.Start(t, server.Config{MaxGames: 1, BindTimeout: 30 * time.Second})
	_, acc := rawLogin(t, srv.Addr(), "Unbound")
	bound := dial(t, srv.Addr(), "Bound", newClientLog(), wire.Version)
	bound2 := dial(t, srv.Addr(), "Bound2", newClientLog(), wire.Version2)
	sessions := []uint32{acc.Session, bound.Session(), bound2.Session()}

	for k := flood.Kind(0); k < flood.NumKinds; k++ {
		var mix flood.Mix
		mix[k] = 1
		gen := flood.NewGenerator(uint64(k)+100, mix, sessions)
		var dgs [][]byte
		for range 300 {
			_, b := gen.Next(nil)
			dgs = append(dgs, b)
		}
		sent, got, _ := udpProbe(t, srv.Addr(), 300*time.Millisecond, dgs...)
		t.Logf("%-9s %3d datagrams, %6d bytes sent: %d bytes back", k, len(dgs), sent, got)
		if got > sent || got != 0 {
			t.Errorf("%s: %d bytes sent, %d bytes back: only a matching Bind is answered (3.4, 6.1)", k, sent, got)
		}
	}

	// Near-valid datagrams of the unbound session: the right token, but
	// not a matching Bind.
	h := func(typ wire.Type, seq uint16, payload []byte) []byte {
		return append(wire.AppendHeader(nil, wire.Header{Type: typ, Seq: seq, Ack: 0xFFFF, Session: acc.Session}), payload...)
	}
	tok := acc.Token[:]
	bad := map[string][]byte{
		"bind, token + 1 byte":   h(wire.TypeBind, 1, append(slices.Clone(tok), 0)),
		"bind, 7 token bytes":    h(wire.TypeBind, 2, tok[:7]),
		"bind, version 2":        func() []byte { b := h(wire.TypeBind, 3, tok); b[4] = 2; return b }(),
		"bind, 1500 bytes":       append(h(wire.TypeBind, 4, tok), make([]byte, 1500-26)...),
		"input with the token":   h(wire.TypeInput, 5, tok[:1]),
		"ack of the session":     h(wire.TypeAck, 6, nil),
		"event of the session":   h(wire.TypeEvent, 7, wire.AppendEventFrame([]byte{1}, 1, []byte{5, 0, 0, 0, 0, 0, 0})),
		"accept (server's type)": h(wire.TypeAccept, 8, []byte{0, 0, 0, 0, 0}),
	}
	for name, d := range bad {
		sent, got, _ := udpProbe(t, srv.Addr(), 100*time.Millisecond, d)
		if got != 0 {
			t.Errorf("%s: %d bytes sent, %d bytes back", name, sent, got)
		}
	}

	// The matching Bind: one Accept of 23 bytes for the Bind's 26.
	bind := h(wire.TypeBind, 100, tok)
	sent, _, replies := udpProbe(t, srv.Addr(), 300*time.Millisecond, bind)
	if len(replies) == 0 {
		t.Fatal("no Accept for the matching Bind")
	}
	hd, p, err := wire.ParseHeader(replies[0], wire.ToClient)
	if err != nil || hd.Type != wire.TypeAccept || len(replies[0]) != 23 || len(replies[0]) >= sent {
		t.Fatalf("first answer to the matching Bind (%d bytes): %d bytes, %+v %v", sent, len(replies[0]), hd, err)
	}
	if a, err := wire.ParseAccept(p); err != nil || a.Player != acc.Player {
		t.Fatalf("Accept %+v %v, want player %d", a, err, acc.Player)
	}
	t.Logf("matching Bind: %d bytes, answered by an Accept of %d bytes (then the session's game, %d datagrams, to the proven address)",
		sent, len(replies[0]), len(replies)-1)
	// The same Bind replayed from another address is a duplicate (5.1):
	// no answer, and the session stays where it is.
	if _, got, _ := udpProbe(t, srv.Addr(), 200*time.Millisecond, bind); got != 0 {
		t.Errorf("a replayed Bind got %d bytes back", got)
	}
	for _, c := range []*client.Client{bound, bound2} {
		if err := c.Err(); err != nil {
			t.Errorf("the bound v%d client's session ended: %v", c.Version(), err)
		}
	}
}

// After a matching Bind the server sends the session's game to the bound
// address, which proved nothing but knowing the token: a client that
// could forge its source address would aim that stream at a victim (3.4
// bounds only the Accept). A victim that never answers stops receiving
// after SessionTimeout (5.5): the reflection is bounded in time, and this
// measures it.
func TestHostileBindReflection(t *testing.T) {
	const timeout = 2 * time.Second
	srv := testserver.Start(t, server.Config{MaxGames: 1, SessionTimeout: timeout})
	conn, acc := rawLogin(t, srv.Addr(), "Reflector")
	victim, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	bind := append(wire.AppendHeader(nil, wire.Header{Type: wire.TypeBind, Ack: 0xFFFF, Session: acc.Session}), acc.Token[:]...)
	if _, err := victim.WriteToUDP(bind, net.UDPAddrFromAddrPort(tcpAddr(t, srv.Addr()).AddrPort())); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var n, bytes int
	var last time.Time
	buf := make([]byte, 2048)
	victim.SetReadDeadline(start.Add(timeout + 1500*time.Millisecond))
	for {
		k, err := victim.Read(buf)
		if err != nil {
			break
		}
		n, bytes, last = n+1, bytes+k, time.Now()
	}
	m, err := (&wire.FrameReader{R: conn}).ReadMessage()
	t.Logf("one %d-byte Bind from a silent address: %d datagrams, %d bytes (x%d) over %v; then TCP %v reason %d",
		len(bind), n, bytes, bytes/len(bind), last.Sub(start).Round(time.Millisecond), m.Type, m.Reason)
	if last.Sub(start) > timeout+500*time.Millisecond {
		t.Errorf("the silent address still received datagrams %v after its Bind (SessionTimeout %v)", last.Sub(start), timeout)
	}
	if err != nil || m.Type != wire.MsgLogout || m.Reason != wire.LogoutTimedOut {
		t.Errorf("the session's TCP connection got %+v, %v; want Logout(TimedOut)", m, err)
	}
}

// tcpConfig is a server whose logins are not rate limited, so that the
// cases get the answers of their own rule.
func tcpConfig() server.Config {
	return server.Config{MaxGames: 2, LoginTimeout: time.Second, BindTimeout: 2 * time.Second, LoginLimit: 1 << 20}
}

func tcpAddr(t *testing.T, addr string) *net.TCPAddr {
	t.Helper()
	a, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// readAll reads c until it is closed or wait passes: the bytes, and
// whether the server closed it.
func readAll(c net.Conn, wait time.Duration) (int, bool) {
	c.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 1024)
	n := 0
	for {
		k, err := c.Read(buf)
		n += k
		if err != nil {
			return n, !errors.Is(err, os.ErrDeadlineExceeded)
		}
	}
}

// TCP (3.1, 3.2, 6.5): MaxPending silent connections are closed after
// LoginTimeout and the ones beyond at once; every malformed case gets
// the answer of PROTOCOL.md; the server still takes a real player.
func TestHostileTCP(t *testing.T) {
	t.Run("MaxPending", func(t *testing.T) {
		// MaxPending silent connections, from as many addresses (one
		// address holds at most MaxPendingPerIP).
		const maxPending = 16
		cfg := tcpConfig()
		cfg.MaxPending = maxPending
		srv := testserver.Start(t, cfg)
		to := tcpAddr(t, srv.Addr())
		from := func(i int) *net.TCPAddr { return &net.TCPAddr{IP: net.IPv4(127, 0, 5, byte(1+i))} }
		var conns []net.Conn
		opened := time.Now()
		for i := range maxPending {
			c, err := net.DialTCP("tcp", from(i), to)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			conns = append(conns, c)
		}
		testutil.WaitFor(t, testutil.Wait, fmt.Sprintf("%d pending connections", maxPending), func() bool {
			return srv.TickStats().Pending == maxPending
		})
		for i := range 8 {
			c, err := net.DialTCP("tcp", from(100+i), to)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			n, closed := readAll(c, 3*time.Second)
			c.Close()
			if !closed || n != 0 || time.Since(start) > 500*time.Millisecond {
				t.Errorf("extra connection %d: %d bytes, closed %v after %v: want closed at once", i, n, closed, time.Since(start))
			}
		}
		var first, last time.Duration
		for i, c := range conns {
			n, closed := readAll(c, 5*time.Second)
			d := time.Since(opened)
			if i == 0 {
				first = d
			}
			last = d
			if !closed || n != 0 {
				t.Errorf("silent connection %d: %d bytes, closed %v", i, n, closed)
			}
		}
		t.Logf("%d silent connections closed %v..%v after opening (LoginTimeout %v); 8 beyond MaxPending closed at once",
			maxPending, first.Round(time.Millisecond), last.Round(time.Millisecond), cfg.LoginTimeout)
		if first < 900*time.Millisecond || last > 3*time.Second {
			t.Errorf("silent connections closed %v..%v after opening, want about LoginTimeout (%v)", first, last, cfg.LoginTimeout)
		}
	})

	t.Run("Lockout", func(t *testing.T) {
		// One host opens all the connections it can and sends nothing:
		// a player from another address must still log in.
		cfg := tcpConfig()
		cfg.LoginTimeout = 3 * time.Second
		srv := testserver.Start(t, cfg)
		attacker := net.IPv4(127, 0, 4, 1)
		var held, refused int
		for range 64 + 16 { // MaxPending (64) and more
			c, err := net.DialTCP("tcp", &net.TCPAddr{IP: attacker}, tcpAddr(t, srv.Addr()))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, closed := readAll(c, 20*time.Millisecond); closed {
				refused++
			} else {
				held++
			}
		}
		o := flood.Dialer{Local: net.IPv4(127, 0, 4, 2)}.RunCase(context.Background(), srv.Addr(),
			flood.Case{Send: flood.LoginFrame("Player"), LeaveAfterFirst: true}, 2*time.Second)
		t.Logf("one address holds %d pending connections (%d more closed at once); a player from another address: %s", held, refused, o)
		if o.String() != "LoginAccepted, left" {
			t.Errorf("a player from another address: %s, want LoginAccepted: one host locks everyone out", o)
		}
	})

	t.Run("Cases", func(t *testing.T) {
		cfg := tcpConfig()
		srv := testserver.Start(t, cfg)
		cases := flood.Cases("X")
		out := make([]flood.Outcome, len(cases))
		var wg sync.WaitGroup
		for i, c := range cases {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := flood.Dialer{Local: net.IPv4(127, 0, 6, byte(1+i))} // within MaxPendingPerIP
				out[i] = d.RunCase(context.Background(), srv.Addr(), c, 5*time.Second)
			}()
		}
		wg.Wait()
		for i, c := range cases {
			o := out[i]
			t.Logf("%-18s %-40s after %-6v resets %v  (%s)", c.Name, o, o.After.Round(time.Millisecond), o.Reset, c.Why)
			if o.String() != c.Want {
				t.Errorf("%s: got %q, want %q (%s)", c.Name, o, c.Want, c.Why)
			}
			if c.Late && o.After < 900*time.Millisecond {
				t.Errorf("%s: closed after %v, before LoginTimeout %v", c.Name, o.After, cfg.LoginTimeout)
			}
			if !c.Late && o.After >= cfg.LoginTimeout {
				t.Errorf("%s: answered after %v, not at once", c.Name, o.After)
			}
		}
		// Nothing crashed: a real player still logs in and plays.
		cl := dial(t, srv.Addr(), "Survivor", newClientLog(), wire.Version2)
		testutil.WaitFor(t, testutil.Wait, "a snapshot for the survivor", func() bool { return cl.Stats().SnapshotTick != 0 || cl.Err() != nil })
		if err := cl.Err(); err != nil {
			t.Fatalf("the survivor got no snapshot: %v", err)
		}
	})
}

// memStats returns the goroutines and the heap in use after a collection.
func memStats() (int, uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapInuse
}

// 2000 connections opened and abandoned in waves: the server holds at
// most MaxPending of them, drops the rest after LoginTimeout, and its
// goroutines and heap come back to where they were.
func TestHostileTCPMemory(t *testing.T) {
	cfg := tcpConfig()
	srv := testserver.Start(t, cfg)
	// Its goroutines are all running once it ticks.
	testutil.WaitFor(t, testutil.Wait, "the server's first tick", func() bool { return srv.TickStats().Ticks > 0 })
	baseG, baseHeap := memStats()

	// Watch the peak while the waves come.
	stop := make(chan struct{})
	var peakG int
	var peakHeap uint64
	var watch sync.WaitGroup
	watch.Add(1)
	go func() {
		defer watch.Done()
		var ms runtime.MemStats
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			peakG = max(peakG, runtime.NumGoroutine())
			if i%5 == 0 {
				runtime.ReadMemStats(&ms)
				peakHeap = max(peakHeap, ms.HeapInuse)
			}
		}
	}()
	const waves, perWave = 5, 400
	var held []*net.TCPConn
	partial := flood.LoginFrame("Abandoned")[:6]
	start := time.Now()
	to := tcpAddr(t, srv.Addr())
	for w := range waves {
		for j := range perWave {
			// From 250 addresses, so that MaxPending, not
			// MaxPendingPerIP, is the cap.
			from := &net.TCPAddr{IP: net.IPv4(127, 0, 7, byte(1+j%250))}
			c, err := net.DialTCP("tcp", from, to)
			if err != nil {
				t.Fatalf("wave %d, connection %d: %v", w, j, err)
			}
			switch j % 4 {
			case 0: // silent, left open
				held = append(held, c)
			case 1: // part of a frame, left open
				c.Write(partial)
				held = append(held, c)
			case 2: // part of a frame, then gone
				c.Write(partial)
				c.Close()
			default: // gone at once
				c.Close()
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	opened := time.Since(start)
	// Every connection left open is closed by the server: the ones past
	// MaxPending at once, the others at their LoginTimeout.
	testutil.WaitFor(t, cfg.LoginTimeout+testutil.Wait, "no pending connection", func() bool { return srv.TickStats().Pending == 0 })
	closed := 0
	for _, c := range held {
		if n, ok := readAll(c, 2*time.Second); ok && n == 0 {
			closed++
		}
		c.Close()
	}
	close(stop)
	watch.Wait()
	held = nil
	// The server's goroutines of the connections end after their close.
	testutil.Eventually(testutil.Wait, func() bool { g, _ := memStats(); return g <= baseG+2 })
	endG, endHeap := memStats()
	t.Logf("%d connections in %d waves in %v (%d left open); goroutines: %d before, peak %d, %d after; heap in use: %.1f MB before, peak %.1f MB, %.1f MB after",
		waves*perWave, waves, opened.Round(time.Millisecond), closed, baseG, peakG, endG,
		float64(baseHeap)/1e6, float64(peakHeap)/1e6, float64(endHeap)/1e6)
	if closed != waves*perWave/2 {
		t.Errorf("the server closed %d of the %d connections left open", closed, waves*perWave/2)
	}
	// MaxPending readers, and slack for the closers of closeGently that
	// run at once when many logins time out together (peaks of 96 to 115
	// were seen on a loaded machine, with or without this change); without
	// the cap, the 1,000 connections left open would each hold a reader.
	if peakG > baseG+64+64 {
		t.Errorf("peak of %d goroutines, %d before: the pending connections are not capped", peakG, baseG)
	}
	if endG > baseG+2 {
		t.Errorf("%d goroutines after, %d before", endG, baseG)
	}
	if endHeap > baseHeap+4<<20 {
		t.Errorf("heap in use %d bytes after, %d before", endHeap, baseHeap)
	}
	if st := srv.TickStats(); st.Sessions != 0 {
		t.Errorf("%d sessions left", st.Sessions)
	}
}

// 3.3: the login rate limit tracks at most LoginAddrs addresses, so its
// memory is bounded, yet a new address is never refused for want of room:
// it takes the place of the address idle longest. A tracked address keeps
// its count while fewer new addresses come.
func TestHostileLoginLimiter(t *testing.T) {
	const addrs = 16
	srv := testserver.Start(t, server.Config{MaxGames: 1, LoginAddrs: addrs, LoginWindow: time.Minute})
	login := func(ip net.IP) string {
		o := flood.Dialer{Local: ip}.RunCase(context.Background(), srv.Addr(),
			flood.Case{Name: "bad name", Send: flood.LoginFrame("!!")}, 3*time.Second)
		return o.String()
	}
	const valid, limited = "LoginRejected(InvalidName), closed", "LoginRejected(RateLimited), closed"
	ip := func(i int) net.IP { return net.IPv4(127, 0, 1+byte(i/250), byte(1+i%250)) }
	start := time.Now()
	for i := range 5 {
		if got := login(ip(0)); got != valid {
			t.Fatalf("address 0, request %d: %s", i+1, got)
		}
	}
	if got := login(ip(0)); got != limited {
		t.Fatalf("address 0, request 6: %s, want %s", got, limited)
	}
	// The table fills up: address 0 is still tracked, still limited.
	for i := 1; i < addrs; i++ {
		if got := login(ip(i)); got != valid {
			t.Fatalf("address %d: %s", i, got)
		}
	}
	if got := login(ip(0)); got != limited {
		t.Fatalf("address 0 with the table full: %s, want %s", got, limited)
	}
	// 200 more new addresses, far past the cap: none is refused.
	for i := addrs; i < addrs+200; i++ {
		if got := login(ip(i)); got != valid {
			t.Fatalf("new address %d past the cap: %s, want %s", i, got, valid)
		}
	}
	t.Logf("%d addresses tracked at most; %d new ones passed in %v; a limited address stayed limited while the table had room",
		addrs, addrs-1+200, time.Since(start).Round(time.Millisecond))
}
