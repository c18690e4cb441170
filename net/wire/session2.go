package wire

import (
	"encoding/binary"
	"errors"
)

// LoginExt is what a v2 LoginAccepted carries after v1's fields (7.1):
// the rules a client predicts with. A v2.0 client reads these fields and
// ignores any byte after them.
type LoginExt struct {
	ShipSpeed     uint16 // px/s along each axis
	ShipW, ShipH  uint8  // ship size, px
	AreaW, AreaH  uint16 // play area, px
	TickRate      uint8  // ticks per second
	SnapshotTicks uint8  // ticks between two snapshots at the full rate
	BlinkTicks    uint8  // half-period of the invulnerability blink, ticks
}

// LoginExtSize is the size of the v2.0 LoginAccepted extension.
const LoginExtSize = 11

// loginAcceptedSize is the size of v1's LoginAccepted body.
const loginAcceptedSize = 17

// ErrUnknownMessage is returned by ParseMessage2 for a TCP message of a
// type v2.0 does not define: a v2 receiver skips it (7.1).
var ErrUnknownMessage = errors.New("wire: unknown TCP message type, skipped in v2 (7.1)")

// MinorVersion is the highest minor version of protocol 2 this package
// speaks: 4, v2.4 (7.20: a session's Snapshot datagrams carry its due
// events after the snapshot), which builds on v2.3 (7.19: events wait for
// the next snapshot tick), v2.2 (7.15) and v2.1 (Stage mode, 7.12).
const MinorVersion = 4

// MinorEventsInSnapshot is the minor version from which a session's
// Snapshot datagrams end with an event tail (7.20).
const MinorEventsInSnapshot = 4

// AppendMessage2 appends m as one TCP frame of a v2 session: as
// AppendMessage, with the extension after a LoginAccepted. With Minor 1 or
// more (v2.1, 7.12), a LoginRequest carries minor and mode after the name
// (its name cut so that the frame stays within MaxFrame), and a
// LoginAccepted mode after the extension.
func AppendMessage2(dst []byte, m *Message) []byte {
	at := len(dst)
	le := binary.LittleEndian
	switch {
	case m.Type == MsgLoginRequest && m.Minor >= 1:
		dst = append(dst, 0, 0, byte(m.Type), m.Version)
		dst = appendString(dst, m.Name, MaxFrame-6)
		dst = append(dst, m.Minor, m.Mode)
		if m.Flags != 0 || m.Code != (RoomCode{}) { // 7.14
			dst = append(dst, m.Flags)
		}
		if m.Flags&LoginSpectate != 0 && m.Code != (RoomCode{}) { // 7.17
			dst = append(dst, m.Code[:]...)
		}
		le.PutUint16(dst[at:], uint16(len(dst)-at-2))
		return dst
	case m.Type >= MsgChat && m.Type <= MsgChatRefused: // v2.1 (7.13)
		dst = appendChat(append(dst, 0, 0, byte(m.Type)), m)
		le.PutUint16(dst[at:], uint16(len(dst)-at-2))
		return dst
	case m.Type != MsgLoginAccepted:
		return AppendMessage(dst, m)
	}
	dst = AppendMessage(dst, m)
	e := &m.Ext
	dst = le.AppendUint16(dst, e.ShipSpeed)
	dst = append(dst, e.ShipW, e.ShipH)
	dst = le.AppendUint16(dst, e.AreaW)
	dst = le.AppendUint16(dst, e.AreaH)
	dst = append(dst, e.TickRate, e.SnapshotTicks, e.BlinkTicks)
	if m.Minor >= 1 {
		dst = append(dst, m.Mode)
	}
	if m.Minor >= 2 { // v2.2 (7.15)
		dst = append(dst, m.Minor)
	}
	le.PutUint16(dst[at:], uint16(len(dst)-at-2))
	return dst
}

// ParseMessage2 decodes the type and body of one TCP frame of a v2
// session (7.1). Unlike v1, bytes after the fields v2.0 defines are
// ignored, and an unknown type is ErrUnknownMessage (skip it, not a
// protocol error). A LoginAccepted must carry the whole v2.0 extension.
//
// v2.1 (7.12): a LoginRequest whose name is followed by at least two bytes,
// the first not 0, has Minor and Mode from them (as they are: the server
// decides what a minor above 1 or an unknown mode gets); otherwise Minor
// and Mode are 0 (v2.0). A LoginAccepted with a byte after its extension
// has Minor 1 and Mode from it, which must be ModeClassic or ModeStage,
// else the message is malformed. v2.2 (7.15): a second byte after the
// extension is the session's Minor, which must be 2 or more, else the
// message is malformed; bytes after it are ignored.
//
// v2.2 (7.17): with LoginSpectate in Flags, six more bytes are Code (not
// checked here: the server refuses a code that names no room).
//
// v2.1 (7.14): a third byte after the name is Flags (LoginLobby); a
// LoginAccepted with Mode may have Player NoPlayer (a lobby session, in
// no game yet).
//
// v2.1 (7.13): Chat, ChatMessage and ChatRefused; a string over its
// bound (ChatMessage: a name over MaxChatNameBytes, a text over
// MaxChatBytes), not valid UTF-8 or running past the message, or a
// ChatMessage's player other than 0 to 3 and 255, is ErrMessageBody.
func ParseMessage2(b []byte) (Message, error) {
	if len(b) < 1 || len(b) > MaxFrame {
		return Message{}, ErrFrameLength
	}
	le := binary.LittleEndian
	body := b[1:]
	switch MsgType(b[0]) {
	case MsgLoginRequest, MsgLoginRejected:
		if len(body) < 3 {
			return Message{Type: MsgType(b[0])}, ErrMessageBody
		}
		n := 3 + int(le.Uint16(body[1:]))
		if n > len(body) {
			return Message{Type: MsgType(b[0])}, ErrMessageBody
		}
		m, err := ParseMessage(b[:1+n])
		if tail := body[n:]; err == nil && m.Type == MsgLoginRequest && len(tail) >= 2 && tail[0] >= 1 {
			m.Minor, m.Mode = tail[0], tail[1]
			if len(tail) >= 3 {
				m.Flags = tail[2] // 7.14
			}
			if len(tail) >= 3+RoomCodeLen && m.Flags&LoginSpectate != 0 {
				copy(m.Code[:], tail[3:]) // 7.17
			}
		}
		return m, err
	case MsgLoginAccepted:
		if len(body) < loginAcceptedSize+LoginExtSize {
			return Message{Type: MsgLoginAccepted}, ErrMessageBody
		}
		x := body[loginAcceptedSize:]
		var head [1 + loginAcceptedSize]byte
		copy(head[:], b)
		lobby := body[0] == NoPlayer && len(x) > LoginExtSize
		if lobby { // a lobby session is in no game yet (7.14)
			head[1] = 0
		}
		m, err := ParseMessage(head[:])
		if err != nil {
			return m, err
		}
		if lobby {
			m.Player = NoPlayer
		}
		m.Ext = LoginExt{
			ShipSpeed: le.Uint16(x[0:]), ShipW: x[2], ShipH: x[3],
			AreaW: le.Uint16(x[4:]), AreaH: le.Uint16(x[6:]),
			TickRate: x[8], SnapshotTicks: x[9], BlinkTicks: x[10],
		}
		if len(x) > LoginExtSize {
			m.Minor, m.Mode = 1, x[LoginExtSize]
			if m.Mode != ModeClassic && m.Mode != ModeStage {
				return m, ErrMessageBody
			}
		}
		if len(x) > LoginExtSize+1 { // v2.2 (7.15): the session's minor
			if m.Minor = x[LoginExtSize+1]; m.Minor < 2 {
				return m, ErrMessageBody
			}
		}
		return m, nil
	case MsgLogout:
		if len(body) < 1 {
			return Message{Type: MsgLogout}, ErrMessageBody
		}
		return ParseMessage(b[:2])
	}
	return parseChat(b) // v2.1 (7.13), or ErrUnknownMessage

}
