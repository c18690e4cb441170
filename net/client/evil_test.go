package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"rtype/internal/evilserver"
	"rtype/internal/testutil"
	"rtype/net/wire"
)

// The tests of this file drive the real client against a hostile server
// (internal/evilserver) on 127.0.0.1, one class of attack each, and check
// the memory, that a game loop reading the client keeps running, and the
// error the session ends with. They assert no speed: the frame rate of
// the game loop, the longest time a frame spent in the client's methods
// and when the session ended are logged (they depend on the machine's
// load). Run them with
//
//	go test -run Evil -v ./net/client
//
// to read them (BENCHMARKS.md, "A hostile server").

// maxHeapMB bounds the heap in use after a GC, the server's included,
// that every attack must keep.
const maxHeapMB = 300

// minFrames is the number of frames the game loop must run before it
// stops: its frames call every method of the client the play scene does,
// so that an attack that kept them waiting for good fails the test.
const minFrames = 3

// gameLoop is a game loop of 60 frames per second that reads the client
// as the play scene does: Frames, DrainEvents and Players every frame,
// Stats twice a second. It measures its own frame rate and its longest
// frame, which are logged.
type gameLoop struct {
	stop     chan struct{}
	done     chan struct{}
	frames   atomic.Int64
	maxFrame time.Duration
	maxCalls time.Duration // the longest time a frame spent in the client's methods
	start    time.Time
	end      time.Time
}

func startGameLoop(c *Client) *gameLoop {
	g := &gameLoop{stop: make(chan struct{}), done: make(chan struct{}), start: time.Now()}
	go func() {
		defer close(g.done)
		var frames []Frame
		var evs []wire.Event
		next := time.Now()
		prev := next
		for n := int64(0); ; n++ {
			select {
			case <-g.stop:
				g.end = time.Now()
				return
			default:
			}
			t0 := time.Now()
			frames = c.Frames(frames)
			evs = c.DrainEvents(evs[:0])
			c.Players()
			c.SetInput(wire.ActionFire)
			if n%30 == 0 {
				c.Stats()
			}
			g.frames.Add(1)
			now := time.Now()
			g.maxCalls = max(g.maxCalls, now.Sub(t0))
			g.maxFrame = max(g.maxFrame, now.Sub(prev))
			prev = now
			next = next.Add(time.Second / 60)
			if d := time.Until(next); d > 0 {
				time.Sleep(d)
			} else {
				next = now // late: no catching up
			}
		}
	}()
	return g
}

// finish waits until the loop ran minFrames frames (failing the test if
// it did not within testutil.Wait: the client's methods blocked it),
// stops it and returns its frames per second and its longest frame.
func (g *gameLoop) finish(t *testing.T) (frames int64, fps float64, longest time.Duration) {
	t.Helper()
	if !testutil.Eventually(testutil.Wait, func() bool { return g.frames.Load() >= minFrames }) {
		t.Errorf("the game loop ran %d frames in %v: the client's methods blocked it", g.frames.Load(), testutil.Wait)
	}
	close(g.stop)
	select {
	case <-g.done:
	case <-time.After(testutil.Wait):
		t.Fatalf("the game loop did not stop within %v: blocked in the client's methods", testutil.Wait)
	}
	frames = g.frames.Load()
	return frames, float64(frames) / g.end.Sub(g.start).Seconds(), g.maxFrame
}

// heapMB returns the heap in use after a GC, in MB.
func heapMB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// rssMB returns the resident set size of the process, in MB (0 when
// /proc is missing).
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.Atoi(f[1])
	return float64(pages*os.Getpagesize()) / (1 << 20)
}

// heapWatch samples the heap every 100 ms and keeps the peak.
type heapWatch struct {
	mu   sync.Mutex
	peak float64
	stop chan struct{}
	done chan struct{}
}

func watchHeap() *heapWatch {
	h := &heapWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			h.mu.Lock()
			h.peak = max(h.peak, float64(m.HeapAlloc)/(1<<20))
			h.mu.Unlock()
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapWatch) finish() float64 {
	close(h.stop)
	<-h.done
	return h.peak
}

// attackResult are the figures of one attack.
type attackResult struct {
	err                error         // the session's end, nil if it survived
	ended              time.Duration // from the attack's start to the session's end (logged)
	endAt              time.Time     // when the test saw the session end
	frames             int64         // frames of the game loop
	fps                float64
	maxCalls           time.Duration // the longest a frame spent in the client's methods
	longest            time.Duration
	peakMB, afterMB    float64 // heap: the peak, and after the client closed
	rss                float64
	snapshots, dropped uint64
}

// attack dials s, runs the game loop, runs attack, and measures. With
// wait set it waits for the session to end, up to testutil.Wait (a
// deadlock guard: the attacks end it within seconds), and cancels the
// attack's context when it did.
func attack(t *testing.T, s *evilserver.Server, cfg Config, wait bool, run func(ctx context.Context, c *Client)) attackResult {
	t.Helper()
	cfg.Addr, cfg.Name = s.Addr(), "Victim"
	if cfg.Logger == nil {
		cfg.Logger = testutil.Logger(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := Dial(ctx, cfg)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	t.Logf("protocol version %d", c.Version())
	// The normal game runs a moment first.
	waitFor(t, testutil.Wait, "the first snapshots", func() bool { return c.Stats().SnapshotTick != 0 })
	before := heapMB()
	hw := watchHeap()
	loop := startGameLoop(c)
	start := time.Now()
	actx, acancel := context.WithCancel(context.Background())
	attacked := make(chan struct{})
	go func() { defer close(attacked); run(actx, c) }()
	var res attackResult
	if wait {
		select {
		case <-c.Done():
			res.endAt = time.Now()
			res.err = c.Err()
			res.ended = res.endAt.Sub(start)
		case <-time.After(testutil.Wait):
		}
	} else {
		<-attacked
		res.err = c.Err()
	}
	acancel()
	<-attacked
	res.frames, res.fps, res.longest = loop.finish(t)
	res.maxCalls = loop.maxCalls
	res.peakMB = hw.finish()
	res.rss = rssMB()
	st := c.Stats()
	res.snapshots, res.dropped = uint64(st.SnapshotTick), st.Dropped
	c.Close()
	s.Close()
	res.afterMB = heapMB()
	t.Logf("heap before %.1f MB, peak %.1f MB, after %.1f MB; RSS %.0f MB; game loop %d frames, %.1f fps, longest frame %v, longest in the client %v; session: %v (after %v); dropped %d, shed %d; newest snapshot tick %d (server at %d), %.1f snapshots/s at the end",
		before, res.peakMB, res.afterMB, res.rss, res.frames, res.fps, res.longest.Round(time.Millisecond), res.maxCalls.Round(100*time.Microsecond),
		res.err, res.ended.Round(time.Millisecond), st.Dropped, st.Shed, st.SnapshotTick, s.Tick(), st.SnapshotsPerSec)
	return res
}

// check applies the bounds every attack keeps: the memory. (The game
// loop kept running: finish checked it.)
func (r attackResult) check(t *testing.T) {
	t.Helper()
	if r.peakMB > maxHeapMB {
		t.Errorf("heap peaked at %.0f MB, want under %d MB", r.peakMB, maxHeapMB)
	}
	if r.afterMB > 64 {
		t.Errorf("heap %.0f MB once the client closed: not released", r.afterMB)
	}
}

// wantError checks the session ended with an error matching target whose
// message has want.
func (r attackResult) wantError(t *testing.T, target error, want string) {
	t.Helper()
	if r.err == nil {
		t.Fatalf("the session survived, want an error matching %v", target)
	}
	if !errors.Is(r.err, target) || !errors.Is(r.err, ErrProtocol) {
		t.Fatalf("session ended with %v (%T), want %v", r.err, r.err, target)
	}
	if !strings.Contains(r.err.Error(), want) {
		t.Fatalf("message %q lacks %q", r.err, want)
	}
}

// marker sends a PlayerJoined of player 0 named name after what the
// attack sent, and waits until the client applied it: the datagrams sent
// before it, from the same socket, were processed. It reports whether it
// arrived within testutil.Wait; it may run on the attack's goroutine.
func marker(s *evilserver.Server, c *Client, name string) bool {
	s.Names(name)
	return testutil.Eventually(testutil.Wait, func() bool { return c.Players()[0].Name == name || c.Err() != nil })
}

// snapTap is a Tap that keeps when the newest snapshot it was told of
// arrived: the client's own time of it, from which its stall clock counts.
type snapTap struct {
	mu sync.Mutex
	at time.Time
}

func (p *snapTap) Login(Login) {}
func (p *snapTap) Snapshot(_ []byte, at time.Time) {
	p.mu.Lock()
	p.at = at
	p.mu.Unlock()
}
func (p *snapTap) Event([]byte, time.Time)      {}
func (p *snapTap) Step(Step)                    {}
func (p *snapTap) RTT(time.Duration, time.Time) {}

func (p *snapTap) last() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.at
}

func startEvil(t *testing.T, cfg evilserver.Config) *evilserver.Server {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = testutil.Logger(t)
	}
	s, err := evilserver.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Class 1: Spawns of distinct ids, never destroyed, in reverse order. The
// world stops at wire.MaxLiveEntities and the session ends.
func TestEvilSpawnFlood(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testEvilSpawnFlood(t, v) })
	}
}

func testEvilSpawnFlood(t *testing.T, version uint8) {
	s := startEvil(t, evilserver.Config{Version2: version == 2})
	r := attack(t, s, Config{}, true, func(ctx context.Context, c *Client) {
		s.SpawnFlood(ctx, 100_000, 5_000)
	})
	r.check(t)
	r.wantError(t, ErrTooMuch, "the server sent more than the protocol allows: a Spawn beyond 8192 live entities")
}

// Class 2: many Snapshot datagrams of one tick, each adding new ids to the
// snapshot. The rebuilt snapshot stops at wire.MaxSnapshotEntities and the
// session ends.
func TestEvilTickFlood(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testEvilTickFlood(t, v) })
	}
}

func testEvilTickFlood(t *testing.T, version uint8) {
	s := startEvil(t, evilserver.Config{Version2: version == 2})
	r := attack(t, s, Config{}, true, func(ctx context.Context, c *Client) {
		// 20 s at 2,000 per second, as the server did (the
		// client ends the session long before).
		if _, err := s.TickFlood(ctx, 40_000, 100, 2_000); err != nil && ctx.Err() == nil {
			t.Error(err)
		}
	})
	r.check(t)
	r.wantError(t, ErrTooMuch, "the server sent more than the protocol allows: a snapshot of more than 8192 entities")
}

// Class 2, the parts: more datagrams of one tick than a client rebuilds,
// each adding nothing new.
func TestEvilTickParts(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testEvilTickParts(t, v) })
	}
}

func testEvilTickParts(t *testing.T, version uint8) {
	s := startEvil(t, evilserver.Config{Version2: version == 2})
	r := attack(t, s, Config{}, true, func(ctx context.Context, c *Client) {
		s.TickFlood(ctx, 1_000, 0, 2_000)
	})
	r.check(t)
	r.wantError(t, ErrTooMuch, "more than 128 Snapshot datagrams of tick")
}

// Class 3: the snapshot tick jumps ahead, goes back, or starts next to
// 0xFFFFFFFF; the session ends, even when the server's ticks come back
// to normal.
func TestEvilTickJump(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testEvilTickJump(t, v) })
	}
}

func testEvilTickJump(t *testing.T, version uint8) {
	for _, tc := range []struct {
		name  string
		start uint32
		jump  func(s *evilserver.Server)
		want  string
	}{
		{"ahead", 0, func(s *evilserver.Server) { s.Jump(0xFFFFFFF0) }, "its tick jumped from"},
		{"back", 100_000, func(s *evilserver.Server) { s.Jump(s.Tick() - 10_000) }, "its tick went back from"},
		{"ahead by 3 s", 0, func(s *evilserver.Server) { s.Jump(s.Tick() + 180) }, "its tick jumped from"},
		// A game that logs in near the end of the u32 range: the ticks
		// run out after a quarter of a second (this server's wrap to 0);
		// the last snapshot before the wrap is at one of the last ticks,
		// which one depends on the timing.
		{"LoginAccepted 0xFFFFFFF0", 0xFFFFFFF0, nil, "its tick went back from 42949672"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startEvil(t, evilserver.Config{Tick: tc.start, Version2: version == 2})
			r := attack(t, s, Config{}, true, func(ctx context.Context, c *Client) {
				if tc.jump == nil {
					return
				}
				tc.jump(s)
				// Then back to normal ticks once the jumped snapshot
				// went out, as the server did.
				select {
				case <-time.After(300 * time.Millisecond):
					s.Jump(600)
				case <-ctx.Done():
				}
			})
			r.check(t)
			r.wantError(t, ErrStalled, tc.want)
		})
	}
	// Late datagrams within the window are no jump: a snapshot of 4 s
	// ago, then an event that tells it was processed.
	s := startEvil(t, evilserver.Config{Version2: version == 2})
	r := attack(t, s, Config{}, false, func(ctx context.Context, c *Client) {
		s.Snapshot(s.Tick() - 240)
		if !marker(s, c, "After") {
			t.Errorf("the event after the late snapshot did not arrive within %v", testutil.Wait)
		}
	})
	if r.err != nil {
		t.Fatalf("a late snapshot ended the session: %v", r.err)
	}
}

// A link that delivers datagrams but no usable snapshot: the session ends
// once StallTimeout passed since the last usable snapshot, not before.
func TestEvilNoFrames(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testEvilNoFrames(t, v) })
	}
}

func testEvilNoFrames(t *testing.T, version uint8) {
	const stall = 500 * time.Millisecond // the default is 2 s
	s := startEvil(t, evilserver.Config{Version2: version == 2})
	tap := &snapTap{}
	r := attack(t, s, Config{StallTimeout: stall, Tap: tap}, true, func(ctx context.Context, c *Client) {
		// Until the session ends (the context), testutil.Wait at most.
		s.NoFrames(ctx, testutil.Wait)
	})
	r.check(t)
	r.wantError(t, ErrStalled, "datagrams but no usable snapshot for 500ms")
	// The stall clock never fires early: it counts from the arrival of
	// the last usable snapshot, the time the Tap was told.
	last := tap.last()
	if last.IsZero() {
		t.Fatal("the Tap was told of no snapshot")
	}
	if d := r.endAt.Sub(last); d < stall {
		t.Errorf("the session ended %v after the last usable snapshot, before the stall timeout of %v", d, stall)
	} else {
		t.Logf("the session ended %v after the last usable snapshot (stall timeout %v)", d.Round(time.Millisecond), stall)
	}
}

// Class 4: hostile names are cleaned before anything shows them.
func TestEvilNames(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testEvilNames(t, v) })
	}
}

func testEvilNames(t *testing.T, version uint8) {
	s := startEvil(t, evilserver.Config{Version2: version == 2})
	names := []string{
		"Evil\nName\r\tX",
		"\u202EdesreveR\u202C",
		"Bell\x07\x1b[31mRed",
		strings.Repeat("W", 200),
	}
	var got [wire.MaxPlayers]Player
	var evs []wire.Event
	r := attack(t, s, Config{}, false, func(ctx context.Context, c *Client) {
		s.Names(names...)
		if !testutil.Eventually(testutil.Wait, func() bool {
			got = c.Players()
			return got[3].Name != ""
		}) {
			t.Errorf("the names did not arrive within %v", testutil.Wait)
		}
		evs = c.DrainEvents(nil)
	})
	r.check(t)
	want := []string{"Evil Name X", "desreveR", "Bell31mRed", strings.Repeat("W", wire.MaxNameLen)}
	for p, w := range want {
		if got[p].Name != w {
			t.Errorf("player %d: name %q, want %q", p, got[p].Name, w)
		}
	}
	for _, ev := range evs {
		if ev.Type == wire.EventPlayerJoined && !safeText(ev.Name, wire.MaxNameLen) {
			t.Errorf("event name %q is not safe to draw", ev.Name)
		}
	}
}

// safeText reports whether s is one line of at most n characters (an
// ellipsis aside) without control, format or bidi characters.
func safeText(s string, n int) bool {
	if !utf8.ValidString(s) || utf8.RuneCountInString(strings.TrimSuffix(s, wire.Ellipsis)) > n {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || (unicode.IsSpace(r) && r != ' ') {
			return false
		}
	}
	return true
}

// A LoginRejected with invalid UTF-8 is a rejection with a generic text
// (3.1); a long unbroken text is cut.
func TestEvilRejected(t *testing.T) {
	for _, tc := range []struct {
		name string
		text []byte
		want string
	}{
		{"invalid UTF-8", []byte("nope \xff\xfe"), ""},
		{"long and unbroken", []byte(strings.Repeat("A", 1000)), strings.Repeat("A", wire.MaxTextLen) + wire.Ellipsis},
		{"control and bidi", []byte("go\u202E away\x00\x1b[2J"), "go away[2J"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startEvil(t, evilserver.Config{Login: evilserver.Rejected(wire.RejectGameFull, tc.text)})
			_, err := Dial(context.Background(), Config{Addr: s.Addr(), Name: "Victim", Logger: testutil.Logger(t)})
			var rej *RejectedError
			if !errors.As(err, &rej) || rej.Reason != wire.RejectGameFull {
				t.Fatalf("dial: %v (%T), want a *RejectedError GameFull", err, err)
			}
			if rej.Text != tc.want {
				t.Fatalf("text %q, want %q", rej.Text, tc.want)
			}
			if errors.Is(err, ErrProtocol) {
				t.Fatalf("%v matches ErrProtocol", err)
			}
			if tc.want == "" && err.Error() != "login refused: the game is full" {
				t.Fatalf("message %q", err)
			}
		})
	}
}

// A GameOver that lists a player twice is invalid (6.4): ignored.
func TestEvilGameOverRepeating(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testEvilGameOverRepeating(t, v) })
	}
}

func testEvilGameOverRepeating(t *testing.T, version uint8) {
	s := startEvil(t, evilserver.Config{Version2: version == 2})
	r := attack(t, s, Config{}, true, func(ctx context.Context, c *Client) {
		s.GameOverRepeating(3)
		// An event after it, to know it arrived.
		if !marker(s, c, "Probe") {
			t.Errorf("the PlayerJoined after the GameOver did not arrive within %v", testutil.Wait)
		}
		if _, over := c.GameOver(); over {
			t.Error("a GameOver listing player 3 four times was applied")
		}
		s.Logout(wire.LogoutGameOver)
	})
	var le *LogoutError
	if !errors.As(r.err, &le) || le.Reason != wire.LogoutGameOver {
		t.Fatalf("session ended with %v, want Logout(GameOver)", r.err)
	}
}

// Random well-formed traffic and mangled datagrams: no crash, bounded
// memory, the game loop keeps running. The session may end with a
// protocol error (random ticks can go back) but no other.
func TestEvilRandom(t *testing.T) {
	s := startEvil(t, evilserver.Config{})
	rng := rand.New(rand.NewPCG(10, 10))
	var sent int
	r := attack(t, s, Config{}, false, func(ctx context.Context, c *Client) {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		sent = s.Random(ctx, rng, 5_000)
	})
	t.Logf("%d random datagrams", sent)
	r.check(t)
	if r.err != nil && !errors.Is(r.err, ErrProtocol) {
		t.Fatalf("session ended with %v", r.err)
	}
}

// Extreme values of every field: the session goes on.
func TestEvilExtremes(t *testing.T) {
	s := startEvil(t, evilserver.Config{})
	r := attack(t, s, Config{}, false, func(ctx context.Context, c *Client) {
		s.Extremes()
		if !marker(s, c, "After") {
			t.Errorf("the event after the extremes did not arrive within %v", testutil.Wait)
		}
	})
	r.check(t)
	if r.err != nil {
		t.Fatalf("session ended with %v", r.err)
	}
}

// floodUntil runs s.Flood (20,000 datagrams per second, up to 40 extra
// rebuilds of each snapshot) until cond holds, testutil.Wait at most, and
// returns the datagrams sent and whether cond held.
func floodUntil(ctx context.Context, s *evilserver.Server, cond func() bool) (int, bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sent := make(chan int, 1)
	go func() { sent <- s.Flood(ctx, 20_000, 40) }()
	ok := testutil.Eventually(testutil.Wait, cond)
	cancel()
	return <-sent, ok
}

// 20,000 datagrams per second, within the limits, that make the client
// rebuild a snapshot of 2000 entities for many: the session goes on, and
// the snapshots keep coming (the client applies new ticks while the flood
// goes on) until 20,000 datagrams were sent.
func TestEvilFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	s := startEvil(t, evilserver.Config{Entities: 2000})
	r := attack(t, s, Config{}, false, func(ctx context.Context, c *Client) {
		start, sent0, tick0 := time.Now(), s.Sent(), c.Stats().SnapshotTick
		sent, ok := floodUntil(ctx, s, func() bool {
			return c.Err() != nil || (s.Sent() >= sent0+20_000 && c.Stats().SnapshotTick >= tick0+60)
		})
		d := time.Since(start)
		t.Logf("%d datagrams in %v: %.0f per second; snapshot tick %d to %d", sent, d.Round(time.Millisecond), float64(sent)/d.Seconds(), tick0, c.Stats().SnapshotTick)
		if !ok {
			t.Errorf("after %v of flood, %d datagrams sent and the snapshot tick went from %d to %d: the snapshots stopped", testutil.Wait, s.Sent()-sent0, tick0, c.Stats().SnapshotTick)
		}
	})
	r.check(t)
	if r.err != nil {
		t.Fatalf("session ended with %v", r.err)
	}
}

// Over its budget the client drops snapshots unread, and the snapshots
// keep coming all the same: the client applies new ticks after it began
// shedding.
func TestEvilBudgetSheds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	s := startEvil(t, evilserver.Config{Entities: 2000})
	var shed uint64
	var ticks []uint32
	r := attack(t, s, Config{Budget: 0.01}, false, func(ctx context.Context, c *Client) {
		shed0 := c.Stats().Shed
		var shedTick uint32 // the snapshot tick when the client first shed
		_, ok := floodUntil(ctx, s, func() bool {
			st := c.Stats()
			if c.Err() != nil {
				return true
			}
			if len(ticks) == 0 || ticks[len(ticks)-1] != st.SnapshotTick {
				ticks = append(ticks, st.SnapshotTick)
			}
			if shedTick == 0 && st.Shed > shed0 {
				shedTick = st.SnapshotTick
			}
			shed = st.Shed - shed0
			return shedTick != 0 && st.SnapshotTick >= shedTick+30
		})
		if !ok {
			t.Errorf("after %v of flood: %d shed, newest ticks %v", testutil.Wait, shed, ticks)
		}
	})
	t.Logf("%d datagrams shed; newest ticks seen %v", shed, ticks)
	r.check(t)
	if r.err != nil {
		t.Fatalf("session ended with %v", r.err)
	}
	if shed == 0 {
		t.Error("nothing shed over a budget of 1%")
	}
}
