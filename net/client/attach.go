package client

import (
	"context"
	"fmt"
	"net"

	"rtype/net/wire"
)

// Attach plays the game of a room (PROTOCOL.md 7.14) over a v2 session
// that a lobby logged in: acc is its LoginAccepted with Player set to the
// client's number in the room's game, and tcp the session's stream as the
// client is to see it. The lobby owns the real connection: tcp gives the
// client the chat of the game and, when the room's game is over, a
// Logout(GameOver), as a session of an open game gets; what the client
// writes (its Chat, its Logout) goes to the server. Attach binds (7.3)
// and returns the running client, as Dial does.
func Attach(ctx context.Context, cfg Config, tcp net.Conn, acc wire.Message) (*Client, error) {
	cfg = cfg.withDefaults()
	if acc.Type != wire.MsgLoginAccepted || acc.Player >= wire.MaxPlayers || !wire.NewFeatures(wire.Version2, acc.Revision).Rooms {
		return nil, fmt.Errorf("client: Attach needs a v2 LoginAccepted with a player number, not %+v", acc)
	}
	log := cfg.Logger.With("server", cfg.Addr, "name", cfg.Name)
	return start(ctx, cfg, log, tcp, acc, wire.Version2, true)
}
