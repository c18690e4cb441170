package wire2

import (
	"encoding/binary"
	"rtype/net/wire"
)

// loginAcceptedSize is the size of v1's LoginAccepted body.
const loginAcceptedSize = 17

// AppendMessage appends m as one TCP frame of a v2 session: as
// AppendMessage, but a LoginRequest carries Revision and Mode after the
// name (its name cut so that the frame stays within MaxFrame), then Flags
// when it or Code is not zero, then Code with LoginSpectate; a
// LoginAccepted carries the extension, Mode and Revision after v1's
// fields (L = 31).
func AppendMessage(dst []byte, m *wire.Message) []byte {
	at := len(dst)
	le := binary.LittleEndian
	switch {
	case m.Type == wire.MsgLoginRequest:
		dst = append(dst, 0, 0, byte(m.Type), m.Version)
		dst = wire.AppendString(dst, m.Name, wire.MaxFrame-6)
		dst = append(dst, m.Revision, m.Mode)
		if m.Flags != 0 || m.Code != (wire.RoomCode{}) {
			dst = append(dst, m.Flags)
		}
		if m.Flags&wire.LoginSpectate != 0 && m.Code != (wire.RoomCode{}) {
			dst = append(dst, m.Code[:]...)
		}
		le.PutUint16(dst[at:], uint16(len(dst)-at-2))
		return dst
	case m.Type >= wire.MsgChat && m.Type <= wire.MsgChatRefused:
		dst = wire.AppendChat(append(dst, 0, 0, byte(m.Type)), m)
		le.PutUint16(dst[at:], uint16(len(dst)-at-2))
		return dst
	case m.Type != wire.MsgLoginAccepted:
		return wire.AppendMessage(dst, m)
	}
	dst = wire.AppendMessage(dst, m)
	e := &m.Ext
	dst = le.AppendUint16(dst, e.ShipSpeed)
	dst = append(dst, e.ShipW, e.ShipH)
	dst = le.AppendUint16(dst, e.AreaW)
	dst = le.AppendUint16(dst, e.AreaH)
	dst = append(dst, e.TickRate, e.SnapshotTicks, e.BlinkTicks)
	dst = append(dst, m.Mode, m.Revision)
	le.PutUint16(dst[at:], uint16(len(dst)-at-2))
	return dst
}

// ParseMessage decodes the type and body of one TCP frame of a v2
// session. Unlike v1, bytes after the fields a message defines are
// ignored, and an unknown type is ErrUnknownMessage (skip it, not a
// protocol error).
//
// A LoginRequest's name is followed by its revision and mode (given as
// they are: the server decides what an unknown mode gets), then
// optionally Flags (LoginLobby, LoginSpectate) and, with LoginSpectate,
// six bytes of Code (not checked here: the server refuses a code that
// names no room). Without the revision and mode, or with a revision
// below Revision, it is ErrRevision.
//
// A LoginAccepted carries the extension, then the mode, which must be
// ModeClassic or ModeStage, then the session's revision, which must be
// Revision or more; else it is ErrMessageBody. Its Player may be
// NoPlayer (a lobby session, in no game yet).
//
// Chat, ChatMessage and ChatRefused: a string over its bound
// (ChatMessage: a name over MaxChatNameBytes, a text over MaxChatBytes),
// not valid UTF-8 or running past the message, or a ChatMessage's player
// other than 0 to 3 and 255, is ErrMessageBody.
func ParseMessage(b []byte) (wire.Message, error) {
	if len(b) < 1 || len(b) > wire.MaxFrame {
		return wire.Message{}, wire.ErrFrameLength
	}
	le := binary.LittleEndian
	body := b[1:]
	switch wire.MsgType(b[0]) {
	case wire.MsgLoginRequest, wire.MsgLoginRejected:
		if len(body) < 3 {
			return wire.Message{Type: wire.MsgType(b[0])}, wire.ErrMessageBody
		}
		n := 3 + int(le.Uint16(body[1:]))
		if n > len(body) {
			return wire.Message{Type: wire.MsgType(b[0])}, wire.ErrMessageBody
		}
		m, err := wire.ParseMessage(b[:1+n])
		if err != nil || m.Type != wire.MsgLoginRequest {
			return m, err
		}
		tail := body[n:]
		if len(tail) < 2 {
			return m, wire.ErrRevision
		}
		m.Revision, m.Mode = tail[0], tail[1]
		if len(tail) >= 3 {
			m.Flags = tail[2]
		}
		if len(tail) >= 3+wire.RoomCodeLen && m.Flags&wire.LoginSpectate != 0 {
			copy(m.Code[:], tail[3:])
		}
		if m.Revision < wire.Revision {
			return m, wire.ErrRevision
		}
		return m, nil
	case wire.MsgLoginAccepted:
		if len(body) < loginAcceptedSize+wire.LoginExtSize+2 {
			return wire.Message{Type: wire.MsgLoginAccepted}, wire.ErrMessageBody
		}
		x := body[loginAcceptedSize:]
		var head [1 + loginAcceptedSize]byte
		copy(head[:], b)
		head[1] = 0 // a lobby session's NoPlayer: in no game yet
		m, err := wire.ParseMessage(head[:])
		if err != nil {
			return m, err
		}
		if m.Player = body[0]; m.Player >= wire.MaxPlayers && m.Player != wire.NoPlayer {
			return m, wire.ErrMessageBody
		}
		m.Ext = wire.LoginExt{
			ShipSpeed: le.Uint16(x[0:]), ShipW: x[2], ShipH: x[3],
			AreaW: le.Uint16(x[4:]), AreaH: le.Uint16(x[6:]),
			TickRate: x[8], SnapshotTicks: x[9], BlinkTicks: x[10],
		}
		m.Mode, m.Revision = x[wire.LoginExtSize], x[wire.LoginExtSize+1]
		if m.Mode != wire.ModeClassic && m.Mode != wire.ModeStage || m.Revision < wire.Revision {
			return m, wire.ErrMessageBody
		}
		return m, nil
	case wire.MsgLogout:
		if len(body) < 1 {
			return wire.Message{Type: wire.MsgLogout}, wire.ErrMessageBody
		}
		return wire.ParseMessage(b[:2])
	}
	return wire.ParseChat(b) // or ErrUnknownMessage
}
