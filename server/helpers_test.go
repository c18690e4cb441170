package server

// Helpers shared by the loopback tests of the server: a client that speaks
// protocol v1 by hand over real TCP and UDP sockets, with only the codec
// (net/wire) and the link machinery (net/link). Nothing here is the game
// client: every byte the tests send is one they chose.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
)

// wait is the generous deadline of every "eventually" check: far above
// what a loopback needs, even under -race with the other tests running.
const wait = testutil.Wait

// startServer runs a server on 127.0.0.1:0 until the test ends, logging
// to the test's log if it fails. A zero cfg.MaxTickLoad becomes 1 (no
// back-pressure): under -race on a loaded machine a few games' ticks can
// pass the default's duty cycle, and a test that is not about
// back-pressure must not see its logins refused for it; a test of the
// default sets it below 0. (testserver.Start cannot serve here: it
// imports this package.)
func startServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	if cfg.MaxTickLoad == 0 {
		cfg.MaxTickLoad = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = testutil.Logger(t)
	}
	return testutil.Start(t, New, cfg)
}

// testConfig is the base configuration of the tests: the login rate limit,
// the sessions and the rooms per address are out of the way (every test
// logs in from 127.0.0.1) unless a test sets them.
func testConfig() Config {
	return Config{LoginLimit: 1 << 20, MaxSessionsPerIP: 1 << 20, MaxRoomsPerIP: 1 << 20}
}

// noWaveRules returns rules without waves, so that a world holds only what
// a test puts in it.
func noWaveRules() *sim.Rules {
	r := sim.DefaultRules()
	r.FirstWave = 1 << 30
	return &r
}

// ---------------------------------------------------------------------
// TCP.

func dialTCP(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func writeAll(t testing.TB, c net.Conn, b []byte) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(wait))
	if _, err := c.Write(b); err != nil {
		t.Fatalf("TCP write: %v", err)
	}
}

// loginRequest is the LoginRequest frame of name in version: in v2, of
// revision wire.Revision, for a Classic game.
func loginRequest(version uint8, name string) []byte {
	if version == wire.Version2 {
		return wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: version, Name: name,
			Revision: wire.Revision, Mode: wire.ModeClassic})
	}
	return wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: version, Name: name})
}

// rawLoginRequest builds a LoginRequest frame by hand, whatever the sizes
// (AppendMessage would cut a long name).
func rawLoginRequest(version uint8, name []byte) []byte {
	b := binary.LittleEndian.AppendUint16(nil, uint16(4+len(name)))
	b = append(b, byte(wire.MsgLoginRequest), version)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
	return append(b, name...)
}

// readMsg reads one TCP message within d.
func readMsg(c net.Conn, d time.Duration) (wire.Message, error) {
	c.SetReadDeadline(time.Now().Add(d))
	fr := wire.FrameReader{R: c} // reads exactly one frame, no read-ahead
	return fr.ReadMessage()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded)
}

// isClosed reports an error that means the peer closed the connection.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}

// expectMsg reads the next message and checks its type (and, for
// LoginRejected and Logout, its reason when reason >= 0).
func expectMsg(t testing.TB, c net.Conn, typ wire.MsgType, reason int) wire.Message {
	t.Helper()
	m, err := readMsg(c, wait)
	if err != nil {
		t.Fatalf("want %v, read: %v", typ, err)
	}
	if m.Type != typ {
		t.Fatalf("want %v, got %+v", typ, m)
	}
	if reason >= 0 && (typ == wire.MsgLoginRejected || typ == wire.MsgLogout) && m.Reason != uint8(reason) {
		t.Fatalf("want %v reason %d, got reason %d (%+v)", typ, reason, m.Reason, m)
	}
	return m
}

// expectClosed checks that the server closes c within d, sending nothing
// more.
func expectClosed(t testing.TB, c net.Conn, d time.Duration) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	var b [64]byte
	n, err := c.Read(b[:])
	switch {
	case n > 0:
		t.Fatalf("want the connection closed, got % x", b[:n])
	case isTimeout(err):
		t.Fatalf("connection still open after %v", d)
	case !isClosed(err):
		t.Fatalf("want the connection closed, read: %v", err)
	}
}

// expectLogout checks that the server sends Logout(reason) then closes.
func expectLogout(t testing.TB, c net.Conn, reason uint8) {
	t.Helper()
	expectMsg(t, c, wire.MsgLogout, int(reason))
	expectClosed(t, c, wait)
}

// loginAs sends a LoginRequest and returns the connection and the answer.
func loginAs(t testing.TB, addr string, version uint8, name string) (net.Conn, wire.Message) {
	t.Helper()
	c := dialTCP(t, addr)
	writeAll(t, c, loginRequest(version, name))
	m, err := readMsg(c, wait)
	if err != nil {
		t.Fatalf("login %q: %v", name, err)
	}
	return c, m
}

// expectRejected logs in and checks LoginRejected(reason) then close.
func expectRejected(t testing.TB, addr, name string, reason uint8) {
	t.Helper()
	c, m := loginAs(t, addr, wire.Version, name)
	if m.Type != wire.MsgLoginRejected || m.Reason != reason {
		t.Fatalf("login %q: want LoginRejected(%d), got %+v", name, reason, m)
	}
	expectClosed(t, c, wait)
}

// ---------------------------------------------------------------------
// The test client.

// snapInfo is one Snapshot datagram as the client received it, with the
// snapshot of its tick as rebuilt so far.
type snapInfo struct {
	at       time.Time
	size     int // datagram bytes
	tick     uint32
	hasBase  bool
	age      uint32
	parts    int // datagrams of the tick applied so far
	players  []wire.PlayerState
	entities []wire.Entity
}

func (s *snapInfo) entity(id uint32) (wire.Entity, bool) {
	return find(s.entities, func(e *wire.Entity) bool { return e.ID == id })
}

func (s *snapInfo) player(p uint8) (wire.PlayerState, bool) {
	return find(s.players, func(ps *wire.PlayerState) bool { return ps.Player == p })
}

// find returns the first element of xs that matches, and whether there is
// one.
func find[T any](xs []T, match func(*T) bool) (T, bool) {
	for i := range xs {
		if match(&xs[i]) {
			return xs[i], true
		}
	}
	var zero T
	return zero, false
}

// tclient is a scripted client: it logs in over TCP, binds a UDP socket,
// then reads datagrams, rebuilds snapshots, collects events and
// acknowledges what it accepted, as a real client would; each field
// below lets a test bend one of these behaviours. One goroutine at a time
// drives it.
type tclient struct {
	rawClient // t, tcp, udp, acc (LoginAccepted), link, buf

	srv  *net.UDPAddr
	name string

	rb     link.Rebuilder
	snap   wire.Snapshot
	frames []wire.EventFrame

	events  []wire.Event
	snaps   []snapInfo
	accepts []wire.Accept
	types   map[wire.Type]int
	bytes   map[wire.Type]uint64 // UDP payloads received, resent ones too

	// actions are sent in an Input after each datagram received (and at
	// least every 50 ms) while keepAlive is set.
	actions   uint8
	keepAlive bool
	// ackSnaps and ackOthers: record (acknowledge) Snapshot datagrams and
	// the other ones. Clearing both freezes the ack fields.
	ackSnaps, ackOthers bool
	lastSent            time.Time
}

// connect logs in as name and fails the test unless accepted.
func connect(t testing.TB, s *Server, name string) *tclient {
	t.Helper()
	c, m := loginAs(t, s.Addr(), wire.Version, name)
	if m.Type != wire.MsgLoginAccepted {
		t.Fatalf("login %q: %+v", name, m)
	}
	srv, err := net.ResolveUDPAddr("udp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	tc := &tclient{
		rawClient: rawClient{t: t, tcp: c, acc: m, link: link.New(m.Session, time.Now()), buf: make([]byte, 2048)},
		srv:       srv,
		name:      name,
		types:     map[wire.Type]int{},
		bytes:     map[wire.Type]uint64{},
		keepAlive: true,
		ackSnaps:  true,
		ackOthers: true,
	}
	return tc
}

// join logs in and binds.
func join(t testing.TB, s *Server, name string) *tclient {
	t.Helper()
	c := connect(t, s, name)
	c.bind()
	return c
}

// newUDP opens a UDP socket connected to the server's port.
func (c *tclient) newUDP() *net.UDPConn {
	c.t.Helper()
	u, err := net.DialUDP("udp", nil, c.srv)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { u.Close() })
	return u
}

// bind opens the client's UDP socket and sends a Bind every 100 ms until
// an Accept arrives.
func (c *tclient) bind() wire.Accept {
	c.t.Helper()
	if c.udp == nil {
		c.udp = c.newUDP()
	}
	n := len(c.accepts)
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		c.send(wire.TypeBind, c.acc.Token[:])
		end := time.Now().Add(100 * time.Millisecond)
		for len(c.accepts) == n && time.Now().Before(end) {
			c.readOne(time.Until(end))
		}
		if len(c.accepts) > n {
			return c.accepts[n]
		}
	}
	c.t.Fatalf("%s: no Accept within %v", c.name, wait)
	return wire.Accept{}
}

// datagram builds a datagram of the client's link.
func (c *tclient) datagram(typ wire.Type, payload []byte) []byte {
	b, _ := c.link.AppendDatagram(nil, typ, payload, time.Now())
	return b
}

// send sends a datagram of the link from the client's socket.
func (c *tclient) send(typ wire.Type, payload []byte) {
	c.udp.Write(c.datagram(typ, payload))
	c.lastSent = time.Now()
}

// sendSeq sends a datagram of the link with its sequence forced to seq.
func (c *tclient) sendSeq(typ wire.Type, payload []byte, seq uint16) {
	b := c.datagram(typ, payload)
	binary.LittleEndian.PutUint16(b[6:], seq)
	c.udp.Write(b)
	c.lastSent = time.Now()
}

// readOne reads and handles at most one datagram within d; it reports
// whether one came.
func (c *tclient) readOne(d time.Duration) bool {
	c.udp.SetReadDeadline(time.Now().Add(max(d, time.Millisecond)))
	n, err := c.udp.Read(c.buf)
	if err != nil {
		if !isTimeout(err) {
			c.t.Errorf("%s: UDP read: %v", c.name, err)
			time.Sleep(10 * time.Millisecond)
		}
		return false
	}
	c.handle(c.buf[:n])
	return true
}

// handle checks and applies one datagram from the server.
func (c *tclient) handle(b []byte) {
	t := c.t
	now := time.Now()
	if len(b) > wire.MaxDatagram {
		t.Errorf("%s: datagram of %d bytes, above %d (1.3)", c.name, len(b), wire.MaxDatagram)
		return
	}
	h, p, err := wire.ParseHeader(b, wire.ToClient)
	if err != nil {
		t.Errorf("%s: invalid datagram from the server: %v", c.name, err)
		return
	}
	if h.Session != c.acc.Session {
		t.Errorf("%s: datagram of session %#x, ours is %#x", c.name, h.Session, c.acc.Session)
		return
	}
	c.bytes[h.Type] += uint64(len(b))
	if c.link.Seen(h.Seq) {
		return // a duplicate (5.1)
	}
	c.types[h.Type]++
	record := c.ackOthers
	switch h.Type {
	case wire.TypeAccept:
		a, err := wire.ParseAccept(p)
		if err != nil {
			t.Errorf("%s: bad Accept: %v", c.name, err)
			return
		}
		if len(b) != 23 {
			t.Errorf("%s: Accept of %d bytes, want 23", c.name, len(b))
		}
		c.accepts = append(c.accepts, a)
	case wire.TypeSnapshot:
		if err := c.snap.Decode(p); err != nil {
			t.Errorf("%s: invalid Snapshot from the server: %v", c.name, err)
			return
		}
		r, err := c.rb.Rebuild(&c.snap)
		if err != nil {
			t.Errorf("%s: Snapshot of tick %d (baseline age %d) cannot be rebuilt: %v", c.name, c.snap.Tick, c.snap.BaselineAge, err)
			return
		}
		c.snaps = append(c.snaps, snapInfo{
			at: now, size: len(b), tick: c.snap.Tick, hasBase: c.snap.HasBaseline, age: c.snap.BaselineAge,
			parts: r.Parts, players: append([]wire.PlayerState(nil), r.PlayerStates()...),
			entities: append([]wire.Entity(nil), r.Entities...),
		})
		record = c.ackSnaps
	case wire.TypeEvent:
		c.frames, err = c.link.ReceiveEvents(p, c.frames[:0])
		if err != nil {
			t.Errorf("%s: invalid Event datagram from the server: %v", c.name, err)
			return
		}
		for _, f := range c.frames {
			var ev wire.Event
			if err := wire.ParseEvent(f.Data, &ev); err != nil {
				t.Errorf("%s: invalid event %d from the server: %v (% x)", c.name, f.ID, err, f.Data)
				continue
			}
			c.events = append(c.events, ev)
		}
	}
	if record {
		c.link.Accept(h, len(b), now)
	}
}

// keep sends the held actions if it is time to (see keepAlive).
func (c *tclient) keep(force bool) {
	if c.keepAlive && c.udp != nil && (force || time.Since(c.lastSent) >= 50*time.Millisecond) {
		c.send(wire.TypeInput, []byte{c.actions})
	}
}

// pumpUntil plays the client until cond holds or d passes; it reports
// whether cond held.
func (c *tclient) pumpUntil(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for {
		if cond != nil && cond() {
			return true
		}
		left := time.Until(end)
		if left <= 0 {
			return false
		}
		got := c.readOne(min(left, 50*time.Millisecond))
		c.keep(got)
	}
}

// pump plays the client for d.
func (c *tclient) pump(d time.Duration) { c.pumpUntil(d, nil) }

// lastSnap returns the last snapshot received, or nil.
func (c *tclient) lastSnap() *snapInfo {
	if len(c.snaps) == 0 {
		return nil
	}
	return &c.snaps[len(c.snaps)-1]
}

// findEvent returns the index of the first event from index from that
// matches, or -1.
func (c *tclient) findEvent(from int, match func(*wire.Event) bool) int {
	for i := from; i < len(c.events); i++ {
		if match(&c.events[i]) {
			return i
		}
	}
	return -1
}

// waitEvent plays until an event that matches arrives (or has arrived)
// and returns its index; it fails the test after wait.
func (c *tclient) waitEvent(what string, match func(*wire.Event) bool) int {
	c.t.Helper()
	i := -1
	c.pumpUntil(wait, func() bool { i = c.findEvent(0, match); return i >= 0 })
	if i < 0 {
		c.t.Fatalf("%s: no %s within %v; events %v", c.name, what, wait, c.eventList())
	}
	return i
}

// waitSnaps plays until n more snapshots arrived.
func (c *tclient) waitSnaps(n int) {
	c.t.Helper()
	want := len(c.snaps) + n
	if !c.pumpUntil(wait, func() bool { return len(c.snaps) >= want }) {
		c.t.Fatalf("%s: %d snapshots, want %d, within %v", c.name, len(c.snaps), want, wait)
	}
}

// shipID returns the network id of the client's ship from its Spawn.
func (c *tclient) shipID() uint32 {
	c.t.Helper()
	i := c.waitEvent("Spawn of our ship", func(ev *wire.Event) bool {
		return ev.Type == wire.EventSpawn && ev.Kind == wire.KindPlayerShip && ev.Owner == c.acc.Player
	})
	return c.events[i].ID
}

// shipX plays until a snapshot holds the ship and returns its x.
func (c *tclient) shipX(id uint32) float32 {
	c.t.Helper()
	var x float32
	ok := c.pumpUntil(wait, func() bool {
		if s := c.lastSnap(); s != nil {
			if e, ok := s.entity(id); ok {
				x = e.X()
				return true
			}
		}
		return false
	})
	if !ok {
		c.t.Fatalf("%s: ship %#x in no snapshot", c.name, id)
	}
	return x
}

func (c *tclient) eventList() []string {
	var out []string
	for _, ev := range c.events {
		out = append(out, eventString(&ev))
	}
	return out
}

func eventString(ev *wire.Event) string {
	switch ev.Type {
	case wire.EventSpawn:
		return fmt.Sprintf("Spawn(%#x kind %d owner %d @%d)", ev.ID, ev.Kind, ev.Owner, ev.Tick)
	case wire.EventDestroy:
		return fmt.Sprintf("Destroy(%#x reason %d @%d)", ev.ID, ev.Reason, ev.Tick)
	case wire.EventDeath:
		return fmt.Sprintf("Death(p%d lives %d @%d)", ev.Player, ev.Lives, ev.Tick)
	case wire.EventPlayerJoined:
		return fmt.Sprintf("PlayerJoined(p%d %q @%d)", ev.Player, ev.Name, ev.Tick)
	case wire.EventPlayerLeft:
		return fmt.Sprintf("PlayerLeft(p%d reason %d @%d)", ev.Player, ev.Reason, ev.Tick)
	case wire.EventGameOver:
		return fmt.Sprintf("GameOver(%v @%d)", ev.Scores[:ev.NumScores], ev.Tick)
	}
	return fmt.Sprintf("event %d", ev.Type)
}

// logout sends Logout(Left) on TCP.
func (c *tclient) logout() {
	writeAll(c.t, c.tcp, wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutLeft}))
}

// silentFor reads the socket u for d and fails if anything arrives.
func silentFor(t testing.TB, u *net.UDPConn, d time.Duration, what string) {
	t.Helper()
	buf := make([]byte, 2048)
	u.SetReadDeadline(time.Now().Add(d))
	n, err := u.Read(buf)
	if err == nil {
		t.Fatalf("%s: got a %d-byte datagram, want none (% x)", what, n, buf[:min(n, 32)])
	}
	if !isTimeout(err) {
		t.Fatalf("%s: read: %v", what, err)
	}
}

// rawDatagram builds a datagram by hand.
func rawDatagram(typ wire.Type, seq uint16, session uint32, payload []byte) []byte {
	b := wire.AppendHeader(nil, wire.Header{Type: typ, Seq: seq, Ack: 0xFFFF, Session: session})
	return append(b, payload...)
}
