package lobby_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testrules"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/server"
	"rtype/server/store"
)

// A room plays to its game over on a server with a leaderboard; the
// lobby then asks for it (7.16) and sees its score, all time and this
// week; after a server restart on the same database, it is still there.
func TestLobbyLeaderboard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scores.db")
	start := func() *server.Server {
		db, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return testserver.Start(t, server.Config{LoginLimit: 1 << 20, MaxSessionsPerIP: 1 << 20, Mode: wire.ModeClassic,
			GameOverLinger: 300 * time.Millisecond, Rules: testrules.QuickDeath(), Leaderboard: db,
			Bots: func(mode uint8, seed uint64) server.Bots { return bot.NewRoomBots(mode, seed) }})
	}
	s := start()
	host := dial(t, s, "Ripley")
	if !host.HasScores() {
		t.Fatal("a v2 server's session has no leaderboard")
	}
	host.AskScores(wire.ModeClassic, wire.PeriodAllTime, 0, "")
	until(t, host, "an empty leaderboard", func() bool { sc, ok := host.Scores(); return ok && sc.Status == wire.ScoresOK })
	host.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyHard, MaxPlayers: 1})
	until(t, host, "the room", inState(host, wire.RoomLobby, 1))
	host.Ready(true)
	until(t, host, "Playing", inState(host, wire.RoomPlaying, 1))
	c, err := host.Play(context.Background(), client.Config{Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(testutil.Wait):
		t.Fatal("the game did not end")
	}
	over, ok := c.GameOver()
	if !ok {
		t.Fatal("no GameOver")
	}
	until(t, host, "Over", inState(host, wire.RoomOver, 1))
	want := over[0].Score
	see := func(l *lobby.Lobby, period uint8) {
		t.Helper()
		l.AskScores(wire.ModeClassic, period, 5, "")
		until(t, l, "the score", func() bool {
			sc, ok := l.Scores()
			return ok && sc.Period == period && sc.Count == 1 && sc.Rows[0].Name == "Ripley" && sc.Rows[0].Score == want
		})
	}
	see(host, wire.PeriodAllTime)
	see(host, wire.PeriodWeek)
	host.Close()
	s.Close()

	s = start()
	see(dial(t, s, "Hicks"), wire.PeriodAllTime)
}
