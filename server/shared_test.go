package server

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/testutil/pgtest"
	"rtype/net/wire"
	"rtype/server/store"
)

// A ban made on one server reaches another that shares its database
// (here one SQLite file, as two servers of a machine) within StoreCheck,
// without a restart: the banned player is kicked there and refused; the
// unban reaches it the same way.
func TestBanPropagatesThroughTheSharedDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "shared.db")
	open := func() *store.Store {
		st, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	srv := func(st *store.Store) *Server {
		cfg := testConfig()
		cfg.Leaderboard, cfg.Bans, cfg.StoreCheck = st, st, 50*time.Millisecond
		return startServer(t, cfg)
	}
	a, b := srv(open()), srv(open())
	hicks := connect(t, b, "Hicks")

	ban, _, err := a.Ban(context.Background(), store.Ban{Name: "hicks", Until: time.Now().Add(time.Hour), Reason: "griefing"})
	if err != nil {
		t.Fatal(err)
	}
	expectLogout(t, hicks.tcp, wire.LogoutKicked)
	expectRejected(t, b.Addr(), "Hicks", wire.RejectRateLimited)
	if bs := b.Bans(); len(bs) != 1 || bs[0].ID != ban.ID {
		t.Fatalf("B's bans %+v, want A's %+v", bs, ban)
	}

	if err := a.Unban(context.Background(), ban.ID); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, wait, "the unban on B", func() bool { return len(b.Bans()) == 0 })
	connect(t, b, "Hicks")
}

// The database killed in the middle of a game: play goes on to its
// GameOver, the server is not ready and queues the score; once the
// database is back the score is written and the server ready again.
func TestDatabaseLostMidGame(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pg, err := pgtest.Start(ctx)
	if errors.Is(err, pgtest.ErrNoPostgres) && !testutil.OnCI() {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	st, err := store.Open(pg.NewSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := testConfig()
	cfg.MaxGames = 1
	cfg.Rules = quickDeath()
	cfg.Leaderboard, cfg.Bans, cfg.StoreCheck = st, st, 50*time.Millisecond
	s := startServer(t, cfg)
	testutil.WaitFor(t, wait, "ready", s.Ready)
	a := join(t, s, "Ripley")
	a.waitSnaps(3)

	pg.Kill()
	if !a.pumpUntil(wait, func() bool { return !s.Ready() }) {
		t.Fatal("the server is still ready with its database down")
	}
	ev := a.events[a.waitEvent("GameOver", isGameOver)]
	testutil.WaitFor(t, wait, "the score queued", func() bool { return s.StoreStats().QueuedScores == 1 })

	if err := pg.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, wait, "the queue written, the server ready", func() bool {
		return s.StoreStats().QueuedScores == 0 && s.Ready()
	})
	top, err := st.Top(ctx, store.ModeClassic, "", time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != 1 || top[0].Name != "Ripley" || top[0].Score != ev.Scores[0].Score {
		t.Fatalf("leaderboard after the database came back: %+v, GameOver %s", top, eventString(&ev))
	}
}
