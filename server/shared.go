package server

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"rtype/server/store"
)

// What a fleet's servers share in their database (Config.Leaderboard,
// Config.Bans): the store loop checks it every StoreCheck.
//
//   - Bans propagate by polling: each server reads the bans in force
//     from the shared database and kicks the sessions a new one matches.
//     The database is already the bans' truth (they survive a restart
//     there), and every backend has it (SQLite shared by the servers of a
//     machine, PostgreSQL by a fleet), with or without Redis; a ban, a
//     rare act, reaches every server within StoreCheck, at the cost of one
//     small query per StoreCheck per server.
//   - Scores whose recording failed (the database is down) are queued in
//     memory, at most MaxQueuedScores (past it the oldest are dropped,
//     and logged), and written by the loop once the database answers
//     again. Play goes on meanwhile: a game's GameOver never waits for
//     more than one attempt. Scores still queued when the server stops
//     are logged at level Error, so that none is lost silently.
//   - While the database does not answer, the server is not ready
//     (Ready, /readyz), so that an orchestrator sends no new players.

// MaxQueuedScores bounds the scores queued while the database is down.
const MaxQueuedScores = 100000

// storeLink is the server's link to its shared database: the store
// loop and its state, under its own lock (the bans it syncs go under
// Server.mu).
type storeLink struct {
	srv     *Server
	mu      sync.Mutex
	queue   []store.Score // scores waiting for the database
	dropped int64         // scores ever dropped from the queue's front
	banIDs  map[int64]bool
	down    atomic.Bool // the database did not answer the last time
	drain   atomic.Bool // Drain: no new login
	queued  atomic.Int64
}

// StoreStats describes the shared database, for monitoring.
type StoreStats struct {
	Up           bool // the database answered the last check
	QueuedScores int  // scores waiting for it
}

// StoreStats returns the database's state.
func (s *Server) StoreStats() StoreStats {
	return StoreStats{Up: !s.shared.down.Load(), QueuedScores: int(s.shared.queued.Load())}
}

// Drain makes the server refuse new logins with LoginRejected(GameEnding)
// while its games go on: its orchestrator is about to stop it (Agones
// Shutdown). Ready reports false from then on.
func (s *Server) Drain() {
	if !s.shared.drain.Swap(true) {
		s.log.Info("draining: new logins are refused")
	}
}

// up reports whether the server reaches its fleet's Redis, when it
// has one, its database did not fail its last check, and it is not
// draining.
func (st *storeLink) up() bool {
	s := st.srv
	return (s.cfg.Fleet == nil || s.cfg.Fleet.Up()) && !st.down.Load() && !st.drain.Load()
}

// queueScores keeps scores that could not be recorded for the store
// loop.
func (st *storeLink) queueScores(scores []store.Score, err error) {
	s := st.srv
	sh := st
	sh.mu.Lock()
	sh.queue = append(sh.queue, scores...)
	if n := len(sh.queue) - MaxQueuedScores; n > 0 {
		s.log.Error("score queue full: the oldest scores dropped", "dropped", sh.queue[:n])
		sh.queue = slices.Delete(sh.queue, 0, n)
		sh.dropped += int64(n)
	}
	sh.queued.Store(int64(len(sh.queue)))
	sh.mu.Unlock()
	st.setStoreUp(false, err)
	s.log.Warn("scores queued until the database answers", "scores", scores, "err", err)
}

// setStoreUp records whether the database answered.
func (st *storeLink) setStoreUp(up bool, err error) {
	s := st.srv
	if was := !st.down.Swap(!up); was != up {
		if up {
			s.log.Info("the database answers again")
		} else {
			s.log.Error("the database does not answer: not ready, scores queued", "err", err)
		}
	}
}

// loop checks the database every StoreCheck until the server stops:
// bans, then the queued scores.
func (st *storeLink) loop() {
	s := st.srv
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-s.done; cancel() }()
	defer cancel()
	t := time.NewTicker(s.cfg.StoreCheck)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			st.mu.Lock()
			if q := st.queue; len(q) > 0 {
				s.log.Error("scores not recorded: the database did not answer before the stop", "scores", q)
			}
			st.mu.Unlock()
			return
		case <-t.C:
		}
		st.check(ctx)
	}
}

// check reads the bans (or asks the leaderboard something small,
// without a ban list), then writes the queued scores.
func (st *storeLink) check(ctx context.Context) {
	s := st.srv
	ctx, cancel := context.WithTimeout(ctx, s.cfg.StoreCheck*2)
	defer cancel()
	var err error
	if s.cfg.Bans != nil {
		var bans []store.Ban
		if bans, err = s.cfg.Bans.Bans(ctx, time.Now()); err == nil {
			st.syncBans(bans)
		}
	} else if s.cfg.Leaderboard != nil {
		_, err = s.cfg.Leaderboard.Boards(ctx)
	}
	if err != nil {
		st.setStoreUp(false, err)
		return
	}
	if s.cfg.Leaderboard != nil {
		for {
			n, err := st.recordQueued(ctx)
			if err != nil {
				st.setStoreUp(false, err)
				return
			}
			if n < store.MaxBatch {
				break
			}
		}
	}
	st.setStoreUp(true, nil)
}

// recordQueued writes the first scores of the queue, at most
// store.MaxBatch (what one Record takes), and takes them off it. It
// returns how many it wrote. A write whose outcome is unknown (a timeout
// after the commit) is tried again with the same scores: their keys make
// the second write store nothing twice.
func (st *storeLink) recordQueued(ctx context.Context) (int, error) {
	s := st.srv
	sh := st
	sh.mu.Lock()
	batch := slices.Clone(sh.queue[:min(len(sh.queue), store.MaxBatch)])
	dropped := sh.dropped
	sh.mu.Unlock()
	if len(batch) == 0 {
		return 0, nil
	}
	if err := s.cfg.Leaderboard.Record(ctx, batch); err != nil {
		return 0, err
	}
	sh.mu.Lock()
	// The queue may have dropped its oldest scores meanwhile (full):
	// some of batch are gone from its front already.
	n := max(0, len(batch)-int(sh.dropped-dropped))
	sh.queue = slices.Delete(sh.queue, 0, n)
	sh.queued.Store(int64(len(sh.queue)))
	sh.mu.Unlock()
	s.lb.cache.recorded() // the leaderboards read before are stale (7.16)
	s.log.Info("queued scores recorded", "scores", batch)
	return len(batch), nil
}

// syncBans takes the bans in force in the shared database: they replace
// the server's, and the sessions a ban new to this server matches are
// kicked, as by Ban.
func (st *storeLink) syncBans(bans []store.Ban) {
	s := st.srv
	sh := st
	s.mu.Lock()
	if sh.banIDs == nil {
		sh.banIDs = make(map[int64]bool)
		for _, b := range s.bans.all {
			sh.banIDs[b.ID] = true
		}
	}
	ids := make(map[int64]bool, len(bans))
	var victims []uint32
	for _, b := range bans {
		ids[b.ID] = true
		if sh.banIDs[b.ID] {
			continue
		}
		s.log.Info("ban from the shared database", "ban", b.ID, "name", b.Name, "addr", b.Addr, "until", b.Until)
		for id, ss := range s.sessions {
			if (b.Name != "" && equalFold(b.Name, ss.name)) || (b.Addr.IsValid() && b.Addr == ss.ip) {
				victims = append(victims, id)
			}
		}
	}
	sh.banIDs = ids
	s.bans.all = bans
	s.mu.Unlock()
	for _, id := range victims {
		s.Kick(id)
	}
}
