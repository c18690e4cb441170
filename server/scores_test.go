package server

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/server/store"
)

// gateBoard is a leaderboard whose Record waits for the test: it shows
// what the server does while a commit takes its time, or fails.
type gateBoard struct {
	called  chan []store.Score
	release chan error
}

func newGateBoard() *gateBoard {
	return &gateBoard{called: make(chan []store.Score, 4), release: make(chan error, 4)}
}

func (b *gateBoard) Record(ctx context.Context, scores []store.Score) error {
	b.called <- slices.Clone(scores)
	select {
	case err := <-b.release:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *gateBoard) Top(context.Context, string, string, time.Time, int) ([]store.Entry, error) {
	return nil, nil
}

func (b *gateBoard) Boards(context.Context) ([]store.Board, error) { return nil, nil }

func isGameOver(ev *wire.Event) bool { return ev.Type == wire.EventGameOver }

// A score is never lost once GameOver was sent: the GameOver waits for the
// leaderboard's Record to return, while the tick loop runs on (snapshots
// keep coming); then it lists the scores recorded, and the Logout(GameOver)
// follows. When Record fails the GameOver goes out all the same.
func TestGameOverWaitsForTheLeaderboard(t *testing.T) {
	for _, fail := range []bool{false, true} {
		name := "committed"
		if fail {
			name = "failed"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			board := newGateBoard()
			cfg := testConfig()
			cfg.MaxGames = 1
			cfg.Rules = quickDeath()
			cfg.GameOverLinger = 10 * time.Second // the acknowledgement ends it
			cfg.Leaderboard = board
			s := startServer(t, cfg)
			a := join(t, s, "Alpha")
			b := join(t, s, "Bravo")
			var got []store.Score
			recording := func() bool {
				select {
				case got = <-board.called:
					return true
				default:
					return false
				}
			}
			if !a.pumpUntil(wait, recording) {
				t.Fatalf("the leaderboard was not asked to record within %v; events %v", wait, a.eventList())
			}
			if len(got) != 2 || got[0].Name != "Alpha" || got[1].Name != "Bravo" {
				t.Fatalf("recording %+v, want Alpha's and Bravo's scores", got)
			}
			for _, sc := range got {
				if sc.Mode != store.ModeClassic || sc.Stage != "" || sc.Players != 2 || sc.FinishedAt.IsZero() {
					t.Errorf("score %+v: want classic, no stage, 2 players, a time", sc)
				}
			}
			// The commit takes its time: the game ticks on, no GameOver.
			tick := a.lastSnap().tick
			a.waitSnaps(10)
			if a.lastSnap().tick <= tick {
				t.Fatalf("snapshot tick %d after %d: the tick loop waited for the leaderboard", a.lastSnap().tick, tick)
			}
			b.waitSnaps(3)
			for _, c := range []*tclient{a, b} {
				if i := c.findEvent(0, isGameOver); i >= 0 {
					t.Fatalf("%s got GameOver before the scores were recorded", c.name)
				}
			}
			if fail {
				board.release <- errors.New("disk full")
			} else {
				board.release <- nil
			}
			for _, c := range []*tclient{a, b} {
				ev := c.events[c.waitEvent("GameOver", isGameOver)]
				if ev.NumScores != 2 {
					t.Fatalf("%s: %s", c.name, eventString(&ev))
				}
				for i, sc := range ev.Scores[:2] {
					if sc.Score != got[i].Score {
						t.Errorf("%s: GameOver %s, recorded %+v", c.name, eventString(&ev), got)
					}
				}
			}
			expectGameOverLogouts(t, a, b)
		})
	}
}

// With the SQLite leaderboard: once a client has its GameOver, the score
// is in the database.
func TestGameOverScoreInStore(t *testing.T) {
	t.Parallel()
	db, err := store.Open(filepath.Join(t.TempDir(), "scores.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := testConfig()
	cfg.MaxGames = 1
	cfg.Rules = quickDeath()
	cfg.Leaderboard = db
	s := startServer(t, cfg)
	a := join(t, s, "Ripley")
	ev := a.events[a.waitEvent("GameOver", isGameOver)]
	top, err := db.Top(context.Background(), store.ModeClassic, "", store.WeekStart(time.Now()), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != 1 || top[0].Name != "Ripley" || top[0].Score != ev.Scores[0].Score || top[0].Players != 1 {
		t.Fatalf("this week's leaderboard after GameOver %s: %+v", eventString(&ev), top)
	}
}

// expectGameOverLogouts plays each client, so that it acknowledges its
// GameOver, until its Logout(GameOver).
func expectGameOverLogouts(t *testing.T, cs ...*tclient) {
	t.Helper()
	for _, c := range cs {
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.pump(time.Second)
		}()
		expectLogout(t, c.tcp, wire.LogoutGameOver)
		<-done
	}
}
