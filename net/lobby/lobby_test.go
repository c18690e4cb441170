package lobby_test

import (
	"context"
	"errors"
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
)

func startServer(t *testing.T, rules bool) *server.Server {
	cfg := server.Config{LoginLimit: 1 << 20, MaxSessionsPerIP: 1 << 20, Mode: wire.ModeClassic,
		GameOverLinger: 300 * time.Millisecond,
		Bots:           func(mode uint8, seed uint64) server.Bots { return bot.NewRoomBots(mode, seed) }}
	if rules {
		cfg.Rules = testrules.QuickDeath()
	}
	return testserver.Start(t, cfg)
}

func dial(t *testing.T, s *server.Server, name string) *lobby.Lobby {
	t.Helper()
	l, err := lobby.Dial(context.Background(), lobby.Config{Addr: s.Addr(), Name: name, Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// until waits for cond on l's changes.
func until(t *testing.T, l *lobby.Lobby, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(testutil.Wait)
	for !cond() {
		select {
		case <-l.Changed():
		case <-l.Done():
			t.Fatalf("waiting for %s: the lobby ended: %v", what, l.Err())
		case <-deadline:
			t.Fatalf("no %s within %v", what, testutil.Wait)
		}
	}
}

func inState(l *lobby.Lobby, st uint8, n int) func() bool {
	return func() bool { r, ok := l.State(); return ok && r.State == st && int(r.Count) == n }
}

// A host creates a private room, a friend joins by its code, they chat,
// add a bot, get ready and play; after the game over they are back in
// the room, and play again.
func TestLobbyPlayTogether(t *testing.T) {
	s := startServer(t, true)
	host := dial(t, s, "Ripley")
	host.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 3})
	until(t, host, "the room", inState(host, wire.RoomLobby, 1))
	st, _ := host.State()
	friend := dial(t, s, "Hicks")
	code, ok := wire.ParseRoomCode(" " + st.Code.String()[:3] + "-" + st.Code.String()[3:])
	if !ok {
		t.Fatalf("code %q", st.Code)
	}
	friend.Join(code)
	until(t, friend, "joined", inState(friend, wire.RoomLobby, 2))
	if err := friend.SendChat("ｈｉ"); err != nil {
		t.Fatal(err)
	}
	var lines []client.Chat
	until(t, host, "the line", func() bool {
		lines = host.DrainChat(lines)
		return len(lines) > 0
	})
	if lines[0].Text != "hi" || lines[0].Name != "Hicks" || lines[0].Player != 1 || lines[0].Tick != 0 {
		t.Fatalf("chat %+v", lines[0])
	}
	host.AddBot()
	until(t, host, "the bot", inState(host, wire.RoomLobby, 3))
	for round := range 2 {
		friend.Ready(true)
		host.Ready(true)
		var games [2]*client.Client
		for i, l := range []*lobby.Lobby{host, friend} {
			until(t, l, "Playing", inState(l, wire.RoomPlaying, 3))
			c, err := l.Play(context.Background(), client.Config{Logger: testutil.Logger(t)})
			if err != nil {
				t.Fatalf("round %d: play: %v", round, err)
			}
			games[i] = c
		}
		for i, c := range games {
			if c.Player() != uint8(i) {
				t.Fatalf("player %d, want %d", c.Player(), i)
			}
			select {
			case <-c.Done():
			case <-time.After(testutil.Wait):
				t.Fatalf("round %d: the game of %d did not end", round, i)
			}
			var le *client.LogoutError
			if !errors.As(c.Err(), &le) || le.Reason != wire.LogoutGameOver {
				t.Fatalf("round %d: game ended with %v", round, c.Err())
			}
			if _, over := c.GameOver(); !over {
				t.Fatalf("round %d: no GameOver", round)
			}
		}
		until(t, host, "Over", inState(host, wire.RoomOver, 3))
		host.Again()
		until(t, friend, "back in the lobby", inState(friend, wire.RoomLobby, 3))
	}
	// The listing shows no private room; the ping is measured.
	friend.List()
	until(t, friend, "a listing", func() bool { _, p := friend.Listing(); return p > 0 })
}

func TestLobbyRefusals(t *testing.T) {
	s := startServer(t, false)
	l := dial(t, s, "Ripley")
	l.Join(wire.RoomCode{'2', '2', '2', '2', '2', '2'})
	var got []wire.Room
	until(t, l, "a refusal", func() bool { got = append(got, l.Refusals()...); return len(got) > 0 })
	if got[0].Reason != wire.RoomNoSuchRoom {
		t.Fatalf("refusal %+v", got[0])
	}
	if _, err := l.Play(context.Background(), client.Config{}); !errors.Is(err, lobby.ErrNotPlaying) {
		t.Fatalf("Play out of a game: %v", err)
	}
}

// AwaitRoom returns the first room state that satisfies its condition,
// the context's error when the context ends first, and an error of its
// own once the session is over.
func TestAwaitRoom(t *testing.T) {
	s := startServer(t, false)
	l := dial(t, s, "Ripley")
	if err := l.Create(wire.RoomSettings{Mode: wire.ModeClassic, MaxPlayers: 4}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testutil.Wait)
	defer cancel()
	r, err := l.AwaitRoom(ctx, func(r wire.Room) bool { return r.Code != (wire.RoomCode{}) && r.Count == 1 })
	if err != nil || r.Count != 1 || r.Code == (wire.RoomCode{}) {
		t.Fatalf("AwaitRoom: %+v, %v", r, err)
	}
	never := func(wire.Room) bool { return false }
	done, stop := context.WithCancel(t.Context())
	stop()
	if _, err := l.AwaitRoom(done, never); !errors.Is(err, context.Canceled) {
		t.Fatalf("AwaitRoom with an ended context: %v, want context.Canceled", err)
	}
	l.Close()
	if _, err := l.AwaitRoom(ctx, never); err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AwaitRoom after Close: %v, want the session's end", err)
	}
}
