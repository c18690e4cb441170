package server

import (
	"math/rand/v2"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// A flood of hostile v2 datagrams (7.10) at a game of a v1 and a v2
// player: random payloads behind v2 headers, the v2 session's datagrams
// from another address, wrong tokens, stale and random cookies, v2
// datagrams of the v1 session. The flooding socket gets nothing but
// Challenges (to its Binds with the right token), never more bytes than it
// sent; the players play on; the v2 ship does not move.
func TestHostileV2(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c1 := join(t, s, "Dallas")
	c2 := join2(t, s, "Ripley")
	ship := c2.shipID()
	c2.pumpUntil(wait, func() bool { s := c2.lastSnap(); return s != nil && len(s.entities) > 0 })
	e0, _ := c2.lastSnap().entity(ship)
	m0 := e0.Motion()
	x0, y0, _, _ := m0.At(float64(c2.lastSnap().tick))

	evil := c2.newUDP()
	rng := rand.New(rand.NewPCG(12, 1))
	junk := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	h2 := func(typ wire.Type, sess uint32, p []byte) []byte {
		h := wire.Header{Type: typ, Seq: uint16(rng.Uint32()), Ack: uint16(rng.Uint32()), AckBits: rng.Uint32(), Session: sess, AckDelay: uint16(rng.Uint32())}
		return append(wire2.AppendHeader(nil, h), p...)
	}
	sent, binds := 0, 0
	for i := range 3000 {
		var d []byte
		switch i % 8 {
		case 0: // any type, any session, junk
			d = h2(wire.Type(rng.IntN(256)), rng.Uint32(), junk(rng.IntN(200)))
		case 1: // the v2 session's Input, valid, from another address
			d = h2(wire.TypeInput, c2.acc.Session, wire2.AppendInput(nil, &wire2.Input{Step: rng.Uint32() >> 1, Count: 1, Actions: [8]uint8{wire.ActionRight | wire.ActionFire}}))
		case 2: // its Ack and Event
			if rng.IntN(2) == 0 {
				d = h2(wire.TypeAck, c2.acc.Session, nil)
			} else {
				d = h2(wire.TypeEvent, c2.acc.Session, junk(1+rng.IntN(100)))
			}
		case 3: // Bind with a wrong token, with or without a cookie
			tok := c2.acc.Token
			tok[rng.IntN(8)] ^= byte(1 + rng.IntN(255))
			d = h2(wire.TypeBind, c2.acc.Session, wire2.AppendBind(nil, wire2.Bind{Token: tok, HasCookie: rng.IntN(2) == 0, Cookie: wire2.Cookie(junk(8))}))
		case 4: // Bind with the right token and a random cookie
			d = h2(wire.TypeBind, c2.acc.Session, wire2.AppendBind(nil, wire2.Bind{Token: c2.acc.Token, HasCookie: true, Cookie: wire2.Cookie(junk(8))}))
			binds++
		case 5: // v2 datagrams of the v1 session, its right token
			d = h2(wire.TypeBind, c1.acc.Session, c1.acc.Token[:])
		case 6: // a Bind of odd size, an Input of bad count or bits
			if rng.IntN(2) == 0 {
				d = h2(wire.TypeBind, c2.acc.Session, append(c2.acc.Token[:], junk(1+rng.IntN(20))...))
			} else {
				p := wire2.AppendInput(nil, &wire2.Input{Step: 10, Count: 2})
				p[4+rng.IntN(3)] |= 0xC0
				d = h2(wire.TypeInput, c2.acc.Session, p)
			}
		case 7: // a v2 header on junk of up to 1500 bytes
			d = append(h2(wire.TypeSnapshot, c2.acc.Session, nil), junk(rng.IntN(1480))...)
		}
		evil.Write(d)
		sent += len(d)
		if i%64 == 63 {
			time.Sleep(time.Millisecond) // every datagram reaches the server
			c1.pumpUntil(time.Millisecond, nil)
			c2.pumpUntil(time.Millisecond, nil)
		}
	}
	got, challenges, other := 0, 0, 0
	buf := make([]byte, 2048)
	for {
		evil.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		n, err := evil.Read(buf)
		if err != nil {
			break
		}
		got += n
		if h, _, err := wire2.ParseHeader(buf[:n], wire.ToClient); err == nil && h.Type == wire.TypeChallenge && n == 28 {
			challenges++
		} else {
			other++
		}
	}
	t.Logf("%d bytes sent, %d back: %d Challenges (to %d Binds with the token), %d others", sent, got, challenges, binds, other)
	if other != 0 || got > sent || challenges > binds {
		t.Fatalf("%d bytes sent, %d back, %d Challenges for %d Binds, %d other datagrams", sent, got, challenges, binds, other)
	}
	// The players play on; the hostile Inputs moved nothing.
	n1, n2 := len(c1.snaps), len(c2.snaps)
	c1.waitSnaps(3)
	c2.pumpUntil(wait, func() bool { return len(c2.snaps) >= n2+3 })
	if len(c1.snaps) < n1+3 || len(c2.snaps) < n2+3 {
		t.Fatal("the players lost their game")
	}
	s2 := c2.lastSnap()
	e, ok := s2.entity(ship)
	if !ok {
		t.Fatal("the v2 ship is gone")
	}
	m := e.Motion()
	if x, y, _, _ := m.At(float64(s2.tick)); x != x0 || y != y0 {
		t.Fatalf("the v2 ship moved from (%v, %v) to (%v, %v)", x0, y0, x, y)
	}
}
