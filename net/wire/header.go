package wire

import "encoding/binary"

// Sizes and limits of section 1 and 2.
const (
	HeaderSize  = 18   // bytes of the datagram header (2.1)
	MaxDatagram = 1200 // largest datagram, header included (1.3)
	MaxPayload  = MaxDatagram - HeaderSize
	Version     = 1 // protocol version carried by every v1 datagram
	Version2    = 2 // protocol version of a v2 session (7.2)
)

// Magic opens every datagram: "RTYP".
var Magic = [4]byte{'R', 'T', 'Y', 'P'}

// Type is a datagram type (2.3).
type Type uint8

// Datagram types.
const (
	TypeBind     Type = 1 // client -> server: token
	TypeAccept   Type = 2 // server -> client: player, tick
	TypeInput    Type = 3 // client -> server: actions
	TypeSnapshot Type = 4 // server -> client: packed world state
	TypeEvent    Type = 5 // both: reliable events
	TypeAck      Type = 6 // both: empty
)

// String returns the type's name.
func (t Type) String() string {
	switch t {
	case TypeBind:
		return "Bind"
	case TypeAccept:
		return "Accept"
	case TypeInput:
		return "Input"
	case TypeSnapshot:
		return "Snapshot"
	case TypeEvent:
		return "Event"
	case TypeAck:
		return "Ack"
	}
	return "Reserved"
}

// Direction says who sent a datagram.
type Direction uint8

// Directions of travel.
const (
	ToServer Direction = iota // sent by a client
	ToClient                  // sent by the server
)

// Allowed reports whether a datagram of type t may travel in direction d
// in v1 (4.1).
func (t Type) Allowed(d Direction) bool {
	switch t {
	case TypeBind, TypeInput:
		return d == ToServer
	case TypeAccept, TypeSnapshot:
		return d == ToClient
	case TypeEvent, TypeAck:
		return true
	}
	return false
}

// Header is the header of every datagram: 18 bytes in v1 (2.1), and 20 in
// v2, whose codec (package wire2) adds AckDelay (7.2).
type Header struct {
	Type Type
	Seq  uint16 // this datagram's sequence
	Ack  uint16 // newest sequence received from the peer
	// AckDelay is, in v2 (7.2), the time between the arrival of the
	// datagram named by Ack and the sending of this one, in units of
	// 100 µs, saturating at 65535 (6.5535 s). A v1 header has none: the
	// v1 codec neither writes nor reads it, and leaves it 0.
	AckDelay uint16
	AckBits  uint32 // bit i: sequence Ack-1-i received too
	Session  uint32 // never 0
}

// AppendHeader appends the 18 header bytes of h to dst.
func AppendHeader(dst []byte, h Header) []byte {
	dst = append(dst, Magic[:]...)
	dst = append(dst, Version, byte(h.Type))
	dst = binary.LittleEndian.AppendUint16(dst, h.Seq)
	dst = binary.LittleEndian.AppendUint16(dst, h.Ack)
	dst = binary.LittleEndian.AppendUint32(dst, h.AckBits)
	return binary.LittleEndian.AppendUint32(dst, h.Session)
}

// ParseHeader checks the rules of 6.1 that need no session table (size,
// magic, version, type and its direction, session not 0) and returns the
// header and the payload, which aliases b.
func ParseHeader(b []byte, d Direction) (Header, []byte, error) {
	var h Header
	if len(b) < HeaderSize {
		return h, nil, ErrShort
	}
	if len(b) > MaxDatagram {
		return h, nil, ErrTooLarge
	}
	if [4]byte(b[0:4]) != Magic {
		return h, nil, ErrMagic
	}
	if b[4] != Version {
		return h, nil, ErrVersion
	}
	h.Type = Type(b[5])
	if h.Type < TypeBind || h.Type > TypeAck {
		return h, nil, ErrType
	}
	if !h.Type.Allowed(d) {
		return h, nil, ErrDirection
	}
	h.Seq = binary.LittleEndian.Uint16(b[6:])
	h.Ack = binary.LittleEndian.Uint16(b[8:])
	h.AckBits = binary.LittleEndian.Uint32(b[10:])
	h.Session = binary.LittleEndian.Uint32(b[14:])
	if h.Session == 0 {
		return h, nil, ErrSession
	}
	p := b[HeaderSize:]
	switch h.Type {
	case TypeBind:
		if len(p) != TokenSize {
			return h, nil, ErrPayloadSize
		}
	case TypeAccept:
		if len(p) != 5 {
			return h, nil, ErrPayloadSize
		}
	case TypeInput:
		if len(p) != 1 {
			return h, nil, ErrPayloadSize
		}
		if p[0]&^ActionsMask != 0 {
			return h, nil, ErrInputBits
		}
	case TypeAck:
		if len(p) != 0 {
			return h, nil, ErrPayloadSize
		}
	}
	return h, p, nil
}

// SeqNewer reports whether sequence a is newer than b (2.2).
func SeqNewer(a, b uint16) bool {
	return (a > b && a-b <= 32768) || (a < b && b-a > 32768)
}

// TokenSize is the size of the binding token (3.2, 3.4).
const TokenSize = 8

// Token authenticates a Bind (3.4).
type Token [TokenSize]byte

// Accept is the payload of an Accept datagram (2.3).
type Accept struct {
	Player uint8
	Tick   uint32
}

// AppendAccept appends the 5-byte Accept payload.
func AppendAccept(dst []byte, a Accept) []byte {
	return binary.LittleEndian.AppendUint32(append(dst, a.Player), a.Tick)
}

// ParseAccept decodes an Accept payload checked by ParseHeader.
func ParseAccept(p []byte) (Accept, error) {
	if len(p) != 5 {
		return Accept{}, ErrPayloadSize
	}
	if p[0] >= MaxPlayers {
		return Accept{}, ErrPlayer
	}
	return Accept{Player: p[0], Tick: binary.LittleEndian.Uint32(p[1:])}, nil
}

// TypeChallenge is the v2 datagram that answers a Bind without a valid
// cookie (7.3): server -> client, payload the cookie.
const TypeChallenge Type = 7

// DatagramVersion returns the version byte of a datagram that starts with
// the magic, and false for anything else: a server reads it to pick the
// parser of the session's version (7.1).
func DatagramVersion(b []byte) (uint8, bool) {
	if len(b) < 5 || [4]byte(b[0:4]) != Magic {
		return 0, false
	}
	return b[4], true
}
