package e2e

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/netsim"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/net/wtclient"
	"rtype/server"
	"rtype/sim"
)

// soakFor is how long each impairment profile of TestSoak runs, in the
// game's time (its ticks, 60 a second): the suite's short run covers
// every check of every profile; the long run is ./build.sh soak's, go
// test -count=1 -timeout 30m -run '^TestSoak$' ./e2e/ -soak 60s.
var soakFor = flag.Duration("soak", 3*time.Second, "how long each impairment profile runs (game time)")

// A soak profile is a network impairment, the same in both directions.
type soakProfile struct {
	name string
	imp  netsim.Impairment
	// wt: the clients play over the WebTransport binding (PROTOCOL.md
	// Part IV), the relay impairing QUIC's datagrams.
	wt bool
}

var soakProfiles = []soakProfile{
	{name: "lan", imp: netsim.Impairment{}},
	{name: "loss5-10ms", imp: netsim.Impairment{Loss: 0.05, Reorder: 0.01, Delay: 10 * time.Millisecond}},
	{name: "loss10-50ms", imp: netsim.Impairment{Loss: 0.10, Reorder: 0.02, Delay: 50 * time.Millisecond}},
	{name: "loss20-100ms", imp: netsim.Impairment{Loss: 0.20, Reorder: 0.04, Delay: 100 * time.Millisecond}},
	{name: "loss25-dup25-1s", imp: netsim.Impairment{Loss: 0.25, Dup: 0.25, Delay: time.Second, Jitter: 100 * time.Millisecond}},
	{name: "webtransport-loss5-30ms", imp: netsim.Impairment{Loss: 0.05, Reorder: 0.01, Delay: 30 * time.Millisecond}, wt: true},
}

// Timings of a profile.
const (
	// soakWarmup is how far into the impaired run (game time) the heap
	// is measured first: the buffers have grown to their working size
	// by then. A run shorter than twice that measures it halfway.
	soakWarmup = 3 * time.Second
	// soakKeep is how much of the server's past the recorder keeps: a
	// client rebuilds no snapshot older than the longest delay of the
	// relay (1.1 s, plus 0.62 s for a reordered datagram) plus the oldest
	// baseline the server may use (32 snapshots, 1.6 s).
	soakKeep = 5 * wire.TickRate
	// soakMaxLag is the largest distance, in ticks, from the server's
	// newest snapshot to a client's newest that a client must come back
	// to, and stay within over 10 readings, once the network is clean
	// (250 ms of the game).
	soakMaxLag = wire.TickRate / 4
	// soakHeapGrowth is the largest heap growth allowed over a profile.
	soakHeapGrowth = 4 << 20
	// soakMaxErrors bounds the errors a recorder keeps.
	soakMaxErrors = 20
)

// TestSoak runs four bots through the impairment relay against the real
// server, one profile after the other, each for -soak: two speak protocol
// v1 and two v2, in the same game (PROTOCOL.md 7.11), so both versions
// live through the same impairment and world. After each it cleans the
// network and checks, for every client whatever its version, that:
//
//	(a) every event the server produced from a client's PlayerJoined on,
//	    up to a cut taken once the clients caught up, reached that client
//	    exactly once (and nothing else but its joining burst, once);
//	(b) every snapshot a client rebuilt whole equals the server's state at
//	    that tick (checked as each one is rebuilt, impaired or not);
//	(c) each client comes back to within 250 ms of the server's newest
//	    snapshot, and stays there (soakMaxLag);
//	(d) no session ended;
//	(e) no snapshot was built on a baseline the client had not received
//	    whole (so acknowledged), and none was dropped for want of one;
//	(f) the heap did not grow by more than a few MB.
func TestSoak(t *testing.T) {
	for i, p := range soakProfiles {
		t.Run(p.name, func(t *testing.T) { runSoak(t, p, uint64(i+1)) })
	}
}

// soakRules are the default rules with lives enough to last any soak.
func soakRules() sim.Rules {
	r := sim.DefaultRules()
	r.Lives = 99
	return r
}

func runSoak(t *testing.T, p soakProfile, seed uint64) {
	rules := soakRules()
	rec := newSoakRecorder()
	cfg := server.Config{MaxGames: 1, Seed: seed, Rules: &rules, OnSnapshot: rec.onSnapshot, OnEvents: rec.onEvents}
	if p.wt {
		cfg.WebTransportAddr = "127.0.0.1:0"
	}
	srv := testserver.Start(t, cfg)
	to, tr := srv.Addr(), client.Transport(nil)
	if p.wt {
		var wt *wtclient.Transport
		wt, to = wtTransport(t, srv)
		tr = wt
	}
	relay := startRelay(t, to, p.imp, int64(seed))

	// Four clients join through the impaired relay, at once: a and c speak
	// v1, b and d v2.
	names := []string{"soak-a", "soak-b", "soak-c", "soak-d"}
	clients := make([]*client.Client, len(names))
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, name := range names {
		sc := rec.addClient(name, versions[i%len(versions)])
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
			defer cancel()
			cfg := sc.config(relay.Addr(), testutil.Logger(t))
			cfg.Transport = tr
			clients[i], errs[i] = client.Dial(ctx, cfg)
		}()
	}
	wg.Wait()
	for i, c := range clients {
		if c != nil {
			t.Cleanup(func() { c.Close() })
		}
		if errs[i] != nil {
			t.Fatalf("%s: %v", names[i], errs[i])
		}
	}
	sampler := rec.sample()
	defer sampler()

	// The bots play until the end of the checks.
	ctx, stopBots := context.WithCancel(context.Background())
	botErrs := make([]error, len(clients))
	for i, c := range clients {
		wg.Add(2)
		go func() {
			defer wg.Done()
			botErrs[i] = bot.Play(ctx, c, rand.New(rand.NewPCG(seed, uint64(i))))
		}()
		go func() { defer wg.Done(); drainEvents(ctx, c) }()
	}
	defer func() { stopBots(); wg.Wait() }()

	// The profile runs for soakFor of the game's time: as many ticks
	// on a busy machine as on an idle one.
	start := time.Now()
	warmup := min(soakWarmup, *soakFor/2)
	tick0 := rec.tick()
	rec.waitTick(t, tick0+ticksOf(warmup))
	heap0, ents0 := heapInUse(), rec.entities()
	rec.waitTick(t, tick0+ticksOf(*soakFor))

	// Measured under impairment, just before it ends.
	stats := make([]client.Stats, len(clients))
	for i, c := range clients {
		stats[i] = c.Stats()
	}
	upStats, downStats := relay.Stats()
	relay.SetImpairment(netsim.Impairment{}, netsim.Impairment{})
	cleaned := time.Now()

	// (c) Each client comes back close behind the server: the datagrams
	// still held by the relay's delay arrive, the new ones come at once.
	// (A session lost is (d)'s failure.)
	// (b) needs snapshots to compare: 20 at least, which a client on a
	// busy machine may still be catching up on.
	var lags []uint32
	testutil.WaitFor(t, testutil.Wait, fmt.Sprintf("every client within %d ticks of the server's newest snapshot, 20 compared", soakMaxLag), func() bool {
		lags = rec.lag(clients)
		for i, c := range clients {
			if c.Err() == nil && (lags[i] > soakMaxLag || rec.client(names[i]).comparedSoFar() < 20) {
				return false
			}
		}
		return true
	})
	for i, lag := range lags {
		t.Logf("%s: newest snapshot at most %d ticks (%v) behind the server's, %v after the network was cleaned",
			names[i], lag, time.Duration(lag)*time.Second/wire.TickRate, time.Since(cleaned).Round(time.Millisecond))
	}

	// (d) Every session runs.
	lost := lostSessions(clients)
	for i, err := range lost {
		if err != nil {
			t.Errorf("%s: session lost: %v%s", names[i], err, rec.client(names[i]).overflowHint(time.Since(start)))
		}
	}

	// (a) Every event up to the cut arrives, once.
	cut := rec.cut()
	waited, missing := rec.waitDelivered(cut, lost, names, testutil.Wait)
	t.Logf("events up to the cut delivered %v after it was taken", waited)
	for _, m := range missing {
		t.Error(m)
	}

	// (f) The heap, measured before the connections are closed.
	heap1, ents1 := heapInUse(), rec.entities()

	ts := srv.TickStats()
	t.Logf("profile %s for %v: %v", p.name, *soakFor, p.imp)
	t.Logf("relay up: %v (%.1f%% lost)", upStats, relayLoss(upStats))
	t.Logf("relay down: %v (%.1f%% lost)", downStats, relayLoss(downStats))
	t.Logf("server ticks: p50 %v, p99 %v, max %v, %d overruns of %d, %d sessions",
		ts.P50, ts.P99, ts.Max, ts.Overruns, ts.Ticks, ts.Sessions)
	for i, c := range clients {
		st := c.Stats()
		sc := rec.client(names[i])
		sc.mu.Lock()
		t.Logf("%s (v%d, player %d): %d events owed, %d delivered once, burst %d, longest delivery %v, widest undelivered span %d events;"+
			" %d snapshots compared, %d incomplete, %d deltas on a whole baseline; loss %.1f%%, RTT %v (under impairment);"+
			" dropped %d (no baseline %d), duplicates %d",
			names[i], sc.version, c.Player(), sc.owed, sc.delivered, len(sc.burst), sc.maxLatency.Round(time.Millisecond), sc.maxSpan,
			sc.compared, sc.countIncomplete(), sc.deltas, stats[i].Loss*100, stats[i].RTT.Round(time.Millisecond),
			st.Dropped, st.NoBaseline, st.Duplicates)
		sc.mu.Unlock()
		// (e) The client had every baseline the server used.
		if st.NoBaseline != 0 {
			t.Errorf("%s: %d snapshots dropped for want of their baseline", names[i], st.NoBaseline)
		}
	}
	// (b), (e) and (a)'s duplicates and strays, found as they happened.
	for _, e := range rec.errors() {
		t.Error(e)
	}
	for _, name := range names {
		sc := rec.client(name)
		sc.mu.Lock()
		if sc.compared < 20 && lost[slices.Index(names, name)] == nil {
			t.Errorf("%s: only %d snapshots compared", name, sc.compared)
		}
		sc.mu.Unlock()
	}
	growth := int64(heap1) - int64(heap0)
	t.Logf("heap in use %.1f MB after %v (%d entities in the world), %.1f MB at the end (%d entities): %+.2f MB",
		mb(heap0), warmup, ents0, mb(heap1), ents1, float64(growth)/(1<<20))
	if growth > soakHeapGrowth {
		t.Errorf("the heap grew by %.1f MB over the profile, want under %.0f MB", float64(growth)/(1<<20), float64(soakHeapGrowth)/(1<<20))
	}
	stopBots()
	wg.Wait()
	for i, err := range botErrs {
		if err != nil && err != context.Canceled && lost[i] == nil {
			t.Errorf("%s's bot: %v", names[i], err)
		}
	}
}

// lostSessions returns each client's error, nil while its session runs.
func lostSessions(cs []*client.Client) []error {
	out := make([]error, len(cs))
	for i, c := range cs {
		out[i] = c.Err()
	}
	return out
}

// drainEvents takes the client's applied events every frame, as the
// game's loop does for its effects and sounds (bot.Play does not: the
// client would keep up to 4096 of them, half a megabyte, and the heap
// check would measure that buffer filling up).
func drainEvents(ctx context.Context, c *client.Client) {
	t := time.NewTicker(time.Second / 60)
	defer t.Stop()
	var buf []wire.Event
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.Done():
			return
		case <-t.C:
			buf = c.DrainEvents(buf[:0])
		}
	}
}

// relayLoss is the percentage of the datagrams the relay dropped.
func relayLoss(s netsim.Stats) float64 {
	in := s.Forwarded - s.Duplicated + s.Dropped
	if in == 0 {
		return 0
	}
	return float64(s.Dropped) * 100 / float64(in)
}

// ticksOf is d of the game's time, in ticks.
func ticksOf(d time.Duration) uint32 { return uint32(d * wire.TickRate / time.Second) }

// tick returns the tick of the server's newest snapshot.
func (r *soakRecorder) tick() uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.newest
}

// waitTick waits until the server's newest snapshot is of tick at least:
// the game's clock, which a busy machine slows without changing what
// happens in its ticks. The deadlock guard gives a second of the game
// ten seconds, and testutil.Wait more.
func (r *soakRecorder) waitTick(t testing.TB, tick uint32) {
	t.Helper()
	from := r.tick()
	guard := 10*time.Duration(max(tick, from)-from)*time.Second/wire.TickRate + testutil.Wait
	testutil.WaitFor(t, guard, fmt.Sprintf("the server's tick %d (now %d)", tick, from), func() bool { return r.tick() >= tick })
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func mb(n uint64) float64 { return float64(n) / (1 << 20) }

// startRelay runs an impairment relay to addr until the test ends.
func startRelay(t testing.TB, addr string, imp netsim.Impairment, seed int64) *netsim.Relay {
	t.Helper()
	r, err := netsim.New(netsim.Config{Listen: "127.0.0.1:0", To: addr, Up: imp, Down: imp, Seed: seed, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Run(t, r)
	return r
}

// soakRecorder checks what the clients get against what the server sent,
// as it happens, keeping only a few seconds of the past so that its own
// memory stays flat.
type soakRecorder struct {
	mu      sync.Mutex
	snaps   map[uint32]server.Snapshot // the server's last soakKeep ticks
	newest  uint32
	clients map[string]*soakClient
	errs    []string
	nerrs   int
}

func newSoakRecorder() *soakRecorder {
	return &soakRecorder{snaps: map[uint32]server.Snapshot{}, clients: map[string]*soakClient{}}
}

// soakClient is the recorder's view of one client.
type soakClient struct {
	rec     *soakRecorder
	name    string
	version uint8

	mu       sync.Mutex // after rec.mu when both are held
	joined   bool
	joinTick uint32
	// Events the server produced for the client and not yet delivered,
	// with their number in the client's stream and when they were made.
	want       map[wire.Event]owedEvent
	owed       uint64 // events produced for it since its PlayerJoined
	delivered  uint64
	early      map[wire.Event]bool // delivered events of its joining tick
	burst      map[wire.Event]int  // the joining burst (4.6)
	maxLatency time.Duration
	maxSpan    uint64
	// Snapshots: how many datagrams of each tick were rebuilt, of how
	// many the server sent.
	parts    map[uint32]snapParts
	enc      wire.SnapshotEncoder
	frames2  map[uint32]*wire2.Frame // v2: the ticks rebuilt whole
	blink    uint32
	compared int
	deltas   int
	dropped  int // incomplete ticks forgotten
}

type owedEvent struct {
	n  uint64
	at time.Time
}

type snapParts struct{ got, total int }

func (r *soakRecorder) addClient(name string, version uint8) *soakClient {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &soakClient{rec: r, name: name, version: version, want: map[wire.Event]owedEvent{}, early: map[wire.Event]bool{},
		burst: map[wire.Event]int{}, parts: map[uint32]snapParts{}, frames2: map[uint32]*wire2.Frame{},
		blink: uint32(sim.DefaultRules().BlinkTicks)}
	r.clients[name] = c
	return c
}

// config returns the configuration of a recorded client of c's version
// that dials addr.
func (c *soakClient) config(addr string, log *slog.Logger) client.Config {
	return client.Config{Addr: addr, Name: c.name, Logger: log, Version: c.version, Mode: wire.ModeClassic,
		OnSnapshot: c.onSnapshot, OnFrame: c.onSnapshot2, OnEvent: c.onEvent}
}

func (r *soakRecorder) client(name string) *soakClient {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.clients[name]
}

// fail records an error found in a hook, where t cannot be used.
func (r *soakRecorder) fail(format string, args ...any) {
	r.nerrs++
	if len(r.errs) < soakMaxErrors {
		r.errs = append(r.errs, fmt.Sprintf(format, args...))
	}
}

func (r *soakRecorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.errs)
	if r.nerrs > len(out) {
		out = append(out, fmt.Sprintf("... %d errors in all", r.nerrs))
	}
	return out
}

// onSnapshot is the server's hook: its state at each snapshot tick.
func (r *soakRecorder) onSnapshot(_ int, s server.Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.snaps[s.Tick] = server.Snapshot{Tick: s.Tick, Players: slices.Clone(s.Players), Entities: slices.Clone(s.Entities)}
	r.newest = s.Tick
	for tick := range r.snaps {
		if tick+soakKeep < s.Tick {
			delete(r.snaps, tick)
		}
	}
}

// onEvents is the server's hook: every event its game produced, in order.
// From its PlayerJoined on, each is owed to a client.
func (r *soakRecorder) onEvents(_ int, evs []wire.Event) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range evs {
		for _, c := range r.clients {
			c.mu.Lock()
			if !c.joined && e.Type == wire.EventPlayerJoined && e.Name == c.name {
				c.joined, c.joinTick = true, e.Tick
			}
			if c.joined {
				if _, dup := c.want[e]; dup {
					r.fail("%s: the server produced twice the event %+v", c.name, e)
				}
				c.owed++
				c.want[e] = owedEvent{n: c.owed, at: now}
			}
			c.mu.Unlock()
		}
	}
}

// onEvent is the client's hook: each event delivered for the first time.
func (c *soakClient) onEvent(ev *wire.Event) {
	now := time.Now()
	r := c.rec
	r.mu.Lock()
	defer r.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	e := v1Event(ev) // a v2 Spawn is compared by its position at its tick
	if o, ok := c.want[e]; ok {
		delete(c.want, e)
		c.delivered++
		c.maxLatency = max(c.maxLatency, now.Sub(o.at))
		if e.Tick <= c.joinTick {
			c.early[e] = true
		}
		return
	}
	switch {
	case c.early[e]:
		r.fail("%s received twice %+v", c.name, e)
	case (e.Type == wire.EventPlayerJoined || e.Type == wire.EventSpawn) && (!c.joined || e.Tick <= c.joinTick):
		c.burst[e]++
		if c.burst[e] > 1 {
			r.fail("%s received twice its joining event %+v", c.name, e)
		}
	default:
		r.fail("%s received an event the server did not send it, or twice: %+v", c.name, e)
	}
}

// lock takes the recorder's lock and c's, and returns what releases them.
func (c *soakClient) lock() (unlock func()) {
	c.rec.mu.Lock()
	c.mu.Lock()
	return func() { c.mu.Unlock(); c.rec.mu.Unlock() }
}

// serverState returns the server's state at tick, which a client rebuilt;
// without it, a failure. The locks are held.
func (c *soakClient) serverState(tick uint32) (server.Snapshot, bool) {
	r := c.rec
	s, ok := r.snaps[tick]
	if !ok {
		r.fail("%s rebuilt tick %d, which the server did not send in the last %d ticks (newest %d)", c.name, tick, soakKeep, r.newest)
	}
	return s, ok
}

// onSnapshot is the client's hook, for each snapshot datagram rebuilt. A
// snapshot is compared with the server's state once all its datagrams
// are in: how many the server sent is what the server's encoder makes of
// the same state against the same baseline.
func (c *soakClient) onSnapshot(rb *link.Rebuilt) {
	r := c.rec
	defer c.lock()()
	s, ok := c.serverState(rb.Tick)
	if !ok {
		return
	}
	var base []wire.Entity
	if rb.HasBaseline {
		// (e) The baseline is a snapshot the client rebuilt whole, so
		// acknowledged: the server used nothing else.
		if p, ok := c.parts[rb.BaseTick]; !ok || p.got != p.total {
			r.fail("%s: tick %d built on tick %d, of which the client had %d of %d datagrams", c.name, rb.Tick, rb.BaseTick, p.got, p.total)
			return
		}
		b, ok := r.snaps[rb.BaseTick]
		if !ok {
			r.fail("%s: tick %d built on tick %d, forgotten by the recorder", c.name, rb.Tick, rb.BaseTick)
			return
		}
		base = b.Entities
		if base == nil {
			base = []wire.Entity{}
		}
	}
	total := len(c.enc.Encode(rb.Tick, s.Players, base, rb.BaseTick, s.Entities))
	c.parts[rb.Tick] = snapParts{got: rb.Parts, total: total}
	switch {
	case rb.Parts > total:
		r.fail("%s: tick %d rebuilt from %d datagrams, the server sent %d", c.name, rb.Tick, rb.Parts, total)
	case rb.Parts < total:
		// The rest is on its way, or lost: snapshots are not resent.
	case !slices.Equal(rb.PlayerStates(), s.Players):
		r.fail("%s tick %d players\n got %+v\nwant %+v", c.name, rb.Tick, rb.PlayerStates(), s.Players)
	case !slices.Equal(rb.Entities, s.Entities):
		r.fail("%s tick %d: %d entities rebuilt, server had %d; first difference: %s",
			c.name, rb.Tick, len(rb.Entities), len(s.Entities), firstDiff(rb.Entities, s.Entities))
	default:
		c.compared++
		if rb.HasBaseline {
			c.deltas++
		}
	}
}

// onSnapshot2 is a v2 client's hook, for each snapshot datagram rebuilt.
// Without the server's count of datagrams, a rebuilt tick is whole when
// its state, in v1's form (v1Form), is the server's: then it is compared
// and may serve as a baseline. One that is not yet whole must be the
// baseline with some of the tick's records applied: every entity a record
// of the received datagrams changed, added or removed is exactly as in the
// server's state; the others are the baseline's.
func (c *soakClient) onSnapshot2(rb *link2.Rebuilt) {
	r := c.rec
	defer c.lock()()
	s, ok := c.serverState(rb.Tick)
	if !ok {
		return
	}
	var base *wire2.Frame
	if rb.HasBaseline {
		// (e) The baseline is a snapshot the client rebuilt whole.
		if base = c.frames2[rb.BaseTick]; base == nil {
			p := c.parts[rb.BaseTick]
			r.fail("%s: tick %d built on tick %d, which the client had not rebuilt whole (%d datagrams)", c.name, rb.Tick, rb.BaseTick, p.got)
			return
		}
	}
	got := v1Form(rb)
	if !slices.Equal(got.players, s.Players) {
		// Every datagram of a tick carries every player record.
		r.fail("%s tick %d players\n got %+v\nwant %+v", c.name, rb.Tick, got.players, s.Players)
		return
	}
	if slices.Equal(got.entities, s.Entities) {
		c.parts[rb.Tick] = snapParts{got: rb.Parts, total: rb.Parts}
		f := &wire2.Frame{}
		f.Set(rb.Tick, rb.Players, rb.Entities)
		c.frames2[rb.Tick] = f
		c.compared++
		if rb.HasBaseline {
			c.deltas++
		}
		return
	}
	c.parts[rb.Tick] = snapParts{got: rb.Parts, total: rb.Parts + 1} // more to come, or lost
	server := map[uint32]wire.Entity{}
	for _, e := range s.Entities {
		server[e.ID] = e
	}
	inBase := map[uint32]wire2.Entity{}
	if base != nil {
		for _, e := range base.Entities {
			inBase[e.ID] = e
		}
	}
	for i := range rb.Entities {
		e := &rb.Entities[i]
		if b, ok := inBase[e.ID]; ok && b == *e {
			delete(inBase, e.ID)
			continue // no record of it received yet
		}
		delete(inBase, e.ID)
		want, ok := server[e.ID]
		if got := v1Entity(rb, e, c.blink); !ok || got != want {
			r.fail("%s tick %d (%d datagrams, not whole): entity %#x rebuilt as %+v, the server's %+v (present %v)",
				c.name, rb.Tick, rb.Parts, e.ID, got, want, ok)
			return
		}
	}
	for id := range inBase {
		if _, ok := server[id]; ok {
			r.fail("%s tick %d (%d datagrams, not whole): entity %#x removed, the server still has it", c.name, rb.Tick, rb.Parts, id)
			return
		}
	}
}

// overflowHint explains a session that ended while the client's events
// undelivered spanned about the 1024 ids a sender may leave
// unacknowledged (5.3): the server then ends the session with
// Logout(TimedOut), as the protocol says.
func (c *soakClient) overflowHint(run time.Duration) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	rate := float64(c.owed) / run.Seconds()
	// Acknowledgements reach the server an RTT (2 s at most here) after
	// the events reach the client.
	limit := float64(link.MaxUnacked)
	if c.version == wire.Version2 {
		limit = wire2.EventWindow
	}
	if float64(c.maxSpan)+2*rate < limit {
		return ""
	}
	return fmt.Sprintf(" (its undelivered events spanned up to %d ids at %.0f events per second:"+
		" more than %.0f unacknowledged ends a session, 5.3, 7.7; v%d cannot carry this event rate over this network)",
		c.maxSpan, rate, limit, c.version)
}

// comparedSoFar returns how many snapshots of c were compared.
func (c *soakClient) comparedSoFar() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compared
}

// countIncomplete returns how many snapshot ticks never got all their
// datagrams; c.mu is held.
func (c *soakClient) countIncomplete() int {
	n := c.dropped
	for _, p := range c.parts {
		if p.got < p.total {
			n++
		}
	}
	return n
}

// sample forgets old snapshot ticks and measures how far back the oldest
// undelivered event of each client is, every 100 ms, until stopped.
func (r *soakRecorder) sample() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			r.mu.Lock()
			for _, c := range r.clients {
				c.mu.Lock()
				oldest := c.owed + 1
				for _, o := range c.want {
					oldest = min(oldest, o.n)
				}
				c.maxSpan = max(c.maxSpan, c.owed+1-oldest)
				for tick, p := range c.parts {
					if tick+soakKeep < r.newest {
						if p.got < p.total {
							c.dropped++
						}
						delete(c.parts, tick)
						delete(c.frames2, tick)
					}
				}
				c.mu.Unlock()
			}
			r.mu.Unlock()
		}
	}()
	return func() { close(done); wg.Wait() }
}

// lag returns how many ticks each client's newest snapshot is behind the
// server's: the largest of ten readings over 200 ms. The server's hook
// runs before the sending, so a reading may count a snapshot on its way.
func (r *soakRecorder) lag(cs []*client.Client) []uint32 {
	worst := make([]uint32, len(cs))
	for range 10 {
		for i, c := range cs {
			newest := r.tick()
			if st := c.Stats(); newest > st.SnapshotTick {
				worst[i] = max(worst[i], newest-st.SnapshotTick)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return worst
}

// entities returns how many entities the server's newest snapshot has.
func (r *soakRecorder) entities() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.snaps[r.newest].Entities)
}

// cut returns, for each client, the number of the last event owed to it
// now: every event up to it must arrive.
func (r *soakRecorder) cut() map[string]uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]uint64{}
	for name, c := range r.clients {
		c.mu.Lock()
		out[name] = c.owed
		c.mu.Unlock()
	}
	return out
}

// waitDelivered waits until each client with a session has every event of
// the cut, for at most d, and describes what is missing after that.
func (r *soakRecorder) waitDelivered(cut map[string]uint64, lost []error, names []string, d time.Duration) (time.Duration, []string) {
	start := time.Now()
	for {
		var missing []string
		r.mu.Lock()
		for i, name := range names {
			if lost[i] != nil {
				continue
			}
			c := r.clients[name]
			c.mu.Lock()
			if !c.joined {
				missing = append(missing, name+": its PlayerJoined never came from the server")
			}
			var evs []string
			for e, o := range c.want {
				if o.n <= cut[name] {
					evs = append(evs, fmt.Sprintf("%s never received (event %d of its stream, made %v before the cut): %+v",
						name, o.n, start.Sub(o.at).Round(time.Millisecond), e))
				}
			}
			sort.Strings(evs)
			missing = append(missing, evs...)
			c.mu.Unlock()
		}
		r.mu.Unlock()
		if len(missing) == 0 || time.Since(start) > d {
			if len(missing) > soakMaxErrors {
				missing = append(missing[:soakMaxErrors], fmt.Sprintf("... %d missing in all", len(missing)))
			}
			return time.Since(start).Round(time.Millisecond), missing
		}
		time.Sleep(20 * time.Millisecond)
	}
}
