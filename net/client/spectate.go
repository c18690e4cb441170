package client

import (
	"errors"

	"rtype/net/wire"
)

// Spectators (PROTOCOL.md 7.17): a client dialled with Config.Spectate
// watches a game. It has player wire.NoPlayer and no ship, so it sends
// Acks only (5.5), never an Input; its world is the players' world.

// ErrNoSpectators: the server cannot take a spectator (7.17): it speaks
// v1 only, or gave a ship.
var ErrNoSpectators = errors.New("this server cannot take spectators")

// Spectating reports whether the client watches the game (7.17).
func (c *Client) Spectating() bool { return c.player == wire.NoPlayer }

// Spectators returns the names of the spectators of the client's game,
// as the server last told them (7.17), appended to dst.
func (c *Client) Spectators(dst []string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append(dst, c.watchers.Names[:c.watchers.Count]...)
}

// readSessionMessage reads the next TCP message of the session for
// readTCP; a Spectators message (7.17) of a session with chat (v2) is
// kept for Spectators and not returned. A malformed one is a
// protocol error.
func (c *Client) readSessionMessage(fr *wire.FrameReader) (wire.Message, error) {
	if c.chatOut == nil {
		return c.codec.readMessage(fr, nil)
	}
	return c.codec.readMessage(fr, c.spectatorsFrame)
}

// spectatorsFrame takes a Spectators frame (7.17).
func (c *Client) spectatorsFrame(b []byte) (bool, error) {
	if wire.MsgType(b[0]) != wire.MsgSpectators {
		return false, nil
	}
	var sp wire.Spectators
	if err := wire.ParseSpectators(b, &sp); err != nil {
		return true, err
	}
	for i := range sp.Count {
		sp.Names[i] = wire.CleanName(sp.Names[i])
	}
	c.mu.Lock()
	c.watchers = sp
	c.mu.Unlock()
	return true, nil
}
