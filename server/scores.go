package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync/atomic"
	"time"

	"rtype/net/wire"
	"rtype/server/store"
)

// Leaderboard is where the server records the final scores of each game
// that ends (Config.Leaderboard). *store.Store, an SQLite file or a
// PostgreSQL database, is one; a leaderboard on another database needs
// only these methods, with the same meaning as the Store's.
type Leaderboard interface {
	// Record stores the scores in one transaction, durably once it
	// returns nil; a score whose Key it holds already it stores no
	// second time (the server retries a failed recording).
	Record(ctx context.Context, scores []store.Score) error
	// Top returns the best n scores of a mode and stage since a time (the
	// zero time: all time), best first.
	Top(ctx context.Context, mode, stage string, since time.Time, n int) ([]store.Entry, error)
	// Boards lists the modes and stages that have scores.
	Boards(ctx context.Context) ([]store.Board, error)
}

var _ Leaderboard = (*store.Store)(nil)

// recordTimeout bounds how long a game's GameOver waits for its scores to
// be recorded: past it, or when recording fails, the GameOver goes out all
// the same (the game must end) and the error log keeps the scores.
const recordTimeout = 10 * time.Second

// gameScores is a game's GameOver on its way to the leaderboard.
//
// A score is never lost once GameOver was sent: when the world emits its
// GameOver, the event is held back and the scores go to the leaderboard
// from a goroutine of their own; the GameOver is queued to the players at
// the first tick after the commit. The tick loop never waits for the disk
// (an SQLite commit with its fsync takes about a millisecond on an SSD,
// tens on a slow disk: BenchmarkRecord in server/store), so the other
// games keep their 60 Hz; the players of the ending game see their
// GameOver one tick after the commit. The events the world emits after it
// are not held (there are few: the last entities flying off), and the
// Logout(GameOver) of a session waits for the GameOver (gameOverSent).
type gameScores struct {
	job  *scoreJob  // the recording, from the GameOver on
	over wire.Event // the GameOver held back
	sent bool       // the GameOver was queued
	buf  []wire.Event
}

// scoreJob is one game's scores being recorded.
type scoreJob struct {
	scores []store.Score
	start  time.Time
	err    error       // written before done
	done   atomic.Bool // the recording returned
}

// holdForScores passes the events of g's world on to distribute, but for
// its GameOver: that it holds until the scores are recorded (gameScores).
// Without a leaderboard it passes everything.
func (l *leaderboardClient) holdForScores(g *game, evs []wire.Event) []wire.Event {
	s := l.srv
	sc := &g.scores
	if s.cfg.Leaderboard == nil || sc.sent {
		return evs
	}
	if sc.job == nil {
		i := 0
		for i < len(evs) && evs[i].Type != wire.EventGameOver {
			i++
		}
		if i == len(evs) {
			return evs
		}
		sc.over = evs[i]
		sc.job = l.recordScores(g, &sc.over)
		sc.buf = append(append(sc.buf[:0], evs[:i]...), evs[i+1:]...)
		return sc.buf
	}
	job := sc.job
	if !job.done.Load() {
		if time.Since(job.start) < recordTimeout {
			return evs
		}
		s.log.Error("scores not recorded in time: GameOver sent all the same", "game", g.id,
			"timeout", recordTimeout, "scores", job.scores)
	} else if job.err != nil {
		s.log.Error("scores not recorded: GameOver sent all the same, scores queued", "game", g.id, "err", job.err, "scores", job.scores)
	}
	sc.sent = true
	g.overAt = time.Now() // the linger of 4.4 starts now
	sc.buf = append(append(sc.buf[:0], evs...), sc.over)
	return sc.buf
}

// gameOverSent reports whether g's GameOver is on its way to the players:
// until then no session of g gets its Logout(GameOver).
func (l *leaderboardClient) gameOverSent(g *game) bool {
	s := l.srv
	return s.cfg.Leaderboard == nil || g.scores.sent
}

// recordScores starts recording the scores of over, a GameOver of g, and
// returns the job. The goroutine is the server's (Run waits for it), so a
// clean stop does not lose a score either.
func (l *leaderboardClient) recordScores(g *game, over *wire.Event) *scoreJob {
	s := l.srv
	mode, stage := l.scoreMode(g)
	job := &scoreJob{start: time.Now()}
	key := scoreKey()
	for _, p := range over.Scores[:over.NumScores] {
		if int(p.Player) >= len(g.sessions) || g.sessions[p.Player] == nil {
			continue // not a player of a session: nobody to name
		}
		job.scores = append(job.scores, store.Score{
			Name: g.sessions[p.Player].name, Mode: mode, Stage: stage,
			Score: p.Score, Players: int(over.NumScores), FinishedAt: job.start,
			Key: key + "/" + strconv.Itoa(int(p.Player)),
		})
	}
	lb, log, id := s.cfg.Leaderboard, s.log, g.id
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
		defer cancel()
		job.err = lb.Record(ctx, job.scores)
		if job.err != nil {
			s.shared.queueScores(job.scores, job.err) // written when the database answers again
		} else {
			l.cache.recorded() // before the GameOver goes out (7.16)
			log.Info("scores recorded", "game", id, "mode", mode, "stage", stage, "scores", job.scores,
				"took", time.Since(job.start))
		}
		job.done.Store(true)
	}()
	return job
}

// scoreMode returns the leaderboard's mode and stage of g: Classic, or
// Stage with the stage's name. (Stage mode gives a game its mode: this is
// the one place the leaderboard reads it.)
func (l *leaderboardClient) scoreMode(g *game) (mode, stage string) {
	s := l.srv
	if !g.world.Stage() {
		return store.ModeClassic, ""
	}
	if s.cfg.Stage != nil {
		stage = s.cfg.Stage.Name
	}
	return store.ModeStage, stage
}

// scoreKey returns a key for the scores of one game over, unique among
// all servers (128 random bits): with the player's number it is each
// score's store.Score.Key, so that a recording retried after an unknown
// outcome (the queue's, when the database answers again) stores a score
// once.
func scoreKey() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}
