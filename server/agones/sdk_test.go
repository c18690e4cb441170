package agones

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"rtype/internal/agonesstub"
	"rtype/internal/testutil"
	"rtype/server"
)

func TestDefaultAddr(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"", "localhost:9358"},
		{"59358", "localhost:59358"},
		{"0", "localhost:9358"},
		{"70000", "localhost:9358"},
		{"abc", "localhost:9358"},
	} {
		if got := defaultAddr(tc.env); got != tc.want {
			t.Errorf("defaultAddr(%q) = %q, want %q", tc.env, got, tc.want)
		}
	}
	t.Setenv(PortEnv, "12345")
	if got := DefaultAddr(); got != "localhost:12345" {
		t.Errorf("DefaultAddr with %s=12345: %q", PortEnv, got)
	}
}

// Each call of SDK is the documented request; an answer other than 2xx
// is an error that names the call and quotes the answer.
func TestSDKCalls(t *testing.T) {
	st := agonesstub.New(t)
	sdk := NewSDK(st.Addr(), nil)
	ctx := context.Background()
	for _, c := range []struct {
		path string
		f    func(context.Context) error
	}{{"/ready", sdk.Ready}, {"/health", sdk.Health}, {"/allocate", sdk.Allocate}, {"/shutdown", sdk.Shutdown}} {
		if err := c.f(ctx); err != nil {
			t.Errorf("%s: %v", c.path, err)
		}
		if !st.Succeeded(c.path) {
			t.Errorf("%s: not called", c.path)
		}
	}
	if err := sdk.SetLabel(ctx, LabelGames, "3"); err != nil {
		t.Fatal(err)
	}
	if v, _ := st.Label(LabelGames); v != "3" {
		t.Errorf("label %s = %q, want 3", LabelGames, v)
	}
	gs, err := sdk.GameServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gs.ObjectMeta.Name != "rtype-fleet-abcde-xyz12" || gs.Status.State != "Ready" || len(gs.Status.Ports) != 1 || gs.Status.Ports[0].Port != 7042 {
		t.Errorf("GameServer %+v", gs)
	}

	st.FailNext("/ready", 1)
	err = sdk.Ready(ctx)
	if err == nil || !strings.Contains(err.Error(), "POST /ready") || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "stub: 503") {
		t.Errorf("Ready against a 503: %v", err)
	}
	if err := NewSDK("127.0.0.1:1", nil).Health(ctx); err == nil || !strings.Contains(err.Error(), "POST /health") {
		t.Errorf("Health with no sidecar: %v", err)
	}
}

// Counts that change faster than LabelInterval are sent at most once per
// interval, the last ones last.
func TestLabelsRateLimited(t *testing.T) {
	st := agonesstub.New(t)
	cfg := testConfig(t, st)
	cfg.LabelInterval = 50 * time.Millisecond
	a := New(cfg)
	begin := time.Now()
	stop := testutil.Go(context.Background(), a)
	defer stop()
	a.Observe(server.LifeEvent{Kind: server.Listening})
	waitLabel(t, st, LabelPlayers, "0")
	// A burst: only its last counts need to reach the sidecar.
	for p := 1; p <= 200; p++ {
		a.Observe(server.LifeEvent{Kind: server.PlayerJoined, Games: (p + 3) / 4, Players: p})
	}
	waitLabel(t, st, LabelPlayers, "200")
	waitLabel(t, st, LabelGames, "50")
	// A change as soon as the last one arrived: one update per interval.
	start := time.Now()
	for p := 199; p >= 195; p-- {
		a.Observe(server.LifeEvent{Kind: server.PlayerLeft, Games: 50, Players: p})
		waitLabel(t, st, LabelPlayers, strconv.Itoa(p))
	}
	if d := time.Since(start); d < 4*cfg.LabelInterval {
		t.Errorf("5 label updates in %v: more than one per %v", d, cfg.LabelInterval)
	}
	// Each round of updates (two calls at most: games and players)
	// starts at least LabelInterval after the one before, the first at
	// once: the 200 counts of the burst make a few calls, not 400. How
	// many rounds the burst spans depends on how fast it went.
	elapsed := time.Since(begin)
	n, _ := st.Count("/metadata/label")
	if most := 2 * (int(elapsed/cfg.LabelInterval) + 1); n > most {
		t.Errorf("%d label calls in %v: more than 2 per %v: %s", n, elapsed, cfg.LabelInterval, st.History())
	}
	t.Logf("%d label calls in %v (9 when the burst fits in one interval)", n, elapsed)
}

// BenchmarkObserve is the cost of a lifecycle event to the server, which
// calls Observe with its lock held: no request, no allocation.
func BenchmarkObserve(b *testing.B) {
	a := New(Config{Addr: "127.0.0.1:1", Logger: testutil.Discard()})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a.Observe(server.LifeEvent{Kind: server.PlayerJoined, Games: 1, Players: i & 3})
	}
}
