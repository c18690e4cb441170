package wire

import "encoding/binary"

// Spectators (PROTOCOL.md 7.17, Features.Spectate): a session that logs in with the
// LoginRequest flag LoginSpectate watches a running game without a ship.
// It is told, as the players of the game are, who watches it.

// LoginSpectate is bit 1 of the v2 LoginRequest's flags (7.17): the
// session watches a game. Six bytes after the flags, when
// present, are the code of the room whose game it watches (Message.Code);
// without them, the server picks the busiest game. With LoginLobby the
// bit is ignored.
const LoginSpectate uint8 = 1 << 1

// MsgSpectators lists the spectators of the receiver's game (7.17),
// server → client: count u8, count × name.
const MsgSpectators MsgType = 0x18

// Spectator limits (7.17).
const (
	// MaxSpectators is the most spectators a game takes.
	MaxSpectators = 8
	// spectatorsMin is the smallest Spectators body: its count.
	spectatorsMin = 1
)

// Spectators is a Spectators message (7.17): the names of the spectators
// of the receiver's game, in the order they came.
type Spectators struct {
	Count uint8 // 0 to MaxSpectators
	Names [MaxSpectators]string
}

// AppendSpectators appends sp as one TCP frame of a v2 session. A count
// beyond MaxSpectators is cut to it, and names to MaxChatNameBytes.
func AppendSpectators(dst []byte, sp *Spectators) []byte {
	at := len(dst)
	n := min(int(sp.Count), MaxSpectators)
	dst = append(dst, 0, 0, byte(MsgSpectators), uint8(n))
	for i := range n {
		dst = AppendStr(dst, CutString(sp.Names[i], MaxChatNameBytes))
	}
	binary.LittleEndian.PutUint16(dst[at:], uint16(len(dst)-at-2))
	return dst
}

// ParseSpectators decodes the type and body of a Spectators frame into
// sp. Bytes after its fields are ignored (7.1). A body shorter than its
// fields, a count above MaxSpectators, or a name that is longer than
// MaxChatNameBytes, not UTF-8 or runs past the message is ErrMessageBody;
// another type is ErrUnknownMessage.
func ParseSpectators(b []byte, sp *Spectators) error {
	*sp = Spectators{}
	switch {
	case len(b) < 1 || len(b) > MaxFrame:
		return ErrFrameLength
	case MsgType(b[0]) != MsgSpectators:
		return ErrUnknownMessage
	case len(b) < 1+spectatorsMin || b[1] > MaxSpectators:
		return ErrMessageBody
	}
	rest := b[2:]
	for i := range int(b[1]) {
		name, more, ok := strAt(rest, MaxChatNameBytes)
		if !ok {
			*sp = Spectators{}
			return ErrMessageBody
		}
		sp.Names[i], rest = string(name), more
	}
	sp.Count = b[1]
	return nil
}

// ParseSpectatorAccept decodes the Accept of a spectator's Bind (7.17):
// as ParseAccept, but its player is NoPlayer, and only NoPlayer.
func ParseSpectatorAccept(p []byte) (Accept, error) {
	if len(p) != 5 {
		return Accept{}, ErrPayloadSize
	}
	if p[0] != NoPlayer {
		return Accept{}, ErrPlayer
	}
	return Accept{Player: NoPlayer, Tick: binary.LittleEndian.Uint32(p[1:])}, nil
}
