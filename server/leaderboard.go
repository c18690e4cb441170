package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"rtype/net/wire"
	"rtype/server/store"
)

// The leaderboard of PROTOCOL.md 7.16: a v2 session asks for the best
// scores of a board (Classic; in Stage mode a stage's, a later loop's or
// the campaign's, scores.go) and a period (ScoresRequest), and gets them
// (Scores). No client makes the server hammer its database: each session
// is rate-limited, and the reads are cached per leaderboard for a short
// time and made one at a time, so that however many sessions ask, the
// database sees at most one read per leaderboard per scoresFresh.

// Leaderboard limits of the reference server (7.16).
const (
	// scoresLimit requests per scoresWindow per session; the next is
	// refused RateLimited.
	scoresLimit  = 5
	scoresWindow = 5 * time.Second
	// scoresFresh is how long a read of a leaderboard answers requests;
	// a recording makes every read stale at once.
	scoresFresh = 2 * time.Second
	// scoresReadTimeout bounds one read, and the wait for another read
	// to end: past it the answer is Unavailable.
	scoresReadTimeout = 2 * time.Second
	// scoresBoards is the most leaderboards kept read at once; past it
	// the oldest read is forgotten (a client may name any stage).
	scoresBoards = 16
)

// leaderboardClient is the server's side of the leaderboard
// (Config.Leaderboard): the answers to ScoresRequest from its cache of
// reads (its own locks), and the recording of each game's scores.
type leaderboardClient struct {
	srv   *Server
	cache boardCache // the leaderboard's reads (7.16)
}

// scoresSession is a session's leaderboard state: its rate limit and its
// answer's buffer. Only the session's reader goroutine uses it.
type scoresSession struct {
	sent [scoresLimit]time.Time // the last requests taken, oldest at next
	next int
	ans  wire.Scores // the answer being sent
	buf  []byte
}

// boardKey names a leaderboard: the store's mode and stage (the board's
// name: wire.StageBoard, wire.CampaignBoard), and a period.
type boardKey struct {
	mode, stage string
	period      uint8
}

// boardRead is one read of a leaderboard: its rows, or why it failed (a
// failure is kept as long as rows are, so that a failing database is not
// asked more often than a working one).
type boardRead struct {
	at   time.Time
	gen  uint64 // boardCache.gen when the read started
	rows []store.Entry
	err  error
}

// boardCache holds the last reads of the leaderboards. The zero value is
// ready.
type boardCache struct {
	one   sync.Once
	slot  chan struct{} // cap 1: the one read at a time
	mu    sync.Mutex
	gen   uint64 // bumped by every recording
	reads map[boardKey]*boardRead
	count atomic.Uint64 // database reads made
}

// recorded makes every read stale: a game's scores were just recorded,
// and every answer from now on must have them.
func (c *boardCache) recorded() {
	c.mu.Lock()
	c.gen++
	c.mu.Unlock()
}

// fresh returns the read of k if it is fresh at now.
func (c *boardCache) fresh(k boardKey, now time.Time) (*boardRead, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.reads[k]
	if r == nil || r.gen != c.gen || now.Sub(r.at) >= scoresFresh || r.at.After(now) {
		return nil, false
	}
	return r, true
}

// top returns the best wire.MaxScoreRows entries of k, from a fresh read
// or a new one made with lb.
func (c *boardCache) top(lb Leaderboard, k boardKey, since time.Time) ([]store.Entry, error) {
	if r, ok := c.fresh(k, time.Now()); ok {
		return r.rows, r.err
	}
	c.one.Do(func() { c.slot = make(chan struct{}, 1) })
	ctx, cancel := context.WithTimeout(context.Background(), scoresReadTimeout)
	defer cancel()
	select {
	case c.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("leaderboard: waiting for another read: %w", ctx.Err())
	}
	defer func() { <-c.slot }()
	// Another session may have read it while this one waited.
	if r, ok := c.fresh(k, time.Now()); ok {
		return r.rows, r.err
	}
	// A recording during the read may have missed it: read again (a few
	// times at most: games end seconds apart).
	var rows []store.Entry
	var err error
	var gen uint64
	for range 3 {
		c.mu.Lock()
		gen = c.gen
		c.mu.Unlock()
		c.count.Add(1)
		rows, err = lb.Top(ctx, k.mode, k.stage, since, wire.MaxScoreRows)
		c.mu.Lock()
		again := err == nil && gen != c.gen
		c.mu.Unlock()
		if !again {
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reads == nil {
		c.reads = make(map[boardKey]*boardRead)
	}
	if _, ok := c.reads[k]; !ok && len(c.reads) >= scoresBoards {
		var oldest boardKey
		var at time.Time
		for k2, r := range c.reads {
			if at.IsZero() || r.at.Before(at) {
				oldest, at = k2, r.at
			}
		}
		delete(c.reads, oldest)
	}
	c.reads[k] = &boardRead{at: time.Now(), gen: gen, rows: rows, err: err}
	return rows, err
}

// scoresMessage handles a leaderboard frame (its type and body) of ss,
// from ss's reader goroutine. A session without Features.Scores skips it
// (an unknown type, 7.1); a malformed one, or a Scores, is an error that ends
// the session (3.1).
func (l *leaderboardClient) scoresMessage(ss *session, sc *scoresSession, f []byte) error {
	s := l.srv
	if !ss.features.Scores {
		return nil
	}
	var req wire.Scores
	if err := wire.ParseScores(f, &req); err != nil {
		return err
	}
	if req.Type != wire.MsgScoresRequest {
		return fmt.Errorf("%w: %#x from a client", wire.ErrMessageType, req.Type)
	}
	ans := l.answerScores(sc, &req, time.Now())
	if ss.chat == nil {
		return nil
	}
	sc.buf = wire.AppendScores(sc.buf[:0], ans)
	s.chatHub.pushTo(ss, sc.buf)
	return nil
}

// answerScores applies the rules of 7.16 to a request taken at now; the
// answer is sc's, valid until the next request.
func (l *leaderboardClient) answerScores(sc *scoresSession, req *wire.Scores, now time.Time) *wire.Scores {
	s := l.srv
	ans := &sc.ans
	*ans = wire.Scores{Type: wire.MsgScores, Mode: req.Mode, Period: req.Period}
	if oldest := sc.sent[sc.next]; !oldest.IsZero() && now.Sub(oldest) < scoresWindow {
		ans.Status = wire.ScoresRateLimited
		ans.Wait = uint16((scoresWindow - now.Sub(oldest) + time.Millisecond - 1) / time.Millisecond)
		return ans
	}
	sc.sent[sc.next] = now
	sc.next = (sc.next + 1) % scoresLimit
	k := boardKey{period: req.Period}
	switch req.Mode {
	case wire.ModeClassic:
		k.mode = store.ModeClassic
	case wire.ModeStage:
		k.mode, k.stage = store.ModeStage, req.Stage
		if k.stage == "" && s.cfg.Stage != nil { // the first loop of the default stage
			k.stage = s.cfg.Stage.Name
		}
	}
	var since time.Time
	switch {
	case k.mode == "" || req.Period > wire.PeriodWeek:
		ans.Status = wire.ScoresInvalid
		return ans
	case s.cfg.Leaderboard == nil:
		ans.Status = wire.ScoresNoLeaderboard
		return ans
	case req.Period == wire.PeriodWeek:
		since = store.WeekStart(now)
	}
	ans.Stage = k.stage
	rows, err := l.cache.top(s.cfg.Leaderboard, k, since)
	if err != nil {
		s.log.Warn("leaderboard: cannot read the scores", "mode", k.mode, "stage", k.stage, "period", k.period, "err", err)
		ans.Status = wire.ScoresUnavailable
		return ans
	}
	n := int(req.Count)
	if n == 0 || n > wire.MaxScoreRows {
		n = wire.MaxScoreRows
	}
	for _, e := range rows[:min(n, len(rows))] {
		ans.Rows[ans.Count] = wire.ScoreRow{Score: e.Score, Players: uint8(min(e.Players, 255)),
			Finished: uint32(max(e.FinishedAt.Unix(), 0)), Name: e.Name}
		ans.Count++
	}
	return ans
}
