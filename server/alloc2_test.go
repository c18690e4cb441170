package server

import (
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
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
	if n := tickAllocs(s); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
}

// tickAllocs runs s's ticks by hand, 60 to grow every buffer, then
// returns the allocations per tick of 120 more.
func tickAllocs(s *Server) float64 {
	now := time.Now()
	tick := func() {
		now = now.Add(time.Second / 60)
		s.tick(now)
	}
	for range 60 {
		tick()
	}
	return testing.AllocsPerRun(120, tick)
}

// A Stage game's tick allocates nothing either (a Stage world, a v2
// session), nor does keeping its Stage events for the joining sessions
// (7.12).
func TestTickAllocsStage(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := join2Mode(t, s, "Ripley", wire.ModeStage)
	c.pumpUntil(wait, func() bool { return len(c.snaps) >= 3 })
	if n := tickAllocs(s); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}

	var st stageState
	evs := []wire.Event{
		{Type: wire.EventStage, What: wire.StageBoss, Value: 7, Name: "Dobkeratops"},
		{Type: wire.EventArms, Player: 1, Arms: wire.Arms{Force: 1, ForceAt: wire.ForceFront}},
		{Type: wire.EventHealth, ID: 7, HP: 5, MaxHP: 9},
		{Type: wire.EventStage, What: wire.StageMusic, Name: "boss"},
	}
	join := make([]wire.Event, 0, 16)
	if n := testing.AllocsPerRun(100, func() {
		for i := range evs {
			st.observe(&evs[i])
		}
		join = st.appendJoin(join[:0])
	}); n != 0 || len(join) != 4 {
		t.Fatalf("%v allocations per observe and join, %d joining events", n, len(join))
	}
}
