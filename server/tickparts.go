package server

import "time"

// TickPart is how the time of one tick went, in the order its parts run.
// A tick takes the server's mutex, handles the datagrams the read loop
// queued meanwhile (rxqueue.go), steps the games in shards (shard.go),
// each shard sending what its games produced, and ends the games that
// emptied. Durations are wall time: on a machine with other work a
// goroutine that waits for a core waits inside one of them.
type TickPart struct {
	// Tick is the tick's number since the server started (TickStats.Ticks
	// counts them), Class its class of snapshot ticks (the loop's ticks
	// modulo Config.SnapshotInterval, phase.go).
	Tick, Class int
	// Games are the games it stepped.
	Games int
	// Total is the whole tick, as TickStats counts it.
	Total time.Duration
	// Lock is the wait for the server's mutex, Queued the handling of the
	// queued datagrams (and the sending of their answers).
	Lock, Queued time.Duration
	// Shards are the shards' parts, the tick loop's own first.
	Shards []ShardPart
	// Wait is the time the tick loop waited for the other shards after
	// its own; Rest what followed the shards (games that ended).
	Wait, Rest time.Duration
}

// ShardPart is how one shard's share of a tick went.
type ShardPart struct {
	// Start is the time from the start of the shards (the tick loop
	// handing them out) to this shard's start: for a helper, the time its
	// goroutine took to be woken and get a core.
	Start time.Duration
	// Games are the games it stepped, Steps the time their steps,
	// events and snapshots took, Sends the time its outbox's last send
	// (the batch left at the end of the steps) took.
	Games        int
	Steps, Sends time.Duration
	// Sending is the time of all its sends, those of the batches that
	// filled during the steps included.
	Sending time.Duration
	// StepsCPU and SendsCPU are the CPU time of its thread in those
	// parts (Linux only, 0 elsewhere): less than Steps or Sends by the
	// time the thread waited for a core; -1 when the goroutine moved to
	// another thread meanwhile.
	StepsCPU, SendsCPU time.Duration
}

// tickParts is a ring of the parts of recent ticks, as tickTimes is of
// their durations; its records are made once and reused.
type tickParts struct {
	p [tickSamples]TickPart
	n int
}

// recordParts keeps the parts of a tick that began at begin, got the
// mutex at locked, handled the queue until queued, had its shards back at
// stepped and ended at end; class is its class of snapshot ticks. s.mu
// is held.
func (s *Server) recordParts(begin, locked, queued, stepped, end time.Time, class int) {
	t := &s.shards.parts
	shared := s.shards.shared
	if t.n == 0 { // the records' shard parts, made at once
		all := make([]ShardPart, tickSamples*len(s.shards.all))
		for i := range t.p {
			t.p[i].Shards = all[i*len(s.shards.all) : i*len(s.shards.all) : (i+1)*len(s.shards.all)]
		}
	}
	p := &t.p[t.n%tickSamples]
	t.n++
	shs := p.Shards[:0]
	games := 0
	for _, sh := range s.shards.all {
		sp := ShardPart{Games: sh.games}
		if sh.games > 0 {
			sp.Start, sp.Steps, sp.Sends = sh.began.Sub(shared), sh.stepped.Sub(sh.began), sh.sent.Sub(sh.stepped)
			sp.StepsCPU, sp.SendsCPU = threadTime(sh.cpuStepped-sh.cpuBegan, sp.Steps), threadTime(sh.cpuSent-sh.cpuStepped, sp.Sends)
			sp.Sending = sh.spent
		}
		games += sh.games
		shs = append(shs, sp)
	}
	wait := time.Duration(0)
	if sh := s.shards.all[0]; sh.games > 0 {
		wait = stepped.Sub(sh.sent)
	}
	*p = TickPart{Tick: t.n, Class: class, Games: games, Total: end.Sub(begin), Lock: locked.Sub(begin), Queued: queued.Sub(locked),
		Shards: shs, Wait: wait, Rest: end.Sub(stepped)}
}

// TickPartsSince returns the parts of the ticks run after the first from
// (the Ticks of an earlier TickStats), at most the last 4096, oldest
// first: where a window's slow ticks spent their time.
func (s *Server) TickPartsSince(from int) []TickPart {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &s.shards.parts
	n := min(max(t.n-max(from, 0), 0), tickSamples)
	ps := make([]TickPart, n)
	for i := range ps {
		ps[i] = t.p[(t.n-n+i)%tickSamples]
		ps[i].Shards = append([]ShardPart(nil), ps[i].Shards...)
	}
	return ps
}

// threadTime returns cpu, the CPU time of a thread over a part that took
// wall, or -1 when the goroutine changed threads meanwhile (more CPU than
// wall time, or less than none).
func threadTime(cpu, wall time.Duration) time.Duration {
	if cpu < 0 || cpu > wall {
		return -1
	}
	return cpu
}
