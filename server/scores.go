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
	"rtype/sim/stage"
)

// Leaderboard is where the server records the scores of each game
// (Config.Leaderboard): a Classic game's at its game over; a Stage game's
// points of each stage when the stage ends, and its whole scores on the
// campaign board (PROTOCOL.md 7.16). *store.Store, an SQLite file or a
// PostgreSQL database, is one; a leaderboard on another database needs
// only these methods, with the same meaning as the Store's.
type Leaderboard interface {
	// Record stores the scores in one transaction, durably once it
	// returns nil; a score whose Key it holds already it stores no
	// second time (the server retries a failed recording).
	Record(ctx context.Context, scores []store.Score) error
	// Top returns the best n scores of a mode and board since a time (the
	// zero time: all time), best first.
	Top(ctx context.Context, mode, stage string, since time.Time, n int) ([]store.Entry, error)
	// Boards lists the modes and boards that have scores.
	Boards(ctx context.Context) ([]store.Board, error)
}

var _ Leaderboard = (*store.Store)(nil)

// recordTimeout bounds how long a game's GameOver waits for its scores to
// be recorded: past it, or when recording fails, the GameOver goes out all
// the same (the game must end) and the error log keeps the scores.
const recordTimeout = 10 * time.Second

// gameScores is a game's way to the leaderboard: its stage boards, and
// its GameOver.
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
// A stage's clear holds nothing: its scores go to the leaderboard from a
// goroutine of their own too.
type gameScores struct {
	job   *scoreJob  // the recording, from the GameOver on
	over  wire.Event // the GameOver held back
	sent  bool       // the GameOver was queued
	buf   []wire.Event
	key   string     // the game's part of its scores' keys, "" until the first
	stage stageMarks // Stage games: the stage being played (PROTOCOL.md 7.16)
}

// stageMarks follows a Stage game's stages through its events, for the
// leaderboard's stage and campaign boards (PROTOCOL.md 7.16): the sim
// knows nothing of the leaderboard, the server reads the stage from its
// StageFile and StageIntro events, its end from StageClear or GameOver.
type stageMarks struct {
	started  bool   // the first StageFile was seen
	campaign bool   // it was the campaign's first stage: the game goes on the campaign board
	file     string // the name of the last StageFile
	board    string // the board of the stage being played (wire.StageBoard)
	playing  bool   // a stage started (StageIntro) and did not end
	boards   int    // stage boards recorded, for the keys
	// at is each player's score when the stage started (or when the
	// player joined during it): the stage's points are the score less it.
	at [wire.MaxPlayers]uint32
}

// observe takes the events of one tick of the game, in order. It returns
// the board of a stage that ended with a StageClear among them, "" if
// none did; then points says each player's points in it (players not in
// the game: 0). score is the world's score of each player after the
// tick; first is the campaign's first stage, nil if there is none.
func (m *stageMarks) observe(evs []wire.Event, score func(p uint8) uint32, first *stage.Stage, points *[wire.MaxPlayers]uint32) (ended string) {
	for i := range evs {
		ev := &evs[i]
		switch {
		case ev.Type == wire.EventPlayerJoined && ev.Player < wire.MaxPlayers:
			m.at[ev.Player] = 0 // a player starts at 0
		case ev.Type != wire.EventStage:
		case ev.What == wire.StageFile:
			if !m.started {
				m.started = true
				m.campaign = first != nil && ev.Name == first.Name && ev.Value == first.FileSum()
			}
			m.file = ev.Name
		case ev.What == wire.StageIntro:
			m.board, m.playing = wire.StageBoard(m.file, int(ev.Value)), true
			for p := range m.at {
				m.at[p] = score(uint8(p))
			}
		case ev.What == wire.StageClear && m.playing:
			m.playing, ended = false, m.board
			for p := range points {
				points[p] = m.points(uint8(p), score(uint8(p)))
			}
		}
	}
	return ended
}

// points returns player p's points in the stage being played, its score
// being score.
func (m *stageMarks) points(p uint8, score uint32) uint32 {
	if int(p) >= len(m.at) || score < m.at[p] {
		return 0
	}
	return score - m.at[p]
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
	if g.mode == wire.ModeStage && sc.job == nil {
		l.stageEvents(g, evs)
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

// stageEvents follows the stages of g, a Stage game, through the events
// of a tick (stageMarks), and records the scores of a stage that ends
// with its clear. Everything but a clear's recording allocates nothing.
func (l *leaderboardClient) stageEvents(g *game, evs []wire.Event) {
	var first *stage.Stage
	if c := l.srv.cfg.Campaign; len(c) > 0 {
		first = c[0]
	}
	var points [wire.MaxPlayers]uint32
	board := g.scores.stage.observe(evs, g.world.Score, first, &points)
	if board == "" {
		return
	}
	m := &g.scores.stage
	m.boards++
	now := time.Now()
	n := 0
	for p := range uint8(wire.MaxPlayers) {
		if g.world.InGame(p) {
			n++
		}
	}
	var scores []store.Score
	for p, ss := range g.sessions {
		if ss == nil || !g.world.InGame(uint8(p)) {
			continue // not a player of a session: nobody to name
		}
		scores = append(scores, store.Score{Name: ss.name, Mode: store.ModeStage, Stage: board,
			Score: points[p], Players: n, FinishedAt: now, Key: l.key(g, "s"+strconv.Itoa(m.boards), p)})
	}
	if len(scores) > 0 {
		l.record(g, &scoreJob{scores: scores, start: now})
	}
}

// key returns the store.Score.Key of player p's score on a board of g
// (part names it among g's boards: "" for the game's own).
func (l *leaderboardClient) key(g *game, part string, p int) string {
	if g.scores.key == "" {
		g.scores.key = scoreKey()
	}
	if part != "" {
		part += "/"
	}
	return g.scores.key + "/" + part + strconv.Itoa(p)
}

// recordScores starts recording the scores of over, a GameOver of g, and
// returns the job: in Classic each player's score on the Classic board;
// in Stage mode the points of the stage being played on its board, and,
// for a game that started at the campaign's first stage, each player's
// score on the campaign board (7.16).
func (l *leaderboardClient) recordScores(g *game, over *wire.Event) *scoreJob {
	job := &scoreJob{start: time.Now()}
	m := &g.scores.stage
	for _, p := range over.Scores[:over.NumScores] {
		if int(p.Player) >= len(g.sessions) || g.sessions[p.Player] == nil {
			continue // not a player of a session: nobody to name
		}
		sc := store.Score{Name: g.sessions[p.Player].name, Mode: store.ModeClassic,
			Score: p.Score, Players: int(over.NumScores), FinishedAt: job.start}
		if g.mode != wire.ModeStage {
			sc.Key = l.key(g, "", int(p.Player))
			job.scores = append(job.scores, sc)
			continue
		}
		sc.Mode = store.ModeStage
		if m.playing {
			st := sc
			st.Stage, st.Score = m.board, m.points(p.Player, p.Score)
			st.Key = l.key(g, "s"+strconv.Itoa(m.boards+1), int(p.Player))
			job.scores = append(job.scores, st)
		}
		if m.campaign {
			sc.Stage, sc.Key = wire.CampaignBoard, l.key(g, "c", int(p.Player))
			job.scores = append(job.scores, sc)
		}
	}
	l.record(g, job)
	return job
}

// record starts recording job's scores. The goroutine is the server's
// (Run waits for it), so a clean stop does not lose a score either; when
// the database fails the scores wait in the queue (storeLink).
func (l *leaderboardClient) record(g *game, job *scoreJob) {
	s := l.srv
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
			log.Info("scores recorded", "game", id, "scores", job.scores, "took", time.Since(job.start))
		}
		job.done.Store(true)
	}()
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
