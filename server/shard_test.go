package server

import (
	"fmt"
	"testing"
	"time"
)

// Games stepped in shards (Config.TickShards) each keep ticking, every
// client gets its game's snapshots, and a session that falls silent is
// dropped by its shard while the others play on (run it with -race: the
// shards run at the same time).
func TestTickShards(t *testing.T) {
	cfg := testConfig()
	cfg.TickShards = 3
	cfg.MaxGames = 4
	cfg.SessionTimeout = 500 * time.Millisecond
	s := startServer(t, cfg)
	var cs []*tclient
	for g := range 3 {
		for p := range 4 {
			cs = append(cs, join(t, s, fmt.Sprintf("g%dp%d", g, p)))
		}
	}
	if st := s.TickStats(); st.Games != 3 {
		t.Fatalf("%d games, want 3", st.Games)
	}
	quiet := cs[len(cs)-1] // falls silent: its game's shard drops it
	quiet.keepAlive = false
	playing := cs[:len(cs)-1]
	first := make([]int, len(playing))
	for i, c := range playing {
		first[i] = len(c.snaps)
	}
	deadline := time.Now().Add(wait)
	for {
		done := s.TickStats().Sessions == len(playing)
		for i, c := range playing {
			c.pump(5 * time.Millisecond)
			done = done && len(c.snaps) >= first[i]+10
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			for i, c := range playing {
				t.Logf("%s: %d snapshots", c.name, len(c.snaps)-first[i])
			}
			t.Fatalf("sessions %d (want %d), or a client short of 10 snapshots, within %v", s.TickStats().Sessions, len(playing), wait)
		}
	}
	for _, c := range playing {
		n := len(c.snaps)
		if a, b := c.snaps[n-10].tick, c.snaps[n-1].tick; b <= a {
			t.Errorf("%s: snapshot ticks %d then %d", c.name, a, b)
		}
	}
}
