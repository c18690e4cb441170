// Package discovery finds games on the local network (PROTOCOL.md, section
// 8): a client sends a Query datagram, usually to the LAN broadcast
// address, port 4243; every server that hears it answers that client, and
// only it, with an Answer: its game port, its name, the modes it offers,
// its players and games, the protocol versions it speaks. A server never
// announces itself on its own.
//
// A Query is padded to QuerySize bytes and an Answer is never longer, so a
// responder cannot be used to amplify traffic towards a forged source
// address; answers are also rate-limited per source address (Responder).
//
// The package has the codec (AppendQuery, ParseQuery, AppendAnswer,
// ParseAnswer), the server's side (Responder) and the client's (Querier).
package discovery

import (
	"encoding/binary"
	"errors"
	"unicode"
	"unicode/utf8"

	"rtype/net/wire"
)

// The constants of section 8.
const (
	// Port is the default discovery port: the game's default port + 1.
	Port = wire.DefaultPort + 1
	// Version is the version of the discovery protocol.
	Version = 1
	// QuerySize is the size of every Query, padding included.
	QuerySize = 64
	// AnswerHeaderSize is the size of an Answer before its name.
	AnswerHeaderSize = 29
	// MaxAnswerSize is the largest Answer: never more than a Query.
	MaxAnswerSize = QuerySize
	// MaxName is the longest server name, in bytes of UTF-8.
	MaxName = MaxAnswerSize - AnswerHeaderSize
	// DefaultBroadcast is where a client sends its queries by default.
	DefaultBroadcast = "255.255.255.255:4243"
)

// The types of discovery datagrams (byte 5).
const (
	TypeQuery  uint8 = 1
	TypeAnswer uint8 = 2
)

// Magic starts every discovery datagram: "RTYD".
var Magic = [4]byte{'R', 'T', 'Y', 'D'}

// Nonce is the client's random number that an Answer echoes.
type Nonce [8]byte

// Info is what a server tells about itself in an Answer.
type Info struct {
	// Port is the game's TCP and UDP port (not 0).
	Port uint16
	// Modes has bit m set when a login asking for mode m can join now
	// (bit 1: wire.ModeClassic, bit 2: wire.ModeStage).
	Modes uint8
	// DefaultMode is the mode a login asking for wire.ModeAny plays
	// (wire.ModeClassic or wire.ModeStage).
	DefaultMode uint8
	// Versions has bit v-1 set for each protocol version v the server
	// speaks (0x03: 1 and 2); Revision is the revision of version 2 it
	// speaks (wire.Revision; 0 when it does not speak 2).
	Versions, Revision uint8
	// Players are logged in, of at most Capacity; Games run, of at most
	// MaxGames.
	Players, Capacity, Games, MaxGames uint16
	// Name is the server's name: at most MaxName bytes of UTF-8, no
	// control characters (CleanName).
	Name string
}

// ModeBit returns the bit of mode m in Info.Modes.
func ModeBit(m uint8) uint8 { return 1 << m }

// Offers reports whether a login asking for mode m can join now.
func (i *Info) Offers(m uint8) bool { return m < 8 && i.Modes&ModeBit(m) != 0 }

// The errors of the decoders. A datagram that gives one is dropped.
var (
	ErrSize    = errors.New("discovery: wrong datagram size")
	ErrMagic   = errors.New("discovery: not a discovery datagram (magic)")
	ErrVersion = errors.New("discovery: unknown discovery version")
	ErrType    = errors.New("discovery: unexpected datagram type")
	ErrField   = errors.New("discovery: field out of range")
	ErrName    = errors.New("discovery: invalid server name")
)

// AppendQuery appends the Query of nonce: QuerySize bytes.
func AppendQuery(dst []byte, nonce Nonce) []byte {
	dst = append(dst, Magic[:]...)
	dst = append(dst, Version, TypeQuery)
	dst = append(dst, nonce[:]...)
	var pad [QuerySize - 14]byte
	return append(dst, pad[:]...)
}

// ParseQuery returns the nonce of a Query. The padding's content is
// ignored.
func ParseQuery(b []byte) (Nonce, error) {
	if err := checkStart(b, TypeQuery); err != nil {
		return Nonce{}, err
	}
	if len(b) != QuerySize {
		return Nonce{}, ErrSize
	}
	return Nonce(b[6:14]), nil
}

func checkStart(b []byte, typ uint8) error {
	switch {
	case len(b) < 6:
		return ErrSize
	case [4]byte(b[:4]) != Magic:
		return ErrMagic
	case b[4] != Version:
		return ErrVersion
	case b[5] != typ:
		return ErrType
	}
	return nil
}

// AppendAnswer appends the Answer to the query of nonce: AnswerHeaderSize
// bytes and the name, cleaned and cut to MaxName bytes (CleanName).
func AppendAnswer(dst []byte, nonce Nonce, info *Info) []byte {
	name := CleanName(info.Name)
	dst = append(dst, Magic[:]...)
	dst = append(dst, Version, TypeAnswer)
	dst = append(dst, nonce[:]...)
	dst = binary.LittleEndian.AppendUint16(dst, info.Port)
	dst = append(dst, info.Modes, info.DefaultMode, info.Versions, info.Revision)
	for _, v := range [...]uint16{info.Players, info.Capacity, info.Games, info.MaxGames} {
		dst = binary.LittleEndian.AppendUint16(dst, v)
	}
	dst = append(dst, byte(len(name)))
	return append(dst, name...)
}

// ParseAnswer decodes an Answer and checks it (8.3): a client trusts a
// server no more than a server trusts a client.
func ParseAnswer(b []byte) (Nonce, Info, error) {
	if err := checkStart(b, TypeAnswer); err != nil {
		return Nonce{}, Info{}, err
	}
	if len(b) < AnswerHeaderSize || len(b) > MaxAnswerSize || len(b) != AnswerHeaderSize+int(b[28]) {
		return Nonce{}, Info{}, ErrSize
	}
	u16 := func(at int) uint16 { return binary.LittleEndian.Uint16(b[at:]) }
	info := Info{
		Port: u16(14), Modes: b[16], DefaultMode: b[17], Versions: b[18], Revision: b[19],
		Players: u16(20), Capacity: u16(22), Games: u16(24), MaxGames: u16(26),
	}
	name := b[AnswerHeaderSize:]
	switch {
	case info.Port == 0,
		info.DefaultMode != wire.ModeClassic && info.DefaultMode != wire.ModeStage,
		info.Versions == 0,
		info.Players > info.Capacity, info.Games > info.MaxGames:
		return Nonce{}, Info{}, ErrField
	case !validName(name):
		return Nonce{}, Info{}, ErrName
	}
	info.Name = string(name)
	return Nonce(b[6:14]), info, nil
}

// validName reports whether b is a name an Answer may carry: UTF-8 with no
// control or bidi formatting characters. It allocates nothing.
func validName(b []byte) bool {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 || !nameRune(r) {
			return false
		}
		b = b[n:]
	}
	return true
}

func nameRune(r rune) bool {
	return !unicode.IsControl(r) && !unicode.Is(unicode.Bidi_Control, r) && r != utf8.RuneError
}

// CleanName returns name without its control and bidi formatting
// characters and invalid UTF-8, cut at a character boundary to at most
// MaxName bytes: the name an Answer carries.
func CleanName(name string) string {
	if len(name) <= MaxName && validName([]byte(name)) {
		return name
	}
	out := make([]byte, 0, MaxName)
	for _, r := range name {
		if !nameRune(r) {
			continue
		}
		if len(out)+utf8.RuneLen(r) > MaxName {
			break
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out)
}
