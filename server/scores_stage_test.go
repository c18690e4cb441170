package server

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/internal/testutil/pgtest"
	"rtype/net/wire"
	"rtype/server/store"
	"rtype/sim"
	"rtype/sim/stage"
)

// The stage and campaign boards of PROTOCOL.md 7.16: a Stage game
// records each stage's points on its board when the stage ends, and, when
// it started at the campaign's first stage, each player's whole score on
// the campaign board at its game over.

// shortStage returns a stage named name whose timeline takes seconds:
// a file of two slaves, 100 points each, on player 0's line (y 180) at
// once, three more at 2.5 s, then at 3.5 s an armoured foe that no shot
// stops rams the ship; its boss waits at 50 s. A ship that taps Fire
// scores 200, then 500, and dies (with Lives 1: the game over) about 6 s
// after it joined.
func shortStage(t testing.TB, name string) *stage.Stage {
	t.Helper()
	src := strings.ReplaceAll(`rtype-stage 1
name NAME
title SHORT NAME
scroll 60px/s
length 1:00
at 0s wave enemy=slave formation=line count=2 spacing=60 y=180 speed=400 score=100 per-player.count=+0
at 2.5s wave enemy=slave formation=line count=3 spacing=60 y=180 speed=400 score=100 per-player.count=+0
at 3.5s wave enemy=armored y=180 speed=600 hp=100000 score=0
at 0:50 boss
`, "NAME", name)
	st, err := stage.Parse(name+".stage", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// sqliteBoard opens an SQLite leaderboard for the test.
func sqliteBoard(t *testing.T) *store.Store {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "scores.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// postgresBoard opens a PostgreSQL leaderboard on a server of its own
// (skipped where there is none, but on CI).
func postgresBoard(t *testing.T) *store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pg, err := pgtest.Start(ctx)
	if errors.Is(err, pgtest.ErrNoPostgres) && !testutil.OnCI() {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Stop() })
	db, err := store.Open(pg.NewSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// boardServer starts a Stage server on the leaderboard db whose campaign
// is two short stages, t1 then t2, starting at start ("t1" or "t2"), with
// one life.
func boardServer(t *testing.T, start string, db *store.Store) (*Server, *store.Store, []*stage.Stage) {
	t.Helper()
	camp := []*stage.Stage{shortStage(t, "t1"), shortStage(t, "t2")}
	cfg := testConfig()
	cfg.MaxGames = 1
	cfg.Rules = quickDeath()
	cfg.Leaderboard = db
	cfg.Mode = wire.ModeStage
	cfg.Campaign = camp
	cfg.Stage = camp[0]
	if start == "t2" {
		cfg.Stage = camp[1]
	}
	return startServer(t, cfg), db, camp
}

// tapUntil plays c, tapping Fire (pressed one input step, released the
// next), until cond holds; it fails the test after wait.
func tapUntil(t *testing.T, c *tclient2, what string, cond func() bool) {
	t.Helper()
	if !c.pumpUntil(wait, func() bool {
		c.actions = wire.ActionFire * uint8(c.step%2)
		return cond()
	}) {
		t.Fatalf("%s: not within %v", what, wait)
	}
}

// stageEventsNow hands evs to c's game as if its world had emitted them
// this tick (the server's path: the leaderboard, then the sessions), and
// returns c's score then.
func stageEventsNow(s *Server, c *tclient2, evs ...wire.Event) uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.sessions[c.acc.Session].game
	for i := range evs {
		evs[i].Tick = g.world.Tick()
	}
	g.events = s.lb.holdForScores(g, evs)
	s.deliver(g, g.events)
	return g.world.Score(c.acc.Player)
}

// scoreOf returns c's score in its world, under the lock.
func scoreOf(s *Server, c *tclient2) uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[c.acc.Session].game.world.Score(c.acc.Player)
}

// topOf returns the all-time rows of a Stage board as "name score".
func topOf(t *testing.T, db *store.Store, board string) []string {
	t.Helper()
	top, err := db.Top(context.Background(), store.ModeStage, board, time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, e := range top {
		rows = append(rows, e.Name+" "+itoa(e.Score))
	}
	return rows
}

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

// gameOverScore plays c, tapping Fire, to its GameOver and returns its
// score in it.
func gameOverScore(t *testing.T, c *tclient2) uint32 {
	t.Helper()
	over := -1
	tapUntil(t, c, "GameOver", func() bool {
		for i := range c.events {
			if c.events[i].Type == wire.EventGameOver {
				over = i
				return true
			}
		}
		return false
	})
	ev := c.events[over]
	for _, sc := range ev.Scores[:ev.NumScores] {
		if sc.Player == c.acc.Player {
			return sc.Score
		}
	}
	t.Fatalf("GameOver %+v without %s's score", ev, c.name)
	return 0
}

// A game of the campaign (t1, then t2) that clears t1 and is over in t2:
// t1's board has the points made in t1, t2's those made in t2, the
// campaign board the whole score, over real sockets with the SQLite
// store; each request for a board gets its rows, "" the server's first
// stage's. The clear is the world's StageClear and the next stage's File
// and Intro, handed to the server as if the world had emitted them (a
// real boss fight takes a minute: TestStageMarksOfARealCampaign has the
// world's own). In SQLite and in PostgreSQL.
func TestStageAndCampaignBoards(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testStageAndCampaignBoards(t, sqliteBoard(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		testStageAndCampaignBoards(t, postgresBoard(t))
	})
}

func testStageAndCampaignBoards(t *testing.T, board *store.Store) {
	s, db, camp := boardServer(t, "t1", board)
	a := join2Mode(t, s, "Ripley", wire.ModeStage)
	tapUntil(t, a, "t1's first points", func() bool { return scoreOf(s, a) >= 100 })
	inT1 := stageEventsNow(s, a,
		wire.Event{Type: wire.EventStage, What: wire.StageClear, Value: 1},
		wire.Event{Type: wire.EventStage, What: wire.StageFile, Value: camp[1].FileSum(), Name: camp[1].Name},
		wire.Event{Type: wire.EventStage, What: wire.StageIntro, Value: 1, Name: camp[1].Title})
	total := gameOverScore(t, a)
	if inT1 == 0 || total <= inT1 {
		t.Fatalf("scores %d in t1, %d in all: want points in both stages", inT1, total)
	}
	for board, want := range map[string][]string{
		"t1":               {"Ripley " + itoa(inT1)},
		"t2":               {"Ripley " + itoa(total-inT1)},
		wire.CampaignBoard: {"Ripley " + itoa(total)},
		"t1 loop 2":        nil,
	} {
		if got := topOf(t, db, board); !slices.Equal(got, want) {
			t.Errorf("board %q: %q, want %q", board, got, want)
		}
	}

	c := scoresLogin(t, s, "Hicks", true)
	for _, q := range []struct {
		ask, board string
		score      uint32
	}{
		{"t1", "t1", inT1},
		{"t2", "t2", total - inT1},
		{wire.CampaignBoard, wire.CampaignBoard, total},
		{"", "t1", inT1}, // the server's first stage
	} {
		c.ask(wire.ModeStage, wire.PeriodAllTime, 0, q.ask)
		ans := c.answer()
		if ans.Status != wire.ScoresOK || ans.Stage != q.board || ans.Count != 1 ||
			ans.Rows[0].Name != "Ripley" || ans.Rows[0].Score != q.score || ans.Rows[0].Players != 1 {
			t.Errorf("asked %q: %+v, want Ripley %d on %q", q.ask, ans, q.score, q.board)
		}
	}
}

// A game that started at the campaign's second stage is on that stage's
// board, not on the campaign's.
func TestNoCampaignBoardFromElsewhere(t *testing.T) {
	t.Parallel()
	s, db, _ := boardServer(t, "t2", sqliteBoard(t))
	a := join2Mode(t, s, "Vasquez", wire.ModeStage)
	total := gameOverScore(t, a)
	if total == 0 {
		t.Fatal("no points")
	}
	if got, want := topOf(t, db, "t2"), []string{"Vasquez " + itoa(total)}; !slices.Equal(got, want) {
		t.Errorf("t2's board: %q, want %q", got, want)
	}
	for _, board := range []string{"t1", wire.CampaignBoard} {
		if got := topOf(t, db, board); len(got) != 0 {
			t.Errorf("board %q: %q, want none", board, got)
		}
	}
	c := scoresLogin(t, s, "Hudson", true)
	c.ask(wire.ModeStage, wire.PeriodAllTime, 0, wire.CampaignBoard)
	if ans := c.answer(); ans.Status != wire.ScoresOK || ans.Count != 0 || ans.Stage != wire.CampaignBoard {
		t.Errorf("the campaign board: %+v, want no row", ans)
	}
}

// stageMarks follows a real world's campaign: four bots play two short
// stages (their bosses beaten for real) into the second loop. Each clear
// ends its stage's board with the points made since its Intro, the next
// loop's stage has a board of its own ("a loop 2"), and the game is one
// of the campaign.
func TestStageMarksOfARealCampaign(t *testing.T) {
	t.Parallel()
	camp := make([]*stage.Stage, 2)
	for i, name := range []string{"a", "b"} {
		st, err := stage.Parse(name+".stage", []byte("rtype-stage 1\nname "+name+"\ntitle "+name+
			"\nscroll 60px/s\nlength 0:10\nat 0:01 wave enemy=slave formation=line count=4 spacing=90 y=360 speed=120\nat 0:03 boss\n"))
		if err != nil {
			t.Fatal(err)
		}
		camp[i] = st
	}
	r := sim.DefaultRules()
	r.Lives = 255
	w, err := sim.NewStage(r, camp[0], 3, sim.StageOptions{Campaign: camp})
	if err != nil {
		t.Fatal(err)
	}
	rb := bot.NewRoomBots(wire.ModeStage, 3)
	for p := range uint8(wire.MaxPlayers) {
		w.AddPlayer(p, "bot")
		rb.Add(p)
	}
	total := func() (n uint32) {
		for p := range uint8(wire.MaxPlayers) {
			n += w.Score(p)
		}
		return n
	}
	var m stageMarks
	type ended struct {
		board  string
		points uint32 // all players'
		at     uint32 // all players' score then
	}
	var ends []ended
	var intros []string
	var atIntro []uint32
	evs := w.TakeEvents()
	rb.Note(evs)
	for w.Tick() < 30000 && len(intros) < 3 {
		var points [wire.MaxPlayers]uint32
		if board := m.observe(evs, w.Score, camp[0], &points); board != "" {
			var sum uint32
			for _, p := range points {
				sum += p
			}
			ends = append(ends, ended{board, sum, total()})
		}
		for _, ev := range evs {
			if ev.Type == wire.EventStage && ev.What == wire.StageIntro {
				intros = append(intros, m.board)
				atIntro = append(atIntro, total())
			}
		}
		rb.Drive(w)
		w.Step()
		evs = w.TakeEvents()
		rb.Note(evs)
	}
	if want := []string{"a", "b", "a loop 2"}; !slices.Equal(intros, want) {
		t.Fatalf("boards of the Intros %q, want %q (tick %d)", intros, want, w.Tick())
	}
	if len(ends) != 2 || ends[0].board != "a" || ends[1].board != "b" {
		t.Fatalf("stages ended %+v, want a then b", ends)
	}
	for i, e := range ends {
		if e.points != e.at-atIntro[i] || e.points == 0 {
			t.Errorf("stage %s: %d points, want the %d made since its Intro", e.board, e.points, e.at-atIntro[i])
		}
	}
	if !m.campaign || !m.playing || m.board != "a loop 2" {
		t.Errorf("marks %+v: want a campaign game playing a's second loop", m)
	}
	if got := m.points(0, w.Score(0)); got != w.Score(0)-m.at[0] {
		t.Errorf("points in a loop 2: %d", got)
	}
}

// The boards' names cannot be a stage's: the stage files' parser refuses
// the campaign's and a loop's (a stage named "1 loop 2" would share the
// second loop's board of stage 1).
func TestBoardNamesAreNoStageNames(t *testing.T) {
	if got := wire.StageBoard("1", 1); got != "1" {
		t.Errorf("loop 1's board %q, want the stage's name", got)
	}
	if got := wire.StageBoard("2", 3); got != "2 loop 3" {
		t.Errorf("loop 3's board %q", got)
	}
	for _, name := range []string{wire.CampaignBoard, wire.StageBoard("1", 2)} {
		src := "rtype-stage 1\nname " + name + "\ntitle X\nscroll 60px/s\nlength 0:10\nat 0:03 boss\n"
		if _, err := stage.Parse("x.stage", []byte(src)); err == nil {
			t.Errorf("a stage named %q parsed", name)
		}
		if _, err := stage.Builtin(name); err == nil {
			t.Errorf("a built-in stage %q", name)
		}
	}
	if len(wire.StageBoard(strings.Repeat("z", stage.MaxNameLen), 255)) > wire.MaxScoreStage {
		t.Errorf("a loop's board of the longest stage name is over %d bytes", wire.MaxScoreStage)
	}
}

// Following the stages for the leaderboard costs a Stage game's tick no
// allocation: only a stage's end allocates (its rows).
func TestTickAllocsStageBoards(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "scores.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	cfg.Leaderboard = db
	s := startServer(t, cfg)
	c := join2Mode(t, s, "Ripley", wire.ModeStage)
	c.pumpUntil(wait, func() bool { return len(c.snaps) >= 3 })
	if n := tickAllocs(s); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
	var m stageMarks
	evs := []wire.Event{
		{Type: wire.EventStage, What: wire.StageFile, Value: 1, Name: "1"},
		{Type: wire.EventStage, What: wire.StageIntro, Value: 1, Name: "STAGE 1"},
		{Type: wire.EventPlayerJoined, Player: 2, Name: "Hicks"},
		{Type: wire.EventStage, What: wire.StageMarker, Value: 3, Name: "boss"},
	}
	score := func(p uint8) uint32 { return uint32(p) * 100 }
	var points [wire.MaxPlayers]uint32
	if n := testing.AllocsPerRun(100, func() {
		if m.observe(evs, score, nil, &points) != "" {
			t.Fatal("a stage ended")
		}
	}); n != 0 || !m.playing || m.board != "1" {
		t.Fatalf("%v allocations per tick's events; marks %+v", n, m)
	}
}

// A room whose settings start its Stage games at the campaign's second
// stage (7.14) puts them on that stage's board, not on the campaign's.
func TestRoomAtStageTwoNotOnTheCampaign(t *testing.T) {
	t.Parallel()
	s, db, camp := boardServer(t, "t1", sqliteBoard(t))
	a := lobbyLogin(t, s, "Ferro", wire.ModeStage)
	st := wire.RoomSettings{Mode: wire.ModeStage, Difficulty: wire.DifficultyNormal, MaxPlayers: 1, Stage: 2}
	a.room(wire.Room{Type: wire.MsgRoomCreate, Settings: st})
	if r := a.expect(wire.MsgRoomState); r.Settings != st {
		t.Fatalf("created %+v, want %+v", r.Settings, st)
	}
	a.room(wire.Room{Type: wire.MsgRoomStart})
	a.state("Playing", inState(wire.RoomPlaying))
	a.acc.Player = a.bind().Player
	total := gameOverScore(t, a.tclient2)
	file, ok := firstFile(a.events)
	if !ok || file.Name != camp[1].Name {
		t.Fatalf("the game's first File %+v, want %s's", file, camp[1].Name)
	}
	if got, want := topOf(t, db, "t2"), []string{"Ferro " + itoa(total)}; total == 0 || !slices.Equal(got, want) {
		t.Errorf("t2's board: %q, want %q", got, want)
	}
	if got := topOf(t, db, wire.CampaignBoard); len(got) != 0 {
		t.Errorf("the campaign board: %q, want none", got)
	}
}
