package lobby_test

import (
	"context"
	"net"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// evilLobby accepts one login on 127.0.0.1, answers it as a lobby server
// would, then sends frames.
func evilLobby(t *testing.T, player uint8, frames ...[]byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		fr := wire.FrameReader{R: c}
		if _, err := fr.ReadFrame(); err != nil {
			return
		}
		acc := wire.Message{Type: wire.MsgLoginAccepted, Player: player, Session: 7, Revision: wire.Revision, Mode: wire.ModeClassic,
			Ext: wire.LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8}}
		c.Write(wire2.AppendMessage(nil, &acc))
		for _, f := range frames {
			c.Write(f)
		}
		c.SetReadDeadline(time.Now().Add(testutil.Wait))
		fr.ReadFrame() // until the client hangs up
	}()
	return ln.Addr().String()
}

// A client trusts a server no more than a server trusts a client: a
// malformed room message ends the lobby with a clear error, and a server
// without rooms is said to be one.
func TestLobbyHostileServer(t *testing.T) {
	for name, f := range map[string][]byte{
		"state 9":         {15, 0, byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 9, 0, 0, 1, 1, 4, 0, 0},
		"listing of 200":  {2, 0, byte(wire.MsgRoomListing), 200},
		"a client's join": wire.AppendRoom(nil, &wire.Room{Type: wire.MsgRoomJoin}),
		"bad chat":        {3, 0, byte(wire.MsgChatMessage), 0, 0},
		// 7.16: 11 rows; a name not UTF-8; a client's request.
		"scores of 11":      {9, 0, byte(wire.MsgScores), 1, 0, 0, 0, 0, 0, 0, 11},
		"score name":        {21, 0, byte(wire.MsgScores), 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0xFF},
		"a client's scores": wire.AppendScores(nil, &wire.Scores{Type: wire.MsgScoresRequest, Mode: 1}),
	} {
		addr := evilLobby(t, wire.NoPlayer, f)
		l, err := lobby.Dial(context.Background(), lobby.Config{Addr: addr, Name: "Ripley", Logger: testutil.Logger(t)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		select {
		case <-l.Done():
			if l.Err() == nil {
				t.Fatalf("%s: ended without an error", name)
			}
		case <-time.After(testutil.Wait):
			t.Fatalf("%s: the lobby took it", name)
		}
		l.Close()
	}
	addr := evilLobby(t, 0)
	if _, err := lobby.Dial(context.Background(), lobby.Config{Addr: addr, Name: "Ripley"}); err != lobby.ErrNoRooms {
		t.Fatalf("a server without rooms: %v", err)
	}
}
