package server

// The v2 test client: protocol v2 by hand over real TCP and UDP sockets,
// with only the codec (net/wire) and the link machinery (net/link), as
// helpers_test.go does for v1.

import (
	"net"
	"testing"
	"time"

	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// loginWith2 sends the LoginRequest frame req and returns the connection
// and the answer, parsed as a v2 session parses it (7.1).
func loginWith2(t testing.TB, addr, name string, req []byte) (net.Conn, wire.Message) {
	t.Helper()
	c, f := rawLogin(t, addr, req)
	m, err := wire2.ParseMessage(f)
	if err != nil {
		t.Fatalf("login %q: % X: %v", name, f, err)
	}
	return c, m
}

// snap2 is one v2 Snapshot datagram as the client received it, with the
// snapshot of its tick as rebuilt so far.
type snap2 struct {
	at       time.Time
	size     int
	tick     uint32
	hasBase  bool
	players  []wire2.Player
	entities []wire2.Entity
}

func (s *snap2) entity(id uint32) (wire2.Entity, bool) {
	return find(s.entities, func(e *wire2.Entity) bool { return e.ID == id })
}

func (s *snap2) player(p uint8) (wire2.Player, bool) {
	return find(s.players, func(ps *wire2.Player) bool { return ps.Player == p })
}

// tclient2 is the scripted v2 client. Fields bend its behaviour as
// tclient's do.
type tclient2 struct {
	rawClient // t, tcp, udp, acc (LoginAccepted), link (v2), buf

	srv  *net.UDPAddr
	name string

	rb      link2.Rebuilder
	snap    wire2.Snapshot
	frames  []wire.EventFrame
	cookie  wire2.Cookie
	cookies int // Challenges received

	events  []wire.Event
	snaps   []snap2
	accepts []wire.Accept
	types   map[wire.Type]int

	// actions are sent as the next input step after each datagram
	// received (and at least every 50 ms) while keepAlive is set; step
	// is the next step, hist the actions of the steps sent, newest last.
	actions   uint8
	keepAlive bool
	spectator bool // logged in with LoginSpectate (7.17)
	tail      bool // Snapshots end with an event tail (every v2 session's, 7.8)
	tails     int  // Snapshots whose tail brought fresh events (then in frames)
	step      uint32
	hist      []uint8
	lastSent  time.Time
}

// connect2 logs in with version 2 and fails the test unless accepted.
func connect2(t testing.TB, s *Server, name string) *tclient2 {
	t.Helper()
	return connectWith2(t, s, name, loginRequest(wire.Version2, name))
}

// connectWith2 logs in with the v2 LoginRequest frame req and fails the
// test unless accepted.
func connectWith2(t testing.TB, s *Server, name string, req []byte) *tclient2 {
	t.Helper()
	c, m := loginWith2(t, s.Addr(), name, req)
	if m.Type != wire.MsgLoginAccepted {
		t.Fatalf("login %q: %+v", name, m)
	}
	srv, err := net.ResolveUDPAddr("udp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	return &tclient2{rawClient: rawClient{t: t, tcp: c, acc: m, link: link.NewV2(m.Session, time.Now()), buf: make([]byte, 2048)},
		srv: srv, name: name, types: map[wire.Type]int{}, keepAlive: true, tail: true}
}

// join2 logs in with version 2 and binds.
func join2(t testing.TB, s *Server, name string) *tclient2 {
	t.Helper()
	c := connect2(t, s, name)
	c.bind()
	return c
}

func (c *tclient2) newUDP() *net.UDPConn {
	c.t.Helper()
	u, err := net.DialUDP("udp", nil, c.srv)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { u.Close() })
	return u
}

// bind runs the exchange of 7.3 from the client's socket: Bind (token)
// until a Challenge comes, then Bind (token, cookie) until an Accept.
func (c *tclient2) bind() wire.Accept {
	c.t.Helper()
	if c.udp == nil {
		c.udp = c.newUDP()
	}
	n, k := len(c.accepts), c.cookies
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if c.cookies > k {
			c.send(wire.TypeBind, wire2.AppendBind(nil, wire2.Bind{Token: c.acc.Token, HasCookie: true, Cookie: c.cookie}))
		} else {
			c.send(wire.TypeBind, c.acc.Token[:])
		}
		end := time.Now().Add(100 * time.Millisecond)
		for len(c.accepts) == n && time.Now().Before(end) {
			before := c.cookies
			c.readOne(time.Until(end))
			if c.cookies > before && before == k {
				break // answer the first Challenge at once
			}
		}
		if len(c.accepts) > n {
			return c.accepts[n]
		}
	}
	c.t.Fatalf("%s: no Accept within %v", c.name, wait)
	return wire.Accept{}
}

func (c *tclient2) datagram(typ wire.Type, payload []byte) []byte {
	b, _ := c.link.AppendDatagram(nil, typ, payload, time.Now())
	return b
}

func (c *tclient2) send(typ wire.Type, payload []byte) {
	c.udp.Write(c.datagram(typ, payload))
	c.lastSent = time.Now()
}

// sendInput sends the next input step with the actions held, and up to 7
// earlier steps (7.4).
func (c *tclient2) sendInput() {
	c.hist = append(c.hist, c.actions)
	in := wire2.Input{Step: c.step}
	for i := len(c.hist) - 1; i >= 0 && in.Count < wire2.MaxInputActions; i-- {
		in.Actions[in.Count] = c.hist[i]
		in.Count++
	}
	c.step++
	c.send(wire.TypeInput, wire2.AppendInput(nil, &in))
}

func (c *tclient2) readOne(d time.Duration) bool {
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

// handle checks and applies one datagram from the server, as 7.10 says.
func (c *tclient2) handle(b []byte) {
	t := c.t
	now := time.Now()
	h, p, err := wire2.ParseHeader(b, wire.ToClient)
	if err != nil {
		t.Errorf("%s: invalid v2 datagram from the server: %v (% X)", c.name, err, b[:min(len(b), 24)])
		return
	}
	if h.Session != c.acc.Session {
		t.Errorf("%s: datagram of session %#x, ours is %#x", c.name, h.Session, c.acc.Session)
		return
	}
	if c.link.Seen(h.Seq) {
		return
	}
	c.types[h.Type]++
	switch h.Type {
	case wire.TypeChallenge:
		c.cookie, _ = wire2.ParseChallenge(p)
		c.cookies++
	case wire.TypeAccept:
		a, err := wire.ParseAccept(p)
		if c.spectator { // 7.17
			a, err = wire.ParseSpectatorAccept(p)
		}
		if err != nil {
			t.Errorf("%s: bad Accept: %v", c.name, err)
			return
		}
		c.accepts = append(c.accepts, a)
	case wire.TypeSnapshot:
		var tail []byte
		if c.tail {
			tail, err = c.snap.DecodeTail(p)
		} else {
			err = c.snap.Decode(p)
		}
		if err != nil {
			t.Errorf("%s: invalid v2 Snapshot: %v", c.name, err)
			return
		}
		r, err := c.rb.Rebuild(&c.snap)
		if err != nil {
			t.Errorf("%s: v2 Snapshot of tick %d cannot be rebuilt: %v", c.name, c.snap.Tick, err)
			return
		}
		if len(tail) > 1 { // its events, before its records (7.8)
			c.frames, _ = c.link.ReceiveEvents(tail, c.frames[:0])
			c.applyFrames()
			if len(c.frames) > 0 {
				c.tails++
			}
		}
		c.snaps = append(c.snaps, snap2{at: now, size: len(b), tick: r.Tick, hasBase: r.HasBaseline,
			players: append([]wire2.Player(nil), r.Players...), entities: append([]wire2.Entity(nil), r.Entities...)})
	case wire.TypeEvent:
		c.frames, err = c.link.ReceiveEvents(p, c.frames[:0])
		if err != nil {
			t.Errorf("%s: invalid v2 Event datagram: %v", c.name, err)
			return
		}
		c.applyFrames()
	}
	c.link.Accept(h, len(b), now)
}

// applyFrames parses the fresh events of c.frames into c.events.
func (c *tclient2) applyFrames() {
	for _, f := range c.frames {
		var ev wire.Event
		if err := wire2.ParseEvent(f.Data, &ev); err != nil {
			c.t.Errorf("%s: invalid v2 event %d: %v (% x)", c.name, f.ID, err, f.Data)
			continue
		}
		c.events = append(c.events, ev)
	}
}

func (c *tclient2) keep(force bool) {
	if c.keepAlive && c.udp != nil && len(c.accepts) > 0 && (force || time.Since(c.lastSent) >= 50*time.Millisecond) {
		if c.spectator {
			c.send(wire.TypeAck, nil) // a spectator sends no Input (7.17)
			return
		}
		c.sendInput()
	}
}

// pumpUntil plays the client until cond holds or d passes.
func (c *tclient2) pumpUntil(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for {
		if cond != nil && cond() {
			return true
		}
		left := time.Until(end)
		if left <= 0 {
			return false
		}
		if c.readOne(min(left, 20*time.Millisecond)) {
			c.keep(false)
		} else {
			c.keep(false)
		}
	}
}

func (c *tclient2) lastSnap() *snap2 {
	if len(c.snaps) == 0 {
		return nil
	}
	return &c.snaps[len(c.snaps)-1]
}

// waitEvent waits for an event matching match and returns its index.
func (c *tclient2) waitEvent(what string, match func(*wire.Event) bool) int {
	c.t.Helper()
	at := -1
	c.pumpUntil(wait, func() bool {
		for i := range c.events {
			if match(&c.events[i]) {
				at = i
				return true
			}
		}
		return false
	})
	if at < 0 {
		c.t.Fatalf("%s: no %s within %v", c.name, what, wait)
	}
	return at
}

// shipID returns the id of the client's ship from its Spawn.
func (c *tclient2) shipID() uint32 {
	c.t.Helper()
	i := c.waitEvent("Spawn of the own ship", func(ev *wire.Event) bool {
		return ev.Type == wire.EventSpawn && ev.Kind == wire.KindPlayerShip && ev.Owner == c.acc.Player
	})
	return c.events[i].ID
}

func (c *tclient2) logout() {
	c.tcp.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutLeft}))
}
