package agones

import (
	"context"
	"testing"
	"time"

	"rtype/internal/agonesstub"
	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/server"
)

// wait is the deadline of every "eventually" check.
const wait = testutil.Wait

// testConfig is an agent's configuration for the tests: short intervals,
// and requests bounded by wait only (a deadlock guard), so that a slow
// answer of the stub on a busy machine is not a failed call that the
// tests would count.
func testConfig(t testing.TB, st *agonesstub.Stub) Config {
	return Config{Addr: st.Addr(), HealthInterval: 20 * time.Millisecond, LabelInterval: 10 * time.Millisecond,
		RetryMin: 5 * time.Millisecond, RetryMax: 40 * time.Millisecond, RequestTimeout: wait,
		Logger: testutil.Logger(t)}
}

// startServer runs a real game server on 127.0.0.1 port 0 with an agent
// of cfg watching it, both until the test ends; stopAgent stops the
// agent earlier and reports whether its Run returned within Wait.
func startServer(t *testing.T, cfg Config) (srv *server.Server, stopAgent func() error) {
	t.Helper()
	srv, err := server.New(server.Config{Listen: "127.0.0.1:0", Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	a := New(cfg)
	srv.Watch(a.Observe)
	stopAgent = testutil.Go(context.Background(), a)
	t.Cleanup(func() {
		if err := stopAgent(); err != nil {
			t.Error(err)
		}
	})
	testutil.Run(t, srv)
	return srv, stopAgent
}

// dial logs a real client in to srv and binds it; the test's end closes it.
func dial(t *testing.T, srv *server.Server, name string) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: srv.Addr(), Name: name, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("dial %s: %v", srv.Addr(), err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitLabel waits until the stub holds the label key=value.
func waitLabel(t *testing.T, st *agonesstub.Stub, key, value string) {
	t.Helper()
	testutil.WaitFor(t, wait, "label "+key+"="+value, func() bool { v, _ := st.Label(key); return v == value })
}

// The whole contract, on a real server with real clients: Ready once it
// listens, Health every interval, labels with the counts, Allocate when
// the first player joins, Shutdown after the last game ended, in that
// order.
func TestLifecycleContract(t *testing.T) {
	st := agonesstub.New(t)
	cfg := testConfig(t, st)
	cfg.ShutdownWhenEmpty = true
	start := time.Now()
	srv, _ := startServer(t, cfg)

	testutil.WaitFor(t, wait, "Ready", func() bool { return st.Succeeded("/ready") })
	waitLabel(t, st, LabelGames, "0")
	waitLabel(t, st, LabelPlayers, "0")
	testutil.WaitFor(t, wait, "5 Health calls", func() bool { n, _ := st.Count("/health"); return n >= 5 })
	if st.Succeeded("/allocate") || st.Succeeded("/shutdown") {
		t.Fatalf("Allocate or Shutdown before any player: %s", st.History())
	}

	a := dial(t, srv, "alice")
	testutil.WaitFor(t, wait, "Allocate", func() bool { return st.Succeeded("/allocate") })
	waitLabel(t, st, LabelGames, "1")
	waitLabel(t, st, LabelPlayers, "1")
	b := dial(t, srv, "bob")
	waitLabel(t, st, LabelPlayers, "2")
	if n, _ := st.Count("/allocate"); n != 1 {
		t.Errorf("%d Allocate calls, want 1: %s", n, st.History())
	}

	a.Close()
	waitLabel(t, st, LabelPlayers, "1")
	if st.Succeeded("/shutdown") {
		t.Fatalf("Shutdown while a game runs: %s", st.History())
	}
	b.Close()
	testutil.WaitFor(t, wait, "Shutdown", func() bool { return st.Succeeded("/shutdown") })
	waitLabel(t, st, LabelGames, "0")
	waitLabel(t, st, LabelPlayers, "0")

	ready, alloc, down := st.FirstOK("/ready"), st.FirstOK("/allocate"), st.FirstOK("/shutdown")
	if !ready.Before(alloc) || !alloc.Before(down) {
		t.Errorf("calls out of order: %s", st.History())
	}
	// The record once after Ready, then its state at most once per
	// HealthInterval until the first player (AllocatedTimeout).
	if n, _ := st.Count("/gameserver"); n < 1 || n > int(time.Since(start)/cfg.HealthInterval)+2 {
		t.Errorf("%d GET /gameserver in %v", n, time.Since(start))
	}
	// Health every interval: never more often than the ticker allows.
	n, _ := st.Count("/health")
	if most := int(time.Since(start)/cfg.HealthInterval) + 2; n > most {
		t.Errorf("%d Health calls in %v: more than one per %v", n, time.Since(start), cfg.HealthInterval)
	}
}

// Without ShutdownWhenEmpty the GameServer stays Allocated when its last
// game ends: the labels fall to 0 and Shutdown never comes.
func TestNoShutdownByDefault(t *testing.T) {
	st := agonesstub.New(t)
	srv, stopAgent := startServer(t, testConfig(t, st))
	c := dial(t, srv, "alice")
	testutil.WaitFor(t, wait, "Allocate", func() bool { return st.Succeeded("/allocate") })
	c.Close()
	waitLabel(t, st, LabelPlayers, "0")
	waitLabel(t, st, LabelGames, "0")
	h, _ := st.Count("/health")
	testutil.WaitFor(t, wait, "2 more Health calls", func() bool { n, _ := st.Count("/health"); return n >= h+2 })
	if err := stopAgent(); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Count("/shutdown"); n != 0 {
		t.Errorf("Shutdown without -agones-shutdown-when-empty: %s", st.History())
	}
}

// A sidecar that fails (as it does while it starts after the game
// server) gets every call again, with backoff, until it succeeds.
func TestRetriesWhenSidecarFails(t *testing.T) {
	st := agonesstub.New(t)
	st.FailNext("/ready", 3)
	st.FailNext("/metadata/label", 3)
	st.FailNext("/allocate", 2)
	st.FailNext("/health", 2)
	cfg := testConfig(t, st)
	srv, _ := startServer(t, cfg)

	testutil.WaitFor(t, wait, "Ready", func() bool { return st.Succeeded("/ready") })
	if n, _ := st.Count("/ready"); n != 4 {
		t.Errorf("%d Ready calls, want 3 failed and 1 done: %s", n, st.History())
	}
	waitLabel(t, st, LabelPlayers, "0")
	testutil.WaitFor(t, wait, "Health again", func() bool { return st.Succeeded("/health") })
	dial(t, srv, "alice")
	testutil.WaitFor(t, wait, "Allocate", func() bool { return st.Succeeded("/allocate") })
	if n, _ := st.Count("/allocate"); n != 3 {
		t.Errorf("%d Allocate calls, want 2 failed and 1 done: %s", n, st.History())
	}
	waitLabel(t, st, LabelPlayers, "1")
}

// A sidecar that never answers holds up nothing: the players log in and
// play, the agent keeps trying (each call ends at RequestTimeout), and it
// stops at once when asked.
func TestNoBlockWhenSidecarHangs(t *testing.T) {
	st := agonesstub.New(t)
	st.SetHang(true)
	cfg := testConfig(t, st)
	cfg.RequestTimeout = 50 * time.Millisecond
	srv, stopAgent := startServer(t, cfg)

	testutil.WaitFor(t, wait, "a Ready call", func() bool { n, _ := st.Count("/ready"); return n >= 1 })
	c := dial(t, srv, "alice")
	from := srv.TickStats().Ticks
	testutil.WaitFor(t, wait, "snapshots", func() bool { return c.Stats().SnapshotTick > 30 })
	testutil.WaitFor(t, wait, "ticks", func() bool { return srv.TickStats().Ticks > from+30 })
	testutil.WaitFor(t, wait, "Ready tried again", func() bool { n, _ := st.Count("/ready"); return n >= 3 })
	if st.Succeeded("/ready") {
		t.Fatal("a hung call succeeded")
	}
	begin := time.Now()
	if err := stopAgent(); err != nil {
		t.Fatal(err)
	}
	t.Logf("the agent stopped in %v with calls hung", time.Since(begin))

	// The sidecar comes back: a new agent gets through.
	st.SetHang(false)
	a := New(testConfig(t, st))
	a.Observe(server.LifeEvent{Kind: server.Listening, Addr: srv.Addr()})
	stop := testutil.Go(context.Background(), a)
	defer stop()
	testutil.WaitFor(t, wait, "Ready", func() bool { return st.Succeeded("/ready") })
}
