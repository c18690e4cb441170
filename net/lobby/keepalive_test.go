package lobby

import (
	"context"
	"errors"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/server"
)

// A player who waits in a room says nothing for minutes; the server ends
// a lobby session silent for LobbyIdle (7.14). Without the keep-alive, a
// lobby waiting in its room is ended with Logout(TimedOut); with it, the
// lobby asks for the room list on its own once it has been silent for
// KeepAlive, the server answers, and the lobby stays in its room.
func TestKeepAliveInARoom(t *testing.T) {
	srv := testserver.Start(t, server.Config{LoginLimit: 1 << 20, MaxSessionsPerIP: 1 << 20, MaxRoomsPerIP: 1 << 20,
		Mode: wire.ModeClassic, LobbyIdle: 500 * time.Millisecond})
	waitRoom := func(l *Lobby) {
		t.Helper()
		if err := l.Create(wire.RoomSettings{Mode: wire.ModeClassic, MaxPlayers: 4}); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, testutil.Wait, "the room", func() bool { _, ok := l.State(); return ok })
	}

	t.Run("without", func(t *testing.T) {
		l, err := Dial(context.Background(), Config{Addr: srv.Addr(), Name: "Silent", Mode: wire.ModeClassic, Logger: testutil.Logger(t), KeepAlive: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		waitRoom(l)
		select {
		case <-l.Done():
		case <-time.After(testutil.Wait):
			t.Fatalf("a lobby silent in its room still there after %v, the server's LobbyIdle 500 ms", testutil.Wait)
		}
		var lo *client.LogoutError
		if !errors.As(l.Err(), &lo) || lo.Reason != wire.LogoutTimedOut {
			t.Fatalf("the silent lobby ended with %v, want Logout(TimedOut)", l.Err())
		}
	})

	t.Run("with", func(t *testing.T) {
		l, err := Dial(context.Background(), Config{Addr: srv.Addr(), Name: "Waiting", Mode: wire.ModeClassic, Logger: testutil.Logger(t), KeepAlive: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		waitRoom(l)
		count := func() (asked, answered int) {
			l.mu.Lock()
			defer l.mu.Unlock()
			return l.keepAlives, l.listings
		}
		testutil.WaitFor(t, testutil.Wait, "three keep-alives answered", func() bool {
			asked, answered := count()
			return asked >= 3 && answered >= 3
		})
		if _, ok := l.State(); !ok || l.Err() != nil {
			t.Fatalf("after its keep-alives the lobby is in no room (err %v)", l.Err())
		}
	})
}
