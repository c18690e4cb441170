package lobby_test

import (
	"testing"

	"rtype/net/wire"
)

// A Stage room's stage (PROTOCOL.md 7.14) through the lobby client: a
// stage the server's campaign lacks is refused Invalid; the room created
// at stage 2 says so in its state and in the listing; the owner changes
// it.
func TestLobbyRoomStage(t *testing.T) {
	s := startServer(t, false)
	host := dial(t, s, "Ripley")
	st := wire.RoomSettings{Mode: wire.ModeStage, Difficulty: wire.DifficultyNormal, MaxPlayers: 4, Flags: wire.RoomPublic, Stage: 9}
	host.Create(st)
	var refused []wire.Room
	until(t, host, "the refusal", func() bool { refused = append(refused, host.Refusals()...); return len(refused) > 0 })
	if refused[0].Reason != wire.RoomInvalid {
		t.Fatalf("stage 9: %+v, want Invalid", refused[0])
	}
	st.Stage = 2
	host.Create(st)
	until(t, host, "the room", inState(host, wire.RoomLobby, 1))
	if r, _ := host.State(); r.Settings != st {
		t.Fatalf("the room's settings %+v, want %+v", r.Settings, st)
	}
	other := dial(t, s, "Hicks")
	other.List()
	until(t, other, "the listing", func() bool { l, _ := other.Listing(); return l.Count == 1 })
	if l, _ := other.Listing(); l.Rooms[0].Stage != 2 || l.Rooms[0].Mode != wire.ModeStage {
		t.Fatalf("listed %+v", l.Rooms[0])
	}
	st.Stage = 1
	host.Settings(st)
	until(t, host, "stage 1", func() bool { r, _ := host.State(); return r.Settings.Stage == 1 })
}
