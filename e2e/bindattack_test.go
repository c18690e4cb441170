package e2e

import (
	"net"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
)

// The attack of issue 12 item 3: a relay rewrites the source of a valid
// Bind to a victim's address. On loopback the victim is a UDP socket that
// the test holds, and the relay's rewrite is the same bytes sent from
// that socket. The victim counts every byte that reaches it.

// udpSocket opens a UDP socket on 127.0.0.1 for the test.
func udpSocket(t *testing.T) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// received reads u for d, or until enough holds, and returns the bytes
// and the datagrams by type (header byte 5: 2 Accept, 4 Snapshot, 5
// Event, 7 Challenge) that reached it. What must not come is read for d,
// what must come until enough (d is then a deadlock guard).
func received(u *net.UDPConn, d time.Duration, enough func(total int, types map[byte]int) bool) (int, map[byte]int) {
	types := map[byte]int{}
	total := 0
	buf := make([]byte, 2048)
	end := time.Now().Add(d)
	for enough == nil || !enough(total, types) {
		u.SetReadDeadline(end)
		n, err := u.Read(buf)
		if err != nil {
			break
		}
		total += n
		if n > 5 {
			types[buf[5]]++
		}
	}
	return total, types
}

// rawLogin2 logs in with version 2, for a Classic game.
func rawLogin2(t *testing.T, addr, name string) wire.Message {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(testutil.Wait))
	c.Write(wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: name,
		Revision: wire.Revision, Mode: wire.ModeClassic}))
	f, err := (&wire.FrameReader{R: c}).ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	m, err := wire2.ParseMessage(f)
	if err != nil || m.Type != wire.MsgLoginAccepted {
		t.Fatalf("login %s: %+v, %v", name, m, err)
	}
	c.SetDeadline(time.Time{})
	return m
}

// readType reads datagrams from u until one of type typ comes
// (testutil.Wait is a deadlock guard).
func readType(t *testing.T, u *net.UDPConn, typ wire.Type) []byte {
	t.Helper()
	buf := make([]byte, 2048)
	u.SetReadDeadline(time.Now().Add(testutil.Wait))
	for {
		n, err := u.Read(buf)
		if err != nil {
			t.Fatalf("no datagram of type %d: %v", typ, err)
		}
		if n > 5 && wire.Type(buf[5]) == typ {
			return append([]byte(nil), buf[:n]...)
		}
	}
}

// 7.3: in v2 the forged Binds, token only or with a cookie copied from
// the wire, earn the victim only Challenges, never more bytes than were
// forged and never game traffic, while the session's game goes on at its
// own address. In v1 (for the record) one forged Bind moves the game to
// the victim.
func TestBindAttackV2(t *testing.T) {
	srv := testserver.Start(t, server.Config{MaxGames: 1, Seed: 5})
	ua, err := net.ResolveUDPAddr("udp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	acc := rawLogin2(t, srv.Addr(), "Ripley")
	client, victim := udpSocket(t), udpSocket(t)
	h := func(seq uint16) wire.Header {
		return wire.Header{Type: wire.TypeBind, Seq: seq, Ack: 0xFFFF, Session: acc.Session}
	}

	// Before the session is bound: the forged Bind of the client.
	bindTok := wire2.AppendBind(wire2.AppendHeader(nil, h(0)), wire2.Bind{Token: acc.Token})
	forged := 0
	for range 10 {
		victim.WriteToUDP(bindTok, ua)
		forged += len(bindTok)
		time.Sleep(10 * time.Millisecond)
	}
	got, types := received(victim, 500*time.Millisecond, nil)
	t.Logf("v2, unbound session: %d bytes forged, the victim got %d bytes %v", forged, got, types)
	if got > forged || len(types) > 1 || (len(types) == 1 && types[byte(wire.TypeChallenge)] == 0) {
		t.Fatalf("v2, unbound: %d bytes forged, the victim got %d bytes %v: only Challenges, at most the forged bytes (7.3)", forged, got, types)
	}

	// The client binds for real; the relay copies both of its Binds.
	client.WriteToUDP(bindTok, ua)
	ch := readType(t, client, wire.TypeChallenge)
	cookie, _ := wire2.ParseChallenge(ch[wire2.HeaderSize:])
	bindCookie := wire2.AppendBind(wire2.AppendHeader(nil, h(1)), wire2.Bind{Token: acc.Token, HasCookie: true, Cookie: cookie})
	client.WriteToUDP(bindCookie, ua)
	readType(t, client, wire.TypeAccept)
	readType(t, client, wire.TypeSnapshot)

	// Another victim, so that nothing late of the first one's counts.
	victim = udpSocket(t)
	forged = 0
	for i := range 20 {
		d := bindTok
		if i%2 == 1 {
			d = bindCookie
		}
		victim.WriteToUDP(d, ua)
		forged += len(d)
		time.Sleep(10 * time.Millisecond)
	}
	got, types = received(victim, time.Second, nil)
	t.Logf("v2, bound session: %d bytes forged, the victim got %d bytes %v", forged, got, types)
	if got > forged || len(types) > 1 || (len(types) == 1 && types[byte(wire.TypeChallenge)] == 0) {
		t.Fatalf("v2, bound: %d bytes forged, the victim got %d bytes %v: only Challenges, at most the forged bytes (7.3)", forged, got, types)
	}
	// The game stayed with the client.
	readType(t, client, wire.TypeSnapshot)
}

// For the record: the same attack on a v1 session. One forged 26-byte Bind
// (3.4) moves the session's game to the victim: it gets Snapshots, ten
// times the forged bytes.
func TestBindAttackV1(t *testing.T) {
	srv := testserver.Start(t, server.Config{MaxGames: 1, Seed: 5})
	ua, err := net.ResolveUDPAddr("udp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	_, acc := rawLogin(t, srv.Addr(), "Ripley")
	victim := udpSocket(t)
	bind := append(wire.AppendHeader(nil, wire.Header{Type: wire.TypeBind, Ack: 0xFFFF, Session: acc.Session}), acc.Token[:]...)
	victim.WriteToUDP(bind, ua)
	start := time.Now()
	got, types := received(victim, testutil.Wait, func(total int, types map[byte]int) bool {
		return types[byte(wire.TypeSnapshot)] > 0 && total > 10*len(bind)
	})
	t.Logf("v1: %d bytes forged, the victim got %d bytes in %v %v", len(bind), got, time.Since(start).Round(time.Millisecond), types)
	if types[byte(wire.TypeSnapshot)] == 0 || got <= 10*len(bind) {
		t.Fatalf("v1: the victim got %d bytes %v; the v1 attack no longer works?", got, types)
	}
}
