package agones

import (
	"context"
	"errors"
	"testing"
	"time"

	"rtype/internal/agonesstub"
	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/server"
)

// startDraining runs a real server whose agent drains it at Shutdown, as
// cmd/rtype-server does.
func startDraining(t *testing.T, cfg Config) *server.Server {
	t.Helper()
	srv, err := server.New(server.Config{Listen: "127.0.0.1:0", Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnShutdown = srv.Drain
	a := New(cfg)
	srv.Watch(a.Observe)
	stop := testutil.Go(context.Background(), a)
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
	testutil.Run(t, srv)
	return srv
}

// refusedEnding checks that a login is refused GameEnding.
func refusedEnding(t *testing.T, srv *server.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: srv.Addr(), Name: "Late", Logger: testutil.Logger(t)})
	var rej *client.RejectedError
	if !errors.As(err, &rej) || rej.Reason != wire.RejectGameEnding {
		if c != nil {
			c.Close()
		}
		t.Fatalf("a login after Shutdown: %v, want LoginRejected(GameEnding)", err)
	}
}

// Once Shutdown is asked (the last game ended), the server refuses new
// logins until Agones stops it, and is not ready.
func TestShutdownRefusesLogins(t *testing.T) {
	st := agonesstub.New(t)
	cfg := testConfig(t, st)
	cfg.ShutdownWhenEmpty = true
	srv := startDraining(t, cfg)
	a := dial(t, srv, "Ripley")
	testutil.WaitFor(t, wait, "Allocate", func() bool { return st.Succeeded("/allocate") })
	a.Close()
	testutil.WaitFor(t, wait, "Shutdown", func() bool { return st.Succeeded("/shutdown") })
	testutil.WaitFor(t, wait, "not ready", func() bool { return !srv.Ready() })
	refusedEnding(t, srv)
}

// A GameServer that Agones allocated and that no player joins asks for
// Shutdown after AllocatedTimeout, and refuses logins from then on; one
// that is only Ready waits for ever.
func TestAllocatedWithoutPlayers(t *testing.T) {
	st := agonesstub.New(t)
	cfg := testConfig(t, st)
	cfg.AllocatedTimeout = 200 * time.Millisecond
	srv := startDraining(t, cfg)
	testutil.WaitFor(t, wait, "Ready", func() bool { return st.Succeeded("/ready") })
	testutil.WaitFor(t, wait, "10 polls of the record while Ready", func() bool { n, _ := st.Count("/gameserver"); return n >= 10 })
	if st.Succeeded("/shutdown") {
		t.Fatalf("Shutdown while Ready: %s", st.History())
	}
	allocated := time.Now()
	st.SetState("Allocated") // Agones' allocator
	testutil.WaitFor(t, wait, "Shutdown", func() bool { return st.Succeeded("/shutdown") })
	if d := st.FirstOK("/shutdown").Sub(allocated); d < cfg.AllocatedTimeout {
		t.Errorf("Shutdown %v after the allocation, before the timeout %v", d, cfg.AllocatedTimeout)
	}
	if st.Succeeded("/allocate") {
		t.Errorf("the server allocated itself without a player: %s", st.History())
	}
	// The agent drains the server once the sidecar answered the call
	// that the stub recorded: wait for it before logging in.
	testutil.WaitFor(t, wait, "not ready (drained)", func() bool { return !srv.Ready() })
	refusedEnding(t, srv)
}
