package wire2

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"hash"
	"net/netip"
	"rtype/net/wire"
)

// CookieSize is the size of the address cookie of a v2 binding (7.3).
const CookieSize = 8

// Cookie proves that an address receives (7.3): the server sends it in a
// Challenge, and the client sends it back in its Bind.
type Cookie [CookieSize]byte

// CookieEpochSeconds is the length of a cookie epoch (7.3): a cookie is
// valid during its epoch and the next one, 10 to 20 seconds.
const CookieEpochSeconds = 10

// CookieEpoch returns the epoch of a Unix time in seconds.
func CookieEpoch(unix int64) uint32 { return uint32(unix / CookieEpochSeconds) }

// Bind is the payload of a v2 Bind (7.3): the token, then the cookie of
// the last Challenge if the client has one.
type Bind struct {
	Token     wire.Token
	HasCookie bool
	Cookie    Cookie
}

// AppendBind appends the payload of b: 8 bytes, or 16 with a cookie.
func AppendBind(dst []byte, b Bind) []byte {
	dst = append(dst, b.Token[:]...)
	if b.HasCookie {
		dst = append(dst, b.Cookie[:]...)
	}
	return dst
}

// ParseBind decodes a v2 Bind payload checked by ParseHeader.
func ParseBind(p []byte) (Bind, error) {
	var b Bind
	switch len(p) {
	case wire.TokenSize + CookieSize:
		b.HasCookie = true
		copy(b.Cookie[:], p[wire.TokenSize:])
	case wire.TokenSize:
	default:
		return b, ErrBindSize
	}
	copy(b.Token[:], p)
	return b, nil
}

// ParseChallenge decodes a Challenge payload checked by ParseHeader.
func ParseChallenge(p []byte) (Cookie, error) {
	var c Cookie
	if len(p) != CookieSize {
		return c, ErrPayloadSize
	}
	copy(c[:], p)
	return c, nil
}

// CookieMAC computes and checks the cookies of the reference server (7.3):
// the first 8 bytes of HMAC-SHA256(secret, epoch u32 || ip 16 bytes ||
// port u16 || session u32), little-endian, an IPv4 address in its
// IPv4-mapped IPv6 form. It keeps its buffers, so computing a cookie
// allocates nothing; it is not safe for concurrent use.
type CookieMAC struct {
	mac hash.Hash
	msg [26]byte
	sum [sha256.Size]byte
}

// NewCookieMAC returns a CookieMAC for the server's secret (32 random
// bytes, drawn at start).
func NewCookieMAC(secret []byte) *CookieMAC {
	return &CookieMAC{mac: hmac.New(sha256.New, secret)}
}

// Cookie returns the cookie of addr and session in epoch.
func (c *CookieMAC) Cookie(epoch uint32, addr netip.AddrPort, session uint32) Cookie {
	le := binary.LittleEndian
	le.PutUint32(c.msg[0:], epoch)
	ip := addr.Addr().As16() // IPv4 as ::ffff:a.b.c.d
	copy(c.msg[4:20], ip[:])
	le.PutUint16(c.msg[20:], addr.Port())
	le.PutUint32(c.msg[22:], session)
	c.mac.Reset()
	c.mac.Write(c.msg[:])
	var out Cookie
	copy(out[:], c.mac.Sum(c.sum[:0]))
	return out
}

// Check reports whether cookie is the cookie of addr and session in the
// epoch of now (Unix seconds) or the one before, comparing in constant
// time.
func (c *CookieMAC) Check(now int64, addr netip.AddrPort, session uint32, cookie Cookie) bool {
	e := CookieEpoch(now)
	cur := c.Cookie(e, addr, session)
	prev := c.Cookie(e-1, addr, session)
	a := subtle.ConstantTimeCompare(cur[:], cookie[:])
	b := subtle.ConstantTimeCompare(prev[:], cookie[:])
	return a|b == 1
}
