package server

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// rawDatagram2 builds a v2 datagram by hand.
func rawDatagram2(typ wire.Type, seq uint16, session uint32, payload []byte) []byte {
	b := wire2.AppendHeader(nil, wire.Header{Type: typ, Seq: seq, Ack: 0xFFFF, Session: session})
	return append(b, payload...)
}

// 7.1: a LoginRequest of version 2 gets a v2 session: LoginAccepted with
// the rules extension, the mode and the revision (L = 31), then v2
// datagrams only.
func TestLoginV2(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxGames = 1
	s := startServer(t, cfg)
	c := dialTCP(t, s.Addr())
	writeAll(t, c, loginRequest(wire.Version2, "Ripley"))
	c.SetReadDeadline(time.Now().Add(wait))
	fr := wire.FrameReader{R: c}
	f, err := fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	if len(f) != 31 {
		t.Fatalf("v2 LoginAccepted body of %d bytes, want 31 (7.1): % X", len(f), f)
	}
	m, err := wire2.ParseMessage(f)
	if err != nil || m.Type != wire.MsgLoginAccepted || m.Revision != wire.Revision || m.Mode != wire.ModeClassic {
		t.Fatalf("%+v %v", m, err)
	}
	r := s.cfg.Rules
	want := wire.LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8}
	if m.Ext != want || float64(want.ShipSpeed) != r.ShipSpeed || int(want.BlinkTicks) != r.BlinkTicks {
		t.Fatalf("ext %+v, want %+v", m.Ext, want)
	}
	// The same name again in v1 is NameTaken: one game, one name space.
	expectRejected(t, s.Addr(), "ripley", wire.RejectNameTaken)
}

// 7.1: a v1 login on the same server is Part I, byte for byte: its
// LoginAccepted has L = 17 and its datagrams v1 headers (every v1 test of
// this package runs against the default, v2-capable, server).
func TestLoginV1OnV2Server(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	if s.cfg.MaxVersion != 2 {
		t.Fatalf("default MaxVersion %d, want 2", s.cfg.MaxVersion)
	}
	c := dialTCP(t, s.Addr())
	writeAll(t, c, loginRequest(wire.Version, "Ripley"))
	var hdr [2]byte
	c.SetReadDeadline(time.Now().Add(wait))
	if _, err := c.Read(hdr[:]); err != nil || binary.LittleEndian.Uint16(hdr[:]) != 18 {
		t.Fatalf("v1 LoginAccepted length % X %v, want 18 (3.1)", hdr, err)
	}
	cl := join(t, s, "Dallas")
	cl.waitSnaps(2)
	if cl.types[wire.TypeSnapshot] == 0 {
		t.Fatal("no v1 snapshot")
	}
}

// 7.1: versions other than 1 and 2 are VersionMismatch on a v2 server; a
// v1-only server (MaxVersion 1) refuses 2 with v1's text, as every v1
// server does; and MaxVersion above 2 is refused at New.
func TestLoginVersions(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	for _, v := range []uint8{0, 3, 255} {
		c, m := loginAs(t, s.Addr(), v, "Ripley")
		if m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectVersionMismatch || !strings.Contains(m.Text, "1 to 2") {
			t.Fatalf("version %d: %+v", v, m)
		}
		expectClosed(t, c, wait)
	}
	cfg := testConfig()
	cfg.MaxVersion = 1
	s1 := startServer(t, cfg)
	c, m := loginAs(t, s1.Addr(), wire.Version2, "Ripley")
	if m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectVersionMismatch || m.Text != "this server speaks protocol version 1" {
		t.Fatalf("v2 on a v1 server: %+v", m)
	}
	expectClosed(t, c, wait)
	join(t, s1, "Ripley") // v1 still served
	cfg.MaxVersion = 3
	if _, err := New(cfg); err == nil {
		t.Fatal("MaxVersion 3 accepted")
	}
}

// 7.1: a v2 session skips a TCP message of an unknown type and bytes after
// a known message's fields; a v1 session is kicked for the former (3.1).
func TestV2RoomToGrowTCP(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	// A LoginRequest with bytes after its flags.
	lr := loginRequest(wire.Version2, "Ripley")
	lr = append(lr, 0, 0xAA, 0xBB)
	binary.LittleEndian.PutUint16(lr, uint16(len(lr)-2))
	c := dialTCP(t, s.Addr())
	writeAll(t, c, lr)
	c.SetReadDeadline(time.Now().Add(wait))
	fr := wire.FrameReader{R: c}
	f, err := fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	if m, err := wire2.ParseMessage(f); err != nil || m.Type != wire.MsgLoginAccepted {
		t.Fatalf("%+v %v", m, err)
	}
	writeAll(t, c, []byte{3, 0, 0x42, 1, 2}) // type 0x42: unknown
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, err := c.Read(make([]byte, 16)); !isTimeout(err) {
		t.Fatalf("after an unknown message: %d bytes, %v; want nothing", n, err)
	}
	// Logout with a byte after its reason: the server closes (3.2).
	writeAll(t, c, []byte{3, 0, byte(wire.MsgLogout), wire.LogoutLeft, 0x77})
	expectClosed(t, c, wait)

	v1, _ := loginAs(t, s.Addr(), wire.Version, "Dallas")
	writeAll(t, v1, []byte{3, 0, 0x42, 1, 2})
	expectLogout(t, v1, wire.LogoutKicked)
}

// 7.1, 6.1: a datagram whose version is not its session's is dropped: a
// v1 Bind with a v2 session's token, a v2 Bind with a v1 session's, and a
// v1 Input in a bound v2 session get nothing and change nothing.
func TestVersionMismatchDatagramsDropped(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c2 := connect2(t, s, "Ripley")
	u := c2.newUDP()
	u.Write(rawDatagram(wire.TypeBind, 0, c2.acc.Session, c2.acc.Token[:]))
	silentFor(t, u, 300*time.Millisecond, "v1 Bind in a v2 session")

	c1 := connect(t, s, "Dallas")
	u1 := c1.newUDP()
	u1.Write(rawDatagram2(wire.TypeBind, 0, c1.acc.Session, c1.acc.Token[:]))
	silentFor(t, u1, 300*time.Millisecond, "v2 Bind in a v1 session")
	c1.bind() // its own version binds

	c2.keepAlive = false
	c2.bind()
	ship := c2.shipID()
	// A v1 Input holding Fire, from the bound address: dropped, so no
	// missile.
	for i := range 5 {
		c2.udp.Write(rawDatagram(wire.TypeInput, uint16(100+i), c2.acc.Session, []byte{wire.ActionFire}))
	}
	c2.pumpUntil(400*time.Millisecond, nil)
	for _, ev := range c2.events {
		if ev.Type == wire.EventSpawn && ev.Kind == wire.KindPlayerMissile && ev.Owner == c2.acc.Player {
			t.Fatalf("a v1 Input moved the v2 player: %+v", ev)
		}
	}
	if _, ok := c2.lastSnap().entity(ship); !ok {
		t.Fatal("ship gone")
	}
}
