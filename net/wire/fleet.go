package wire

import (
	"encoding/binary"
	"net"
	"strconv"
)

// Rooms across a fleet (PROTOCOL.md 7.18, Features.Fleet): a server that does not
// hold the room a lobby session asks for, or that knows a fuller public
// room on another server of its fleet, tells the client where to go.
const (
	// MsgRoomRedirect sends the client to another server of the fleet,
	// server → client: why, code, addr.
	MsgRoomRedirect MsgType = 0x1C
)

// Why a server redirects (7.18).
const (
	// RedirectCode: the code of the client's RoomJoin names a room of
	// that server.
	RedirectCode uint8 = 1
	// RedirectQuick: quick join fills that server's public room first.
	RedirectQuick uint8 = 2
)

// MaxRedirectAddr is the longest address of a RoomRedirect, in bytes.
const MaxRedirectAddr = 255

// MaxRedirectHashes is the most certificate hashes a RoomRedirect
// carries (7.18, its WebTransport fields).
const MaxRedirectHashes = 4

// Redirect is a RoomRedirect (7.18).
type Redirect struct {
	Why  uint8    // RedirectCode or RedirectQuick
	Code RoomCode // the room to join there
	Addr string   // "host:port" of the server that holds it
	// WebTransport is the "host:port" of that server's WebTransport
	// binding (Part IV), for clients that have no TCP or UDP (browsers);
	// "" when it has none (or the sender predates the field): no
	// trailing fields are sent then.
	WebTransport string
	// CertHashes are the SHA-256 hashes of that binding's certificates
	// (9.4), at most MaxRedirectHashes; none when its certificate is one
	// clients trust the usual way.
	CertHashes [][32]byte
}

// ValidRedirectAddr reports whether addr may be a RoomRedirect's: 1 to
// MaxRedirectAddr bytes of printable ASCII without spaces, a host and a
// port from 1 to 65535 (net.SplitHostPort).
func ValidRedirectAddr(addr string) bool {
	if len(addr) == 0 || len(addr) > MaxRedirectAddr {
		return false
	}
	for i := range len(addr) {
		if addr[i] <= ' ' || addr[i] > '~' {
			return false
		}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	p, err := strconv.ParseUint(port, 10, 16)
	return err == nil && p != 0 && port[0] != '0'
}

// AppendRedirect appends d as one TCP frame. An address that is not
// valid (ValidRedirectAddr) is a bug of the caller: it is written as it
// is, cut to MaxRedirectAddr bytes, and the receiver refuses it.
func AppendRedirect(dst []byte, d *Redirect) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, byte(MsgRoomRedirect), d.Why)
	dst = append(dst, d.Code[:]...)
	a := d.Addr
	if len(a) > MaxRedirectAddr {
		a = a[:MaxRedirectAddr]
	}
	dst = AppendStr(dst, a)
	if d.WebTransport != "" {
		w := d.WebTransport
		if len(w) > MaxRedirectAddr {
			w = w[:MaxRedirectAddr]
		}
		dst = AppendStr(dst, w)
		hs := d.CertHashes[:min(len(d.CertHashes), MaxRedirectHashes)]
		dst = append(dst, byte(len(hs)))
		for _, h := range hs {
			dst = append(dst, h[:]...)
		}
	}
	binary.LittleEndian.PutUint16(dst[at:], uint16(len(dst)-at-2))
	return dst
}

// ParseRedirect decodes the type and body of a RoomRedirect frame, with
// its WebTransport fields when they follow the address. Bytes after the
// fields are ignored (7.1). Another type is ErrUnknownMessage; a body too
// short, a why other than RedirectCode or RedirectQuick, a code with a
// character outside RoomCodeAlphabet, an address that is not valid
// (ValidRedirectAddr), and WebTransport fields that are cut, whose
// address is not valid or that count more than MaxRedirectHashes hashes
// are ErrMessageBody.
func ParseRedirect(b []byte, d *Redirect) error {
	*d = Redirect{}
	if len(b) < 1 || len(b) > MaxFrame {
		return ErrFrameLength
	}
	if MsgType(b[0]) != MsgRoomRedirect {
		return ErrUnknownMessage
	}
	body := b[1:]
	if len(body) < 1+RoomCodeLen+2 {
		return ErrMessageBody
	}
	why := body[0]
	var code RoomCode
	copy(code[:], body[1:])
	addr, rest, ok := strAt(body[1+RoomCodeLen:], MaxRedirectAddr)
	if !ok || (why != RedirectCode && why != RedirectQuick) || !code.Valid() || !ValidRedirectAddr(string(addr)) {
		return ErrMessageBody
	}
	r := Redirect{Why: why, Code: code, Addr: string(addr)}
	if len(rest) > 0 { // the WebTransport fields
		wt, rest, ok := strAt(rest, MaxRedirectAddr)
		if !ok || !ValidRedirectAddr(string(wt)) || len(rest) < 1 {
			return ErrMessageBody
		}
		n := int(rest[0])
		if n > MaxRedirectHashes || len(rest) < 1+32*n {
			return ErrMessageBody
		}
		r.WebTransport = string(wt)
		if n > 0 {
			r.CertHashes = make([][32]byte, n)
			for i := range n {
				copy(r.CertHashes[i][:], rest[1+32*i:])
			}
		}
	}
	*d = r
	return nil
}
