package wire

import (
	"encoding/binary"
	"errors"
)

// Sizes and limits of protocol v2 (Part II of PROTOCOL.md, 7.2).
const (
	HeaderSize2  = 20                        // bytes of the v2 datagram header (7.2)
	MaxPayload2  = MaxDatagram - HeaderSize2 // 1180
	AckDelayUnit = 100                       // microseconds per unit of ack_delay
)

// Errors of the v2 decoders; each names the rule of PROTOCOL.md broken.
var (
	ErrVersion2     = errors.New("wire: datagram version is not the session's, 2 (7.2)")
	ErrInputBits2   = errors.New("wire: v2 Input with reserved bits 6-7 set (7.4)")
	ErrBindSize2    = errors.New("wire: v2 Bind payload is neither 8 nor 16 bytes (7.3)")
	ErrPayloadSize2 = errors.New("wire: v2 payload size does not match its type (7.2)")
)

// Header2 is the 20-byte header of a v2 datagram (7.2): v1's fields with
// version 2, then ack_delay.
type Header2 struct {
	Header
	// AckDelay is the time between the arrival of the datagram named by
	// Ack and the sending of this one, in units of 100 µs, saturating at
	// 65535 (6.5535 s).
	AckDelay uint16
}

// AppendHeader2 appends the 20 header bytes of h to dst.
func AppendHeader2(dst []byte, h Header2) []byte {
	dst = AppendHeader(dst, h.Header)
	dst[len(dst)-HeaderSize+4] = Version2
	return binary.LittleEndian.AppendUint16(dst, h.AckDelay)
}

// AckDelayUnits converts a delay in microseconds to ack_delay units,
// saturating at 65535 (7.2).
func AckDelayUnits(us int64) uint16 {
	if us <= 0 {
		return 0
	}
	return uint16(min(us/AckDelayUnit, 0xFFFF))
}

// allowed reports whether a v2 datagram of type t may travel in
// direction d (7.2).
func allowed(t Type, d Direction) bool {
	if t == TypeChallenge {
		return d == ToClient
	}
	return t.Allowed(d)
}

// ParseHeader2 checks the rules of 7.2 that need no session table (size,
// magic, version 2, type and its direction, session not 0, the payload
// size of fixed-size types, the Input rules of 7.4) and returns the
// header and the payload, which aliases b.
func ParseHeader2(b []byte, d Direction) (Header2, []byte, error) {
	var h Header2
	if len(b) < HeaderSize2 {
		return h, nil, ErrShort
	}
	if len(b) > MaxDatagram {
		return h, nil, ErrTooLarge
	}
	if [4]byte(b[0:4]) != Magic {
		return h, nil, ErrMagic
	}
	if b[4] != Version2 {
		return h, nil, ErrVersion2
	}
	h.Type = Type(b[5])
	if h.Type < TypeBind || h.Type > TypeChallenge {
		return h, nil, ErrType
	}
	if !allowed(h.Type, d) {
		return h, nil, ErrDirection
	}
	le := binary.LittleEndian
	h.Seq = le.Uint16(b[6:])
	h.Ack = le.Uint16(b[8:])
	h.AckBits = le.Uint32(b[10:])
	h.Session = le.Uint32(b[14:])
	h.AckDelay = le.Uint16(b[18:])
	if h.Session == 0 {
		return h, nil, ErrSession
	}
	p := b[HeaderSize2:]
	switch h.Type {
	case TypeBind:
		if len(p) != TokenSize && len(p) != TokenSize+CookieSize {
			return h, nil, ErrBindSize2
		}
	case TypeAccept:
		if len(p) != 5 {
			return h, nil, ErrPayloadSize2
		}
	case TypeInput:
		if err := checkInput2(p); err != nil {
			return h, nil, err
		}
	case TypeAck:
		if len(p) != 0 {
			return h, nil, ErrPayloadSize2
		}
	case TypeChallenge:
		if len(p) != CookieSize {
			return h, nil, ErrPayloadSize2
		}
	}
	return h, p, nil
}
