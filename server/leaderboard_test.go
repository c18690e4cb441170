package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server/store"
)

// The leaderboard of PROTOCOL.md 7.16, over real sockets on 127.0.0.1
// with a real SQLite store: the rows, the periods, the default stage, the
// rate limit, the cache that keeps the database quiet, and the refusals.

// scoresClient is a v2 session that asks for leaderboards.
type scoresClient struct {
	*tclient2
	fr wire.FrameReader
}

// scoresLogin logs in name with v2, for the lobby when lobby.
func scoresLogin(t testing.TB, s *Server, name string, lobby bool) *scoresClient {
	t.Helper()
	m := &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: name, Revision: wire.Revision, Mode: wire.ModeStage}
	if lobby {
		m.Flags = wire.LoginLobby
	}
	c := connectWith2(t, s, name, wire2.AppendMessage(nil, m))
	if c.acc.Revision != wire.Revision {
		t.Fatalf("%s: session of revision %d, want %d", name, c.acc.Revision, wire.Revision)
	}
	return &scoresClient{tclient2: c, fr: wire.FrameReader{R: c.tcp}}
}

func (c *scoresClient) ask(mode, period, count uint8, stage string) {
	c.t.Helper()
	writeAll(c.t, c.tcp, wire.AppendScores(nil, &wire.Scores{Type: wire.MsgScoresRequest, Mode: mode, Period: period, Count: count, Stage: stage}))
}

// answer returns the next Scores, skipping other messages.
func (c *scoresClient) answer() wire.Scores {
	c.t.Helper()
	c.tcp.SetReadDeadline(time.Now().Add(wait))
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			c.t.Fatalf("%s: reading TCP: %v", c.name, err)
		}
		if wire.MsgType(f[0]) != wire.MsgScores {
			continue
		}
		var s wire.Scores
		if err := wire.ParseScores(f, &s); err != nil {
			c.t.Fatalf("%s: % X: %v", c.name, f, err)
		}
		return s
	}
}

// countingBoard counts the reads of a leaderboard.
type countingBoard struct {
	Leaderboard
	tops atomic.Int64
	fail bool
}

func (b *countingBoard) Top(ctx context.Context, mode, stage string, since time.Time, n int) ([]store.Entry, error) {
	b.tops.Add(1)
	if b.fail {
		return nil, errors.New("the disk is on fire")
	}
	return b.Leaderboard.Top(ctx, mode, stage, since, n)
}

// scoresServer starts a server whose leaderboard has scores of this week
// and of a month ago, in Classic and in the server's stage.
func scoresServer(t *testing.T) (*Server, *countingBoard, string) {
	db, err := store.Open(filepath.Join(t.TempDir(), "scores.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := roomConfig()
	stage := cfg.withDefaults().Stage.Name
	now := time.Now().UTC()
	old := store.WeekStart(now).Add(-30 * 24 * time.Hour)
	scores := []store.Score{
		{Name: "Ripley", Mode: store.ModeStage, Stage: stage, Score: 48200, Players: 3, FinishedAt: now},
		{Name: "Hicks", Mode: store.ModeStage, Stage: stage, Score: 31050, Players: 2, FinishedAt: now},
		{Name: "Apone", Mode: store.ModeStage, Stage: stage, Score: 90000, Players: 1, FinishedAt: old},
		{Name: "Bishop", Mode: store.ModeStage, Stage: "other", Score: 99999, Players: 1, FinishedAt: now},
		{Name: "Vasquez", Mode: store.ModeClassic, Score: 1200, Players: 4, FinishedAt: now},
	}
	if err := db.Record(context.Background(), scores); err != nil {
		t.Fatal(err)
	}
	board := &countingBoard{Leaderboard: db}
	cfg.Leaderboard = board
	return startServer(t, cfg), board, stage
}

func rowNames(s *wire.Scores) []string {
	var names []string
	for _, r := range s.Rows[:s.Count] {
		names = append(names, r.Name)
	}
	return names
}

func TestLeaderboardScores(t *testing.T) {
	t.Parallel()
	s, _, stage := scoresServer(t)
	for _, lobby := range []bool{true, false} { // in the lobby, and while playing
		for i, q := range []struct {
			mode, period, count uint8
			stage               string
			want                []string
			wantStage           string
		}{
			{wire.ModeStage, wire.PeriodAllTime, 0, "", []string{"Apone", "Ripley", "Hicks"}, stage},
			{wire.ModeStage, wire.PeriodWeek, 0, "", []string{"Ripley", "Hicks"}, stage},
			{wire.ModeStage, wire.PeriodAllTime, 1, "", []string{"Apone"}, stage},
			{wire.ModeStage, wire.PeriodWeek, 200, "other", []string{"Bishop"}, "other"},
			{wire.ModeClassic, wire.PeriodWeek, 3, "ignored", []string{"Vasquez"}, ""},
			{wire.ModeStage, wire.PeriodAllTime, 0, "nobody played it", nil, "nobody played it"},
		} {
			c := scoresLogin(t, s, fmt.Sprintf("Newt%d", i), lobby) // one each: the rate limit
			c.ask(q.mode, q.period, q.count, q.stage)
			a := c.answer()
			if a.Status != wire.ScoresOK || a.Mode != q.mode || a.Period != q.period || a.Stage != q.wantStage ||
				!slices.Equal(rowNames(&a), q.want) {
				t.Errorf("lobby %v, %+v: got %+v %v", lobby, q, a, rowNames(&a))
			}
			c.tcp.Close()
		}
	}
	// A row says what the store says.
	c := scoresLogin(t, s, "Gorman", true)
	c.ask(wire.ModeStage, wire.PeriodWeek, 1, "")
	a := c.answer()
	if r := a.Rows[0]; r.Score != 48200 || r.Players != 3 || time.Since(time.Unix(int64(r.Finished), 0)) > time.Minute {
		t.Errorf("row %+v", r)
	}
}

// expectKickedFrames reads c's frames until Logout(Kicked), the answer
// to the malformed frame f.
func expectKickedFrames(t *testing.T, c net.Conn, fr *wire.FrameReader, f []byte) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(wait))
	for {
		b, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("% X: %v before the Logout", f, err)
		}
		if m, err := wire2.ParseMessage(b); err == nil && m.Type == wire.MsgLogout {
			if m.Reason != wire.LogoutKicked {
				t.Fatalf("% X: Logout %d, want Kicked", f, m.Reason)
			}
			return
		}
	}
}

// The sixth request within 5 s is refused RateLimited with its wait;
// refused ones do not count.
func TestLeaderboardRateLimit(t *testing.T) {
	t.Parallel()
	s, _, _ := scoresServer(t)
	c := scoresLogin(t, s, "Hudson", true)
	for i := range scoresLimit {
		c.ask(wire.ModeClassic, wire.PeriodAllTime, 0, "")
		if a := c.answer(); a.Status != wire.ScoresOK {
			t.Fatalf("request %d: %s", i+1, wire.ScoresStatus(a.Status))
		}
	}
	for range 3 {
		c.ask(wire.ModeStage, wire.PeriodWeek, 0, wire.CampaignBoard)
		a := c.answer()
		if a.Status != wire.ScoresRateLimited || a.Wait == 0 || a.Wait > 5000 || a.Count != 0 ||
			a.Mode != wire.ModeStage || a.Period != wire.PeriodWeek || a.Stage != "" {
			t.Fatalf("past the limit: %+v", a)
		}
	}
	// Another session has its own limit.
	d := scoresLogin(t, s, "Drake", true)
	d.ask(wire.ModeClassic, wire.PeriodAllTime, 0, "")
	if a := d.answer(); a.Status != wire.ScoresOK {
		t.Fatalf("another session: %s", wire.ScoresStatus(a.Status))
	}
}

// However many sessions ask, the database is read once per leaderboard
// per scoresFresh; a recording makes the next answer read it again.
func TestLeaderboardReadsCached(t *testing.T) {
	t.Parallel()
	s, board, _ := scoresServer(t)
	var cs []*scoresClient
	for _, name := range []string{"Crowe", "Dietrich", "Ferro", "Frost", "Spunkmeyer", "Wierzbowski"} {
		cs = append(cs, scoresLogin(t, s, name, true))
	}
	start := time.Now()
	for _, c := range cs {
		c.ask(wire.ModeStage, wire.PeriodWeek, 0, "")
		c.ask(wire.ModeStage, wire.PeriodWeek, 2, "")
	}
	for _, c := range cs {
		for range 2 {
			if a := c.answer(); a.Status != wire.ScoresOK || a.Count == 0 {
				t.Fatalf("%s: %+v", c.name, a)
			}
		}
	}
	if n := board.tops.Load(); n != 1 && time.Since(start) < scoresFresh {
		t.Fatalf("%d reads of one leaderboard for 12 requests", n)
	}
	// A game's scores are in every answer after they were recorded.
	if err := board.Record(context.Background(), []store.Score{{Name: "Bishop", Mode: store.ModeStage,
		Stage: s.cfg.Stage.Name, Score: 50000, Players: 1, FinishedAt: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	s.lb.cache.recorded() // as recordScores does before the GameOver goes out
	cs[0].ask(wire.ModeStage, wire.PeriodWeek, 1, "")
	if a := cs[0].answer(); a.Count != 1 || a.Rows[0].Name != "Bishop" {
		t.Fatalf("after a recording: %v", rowNames(&a))
	}
}

// Without a store the answer is NoLeaderboard; a bad mode or period is
// Invalid; a database that fails is Unavailable.
func TestLeaderboardRefusals(t *testing.T) {
	t.Parallel()
	s := startServer(t, roomConfig())
	c := scoresLogin(t, s, "Newt", true)
	c.ask(wire.ModeStage, wire.PeriodAllTime, 0, "1")
	if a := c.answer(); a.Status != wire.ScoresNoLeaderboard || a.Count != 0 || a.Stage != "" {
		t.Errorf("without a store: %+v", a)
	}
	for _, q := range [][2]uint8{{wire.ModeAny, 0}, {3, 0}, {wire.ModeClassic, 2}} {
		c.ask(q[0], q[1], 0, "1")
		if a := c.answer(); a.Status != wire.ScoresInvalid || a.Mode != q[0] || a.Period != q[1] || a.Stage != "" {
			t.Errorf("mode %d period %d: %+v", q[0], q[1], a)
		}
	}
	cfg := roomConfig()
	cfg.Leaderboard = &countingBoard{fail: true}
	f := startServer(t, cfg)
	c = scoresLogin(t, f, "Newt", true)
	start := time.Now()
	for range 3 {
		c.ask(wire.ModeStage, wire.PeriodAllTime, 0, "")
		if a := c.answer(); a.Status != wire.ScoresUnavailable || a.Count != 0 || a.Stage != s.cfg.Stage.Name {
			t.Errorf("a failing database: %+v", a)
		}
	}
	// A failing database is not asked more often than a working one.
	if n := cfg.Leaderboard.(*countingBoard).tops.Load(); n != 1 && time.Since(start) < scoresFresh {
		t.Errorf("%d reads of a failing database for 3 requests", n)
	}
}

// A malformed request, or a Scores from a client, ends the session with
// Logout(Kicked).
func TestLeaderboardMessagesOfBadClients(t *testing.T) {
	t.Parallel()
	s, _, _ := scoresServer(t)
	for _, f := range [][]byte{
		wire.AppendScores(nil, &wire.Scores{Type: wire.MsgScores, Mode: wire.ModeClassic}),
		{4, 0, byte(wire.MsgScoresRequest), 1, 0, 0},             // no stage
		{7, 0, byte(wire.MsgScoresRequest), 2, 0, 0, 1, 0, 0xFF}, // not UTF-8
	} {
		c := scoresLogin(t, s, "Bad", true)
		writeAll(t, c.tcp, f)
		expectKickedFrames(t, c.tcp, &c.fr, f)
	}
}

// BenchmarkScoresAnswer measures the answer to a ScoresRequest (this
// week's top 10 of a Stage leaderboard of 10 000 scores in SQLite): from
// a fresh read (cached), and reading the database each time (stale: a
// recording came in between).
func BenchmarkScoresAnswer(b *testing.B) {
	db, err := store.Open(filepath.Join(b.TempDir(), "scores.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	cfg := roomConfig()
	cfg.Leaderboard = db
	cfg.Logger = slog.New(slog.DiscardHandler)
	s, err := New(cfg.withDefaults())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Now().UTC()
	batch := make([]store.Score, 0, store.MaxBatch)
	for i := range 10000 {
		batch = append(batch, store.Score{Name: fmt.Sprintf("Pilot%d", i), Mode: store.ModeStage, Stage: s.cfg.Stage.Name,
			Score: uint32(i * 37 % 100000), Players: 1 + i%4, FinishedAt: now.Add(-time.Duration(i) * time.Minute)})
		if len(batch) == cap(batch) {
			if err := db.Record(context.Background(), batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	req := wire.Scores{Type: wire.MsgScoresRequest, Mode: wire.ModeStage, Period: wire.PeriodWeek}
	for _, stale := range []bool{false, true} {
		name := "cached"
		if stale {
			name = "read"
		}
		b.Run(name, func(b *testing.B) {
			var sc scoresSession
			b.ReportAllocs()
			for b.Loop() {
				sc.sent = [scoresLimit]time.Time{} // past the rate limit
				if stale {
					s.lb.cache.recorded()
				}
				if a := s.lb.answerScores(&sc, &req, now); a.Status != wire.ScoresOK || a.Count != wire.MaxScoreRows {
					b.Fatalf("%+v", a)
				}
				sc.buf = wire.AppendScores(sc.buf[:0], &sc.ans)
			}
		})
	}
}

// racingBoard records a score while its first read is under way, after
// reading: as a game that ends during a read.
type racingBoard struct {
	countingBoard
	srv  *Server
	once bool
}

func (b *racingBoard) Top(ctx context.Context, mode, stage string, since time.Time, n int) ([]store.Entry, error) {
	rows, err := b.countingBoard.Top(ctx, mode, stage, since, n)
	if !b.once {
		b.once = true
		if err := b.Record(ctx, []store.Score{{Name: "Bishop", Mode: store.ModeClassic, Score: 99999, Players: 1,
			FinishedAt: time.Now()}}); err != nil {
			return nil, err
		}
		b.srv.lb.cache.recorded()
	}
	return rows, err
}

// A score recorded while a read was under way is in the answer: the read
// is made again.
func TestLeaderboardReadRacesARecording(t *testing.T) {
	t.Parallel()
	db, err := store.Open(filepath.Join(t.TempDir(), "scores.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	board := &racingBoard{countingBoard: countingBoard{Leaderboard: db}}
	cfg := roomConfig()
	cfg.Leaderboard = board
	s := startServer(t, cfg)
	board.srv = s
	c := scoresLogin(t, s, "Newt", true)
	c.ask(wire.ModeClassic, wire.PeriodAllTime, 0, "")
	if a := c.answer(); a.Count != 1 || a.Rows[0].Name != "Bishop" || board.tops.Load() != 2 {
		t.Fatalf("answer %v after %d reads", rowNames(&a), board.tops.Load())
	}
}
