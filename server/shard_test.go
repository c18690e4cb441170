package server

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rtype/internal/testutil"
)

// Games stepped in shards (Config.TickShards) each keep ticking, every
// client gets its game's snapshots, and a session that falls silent is
// dropped by its shard while the others play on (run it with -race: the
// shards run at the same time).
//
// Each playing client is pumped by its own goroutine from its join on, so
// that none falls silent while the others join; the session timeout is
// 40 times the clients' 50 ms keep-alive, so that only the silent one
// times out, also when the machine is busy.
func TestTickShards(t *testing.T) {
	cfg := testConfig()
	cfg.TickShards = 3
	cfg.MaxGames = 4
	cfg.SessionTimeout = 2 * time.Second
	s := startServer(t, cfg)
	var (
		stop    atomic.Bool
		wg      sync.WaitGroup
		playing []*tclient
		snaps   []*atomic.Int64 // len(playing[i].snaps), as its goroutine last saw it
	)
	stopAll := sync.OnceFunc(func() { stop.Store(true); wg.Wait() })
	t.Cleanup(stopAll)
	for g := range 3 {
		for p := range 4 {
			c := join(t, s, fmt.Sprintf("g%dp%d", g, p))
			if g == 2 && p == 3 {
				break // the quiet one: bound, then silent; its game's shard drops it
			}
			n := new(atomic.Int64)
			playing, snaps = append(playing, c), append(snaps, n)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					c.pump(10 * time.Millisecond)
					n.Store(int64(len(c.snaps)))
				}
			}()
		}
	}
	if st := s.TickStats(); st.Games != 3 {
		t.Fatalf("%d games, want 3", st.Games)
	}
	testutil.WaitFor(t, wait, "the silent session dropped, the 11 others kept", func() bool {
		return s.TickStats().Sessions == len(playing)
	})
	first := make([]int64, len(playing))
	for i := range playing {
		first[i] = snaps[i].Load()
	}
	testutil.WaitFor(t, wait, "10 more snapshots for every client", func() bool {
		for i := range playing {
			if snaps[i].Load() < first[i]+10 {
				return false
			}
		}
		return true
	})
	stopAll()
	if n := s.TickStats().Sessions; n != len(playing) {
		t.Errorf("%d sessions after the snapshots, want %d", n, len(playing))
	}
	for _, c := range playing {
		n := len(c.snaps)
		if a, b := c.snaps[n-10].tick, c.snaps[n-1].tick; b <= a {
			t.Errorf("%s: snapshot ticks %d then %d", c.name, a, b)
		}
	}
}

// A span hands out each index once, from the front to its owner and from
// the back to the others, also when both take at the same time.
func TestSpanTake(t *testing.T) {
	var p span
	p.set(3, 7)
	for _, tc := range []struct {
		back bool
		want int
	}{{false, 3}, {true, 6}, {false, 4}, {true, 5}} {
		if i, ok := p.take(tc.back); !ok || i != tc.want {
			t.Fatalf("take(back %v) = %d, %v; want %d", tc.back, i, ok, tc.want)
		}
	}
	if i, ok := p.take(false); ok {
		t.Fatalf("an empty span gave %d", i)
	}
	for range 200 {
		p.set(0, 1000)
		var got [2][]int
		var wg sync.WaitGroup
		for k := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i, ok := p.take(k == 1)
					if !ok {
						return
					}
					got[k] = append(got[k], i)
				}
			}()
		}
		wg.Wait()
		all := append(got[0], got[1]...)
		slices.Sort(all)
		for i, x := range all {
			if x != i {
				t.Fatalf("indexes taken %v..., want each of 0 to 999 once", all[:i+1])
			}
		}
		if len(all) != 1000 {
			t.Fatalf("%d indexes taken, want 1000", len(all))
		}
	}
}

// testShards makes n shards with no outbox that record which shard
// stepped each game.
func testShards(t *testing.T, n int, by []atomic.Int32) *shards {
	t.Helper()
	sh, err := newShards(n, func() (*outbox, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	sh.step = func(s *shard, i int) { by[i].Add(int32(slices.Index(sh.all, s)) + 1) }
	sh.flush = func(*shard) {}
	return sh
}

// A helper that has not started when the tick loop's shard has taken
// every game is not waited for: the tick lasts the work, not the OS's
// wake-up of the helper's thread. Here the helpers never start: without
// the stealing, run would wait for them for ever. A helper that starts
// later finds its wake-up stale and steps nothing twice.
func TestShardsHelperNotStarted(t *testing.T) {
	by := make([]atomic.Int32, 40)
	sh := testShards(t, 3, by)
	done := make(chan struct{})
	go func() { defer close(done); sh.run(len(by), 3) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("run waited for helpers that never started")
	}
	for i := range by {
		if got := by[i].Load(); got != 1 {
			t.Fatalf("game %d stepped by %d, want 1 (the tick loop's shard, once)", i, got)
		}
	}
	if g := sh.all[0].games; g != len(by) {
		t.Errorf("the first shard stepped %d games, want %d", g, len(by))
	}
	for _, h := range sh.all[1:] { // late helpers: their wake-ups are stale
		go sh.helper(h)
	}
	defer sh.stop()
	for range 100 {
		for i := range by {
			by[i].Store(0)
		}
		sh.run(len(by), 3)
		stepped := 0
		for i := range by {
			if got := by[i].Load(); got < 1 || got > 3 {
				t.Fatalf("game %d: stepped by shard %d, or more than once", i, got)
			}
		}
		for _, s := range sh.all {
			stepped += s.games
		}
		if stepped != len(by) {
			t.Fatalf("%d steps, want %d", stepped, len(by))
		}
	}
}

// With running helpers, every game of each tick is stepped exactly once,
// and each shard's span goes mostly to its own shard (run it with -race).
func TestShardsRun(t *testing.T) {
	by := make([]atomic.Int32, 250)
	sh := testShards(t, 2, by)
	go sh.helper(sh.all[1])
	defer sh.stop()
	for range 300 {
		for i := range by {
			by[i].Store(0)
		}
		sh.run(len(by), 2)
		for i := range by {
			if got := by[i].Load(); got != 1 && got != 2 {
				t.Fatalf("game %d: %d (want stepped once, by shard 1 or 2)", i, got)
			}
		}
		if g := sh.all[0].games + sh.all[1].games; g != len(by) {
			t.Fatalf("%d steps, want %d", g, len(by))
		}
	}
	// One shard: no helper is handed anything.
	for i := range by {
		by[i].Store(0)
	}
	sh.run(len(by), 1)
	for i := range by {
		if got := by[i].Load(); got != 1 {
			t.Fatalf("one shard: game %d stepped by %d, want the first", i, got)
		}
	}
}

// BenchmarkHelperStart measures how late the helper shard starts in a
// tick: the time from the tick loop's hand-out (shards.run) to the
// helper's first step, ticks 16 ms apart as in the server, each game a
// spin of 12 µs (250 games, 3 ms a shard). The OS's wake-up of the
// helper's thread is most of it: on a machine whose idle cores wake
// slowly the tick loop's shard steals the helper's games meanwhile
// (TestShardsHelperNotStarted), and the tick lasts longer.
//
//	go test -run XXX -bench HelperStart -benchtime 300x ./server
func BenchmarkHelperStart(b *testing.B) {
	sh, err := newShards(2, func() (*outbox, error) { return nil, nil })
	if err != nil {
		b.Fatal(err)
	}
	var first atomic.Int64 // the helper's first step of the tick, in ns since the hand-out
	sh.step = func(s *shard, i int) {
		if s == sh.all[1] {
			first.CompareAndSwap(0, int64(time.Since(sh.shared)))
		}
		for t := time.Now(); time.Since(t) < 12*time.Microsecond; {
		}
	}
	sh.flush = func(*shard) {}
	go sh.helper(sh.all[1])
	defer sh.stop()
	var late []time.Duration
	never := 0
	for b.Loop() {
		time.Sleep(16 * time.Millisecond)
		first.Store(0)
		sh.run(250, 2)
		if d := first.Load(); d > 0 {
			late = append(late, time.Duration(d))
		} else {
			never++ // the tick loop's shard took every game
		}
	}
	slices.Sort(late)
	if len(late) > 0 {
		b.ReportMetric(float64(late[len(late)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "p99-µs")
	}
	b.ReportMetric(float64(never)/float64(b.N)*100, "%-not-started")
}
