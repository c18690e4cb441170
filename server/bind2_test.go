package server

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// The binding that proves the address (7.3), on real sockets.

// udpAddr returns the local address of u as the server sees it.
func udpAddr(u *net.UDPConn) netip.AddrPort {
	a := u.LocalAddr().(*net.UDPAddr).AddrPort()
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
}

// cookieFor computes the server's cookie of addr and session in epoch.
func cookieFor(s *Server, epoch uint32, addr netip.AddrPort, session uint32) wire2.Cookie {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.in.cookies.Cookie(epoch, addr, session)
}

// readDatagram2 reads one v2 datagram from u within d, failing the test
// on anything else.
func readDatagram2(t *testing.T, u *net.UDPConn, d time.Duration) (wire.Header, []byte, int) {
	t.Helper()
	buf := make([]byte, 2048)
	u.SetReadDeadline(time.Now().Add(d))
	n, err := u.Read(buf)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	h, p, err := wire2.ParseHeader(buf[:n], wire.ToClient)
	if err != nil {
		t.Fatalf("invalid v2 datagram % X: %v", buf[:n], err)
	}
	return h, p, n
}

// bind2 sends a v2 Bind from u.
func bind2(u *net.UDPConn, seq uint16, c *tclient2, cookie *wire2.Cookie) int {
	b := wire2.Bind{Token: c.acc.Token}
	if cookie != nil {
		b.HasCookie, b.Cookie = true, *cookie
	}
	d := rawDatagram2(wire.TypeBind, seq, c.acc.Session, wire2.AppendBind(nil, b))
	u.Write(d)
	return len(d)
}

// 7.3 steps 1 to 4: Bind (token) gets a Challenge of 28 bytes, not more
// than the Bind, with the cookie of the source address, and nothing else;
// the Bind with that cookie gets the Accept, then the joining events and
// the game.
func TestBind2Exchange(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	c := connect2(t, s, "Ripley")
	u := c.newUDP()
	sent := bind2(u, 0, c, nil)
	h, p, n := readDatagram2(t, u, wait)
	if h.Type != wire.TypeChallenge || n != 28 || n > sent {
		t.Fatalf("answer %+v of %d bytes to a %d-byte Bind, want a 28-byte Challenge", h, n, sent)
	}
	if h.Ack != 0xFFFF || h.AckBits != 0 {
		t.Fatalf("Challenge acknowledges %#x/%#x: the Bind is not recorded (7.3)", h.Ack, h.AckBits)
	}
	cookie, _ := wire2.ParseChallenge(p)
	if want := cookieFor(s, wire2.CookieEpoch(time.Now().Unix()), udpAddr(u), c.acc.Session); cookie != want &&
		cookie != cookieFor(s, wire2.CookieEpoch(time.Now().Unix())-1, udpAddr(u), c.acc.Session) {
		t.Fatalf("cookie % X, want % X", cookie, want)
	}
	silentFor(t, u, 300*time.Millisecond, "after a Challenge, before the cookie")

	bind2(u, 1, c, &cookie)
	h, p, n = readDatagram2(t, u, wait)
	if h.Type != wire.TypeAccept || n != 25 {
		t.Fatalf("answer %+v (%d bytes), want a 25-byte Accept", h, n)
	}
	if h.Ack != 1 {
		t.Fatalf("Accept acknowledges %d, want the cookie Bind 1", h.Ack)
	}
	a, _ := wire.ParseAccept(p)
	if a.Player != c.acc.Player {
		t.Fatalf("Accept %+v", a)
	}
	c.udp = u
	c.link.Accept(h, n, time.Now())
	c.accepts = append(c.accepts, a)
	c.shipID() // the joining events, then the game
	c.pumpUntil(wait, func() bool { return len(c.snaps) >= 2 })
}

// 7.3: a Bind whose token does not match gets nothing; a Bind with a
// wrong cookie, a cookie of another address, or one of an epoch before
// the previous gets a new Challenge and no Accept; the previous epoch's
// cookie is still good.
func TestBind2CookieRules(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	c := connect2(t, s, "Ripley")
	u, other := c.newUDP(), c.newUDP()
	epoch := wire2.CookieEpoch(time.Now().Unix())

	bad := *c
	bad.acc.Token[0] ^= 1
	bind2(u, 0, &bad, nil)
	silentFor(t, u, 300*time.Millisecond, "Bind with a wrong token")

	mine := cookieFor(s, epoch, udpAddr(u), c.acc.Session)
	wrong := mine
	wrong[7] ^= 0x80
	for name, ck := range map[string]wire2.Cookie{
		"wrong cookie":      wrong,
		"another address's": cookieFor(s, epoch, udpAddr(other), c.acc.Session),
		"another session's": cookieFor(s, epoch, udpAddr(u), c.acc.Session+1),
		"two epochs old":    cookieFor(s, epoch-2, udpAddr(u), c.acc.Session),
		"two epochs ahead":  cookieFor(s, epoch+2, udpAddr(u), c.acc.Session),
	} {
		bind2(u, 0, c, &ck)
		h, p, _ := readDatagram2(t, u, wait)
		if h.Type != wire.TypeChallenge {
			t.Fatalf("%s: got %v, want a Challenge", name, h.Type)
		}
		if got, _ := wire2.ParseChallenge(p); got == ck {
			t.Fatalf("%s: the Challenge echoes the bad cookie", name)
		}
	}
	// The cookie of u sent from other: other gets a Challenge for itself.
	bind2(other, 0, c, &mine)
	if h, p, _ := readDatagram2(t, other, wait); h.Type != wire.TypeChallenge {
		t.Fatalf("another address's cookie: %v", h.Type)
	} else if got, _ := wire2.ParseChallenge(p); got == mine {
		t.Fatal("Challenge to other carries u's cookie")
	}
	// The previous epoch's cookie binds.
	prev := cookieFor(s, wire2.CookieEpoch(time.Now().Unix())-1, udpAddr(u), c.acc.Session)
	bind2(u, 1, c, &prev)
	if h, _, n := readDatagram2(t, u, wait); h.Type != wire.TypeAccept || n != 25 {
		t.Fatalf("previous epoch's cookie: %v", h.Type)
	}
	// other never got game traffic.
	buf := make([]byte, 2048)
	for {
		other.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		_, err := other.Read(buf)
		if err != nil {
			break
		}
		if buf[5] != byte(wire.TypeChallenge) {
			t.Fatalf("other got a datagram of type %d", buf[5])
		}
	}
}

// 7.3 Rebinding: a bound client that moves gets a Challenge at its new
// address while the game goes on to the old one; its Bind with the cookie
// moves the game to the new address.
func TestBind2Rebind(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	c := join2(t, s, "Ripley")
	c.pumpUntil(wait, func() bool { return len(c.snaps) >= 2 })
	old := c.udp
	nu := c.newUDP()
	bind2(nu, 5000, c, nil)
	h, p, _ := readDatagram2(t, nu, wait)
	if h.Type != wire.TypeChallenge {
		t.Fatalf("new address got %v first, want a Challenge", h.Type)
	}
	cookie, _ := wire2.ParseChallenge(p)
	// Until the cookie comes back, only the old address gets the game.
	n := len(c.snaps)
	c.pumpUntil(wait, func() bool { return len(c.snaps) >= n+3 })
	silentFor(t, nu, 100*time.Millisecond, "new address before its cookie")

	c.udp = nu
	c.cookie, c.cookies = cookie, 1
	k := len(c.accepts)
	c.send(wire.TypeBind, wire2.AppendBind(nil, wire2.Bind{Token: c.acc.Token, HasCookie: true, Cookie: cookie}))
	c.pumpUntil(wait, func() bool { return len(c.accepts) > k })
	if len(c.accepts) == k {
		t.Fatal("no Accept at the new address")
	}
	n = len(c.snaps)
	c.pumpUntil(wait, func() bool { return len(c.snaps) >= n+2 })
	if len(c.snaps) < n+2 {
		t.Fatal("no game at the new address")
	}
	// The old address is out of the game: its datagrams are dropped and
	// it gets nothing more (a datagram may still be in flight).
	old.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	for {
		if _, err := old.Read(make([]byte, 2048)); err != nil {
			break
		}
	}
	silentFor(t, old, 300*time.Millisecond, "old address after the rebind")
}
