// Package rendezvous is the rendezvous of hosted games (issue 29,
// PROTOCOL.md Part V): a small UDP service on a public machine where a
// game server hosted at home registers its room codes, where a friend
// looks a code up, and which introduces the two for UDP hole punching or,
// when nothing else works, relays their datagrams.
//
// Its messages share a UDP socket with QUIC (the WebTransport binding's):
// their first byte, Magic, has QUIC's fixed bit (0x40) clear, so that no
// QUIC packet is taken for one and none of them for a QUIC packet.
package rendezvous

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"

	"rtype/net/wire"
)

// Magic is the first byte of every message; Version the second.
const (
	Magic   = 0x0E
	Version = 1
)

// HeaderLen is the length of a message's header: Magic, Version, its
// type, and a reserved zero byte.
const HeaderLen = 4

// The message types (byte 2 of the header).
const (
	TRegister   = 0x01 // host → rendezvous: my rooms
	TLookup     = 0x02 // friend → rendezvous: where is this room?
	TRetry      = 0x03 // rendezvous → any: prove your address with this cookie
	TRegistered = 0x04 // rendezvous → host: registered
	TPeer       = 0x05 // rendezvous → friend: the room's host
	TIntro      = 0x06 // rendezvous → host: a friend comes
	TError      = 0x07 // rendezvous → any: refused
	TRelay      = 0x08 // peer ↔ rendezvous ↔ peer: a relayed datagram
	TPunch      = 0x09 // peer → peer: opens the NAT mappings
	TSpray      = 0x0A // friend → rendezvous: have the host probe my ports
	TProbe      = 0x0B // rendezvous → host: probe these ports of the friend
	TOpen       = 0x0C // friend → rendezvous: have the host open sockets toward me
	TReach      = 0x0D // rendezvous → host: open sockets toward the friend
)

// SprayPorts is how many ports of a friend's address a host probes when
// asked (Probe): with the friend's SprayPorts sockets, the chance that
// none of the probes meets one of the ports its symmetric NAT gave them is
// about exp(-SprayPorts*SpraySockets/64512), 1e-7.
const (
	SprayPorts   = 2048
	SpraySockets = 512
)

// Lengths of the fixed fields.
const (
	NonceLen  = 8
	CookieLen = 16
	TokenLen  = 16
	HashLen   = 32
	// MaxCodes is the most room codes one Register carries.
	MaxCodes = 32
	// MaxRelayPayload is the largest datagram relayed: a QUIC packet of
	// up to 1452 bytes, which with the relay header fits a 1500-byte MTU
	// over IPv4 and UDP.
	MaxRelayPayload = 1452
)

// The Error codes.
const (
	CodeUnknownRoom = 1 // no host registered the code
	CodeTaken       = 2 // another host holds a code (Register)
	CodeFull        = 3 // the rendezvous holds as many hosts or pairs as it may
	CodeBadToken    = 4 // Register with a host token the rendezvous did not issue
)

// Cookie proves that its holder receives at an address (RETRY).
type Cookie [CookieLen]byte

// Token is a secret the rendezvous issued: a host's (Register) or a
// pair's (relay, punching).
type Token [TokenLen]byte

// Register is a host's registration, sent again every refresh.
type Register struct {
	Nonce  uint64
	Cookie Cookie // zero at first: the answer is a Retry
	// HostToken is the token of a previous Registered; zero the first
	// time.
	HostToken Token
	// CertHash is the SHA-256 hash of the certificate of the host's
	// WebTransport binding.
	CertHash [HashLen]byte
	// Local is the address of the host's socket as the host sees it; the
	// same as the observed one when it is on the internet (path direct).
	Local netip.AddrPort
	// Mapped is a port mapping its router gave it (UPnP, NAT-PMP), or
	// zero.
	Mapped netip.AddrPort
	Codes  []wire.RoomCode
}

// Lookup is a friend's question for a room.
type Lookup struct {
	Nonce  uint64
	Cookie Cookie
	Code   wire.RoomCode
}

// Retry answers a request without a valid cookie.
type Retry struct {
	Nonce  uint64
	Cookie Cookie
}

// Registered answers a Register.
type Registered struct {
	Nonce     uint64
	HostToken Token
	Observed  netip.AddrPort // the host's address as the rendezvous sees it
	TTL       uint16         // seconds the registration lasts without a refresh
	// Page is the TCP port of the rendezvous' HTTPS page for browsers,
	// on the rendezvous' host (10.8): friends in a browser join there by
	// code; 0 when it serves none.
	Page uint16
}

// Peer answers a Lookup: the room's host, and the pair's token.
type Peer struct {
	Nonce    uint64
	Token    Token
	Observed netip.AddrPort // the host's, as the rendezvous sees it
	Local    netip.AddrPort // the host's, as it sees it
	Mapped   netip.AddrPort // the host's port mapping, or zero
	CertHash [HashLen]byte
	You      netip.AddrPort // the friend's, as the rendezvous sees it
}

// Intro tells a host that a friend looked its room up.
type Intro struct {
	Token  Token
	Friend netip.AddrPort // as the rendezvous sees it
}

// Error refuses a request.
type Error struct {
	Nonce uint64
	Code  uint8
}

// Spray asks, for the pair of Token, that the host probe SprayPorts
// random ports of the friend's address (a friend behind a NAT that maps
// each destination to a port of its own, whose ports toward the host
// nobody can know: the birthday paradox finds one).
type Spray struct {
	Nonce  uint64
	Cookie Cookie
	Token  Token
}

// Probe tells a host to send Punches of the pair Token to Count random
// ports of the friend's address.
type Probe struct {
	Token  Token
	Friend netip.Addr
	Count  uint16
}

// Reach tells a host to open Count sockets, each sending a Punch of the
// pair Token to Friend (the friend's observed address): the friend then
// probes the host's address, and a probe that meets one of the host's
// mappings opens the path (the birthday paradox, the other way round).
type Reach struct {
	Token  Token
	Friend netip.AddrPort
	Count  uint16
}

// errShort is the answer to a message cut short or malformed.
var errShort = errors.New("rendezvous: malformed message")

func header(b []byte, t byte) []byte { return append(b, Magic, Version, t, 0) }

// Type returns the type of message b, or 0 when b is not one.
func Type(b []byte) byte {
	if len(b) < HeaderLen || b[0] != Magic || b[1] != Version {
		return 0
	}
	return b[2]
}

// appendAddr appends a: a family byte (0 none, 4, 6), the address, the
// port (big-endian).
func appendAddr(b []byte, a netip.AddrPort) []byte {
	switch {
	case !a.IsValid():
		return append(b, 0)
	case a.Addr().Is4() || a.Addr().Is4In6():
		ip := a.Addr().Unmap().As4()
		b = append(append(b, 4), ip[:]...)
	default:
		ip := a.Addr().As16()
		b = append(append(b, 6), ip[:]...)
	}
	return binary.BigEndian.AppendUint16(b, a.Port())
}

// reader reads a message's fields; its first error sticks.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) take(n int) []byte {
	if r.bad || len(r.b) < n {
		r.bad = true
		return make([]byte, n)
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) u64() uint64 { return binary.BigEndian.Uint64(r.take(8)) }
func (r *reader) u16() uint16 { return binary.BigEndian.Uint16(r.take(2)) }
func (r *reader) u8() uint8   { return r.take(1)[0] }

func (r *reader) addr() netip.AddrPort {
	switch r.u8() {
	case 0:
		return netip.AddrPort{}
	case 4:
		ip := netip.AddrFrom4([4]byte(r.take(4)))
		return netip.AddrPortFrom(ip, r.u16())
	case 6:
		ip := netip.AddrFrom16([16]byte(r.take(16)))
		return netip.AddrPortFrom(ip, r.u16())
	}
	r.bad = true
	return netip.AddrPort{}
}

func (r *reader) code() wire.RoomCode {
	var c wire.RoomCode
	copy(c[:], r.take(len(c)))
	if _, ok := wire.ParseRoomCode(string(c[:])); !ok {
		r.bad = true
	}
	return c
}

// end reports the error of the message: malformed, or bytes left over.
func (r *reader) end() error {
	if r.bad || len(r.b) != 0 {
		return errShort
	}
	return nil
}

// body returns r over the body of b if b is a message of type t.
func body(b []byte, t byte) reader {
	if Type(b) != t || b[3] != 0 {
		return reader{bad: true}
	}
	return reader{b: b[HeaderLen:]}
}

// AppendRegister appends m as a message.
func AppendRegister(b []byte, m *Register) []byte {
	b = header(b, TRegister)
	b = binary.BigEndian.AppendUint64(b, m.Nonce)
	b = append(b, m.Cookie[:]...)
	b = append(b, m.HostToken[:]...)
	b = append(b, m.CertHash[:]...)
	b = appendAddr(b, m.Local)
	b = appendAddr(b, m.Mapped)
	b = append(b, byte(len(m.Codes)))
	for _, c := range m.Codes {
		b = append(b, c[:]...)
	}
	return b
}

// ParseRegister parses a Register message.
func ParseRegister(b []byte) (Register, error) {
	r := body(b, TRegister)
	var m Register
	m.Nonce = r.u64()
	m.Cookie = Cookie(r.take(CookieLen))
	m.HostToken = Token(r.take(TokenLen))
	m.CertHash = [HashLen]byte(r.take(HashLen))
	m.Local = r.addr()
	m.Mapped = r.addr()
	n := int(r.u8())
	if n > MaxCodes {
		return m, errShort
	}
	for range n {
		m.Codes = append(m.Codes, r.code())
	}
	return m, r.end()
}

// AppendLookup appends m as a message.
func AppendLookup(b []byte, m *Lookup) []byte {
	b = header(b, TLookup)
	b = binary.BigEndian.AppendUint64(b, m.Nonce)
	b = append(b, m.Cookie[:]...)
	return append(b, m.Code[:]...)
}

// ParseLookup parses a Lookup message.
func ParseLookup(b []byte) (Lookup, error) {
	r := body(b, TLookup)
	var m Lookup
	m.Nonce = r.u64()
	m.Cookie = Cookie(r.take(CookieLen))
	m.Code = r.code()
	return m, r.end()
}

// RetryLen is the length of a Retry: no more than the shortest request
// (a Lookup, LookupLen), so that a Retry never amplifies.
const (
	RetryLen  = HeaderLen + NonceLen + CookieLen
	LookupLen = HeaderLen + NonceLen + CookieLen + len(wire.RoomCode{})
)

// AppendRetry appends m as a message.
func AppendRetry(b []byte, m *Retry) []byte {
	b = header(b, TRetry)
	b = binary.BigEndian.AppendUint64(b, m.Nonce)
	return append(b, m.Cookie[:]...)
}

// ParseRetry parses a Retry message.
func ParseRetry(b []byte) (Retry, error) {
	r := body(b, TRetry)
	var m Retry
	m.Nonce = r.u64()
	m.Cookie = Cookie(r.take(CookieLen))
	return m, r.end()
}

// AppendRegistered appends m as a message.
func AppendRegistered(b []byte, m *Registered) []byte {
	b = header(b, TRegistered)
	b = binary.BigEndian.AppendUint64(b, m.Nonce)
	b = append(b, m.HostToken[:]...)
	b = appendAddr(b, m.Observed)
	b = binary.BigEndian.AppendUint16(b, m.TTL)
	return binary.BigEndian.AppendUint16(b, m.Page)
}

// ParseRegistered parses a Registered message.
func ParseRegistered(b []byte) (Registered, error) {
	r := body(b, TRegistered)
	var m Registered
	m.Nonce = r.u64()
	m.HostToken = Token(r.take(TokenLen))
	m.Observed = r.addr()
	m.TTL = r.u16()
	m.Page = r.u16()
	return m, r.end()
}

// AppendPeer appends m as a message.
func AppendPeer(b []byte, m *Peer) []byte {
	b = header(b, TPeer)
	b = binary.BigEndian.AppendUint64(b, m.Nonce)
	b = append(b, m.Token[:]...)
	b = appendAddr(b, m.Observed)
	b = appendAddr(b, m.Local)
	b = appendAddr(b, m.Mapped)
	b = append(b, m.CertHash[:]...)
	return appendAddr(b, m.You)
}

// ParsePeer parses a Peer message.
func ParsePeer(b []byte) (Peer, error) {
	r := body(b, TPeer)
	var m Peer
	m.Nonce = r.u64()
	m.Token = Token(r.take(TokenLen))
	m.Observed = r.addr()
	m.Local = r.addr()
	m.Mapped = r.addr()
	m.CertHash = [HashLen]byte(r.take(HashLen))
	m.You = r.addr()
	return m, r.end()
}

// AppendIntro appends m as a message.
func AppendIntro(b []byte, m *Intro) []byte {
	b = header(b, TIntro)
	b = append(b, m.Token[:]...)
	return appendAddr(b, m.Friend)
}

// ParseIntro parses an Intro message.
func ParseIntro(b []byte) (Intro, error) {
	r := body(b, TIntro)
	var m Intro
	m.Token = Token(r.take(TokenLen))
	m.Friend = r.addr()
	return m, r.end()
}

// AppendError appends m as a message.
func AppendError(b []byte, m *Error) []byte {
	b = header(b, TError)
	b = binary.BigEndian.AppendUint64(b, m.Nonce)
	return append(b, m.Code)
}

// ParseError parses an Error message.
func ParseError(b []byte) (Error, error) {
	r := body(b, TError)
	var m Error
	m.Nonce = r.u64()
	m.Code = r.u8()
	return m, r.end()
}

// RelayHeaderLen is the length of a Relay message without its payload.
const RelayHeaderLen = HeaderLen + TokenLen

// AppendRelay appends a Relay message of the pair tok carrying p.
func AppendRelay(b []byte, tok Token, p []byte) []byte {
	b = header(b, TRelay)
	b = append(b, tok[:]...)
	return append(b, p...)
}

// ParseRelay returns the pair token and payload of Relay message b
// (the payload aliases b).
func ParseRelay(b []byte) (Token, []byte, error) {
	if Type(b) != TRelay || len(b) < RelayHeaderLen || b[3] != 0 || len(b)-RelayHeaderLen > MaxRelayPayload {
		return Token{}, nil, errShort
	}
	return Token(b[HeaderLen:RelayHeaderLen]), b[RelayHeaderLen:], nil
}

// AppendSpray appends m as a message.
func AppendSpray(b []byte, m *Spray) []byte {
	b = header(b, TSpray)
	b = binary.BigEndian.AppendUint64(b, m.Nonce)
	b = append(b, m.Cookie[:]...)
	return append(b, m.Token[:]...)
}

// ParseSpray parses a Spray message.
func ParseSpray(b []byte) (Spray, error) {
	r := body(b, TSpray)
	var m Spray
	m.Nonce = r.u64()
	m.Cookie = Cookie(r.take(CookieLen))
	m.Token = Token(r.take(TokenLen))
	return m, r.end()
}

// AppendProbe appends m as a message (the friend's address with port 0).
func AppendProbe(b []byte, m *Probe) []byte {
	b = header(b, TProbe)
	b = append(b, m.Token[:]...)
	b = appendAddr(b, netip.AddrPortFrom(m.Friend, 0))
	return binary.BigEndian.AppendUint16(b, m.Count)
}

// ParseProbe parses a Probe message.
func ParseProbe(b []byte) (Probe, error) {
	r := body(b, TProbe)
	var m Probe
	m.Token = Token(r.take(TokenLen))
	m.Friend = r.addr().Addr()
	m.Count = r.u16()
	return m, r.end()
}

// AppendOpen appends m as an Open message (a Spray's fields).
func AppendOpen(b []byte, m *Spray) []byte {
	start := len(b)
	b = AppendSpray(b, m)
	b[start+2] = TOpen
	return b
}

// ParseOpen parses an Open message.
func ParseOpen(b []byte) (Spray, error) {
	if Type(b) != TOpen {
		return Spray{}, errShort
	}
	c := bytes.Clone(b)
	c[2] = TSpray
	return ParseSpray(c)
}

// AppendReach appends m as a message.
func AppendReach(b []byte, m *Reach) []byte {
	b = header(b, TReach)
	b = append(b, m.Token[:]...)
	b = appendAddr(b, m.Friend)
	return binary.BigEndian.AppendUint16(b, m.Count)
}

// ParseReach parses a Reach message.
func ParseReach(b []byte) (Reach, error) {
	r := body(b, TReach)
	var m Reach
	m.Token = Token(r.take(TokenLen))
	m.Friend = r.addr()
	m.Count = r.u16()
	return m, r.end()
}

// AppendPunch appends a Punch message of the pair tok.
func AppendPunch(b []byte, tok Token) []byte {
	b = header(b, TPunch)
	return append(b, tok[:]...)
}

// ParsePunch returns the pair token of Punch message b.
func ParsePunch(b []byte) (Token, error) {
	r := body(b, TPunch)
	t := Token(r.take(TokenLen))
	return t, r.end()
}

// Default is the rendezvous (host:port) the game (rtype) uses when its
// settings and -rendezvous name none, set at link time:
//
//	go build -ldflags "-X rtype/net/rendezvous.Default=rv.example.org:4250" .
//
// Default none. rtype-server and rtype-bot use their -rendezvous only.
var Default string
