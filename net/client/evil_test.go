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
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"rtype/internal/evilserver"
	"rtype/net/wire"
)

// The tests of this file drive the real client against a hostile server
// (internal/evilserver) on 127.0.0.1, one class of attack each, and check
// the memory, the frame rate of a game loop reading the client, and the
// error the session ends with. They log their figures: run them with
//
//	go test -run Evil -v ./net/client
//
// to read them (BENCHMARKS.md, "A hostile server").

// Bounds every attack must keep.
const (
	maxHeapMB = 300 // heap in use after a GC, the server's included
	minFPS    = 50  // a 60 Hz game loop reading the client
)

// gameLoop is a game loop of 60 frames per second that reads the client
// as the play scene does: Frames, DrainEvents and Players every frame,
// Stats twice a second. It measures its own frame rate and its longest
// frame.
type gameLoop struct {
	stop     chan struct{}
	done     chan struct{}
	frames   int
	maxFrame time.Duration
	maxCalls time.Duration // the longest time a frame spent in the client's methods
	start    time.Time
	end      time.Time
	probe    func() int // a reference ticker of 60 Hz that does nothing
}

func startGameLoop(c *Client) *gameLoop {
	g := &gameLoop{stop: make(chan struct{}), done: make(chan struct{}), start: time.Now(), probe: loadProbe()}
	go func() {
		defer close(g.done)
		var frames []Frame
		var evs []wire.Event
		next := time.Now()
		prev := next
		for {
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
			if g.frames%30 == 0 {
				c.Stats()
			}
			g.frames++
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

// finish stops the loop and returns its frames per second, its longest
// frame, and the rate of the reference ticker.
func (g *gameLoop) finish() (fps float64, longest time.Duration, ref float64) {
	close(g.stop)
	<-g.done
	span := g.end.Sub(g.start).Seconds()
	return float64(g.frames) / span, g.maxFrame, float64(g.probe()) / span
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
	ended              time.Duration // from the attack's start to the session's end
	fps                float64
	refFPS             float64       // the rate of a 60 Hz ticker that does nothing
	maxCalls           time.Duration // the longest a frame spent in the client's methods
	span               time.Duration // how long the game loop ran
	longest            time.Duration
	peakMB, afterMB    float64 // heap: the peak, and after the client closed
	rss                float64
	snapshots, dropped uint64
}

// attack dials s, runs the game loop, runs attack, waits up to wait for
// the session to end (0: not at all), and measures.
func attack(t *testing.T, s *evilserver.Server, cfg Config, wait time.Duration, run func(ctx context.Context, c *Client)) attackResult {
	t.Helper()
	cfg.Addr, cfg.Name = s.Addr(), "Victim"
	if cfg.Logger == nil {
		cfg.Logger = testLogger()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, cfg)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	t.Logf("protocol version %d", c.Version())
	// The normal game runs a moment first.
	waitFor(t, 5*time.Second, "the first snapshots", func() bool { return c.Stats().SnapshotTick != 0 })
	before := heapMB()
	hw := watchHeap()
	loop := startGameLoop(c)
	start := time.Now()
	actx, acancel := context.WithCancel(ctx)
	attacked := make(chan struct{})
	go func() { defer close(attacked); run(actx, c) }()
	var res attackResult
	if wait > 0 {
		select {
		case <-c.Done():
			res.err = c.Err()
			res.ended = time.Since(start)
		case <-time.After(wait):
		}
	} else {
		<-attacked
		res.err = c.Err()
	}
	acancel()
	<-attacked
	res.fps, res.longest, res.refFPS = loop.finish()
	res.maxCalls = loop.maxCalls
	res.span = time.Since(start)
	res.peakMB = hw.finish()
	res.rss = rssMB()
	st := c.Stats()
	res.snapshots, res.dropped = uint64(st.SnapshotTick), st.Dropped
	c.Close()
	s.Close()
	res.afterMB = heapMB()
	t.Logf("heap before %.1f MB, peak %.1f MB, after %.1f MB; RSS %.0f MB; game loop %.1f fps (reference ticker %.1f), longest frame %v, longest in the client %v; session: %v (after %v); dropped %d, shed %d; newest snapshot tick %d (server at %d), %.1f snapshots/s at the end",
		before, res.peakMB, res.afterMB, res.rss, res.fps, res.refFPS, res.longest.Round(time.Millisecond), res.maxCalls.Round(100*time.Microsecond),
		res.err, res.ended.Round(time.Millisecond), st.Dropped, st.Shed, st.SnapshotTick, s.Tick(), st.SnapshotsPerSec)
	return res
}

// check applies the bounds every attack keeps: the memory, and the frame
// rate (unless the machine is too loaded to tell, as under -race).
func (r attackResult) check(t *testing.T) {
	t.Helper()
	if r.peakMB > maxHeapMB {
		t.Errorf("heap peaked at %.0f MB, want under %d MB", r.peakMB, maxHeapMB)
	}
	if r.afterMB > 64 {
		t.Errorf("heap %.0f MB once the client closed: not released", r.afterMB)
	}
	// The client's methods never keep the game loop waiting for long.
	// (A loaded machine preempts the loop inside them, as the reference
	// ticker shows: then the figure is only logged.)
	if lim := maxCallWait(); r.maxCalls > lim {
		if r.refFPS < 57 {
			t.Logf("a frame spent %v in the client's methods, but a ticker doing nothing got %.1f fps: the machine is overloaded", r.maxCalls, r.refFPS)
		} else {
			t.Errorf("a frame spent %v in the client's methods, want under %v", r.maxCalls, lim)
		}
	}
	if r.fps < minFPS && r.span >= time.Second {
		switch {
		case raceEnabled:
			t.Logf("game loop at %.1f fps under -race (the bound of %d is checked without it)", r.fps, minFPS)
		case r.refFPS < 55:
			t.Logf("game loop at %.1f fps, but a ticker doing nothing got %.1f: the machine is overloaded", r.fps, r.refFPS)
		default:
			t.Errorf("game loop at %.1f fps (a ticker doing nothing: %.1f), want at least %d", r.fps, r.refFPS, minFPS)
		}
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

// maxCallWait is the longest a game frame may spend in the client's
// methods: half a frame at 50 fps, more under -race.
func maxCallWait() time.Duration {
	if raceEnabled {
		return 100 * time.Millisecond
	}
	return 10 * time.Millisecond
}

func startEvil(t *testing.T, cfg evilserver.Config) *evilserver.Server {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = testLogger()
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
	r := attack(t, s, Config{}, 30*time.Second, func(ctx context.Context, c *Client) {
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
	r := attack(t, s, Config{}, 30*time.Second, func(ctx context.Context, c *Client) {
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
	r := attack(t, s, Config{}, 30*time.Second, func(ctx context.Context, c *Client) {
		s.TickFlood(ctx, 1_000, 0, 2_000)
	})
	r.check(t)
	r.wantError(t, ErrTooMuch, "more than 128 Snapshot datagrams of tick")
}

// Class 3: the snapshot tick jumps ahead, goes back, or starts next to
// 0xFFFFFFFF; the session ends within seconds, even when the server's
// ticks come back to normal.
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
			r := attack(t, s, Config{}, 10*time.Second, func(ctx context.Context, c *Client) {
				if tc.jump == nil {
					return
				}
				tc.jump(s)
				// Then back to normal ticks, as the server did.
				select {
				case <-time.After(300 * time.Millisecond):
					s.Jump(600)
				case <-ctx.Done():
				}
			})
			r.check(t)
			r.wantError(t, ErrStalled, tc.want)
			if r.ended > 5*time.Second {
				t.Errorf("the session ended %v after the jump", r.ended)
			}
		})
	}
	// Late datagrams within the window are no jump: a snapshot of 4 s ago.
	s := startEvil(t, evilserver.Config{Version2: version == 2})
	r := attack(t, s, Config{}, 0, func(ctx context.Context, c *Client) {
		s.Snapshot(s.Tick() - 240)
		time.Sleep(500 * time.Millisecond)
	})
	if r.err != nil {
		t.Fatalf("a late snapshot ended the session: %v", r.err)
	}
}

// A link that delivers datagrams but no usable snapshot for 2 s.
func TestEvilNoFrames(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testEvilNoFrames(t, v) })
	}
}

func testEvilNoFrames(t *testing.T, version uint8) {
	s := startEvil(t, evilserver.Config{Version2: version == 2})
	r := attack(t, s, Config{}, 10*time.Second, func(ctx context.Context, c *Client) {
		s.NoFrames(ctx, 5*time.Second)
	})
	r.check(t)
	r.wantError(t, ErrStalled, "datagrams but no usable snapshot for 2 s")
	if r.ended < 1900*time.Millisecond || r.ended > 4*time.Second {
		t.Errorf("the session ended %v after the snapshots stopped, want 2 s", r.ended)
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
	r := attack(t, s, Config{}, 0, func(ctx context.Context, c *Client) {
		s.Names(names...)
		waitFor(t, 5*time.Second, "the names", func() bool {
			got = c.Players()
			return got[3].Name != ""
		})
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
			_, err := Dial(context.Background(), Config{Addr: s.Addr(), Name: "Victim", Logger: testLogger()})
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
	r := attack(t, s, Config{}, 5*time.Second, func(ctx context.Context, c *Client) {
		s.GameOverRepeating(3)
		s.Names("Probe") // an event after it, to know it arrived
		waitFor(t, 5*time.Second, "the PlayerJoined", func() bool { return c.Players()[0].Name == "Probe" })
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
// memory, the game loop keeps its rate. The session may end with a
// protocol error (random ticks can go back) but no other.
func TestEvilRandom(t *testing.T) {
	s := startEvil(t, evilserver.Config{})
	rng := rand.New(rand.NewPCG(10, 10))
	r := attack(t, s, Config{}, 0, func(ctx context.Context, c *Client) {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		s.Random(ctx, rng, 5_000)
	})
	r.check(t)
	if r.err != nil && !errors.Is(r.err, ErrProtocol) {
		t.Fatalf("session ended with %v", r.err)
	}
}

// Extreme values of every field: the session goes on.
func TestEvilExtremes(t *testing.T) {
	s := startEvil(t, evilserver.Config{})
	r := attack(t, s, Config{}, 0, func(ctx context.Context, c *Client) {
		s.Extremes()
		time.Sleep(500 * time.Millisecond)
	})
	r.check(t)
	if r.err != nil {
		t.Fatalf("session ended with %v", r.err)
	}
}

// 20,000 datagrams per second, within the limits, that make the client
// rebuild a snapshot of 2000 entities for many: the game loop keeps at
// least 50 frames per second, and the snapshots keep coming.
func TestEvilFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	s := startEvil(t, evilserver.Config{Entities: 2000})
	var sent int
	r := attack(t, s, Config{}, 0, func(ctx context.Context, c *Client) {
		ctx, cancel := context.WithTimeout(ctx, 4*time.Second)
		defer cancel()
		start := time.Now()
		sent = s.Flood(ctx, 20_000, 40)
		t.Logf("%d datagrams in %v: %.0f per second", sent, time.Since(start).Round(time.Millisecond), float64(sent)/time.Since(start).Seconds())
	})
	r.check(t)
	if r.err != nil {
		t.Fatalf("session ended with %v", r.err)
	}
}

// Over its budget the client drops snapshots unread, and the snapshots
// keep coming all the same.
func TestEvilBudgetSheds(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	s := startEvil(t, evilserver.Config{Entities: 2000})
	var shed uint64
	var ticks []uint32
	r := attack(t, s, Config{Budget: 0.01}, 0, func(ctx context.Context, c *Client) {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for ctx.Err() == nil {
				ticks = append(ticks, c.Stats().SnapshotTick)
				time.Sleep(250 * time.Millisecond)
			}
		}()
		s.Flood(ctx, 20_000, 40)
		shed = c.Stats().Shed
		<-sampled
	})
	r.check(t)
	if r.err != nil {
		t.Fatalf("session ended with %v", r.err)
	}
	if shed == 0 {
		t.Error("nothing shed over a budget of 1%")
	}
	if len(ticks) < 4 || ticks[len(ticks)-1] <= ticks[1] {
		t.Errorf("the snapshots stopped: newest ticks %v", ticks)
	}
}
