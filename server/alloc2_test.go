package server

import (
	"testing"
	"time"

	"rtype/internal/testutil"
)

// The per-tick hot path allocates nothing in steady state, with a v1 and
// a v2 session in one game: the step, the inputs by step, the events and
// the snapshots of both versions, written to real sockets.
func TestTickAllocsV1AndV2(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c1 := join(t, s, "Dallas")
	c2 := join2(t, s, "Ripley")
	c1.waitSnaps(3)
	c2.pumpUntil(wait, func() bool { return len(c2.snaps) >= 3 })
	now := time.Now()
	for range 60 { // grow every buffer
		now = now.Add(time.Second / 60)
		s.tick(now)
	}
	if n := testing.AllocsPerRun(120, func() {
		now = now.Add(time.Second / 60)
		s.tick(now)
	}); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
}
