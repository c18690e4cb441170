package server

import (
	"context"
	"runtime/trace"
	"sync"
	"time"
)

// The games of a tick are stepped in shards: Config.TickShards goroutines
// (the tick loop's and TickShards-1 helpers) each step a share of them,
// send what they produced from an outbox of their own, then the tick loop
// goes on alone. The server's mutex is held by the tick loop throughout,
// so that nothing else (the read loop, logins) runs during the steps; a
// game is stepped by one goroutine in a tick, always the whole of it, so
// that each game stays deterministic.

// shard is one goroutine's share of a tick.
type shard struct {
	out   *outbox
	games []*game    // this tick's share
	lost  []*session // sessions that ended in this tick
	now   time.Time
	// When the shard started, ended its steps and ended its sends, and
	// its thread's CPU time at those points (TickPart).
	began, stepped, sent          time.Time
	cpuBegan, cpuStepped, cpuSent time.Duration
	spent                         time.Duration // in sends, the steps' included
}

// shards are the tick's shards and the helpers that run them.
type shards struct {
	all    []*shard
	work   chan *shard    // to the helpers
	wg     sync.WaitGroup // the helpers' shards of this tick
	drop   sync.Mutex     // guards the server's session map during the steps
	parts  tickParts      // how recent ticks' time went
	shared time.Time      // when this tick's shards were handed out
}

// shardHelper runs the shards it is given until the tick loop ends (and
// closes their channel).
func (s *Server) shardHelper() {
	for sh := range s.shards.work {
		s.runShard(sh)
		s.shards.wg.Done()
	}
}

// runShard steps the games of sh and sends what they produced.
func (s *Server) runShard(sh *shard) {
	sh.began, sh.cpuBegan = time.Now(), threadCPU()
	sh.out.spent = 0
	r := trace.StartRegion(context.Background(), "steps")
	for _, g := range sh.games {
		sh.lost = s.stepGame(g, sh.now, sh.out, sh.lost)
	}
	r.End()
	sh.stepped, sh.cpuStepped = time.Now(), threadCPU()
	r = trace.StartRegion(context.Background(), "sends")
	sh.out.flush() // the share's datagrams, in batches (sendmmsg)
	r.End()
	sh.sent, sh.cpuSent = time.Now(), threadCPU()
	sh.spent = sh.out.spent
}

// stepAll steps every game once, in shards when there are several games
// and no callback (Config.OnSnapshot, OnEvents) expects to be called from
// one goroutine. It returns the sessions that ended. s.mu is held.
func (s *Server) stepAll(now time.Time) []*session {
	n := min(len(s.shards.all), len(s.games))
	if s.cfg.OnSnapshot != nil || s.cfg.OnEvents != nil {
		n = min(n, 1)
	}
	for i, sh := range s.shards.all {
		sh.games, sh.lost, sh.now = sh.games[:0], sh.lost[:0], now
		if i < n {
			sh.games = append(sh.games, s.games[i*len(s.games)/n:(i+1)*len(s.games)/n]...)
		}
	}
	if n == 0 {
		return nil
	}
	helped := s.shards.all[1:n]
	s.shards.shared = time.Now()
	s.shards.wg.Add(len(helped))
	for _, sh := range helped {
		s.shards.work <- sh
	}
	s.runShard(s.shards.all[0])
	s.shards.wg.Wait()
	lost := s.shards.all[0].lost
	for _, sh := range helped {
		lost = append(lost, sh.lost...)
	}
	for _, sh := range s.shards.all {
		clear(sh.games[:cap(sh.games)]) // no game kept alive by a shard
	}
	return lost
}

// dropInTick is dropLocked for a shard's goroutine: other shards may drop
// sessions at the same time. s.mu is held by the tick loop.
func (s *Server) dropInTick(ss *session) {
	s.shards.drop.Lock()
	s.dropLocked(ss)
	s.shards.drop.Unlock()
}

// backToRoomInTick is backToRoomLocked for a shard's goroutine (7.14): it
// shares the room messages' buffers with other shards.
func (s *Server) backToRoomInTick(ss *session) {
	s.shards.drop.Lock()
	s.backToRoomLocked(ss)
	s.shards.drop.Unlock()
}
