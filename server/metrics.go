package server

import (
	"slices"
	"time"
)

// tickSamples is how many recent tick durations the server keeps: 68 s at
// 60 ticks a second.
const tickSamples = 4096

// tickTimes is a ring of the durations of recent ticks.
type tickTimes struct {
	d    [tickSamples]time.Duration
	n    int // samples written in all
	over int // ticks that took longer than a tick period
}

func (t *tickTimes) add(d time.Duration) {
	t.d[t.n%tickSamples] = d
	t.n++
	if d > time.Second/TickRate {
		t.over++
	}
}

// TickStats describes how long the server's ticks took: every game's
// step, events and snapshots, sockets included.
type TickStats struct {
	Ticks         int           // ticks run since start
	P50, P99, Max time.Duration // over the last (at most) 4096 ticks
	Overruns      int           // ticks since start longer than 1/60 s
	Games         int           // games running now
	Sessions      int           // sessions logged in now
}

// TickStats returns the distribution of recent tick durations.
func (s *Server) TickStats() TickStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := min(s.ticks.n, tickSamples)
	st := TickStats{Ticks: s.ticks.n, Overruns: s.ticks.over, Games: len(s.games), Sessions: len(s.sessions)}
	if n == 0 {
		return st
	}
	d := slices.Clone(s.ticks.d[:n])
	slices.Sort(d)
	st.P50, st.P99, st.Max = d[n/2], d[min(n-1, n*99/100)], d[n-1]
	return st
}
