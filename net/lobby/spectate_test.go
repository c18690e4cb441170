package lobby_test

import (
	"context"
	"slices"
	"testing"

	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wire"
)

// A room's players see who watches their game (7.17): the lobby passes the
// Spectators message to the client playing the room's game. The spectator
// watches by the room's code, as the lobby's Spectate action does.
func TestLobbySpectators(t *testing.T) {
	s := startServer(t, false)
	host := dial(t, s, "Ripley")
	if f := host.Features(); !f.Spectate {
		t.Fatalf("the lobby's session is of features %+v", f)
	}
	host.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 2})
	until(t, host, "the room", inState(host, wire.RoomLobby, 1))
	host.Ready(true)
	until(t, host, "Playing", inState(host, wire.RoomPlaying, 1))
	c, err := host.Play(context.Background(), client.Config{Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, _ := host.State()
	v, err := client.Dial(context.Background(), client.Config{Addr: s.Addr(), Name: "Newt", Spectate: true, Room: st.Code,
		Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	testutil.WaitFor(t, testutil.Wait, "the spectator named to the player", func() bool {
		return slices.Equal(c.Spectators(nil), []string{"Newt"})
	})
	if r, _ := host.State(); r.Count != 1 {
		t.Fatalf("the room has %d members with a spectator, want 1", r.Count)
	}
}
