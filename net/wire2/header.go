package wire2

import (
	"encoding/binary"
	"errors"
	"rtype/net/wire"
)

// Sizes and limits of protocol v2 (Part II of PROTOCOL.md, 7.2).
const (
	HeaderSize   = 20                            // bytes of the v2 datagram header (7.2)
	MaxPayload   = wire.MaxDatagram - HeaderSize // 1180
	AckDelayUnit = 100                           // microseconds per unit of ack_delay
)

// Errors of the v2 decoders; each names the rule of PROTOCOL.md broken.
var (
	ErrVersion     = errors.New("wire: datagram version is not the session's, 2 (7.2)")
	ErrInputBits   = errors.New("wire: v2 Input with reserved bits 6-7 set (7.4)")
	ErrBindSize    = errors.New("wire: v2 Bind payload is neither 8 nor 16 bytes (7.3)")
	ErrPayloadSize = errors.New("wire: v2 payload size does not match its type (7.2)")
)

// AppendHeader appends the 20 header bytes of h to dst (7.2): v1's fields
// with version 2, then ack_delay.
func AppendHeader(dst []byte, h wire.Header) []byte {
	dst = wire.AppendHeader(dst, h)
	dst[len(dst)-wire.HeaderSize+4] = wire.Version2
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
func allowed(t wire.Type, d wire.Direction) bool {
	if t == wire.TypeChallenge {
		return d == wire.ToClient
	}
	return t.Allowed(d)
}

// ParseHeader checks the rules of 7.2 that need no session table (size,
// magic, version 2, type and its direction, session not 0, the payload
// size of fixed-size types, the Input rules of 7.4) and returns the
// header and the payload, which aliases b.
func ParseHeader(b []byte, d wire.Direction) (wire.Header, []byte, error) {
	var h wire.Header
	if len(b) < HeaderSize {
		return h, nil, wire.ErrShort
	}
	if len(b) > wire.MaxDatagram {
		return h, nil, wire.ErrTooLarge
	}
	if [4]byte(b[0:4]) != wire.Magic {
		return h, nil, wire.ErrMagic
	}
	if b[4] != wire.Version2 {
		return h, nil, ErrVersion
	}
	h.Type = wire.Type(b[5])
	if h.Type < wire.TypeBind || h.Type > wire.TypeChallenge {
		return h, nil, wire.ErrType
	}
	if !allowed(h.Type, d) {
		return h, nil, wire.ErrDirection
	}
	le := binary.LittleEndian
	h.Seq = le.Uint16(b[6:])
	h.Ack = le.Uint16(b[8:])
	h.AckBits = le.Uint32(b[10:])
	h.Session = le.Uint32(b[14:])
	h.AckDelay = le.Uint16(b[18:])
	if h.Session == 0 {
		return h, nil, wire.ErrSession
	}
	p := b[HeaderSize:]
	switch h.Type {
	case wire.TypeBind:
		if len(p) != wire.TokenSize && len(p) != wire.TokenSize+CookieSize {
			return h, nil, ErrBindSize
		}
	case wire.TypeAccept:
		if len(p) != 5 {
			return h, nil, ErrPayloadSize
		}
	case wire.TypeInput:
		if err := checkInput(p); err != nil {
			return h, nil, err
		}
	case wire.TypeAck:
		if len(p) != 0 {
			return h, nil, ErrPayloadSize
		}
	case wire.TypeChallenge:
		if len(p) != CookieSize {
			return h, nil, ErrPayloadSize
		}
	}
	return h, p, nil
}
