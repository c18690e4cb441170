package server

import (
	"context"
	"runtime/trace"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The games of a tick are stepped in shards: Config.TickShards goroutines
// (the tick loop's and TickShards-1 helpers) each step a share of them,
// send what they produced from an outbox of their own, then the tick loop
// goes on alone. The server's mutex is held by the tick loop throughout,
// so that nothing else (the read loop, logins) runs during the steps; a
// game is stepped by one goroutine in a tick, always the whole of it, so
// that each game stays deterministic.
//
// A share is a span of the tick's games that its shard takes from the
// front, one game at a time; a shard whose span is done takes games from
// the back of the others'. A helper is woken for its share, and the OS
// may take a while to give its thread a core (0.4 ms at p50 and up to 3
// ms at 1,000 players on the reference machine): meanwhile the others
// step its games, and a helper that has not started when every game is
// taken is not waited for. The tick lasts about its work over the shards
// that ran, not the latest helper's wake-up plus its share.

// shard is one goroutine's share of a tick.
type shard struct {
	out   *outbox
	span  span          // the indexes of the tick's games it has not taken
	state atomic.Int32  // a helper's: shardIdle, shardHanded, shardRunning
	wake  chan struct{} // a helper's: its share was handed out (capacity 1)
	games int           // the games it stepped in this tick
	lost  []*session    // sessions that ended in this tick
	now   time.Time
	// When the shard started, ended its steps and ended its sends, and
	// its thread's CPU time at those points (TickPart).
	began, stepped, sent          time.Time
	cpuBegan, cpuStepped, cpuSent time.Duration
	spent                         time.Duration // in sends, the steps' included
}

// The states of a helper's shard in a tick: handed out to the helper,
// taken by it (it runs and then counts itself done), or idle (it ran, or
// the tick loop found it never started and counted it done itself).
const (
	shardIdle int32 = iota
	shardHanded
	shardRunning
)

// span is the indexes [lo, hi) of the tick's games that a shard has not
// taken yet, in one word, so that its shard takes from the front and
// another from the back, each with a compare-and-swap.
type span struct{ v atomic.Uint64 }

func (p *span) set(lo, hi int) { p.v.Store(uint64(lo)<<32 | uint64(hi)) }

// take returns the index of a game not taken yet, the first (or with
// back, the last) of the span, and false when none is left.
func (p *span) take(back bool) (int, bool) {
	for {
		v := p.v.Load()
		lo, hi := uint32(v>>32), uint32(v)
		if lo >= hi {
			return 0, false
		}
		i, next := lo, v+1<<32
		if back {
			i, next = hi-1, v-1
		}
		if p.v.CompareAndSwap(v, next) {
			return int(i), true
		}
	}
}

// shards are the tick's shards and the helpers that run them.
type shards struct {
	all []*shard
	// step steps the tick's i-th game on sh; flush sends what sh's
	// outbox holds and sets sh.spent. The server's, set once (New).
	step  func(sh *shard, i int)
	flush func(sh *shard)
	wg    sync.WaitGroup // the helpers' shards of this tick
	drop  sync.Mutex     // guards the server's session map during the steps
	parts tickParts      // how recent ticks' time went
	// shared is when this tick's shards were handed out.
	shared time.Time
}

// newShards makes n shards, each sending from an outbox made by newOut,
// and their helpers' wake-up channels.
func newShards(n int, newOut func() (*outbox, error)) (*shards, error) {
	t := &shards{all: make([]*shard, n)}
	for i := range t.all {
		sh := &shard{wake: make(chan struct{}, 1)}
		var err error
		if sh.out, err = newOut(); err != nil {
			return nil, err
		}
		t.all[i] = sh
	}
	return t, nil
}

// helper runs the shard sh each time it is handed out, until stop.
func (t *shards) helper(sh *shard) {
	for range sh.wake {
		if sh.state.CompareAndSwap(shardHanded, shardRunning) { // else a wake-up for a share the others took
			t.runShard(sh)
			sh.state.Store(shardIdle)
			t.wg.Done()
		}
	}
}

// stop ends the helpers.
func (t *shards) stop() {
	for _, sh := range t.all[1:] {
		close(sh.wake)
	}
}

// run steps the tick's games, indexes 0 to games-1, on the first n
// shards, the calling goroutine running the first, and returns when every
// one is stepped and sent and every helper that started is done.
func (t *shards) run(games, n int) {
	for i, sh := range t.all {
		sh.games, sh.lost = 0, sh.lost[:0]
		if i < n {
			sh.span.set(i*games/n, (i+1)*games/n)
		} else {
			sh.span.set(0, 0)
		}
	}
	helped := t.all[1:n]
	t.shared = time.Now()
	t.wg.Add(len(helped))
	for _, sh := range helped {
		sh.state.Store(shardHanded)
		select {
		case sh.wake <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
	t.runShard(t.all[0])
	for _, sh := range helped {
		if sh.state.CompareAndSwap(shardHanded, shardIdle) { // not started: nothing left for it
			t.wg.Done()
		}
	}
	t.wg.Wait()
}

// runShard steps games, its own span's and then those left in the
// others', and sends what they produced.
func (t *shards) runShard(sh *shard) {
	sh.began, sh.cpuBegan = time.Now(), threadCPU()
	r := trace.StartRegion(context.Background(), "steps")
	for {
		i, ok := sh.span.take(false)
		if !ok {
			i, ok = t.steal(sh)
		}
		if !ok {
			break
		}
		t.step(sh, i)
		sh.games++
	}
	r.End()
	sh.stepped, sh.cpuStepped = time.Now(), threadCPU()
	r = trace.StartRegion(context.Background(), "sends")
	t.flush(sh) // the share's datagrams, in batches (sendmmsg)
	r.End()
	sh.sent, sh.cpuSent = time.Now(), threadCPU()
}

// steal takes a game from the back of another shard's span, the next
// shards' first.
func (t *shards) steal(sh *shard) (int, bool) {
	at := slices.Index(t.all, sh)
	for k := 1; k < len(t.all); k++ {
		if i, ok := t.all[(at+k)%len(t.all)].span.take(true); ok {
			return i, true
		}
	}
	return 0, false
}

// stepAll steps every game once, in shards when there are several games
// and no callback (Config.OnSnapshot, OnEvents, OnStep) expects to be
// called from one goroutine. It returns the sessions that ended. s.mu is
// held.
func (s *Server) stepAll(now time.Time) []*session {
	n := min(len(s.shards.all), len(s.games))
	if s.cfg.OnSnapshot != nil || s.cfg.OnEvents != nil || s.cfg.OnStep != nil {
		n = min(n, 1)
	}
	for _, sh := range s.shards.all {
		sh.now = now
	}
	if n == 0 {
		for _, sh := range s.shards.all {
			sh.games, sh.lost = 0, sh.lost[:0]
		}
		return nil
	}
	s.shards.run(len(s.games), n)
	lost := s.shards.all[0].lost
	for _, sh := range s.shards.all[1:n] {
		lost = append(lost, sh.lost...)
	}
	return lost
}

// stepShardGame steps the tick's i-th game on sh (shards.step).
func (s *Server) stepShardGame(sh *shard, i int) {
	sh.lost = s.stepGame(s.games[i], sh.now, sh.out, sh.lost)
}

// flushShard sends what sh's games left in its outbox and takes the
// time its sends took in this tick (shards.flush).
func flushShard(sh *shard) {
	sh.out.flush()
	sh.spent, sh.out.spent = sh.out.spent, 0
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
	s.rooms.backToRoomLocked(ss)
	s.shards.drop.Unlock()
}
