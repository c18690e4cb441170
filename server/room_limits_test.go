package server

import (
	"testing"

	"rtype/net/wire"
)

// The limits of rooms, the lobby and chat (issue 27).

// Quick join ranks rooms by their human players: a room of one human and
// two bots draws nobody from an older room of one human.
func TestQuickJoinCountsHumans(t *testing.T) {
	t.Parallel()
	s := startServer(t, roomConfig())
	pub := wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 4, Flags: wire.RoomPublic}
	h := lobbyLogin(t, s, "Ripley", wire.ModeClassic)
	h.room(wire.Room{Type: wire.MsgRoomCreate, Settings: pub})
	human := h.expect(wire.MsgRoomState)
	b := lobbyLogin(t, s, "Bishop", wire.ModeClassic)
	b.room(wire.Room{Type: wire.MsgRoomCreate, Settings: pub})
	b.expect(wire.MsgRoomState)
	b.room(wire.Room{Type: wire.MsgRoomBot, Value: 1})
	b.room(wire.Room{Type: wire.MsgRoomBot, Value: 1})
	b.state("two bots", members(3))
	q := lobbyLogin(t, s, "Hicks", wire.ModeClassic)
	q.room(wire.Room{Type: wire.MsgRoomQuick})
	got := q.expect(wire.MsgRoomState)
	t.Logf("quick join: room of %d members, %s (the human room is %s)", got.Count, got.Code, human.Code)
	if got.Code != human.Code {
		t.Fatalf("quick join went to %s (%d members), want the room of one human %s", got.Code, got.Count, human.Code)
	}
}
