package server

import (
	"rtype/net/wire"
	"slices"
	"time"
)

// tickSamples is how many recent tick durations the server keeps: 68 s at
// 60 ticks a second.
const tickSamples = 4096

// tickTimes is a ring of the durations of recent ticks.
type tickTimes struct {
	d    [tickSamples]time.Duration
	n    int           // samples written in all
	over int           // ticks that took longer than a tick period
	busy time.Duration // the sum of the last loadTicks samples
}

// loadTicks is the window of the tick loop's load: one second of ticks.
const loadTicks = wire.TickRate

func (t *tickTimes) add(d time.Duration) {
	if t.n >= loadTicks {
		t.busy -= t.d[(t.n-loadTicks)%tickSamples]
	}
	t.busy += d
	t.d[t.n%tickSamples] = d
	t.n++
	if d > time.Second/wire.TickRate {
		t.over++
	}
}

// load returns the tick loop's duty cycle over the last loadTicks ticks:
// the time they took over the time they had (a tick period each); 0
// before any tick.
func (t *tickTimes) load() float64 {
	n := min(t.n, loadTicks)
	if n == 0 {
		return 0
	}
	return float64(t.busy) / float64(time.Duration(n)*(time.Second/wire.TickRate))
}

// TickStats describes how long the server's ticks took: every game's
// step, events and snapshots, sockets included.
type TickStats struct {
	Ticks         int           // ticks run since start
	P50, P99, Max time.Duration // over the last (at most) 4096 ticks
	Overruns      int           // ticks since start longer than 1/60 s
	Games         int           // games running now
	Sessions      int           // sessions logged in now
	Pending       int           // TCP connections accepted and not logged in yet (MaxPending caps them)
	// Load is the tick loop's duty cycle over the last second: the time
	// its ticks took over the time they had. Past Config.MaxTickLoad, no
	// new game starts.
	Load float64
}

// TickStats returns the distribution of recent tick durations.
func (s *Server) TickStats() TickStats { return s.TickStatsSince(0) }

// TickStatsSince is TickStats over the ticks run after the first from
// (the Ticks of an earlier TickStats), at most the last 4096: the
// distribution of a time window, such as a load test. Ticks and Overruns
// still count from the start.
func (s *Server) TickStatsSince(from int) TickStats {
	s.mu.Lock()
	n := min(max(s.ticks.n-max(from, 0), 0), tickSamples)
	st := TickStats{Ticks: s.ticks.n, Overruns: s.ticks.over, Games: len(s.games), Sessions: len(s.sessions), Pending: s.gate.pending,
		Load: s.ticks.load()}
	d := make([]time.Duration, n)
	for i := range d {
		d[i] = s.ticks.d[(s.ticks.n-n+i)%tickSamples]
	}
	s.mu.Unlock()
	if n == 0 {
		return st
	}
	slices.Sort(d) // outside the lock, which the ticks need
	st.P50, st.P99, st.Max = d[n/2], d[min(n-1, n*99/100)], d[n-1]
	return st
}

// overloaded reports whether a tick loop whose load (its duty cycle, see
// tickTimes.load) is load is past the back-pressure threshold limit
// (Config.MaxTickLoad). A threshold of 1 or more never is: a tick loop
// that overran a little reads a little above 1, and such a threshold
// means no back-pressure.
func overloaded(load, limit float64) bool { return limit < 1 && load > limit }
