package wire

import (
	"encoding/binary"
	"errors"
	"io"
	"unicode/utf8"
)

// MaxFrame is the largest TCP message, its type byte included (3.1).
const MaxFrame = 1024

// MsgType is the type of a TCP session message (3.1).
type MsgType uint8

// Session message types.
const (
	MsgLoginRequest  MsgType = 0x01
	MsgLoginAccepted MsgType = 0x02
	MsgLoginRejected MsgType = 0x03
	MsgLogout        MsgType = 0x04
)

// String returns the message type's name.
func (t MsgType) String() string {
	switch t {
	case MsgLoginRequest:
		return "LoginRequest"
	case MsgLoginAccepted:
		return "LoginAccepted"
	case MsgLoginRejected:
		return "LoginRejected"
	case MsgLogout:
		return "Logout"
	case MsgChat:
		return "Chat"
	case MsgChatMessage:
		return "ChatMessage"
	case MsgChatRefused:
		return "ChatRefused"
	}
	return "Unknown"
}

// LoginRejected reasons (3.1). A client shows an unknown reason as a generic
// refusal with its text.
const (
	RejectGameFull        uint8 = 1
	RejectVersionMismatch uint8 = 2
	RejectInvalidName     uint8 = 3
	RejectNameTaken       uint8 = 4
	RejectRateLimited     uint8 = 5
	RejectGameEnding      uint8 = 6
)

// Logout reasons (3.1). Unknown means Left.
const (
	LogoutLeft           uint8 = 0
	LogoutTimedOut       uint8 = 1
	LogoutKicked         uint8 = 2
	LogoutGameOver       uint8 = 3
	LogoutServerShutdown uint8 = 4
)

// Message is any TCP session message. Which fields are meaningful depends
// on Type:
//
//	LoginRequest:  Version, Name
//	LoginAccepted: Player, Session, Token, Tick
//	LoginRejected: Reason, Text
//	Logout:        Reason
//
// In v2, LoginRequest also carries Revision, Mode, Flags and Code, and
// LoginAccepted Ext, Mode and Revision. The chat messages of v2 use Text
// (Chat); Tick, Player, Name and Text (ChatMessage); Reason and Wait
// (ChatRefused).
type Message struct {
	Type    MsgType
	Version uint8
	Name    string
	Player  uint8
	Session uint32
	Token   Token
	Tick    uint32
	Reason  uint8
	Text    string
	Ext     LoginExt // v2 LoginAccepted only
	// Revision is, in a v2 LoginRequest, the revision asked for and, in
	// a v2 LoginAccepted, the session's: Revision.
	Revision uint8
	Mode     uint8    // v2 LoginRequest and LoginAccepted: the game mode
	Wait     uint16   // v2 ChatRefused: milliseconds until a Chat is taken again
	Flags    uint8    // v2 LoginRequest: LoginLobby, LoginSpectate
	Code     RoomCode // v2 LoginRequest with LoginSpectate: the room to watch, or zero
}

// AppendMessage appends m as one TCP frame: the u16 length, then the type
// and the body. Strings longer than fit are cut at a rune boundary so the
// frame stays within MaxFrame.
func AppendMessage(dst []byte, m *Message) []byte {
	le := binary.LittleEndian
	at := len(dst)
	dst = append(dst, 0, 0, byte(m.Type))
	switch m.Type {
	case MsgLoginRequest:
		dst = AppendString(append(dst, m.Version), m.Name, MaxFrame-4)
	case MsgLoginAccepted:
		dst = append(dst, m.Player)
		dst = le.AppendUint32(dst, m.Session)
		dst = append(dst, m.Token[:]...)
		dst = le.AppendUint32(dst, m.Tick)
	case MsgLoginRejected:
		dst = AppendString(append(dst, m.Reason), m.Text, MaxFrame-4)
	case MsgLogout:
		dst = append(dst, m.Reason)
	}
	le.PutUint16(dst[at:], uint16(len(dst)-at-2))
	return dst
}

func AppendString(dst []byte, s string, maxLen int) []byte {
	s = CutString(s, maxLen)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

// ParseMessage decodes the type and body of one TCP frame (the bytes after
// the length). A body that does not match its type, including a string
// that is not valid UTF-8, is ErrMessageBody: the server kicks the sender.
// A LoginRejected whose text alone is not valid UTF-8 is ErrRejectedText
// (which matches ErrMessageBody too), with Type and Reason set and no
// Text: a client still treats it as a rejection (3.1).
func ParseMessage(b []byte) (Message, error) {
	var m Message
	if len(b) < 1 || len(b) > MaxFrame {
		return m, ErrFrameLength
	}
	le := binary.LittleEndian
	m.Type = MsgType(b[0])
	body := b[1:]
	switch m.Type {
	case MsgLoginRequest:
		if len(body) < 1 {
			return m, ErrMessageBody
		}
		m.Version = body[0]
		s, ok := parseString(body[1:])
		if !ok {
			return m, ErrMessageBody
		}
		m.Name = s
	case MsgLoginAccepted:
		if len(body) != 17 || body[0] >= MaxPlayers {
			return m, ErrMessageBody
		}
		m.Player = body[0]
		m.Session = le.Uint32(body[1:])
		copy(m.Token[:], body[5:13])
		m.Tick = le.Uint32(body[13:])
		if m.Session == 0 {
			return m, ErrMessageBody
		}
	case MsgLoginRejected:
		if len(body) < 1 {
			return m, ErrMessageBody
		}
		m.Reason = body[0]
		s, ok := parseString(body[1:])
		if !ok {
			if b := body[1:]; len(b) >= 2 && int(le.Uint16(b)) == len(b)-2 {
				return m, ErrRejectedText // well framed, but not UTF-8 (3.1)
			}
			return m, ErrMessageBody
		}
		m.Text = s
	case MsgLogout:
		if len(body) != 1 {
			return m, ErrMessageBody
		}
		m.Reason = body[0]
	default:
		return m, ErrMessageType
	}
	return m, nil
}

// parseString decodes a string that fills b exactly.
func parseString(b []byte) (string, bool) {
	if len(b) < 2 || int(binary.LittleEndian.Uint16(b)) != len(b)-2 || !utf8.Valid(b[2:]) {
		return "", false
	}
	return string(b[2:]), true
}

// FrameReader reads TCP frames from a stream into a fixed buffer, so a
// peer's length never sizes an allocation.
type FrameReader struct {
	R   io.Reader
	buf [2 + MaxFrame]byte
}

// ReadFrame reads one frame and returns its type and body, valid until the
// next call. A length of 0 or over MaxFrame is ErrFrameLength; a stream
// that ends inside a frame is io.ErrUnexpectedEOF, and one that ends
// between frames io.EOF.
func (f *FrameReader) ReadFrame() ([]byte, error) {
	if _, err := io.ReadFull(f.R, f.buf[:2]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint16(f.buf[:2]))
	if n < 1 || n > MaxFrame {
		return nil, ErrFrameLength
	}
	if _, err := io.ReadFull(f.R, f.buf[2:2+n]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return f.buf[2 : 2+n], nil
}

// ReadMessage reads and decodes one message.
func (f *FrameReader) ReadMessage() (Message, error) {
	b, err := f.ReadFrame()
	if err != nil {
		return Message{}, err
	}
	return ParseMessage(b)
}

// LoginExt is what a v2 LoginAccepted carries after v1's fields (7.1):
// the rules a client predicts with. The mode and the revision follow it.
type LoginExt struct {
	ShipSpeed     uint16 // px/s along each axis
	ShipW, ShipH  uint8  // ship size, px
	AreaW, AreaH  uint16 // play area, px
	TickRate      uint8  // ticks per second
	SnapshotTicks uint8  // ticks between two snapshots at the full rate
	BlinkTicks    uint8  // half-period of the invulnerability blink, ticks
}

// LoginExtSize is the size of the LoginAccepted extension.
const LoginExtSize = 11

// Revision is the revision of protocol 2 this package speaks (PROTOCOL.md
// Part II): a v2 LoginRequest asks for one, and LoginAccepted carries the
// session's. The server refuses a revision below it and answers a higher
// one with it. What a revision allows is negotiated once, at login, into
// Features (NewFeatures).
const Revision = 4

// ErrRevision is returned by wire2.ParseMessage for a v2 LoginRequest without
// the revision and mode bytes after its name, or of a revision below
// Revision: the server answers it with LoginRejected(VersionMismatch).
var ErrRevision = errors.New("wire: v2 LoginRequest without revision 4 (a revision, then a mode, after the name)")
