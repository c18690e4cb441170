package server

// UDP binding (PROTOCOL.md 3.4, 6.1), the joining events (4.6) and inputs
// (4.2).

import (
	"encoding/binary"
	"math"
	"net"
	"testing"
	"time"

	"rtype/net/wire"
)

// 3.4: a Bind with a wrong token gets no answer and binds nothing; the
// right token then gets Accept (23 bytes), with the player and a tick.
func TestBindWrongTokenThenRight(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	obs := join(t, s, "Observer")
	c := connect(t, s, "Bravo")
	c.udp = c.newUDP()
	bad := c.acc.Token
	bad[0] ^= 1
	for range 5 {
		c.send(wire.TypeBind, bad[:])
	}
	var zero wire.Token
	c.send(wire.TypeBind, zero[:])
	silentFor(t, c.udp, 400*time.Millisecond, "Bind with a wrong token")
	// Nothing happened in the game either.
	obs.pump(200 * time.Millisecond)
	if i := obs.findEvent(0, func(ev *wire.Event) bool {
		return ev.Type == wire.EventPlayerJoined && ev.Player == c.acc.Player
	}); i >= 0 {
		t.Fatal("a Bind with a wrong token brought the player in")
	}
	a := c.bind()
	if a.Player != c.acc.Player {
		t.Fatalf("Accept player %d, LoginAccepted %d", a.Player, c.acc.Player)
	}
	last := obs.lastSnap().tick
	if a.Tick < last || a.Tick > last+30 {
		t.Fatalf("Accept tick %d, the game is at %d", a.Tick, last)
	}
	if c.types[wire.TypeAccept] != 1 {
		t.Fatalf("%d Accepts", c.types[wire.TypeAccept])
	}
}

// 3.4 Size: the server never answers a Bind with more bytes than it
// carried; every matching Bind is answered (23 bytes), and extra ones have
// no other effect.
func TestBindAnswerSmaller(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := connect(t, s, "Alpha")
	u := c.newUDP()
	bind := c.datagram(wire.TypeBind, c.acc.Token[:])
	if len(bind) != 26 {
		t.Fatalf("Bind of %d bytes", len(bind))
	}
	u.Write(bind)
	// The Accept, and whatever follows it (a snapshot of the tick may
	// overtake it): the Accept is 23 bytes.
	buf := make([]byte, 2048)
	var h wire.Header
	var p []byte
	for h.Type != wire.TypeAccept {
		u.SetReadDeadline(time.Now().Add(wait))
		n, err := u.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		h, p, err = wire.ParseHeader(buf[:n], wire.ToClient)
		if err != nil {
			t.Fatal(err)
		}
		if h.Type == wire.TypeAccept && n != 23 {
			t.Fatalf("Accept of %d bytes", n)
		}
	}
	if h.Ack != 0 || h.Session != c.acc.Session {
		t.Fatalf("Accept header %+v: want ack 0 (the Bind) and our session", h)
	}
	if a, _ := wire.ParseAccept(p); a.Player != c.acc.Player {
		t.Fatalf("Accept %+v", a)
	}
	// More Binds, more Accepts, no second joining.
	c.udp = u
	for range 3 {
		c.bind()
	}
	countJoins := func() int {
		joins := 0
		for _, ev := range c.events {
			if ev.Type == wire.EventPlayerJoined {
				joins++
			}
		}
		return joins
	}
	// The PlayerJoined comes with the next tick's events, however late
	// a loaded machine runs it; then 300 ms more for a second one.
	c.pumpUntil(wait, func() bool { return countJoins() >= 1 })
	c.pump(300 * time.Millisecond)
	if joins := countJoins(); joins != 1 || c.types[wire.TypeAccept] != 3 {
		t.Fatalf("%d PlayerJoined, %d Accepts after 4 Binds", joins, c.types[wire.TypeAccept]+1)
	}
}

// 3.4 Rebinding: a Bind with the token from a new socket moves the session
// there: Accept and snapshots go to the new address, and datagrams from
// the old one are dropped.
func TestRebindNewAddress(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	ship := c.shipID()
	x0 := c.shipX(ship)
	old := c.udp
	c.udp = c.newUDP()
	if c.udp.LocalAddr().String() == old.LocalAddr().String() {
		t.Fatal("same address")
	}
	c.bind()
	c.waitSnaps(3)
	// Drain what reached the old socket before the rebinding, then
	// nothing more: the server sends under its lock, so once the new
	// address got snapshots nothing for the old one is on its way (on
	// loopback a datagram is in the receiver's buffer when sendto returns).
	drain(old)
	silentFor(t, old, 300*time.Millisecond, "the old address after rebinding")
	// Inputs from the old address do not move the ship (the new socket
	// only acknowledges, with Acks).
	c.keepAlive = false
	end := time.Now().Add(600 * time.Millisecond)
	for time.Now().Before(end) {
		old.Write(c.datagram(wire.TypeInput, []byte{wire.ActionRight}))
		c.send(wire.TypeAck, nil)
		c.readOne(20 * time.Millisecond)
	}
	if x := c.shipX(ship); x != x0 {
		t.Fatalf("Inputs from the old address moved the ship from %v to %v", x0, x)
	}
	// From the new address they do.
	c.keepAlive, c.actions = true, wire.ActionRight
	if !c.pumpUntil(wait, func() bool { e, ok := c.lastSnap().entity(ship); return ok && e.X() > x0+20 }) {
		t.Fatal("Inputs from the new address do not move the ship")
	}
}

// drain drops what u holds now.
func drain(u *net.UDPConn) { drainQuiet(u, time.Millisecond) }

// drainQuiet reads and drops what u holds until quiet passes without a
// datagram (at most 2 s).
func drainQuiet(u *net.UDPConn, quiet time.Duration) {
	buf := make([]byte, 2048)
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		u.SetReadDeadline(time.Now().Add(quiet))
		if _, err := u.Read(buf); err != nil {
			return
		}
	}
}

// 3.4 Filtering, 6.1: datagrams with the right session from an address
// that is not bound are dropped, and get no answer.
func TestSpoofedInputIgnored(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	ship := c.shipID()
	x0 := c.shipX(ship)
	spoof := c.newUDP()
	seq := uint16(1000)
	end := time.Now().Add(600 * time.Millisecond)
	for time.Now().Before(end) {
		spoof.Write(rawDatagram(wire.TypeInput, seq, c.acc.Session, []byte{wire.ActionRight}))
		spoof.Write(rawDatagram(wire.TypeAck, seq+1, c.acc.Session, nil))
		seq += 2
		c.pump(20 * time.Millisecond)
	}
	if x := c.shipX(ship); x != x0 {
		t.Fatalf("spoofed Inputs moved the ship from %v to %v", x0, x)
	}
	silentFor(t, spoof, 200*time.Millisecond, "the spoofer")
}

// 6.1: datagrams of an unknown session, of session 0, or malformed, get
// no answer at all.
func TestUnknownSessionNoReply(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	c := connect(t, s, "Alpha")
	u := c.newUDP()
	other := c.acc.Session + 1
	for _, b := range [][]byte{
		rawDatagram(wire.TypeBind, 0, other, c.acc.Token[:]),
		rawDatagram(wire.TypeBind, 0, 0, c.acc.Token[:]),
		rawDatagram(wire.TypeInput, 0, other, []byte{0}),
		rawDatagram(wire.TypeAck, 0, other, nil),
		rawDatagram(wire.TypeEvent, 0, other, []byte{1, 0, 0, 1, 9}),
		rawDatagram(wire.TypeBind, 0, c.acc.Session, c.acc.Token[:7]),                                               // wrong length
		rawDatagram(wire.TypeBind, 0, c.acc.Session, append(c.acc.Token[:], 0)),                                     // wrong length
		rawDatagram(wire.TypeAccept, 0, c.acc.Session, []byte{0, 0, 0, 0, 0}),                                       // wrong direction
		append(rawDatagram(wire.TypeBind, 0, c.acc.Session, c.acc.Token[:])[:4], 2),                                 // cut
		func() []byte { b := rawDatagram(wire.TypeBind, 0, c.acc.Session, c.acc.Token[:]); b[4] = 2; return b }(),   // version 2
		func() []byte { b := rawDatagram(wire.TypeBind, 0, c.acc.Session, c.acc.Token[:]); b[0] = 'X'; return b }(), // magic
	} {
		u.Write(b)
	}
	silentFor(t, u, 400*time.Millisecond, "unknown sessions and malformed datagrams")
	// The session itself is still there and binds.
	c.udp = u
	c.bind()
}

// 4.6: the first client gets PlayerJoined for itself and the Spawn of its
// ship; a second one gets PlayerJoined for both and the Spawn of every
// entity alive; the first then gets PlayerJoined and Spawn of the second.
func TestJoiningEvents(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	r := noWaveRules()
	r.FirstWave = 5 // Bydos in the world before the second player joins
	r.WaveStagger = 1
	r.BydosFireMin, r.BydosFireMax = 10000, 10000
	cfg.Rules = r
	s := startServer(t, cfg)
	a := join(t, s, "Alpha")
	a.waitEvent("our Spawn", func(ev *wire.Event) bool { return ev.Type == wire.EventSpawn && ev.Owner == 0 })
	if len(a.events) < 2 || a.events[0].Type != wire.EventPlayerJoined || a.events[0].Player != 0 || a.events[0].Name != "Alpha" ||
		a.events[1].Type != wire.EventSpawn || a.events[1].Kind != wire.KindPlayerShip || a.events[1].Owner != 0 {
		t.Fatalf("first client's first events: %v", a.eventList())
	}
	shipA := a.events[1].ID
	if x, y := a.events[1].X, a.events[1].Y; x != 100 || y != 180 {
		t.Fatalf("ship 0 at (%v, %v)", x, y)
	}
	// Wait for the Bydos of the first wave.
	if !a.pumpUntil(wait, func() bool { return a.lastSnap() != nil && len(a.lastSnap().entities) >= 3 }) {
		t.Fatalf("no Bydos came: %v", a.eventList())
	}
	b := join(t, s, "Bravo")
	b.shipID()
	b.pump(300 * time.Millisecond)
	// b's first events: the players already in (and maybe itself), then
	// the Spawns of the world.
	pjA := b.findEvent(0, func(ev *wire.Event) bool { return ev.Type == wire.EventPlayerJoined && ev.Player == 0 })
	pjB := b.findEvent(0, func(ev *wire.Event) bool { return ev.Type == wire.EventPlayerJoined && ev.Player == 1 })
	spA := b.findEvent(0, func(ev *wire.Event) bool { return ev.Type == wire.EventSpawn && ev.ID == shipA })
	if pjA < 0 || pjB < 0 || spA < 0 || b.events[pjA].Name != "Alpha" || b.events[pjB].Name != "Bravo" || pjA > spA {
		t.Fatalf("second client's events: %v", b.eventList())
	}
	for i := 0; i < spA; i++ {
		if b.events[i].Type != wire.EventPlayerJoined {
			t.Fatalf("a Spawn before the PlayerJoined of the players in the game: %v", b.eventList())
		}
	}
	// Every entity alive has a Spawn, none a Destroy.
	alive := map[uint32]bool{}
	for _, ev := range b.events {
		switch ev.Type {
		case wire.EventSpawn:
			alive[ev.ID] = true
		case wire.EventDestroy:
			delete(alive, ev.ID)
		}
	}
	// A loaded machine may not have sent a snapshot within the pump.
	if !b.pumpUntil(wait, func() bool { return b.lastSnap() != nil }) {
		t.Fatal("no snapshot")
	}
	sn := b.lastSnap()
	if len(sn.entities) < 4 {
		t.Fatalf("only %d entities", len(sn.entities))
	}
	for _, e := range sn.entities {
		if !alive[e.ID] {
			t.Fatalf("entity %#x (kind %d) in the snapshot without a Spawn; events %v", e.ID, e.Kind, b.eventList())
		}
	}
	if len(sn.players) != 2 {
		t.Fatalf("snapshot players %+v", sn.players)
	}
	// a learns about b.
	a.waitEvent("PlayerJoined of Bravo", func(ev *wire.Event) bool {
		return ev.Type == wire.EventPlayerJoined && ev.Player == 1 && ev.Name == "Bravo"
	})
	i := a.waitEvent("Spawn of Bravo's ship", func(ev *wire.Event) bool {
		return ev.Type == wire.EventSpawn && ev.Owner == 1 && ev.Kind == wire.KindPlayerShip
	})
	if x, y := a.events[i].X, a.events[i].Y; x != 100 || y != 300 {
		t.Fatalf("ship 1 at (%v, %v)", x, y)
	}
}

// 4.2: holding Right moves the ship right at the ship's speed (360 px/s by
// default), as the snapshots show.
func TestInputMovesShip(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	ship := c.shipID()
	x0 := c.shipX(ship)
	c.actions = wire.ActionRight
	c.pumpUntil(wait, func() bool { e, _ := c.lastSnap().entity(ship); return e.X() > x0+10 })
	first := *c.lastSnap()
	c.pumpUntil(wait, func() bool { return c.lastSnap().tick >= first.tick+30 })
	last := *c.lastSnap()
	e0, _ := first.entity(ship)
	e1, ok := last.entity(ship)
	if !ok {
		t.Fatal("ship gone")
	}
	speed := float64(e1.X()-e0.X()) / (float64(last.tick-first.tick) / wire.TickRate)
	if math.Abs(speed-360) > 10 {
		t.Fatalf("ship speed %.1f px/s, want 360 (x %v at tick %d, %v at %d)", speed, e0.X(), first.tick, e1.X(), last.tick)
	}
	if e1.VX() != 360 || e1.Y() != 180 {
		t.Fatalf("ship %+v: want vx 360 at y 180", e1)
	}
}

// 4.2: the newest Input by sequence wins; an older one arriving late is
// ignored.
func TestInputOlderIgnored(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	ship := c.shipID()
	x0 := c.shipX(ship)
	c.keepAlive = false
	// The link's next sequence: every Input so far is older than base.
	probe := c.datagram(wire.TypeAck, nil)
	c.udp.Write(probe)
	base := binary.LittleEndian.Uint16(probe[6:])
	c.sendSeq(wire.TypeInput, []byte{wire.ActionRight}, base+100)
	c.sendSeq(wire.TypeInput, []byte{0}, base+50) // older, never sent before
	c.sendSeq(wire.TypeInput, []byte{wire.ActionLeft}, base+99)
	// Play with Acks only (they carry no actions) until cond holds on the
	// ship's x in a snapshot; the ship must never go left of x0.
	until := func(what string, cond func(x float32) bool) float32 {
		t.Helper()
		var x float32
		end := time.Now().Add(wait)
		for time.Now().Before(end) {
			if c.readOne(20 * time.Millisecond) {
				if e, ok := c.lastSnap().entity(ship); ok {
					x = e.X()
					if x < x0 {
						t.Fatalf("the ship went left, to %v: an older Input was applied", x)
					}
					if cond(x) {
						return x
					}
				}
			}
			c.send(wire.TypeAck, nil)
		}
		t.Fatalf("%s: ship at %v", what, x)
		return x
	}
	x1 := until("moving right", func(x float32) bool { return x > x0+60 })
	until("still moving right", func(x float32) bool { return x > x1+60 })
	// A newer one does override: the ship stops.
	c.sendSeq(wire.TypeInput, []byte{0}, base+101)
	last, same := float32(-1), 0
	x3 := until("stopping", func(x float32) bool {
		if x == last {
			same++
		} else {
			last, same = x, 0
		}
		return same >= 3
	})
	if x4 := until("staying", func(float32) bool {
		return len(c.snaps) > 0 && c.lastSnap().at.After(time.Now().Add(-time.Millisecond))
	}); x4 != x3 {
		t.Fatalf("a newer Input did not stop the ship: %v then %v", x3, x4)
	}
}

// 4.2, 6.2: an Input with any of bits 5 to 7 set is dropped.
func TestInputReservedBitsDropped(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	ship := c.shipID()
	x0 := c.shipX(ship)
	for _, bit := range []uint8{0x20, 0x40, 0x80, 0xE0} {
		c.actions = wire.ActionRight | bit
		c.pump(200 * time.Millisecond)
	}
	c.actions = 0
	c.pump(100 * time.Millisecond)
	if x := c.shipX(ship); x != x0 {
		t.Fatalf("Inputs with reserved bits moved the ship from %v to %v", x0, x)
	}
	// An Input of 2 bytes or none is dropped too.
	c.keepAlive = false
	end := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(end) {
		c.send(wire.TypeInput, []byte{wire.ActionRight, 0})
		c.send(wire.TypeInput, nil)
		c.send(wire.TypeAck, nil)
		c.readOne(20 * time.Millisecond)
	}
	if x := c.shipX(ship); x != x0 {
		t.Fatalf("Inputs of the wrong size moved the ship from %v to %v", x0, x)
	}
	c.keepAlive, c.actions = true, wire.ActionRight
	if !c.pumpUntil(wait, func() bool { e, _ := c.lastSnap().entity(ship); return e.X() > x0+20 }) {
		t.Fatal("a valid Input does not move the ship")
	}
}

// 5.1, 6.1: a Bind already received (the same sequence), even from
// another address, is a duplicate: no answer, no rebinding.
func TestDuplicateBindIgnored(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := connect(t, s, "Alpha")
	c.udp = c.newUDP()
	bind := c.datagram(wire.TypeBind, c.acc.Token[:])
	c.udp.Write(bind)
	if !c.pumpUntil(wait, func() bool { return len(c.accepts) == 1 }) {
		t.Fatal("no Accept")
	}
	c.udp.Write(bind) // the same datagram again
	replay := c.newUDP()
	replay.Write(bind) // and from elsewhere
	silentFor(t, replay, 300*time.Millisecond, "a replayed Bind")
	c.waitSnaps(5)
	if len(c.accepts) != 1 {
		t.Fatalf("%d Accepts for one Bind sent three times", len(c.accepts))
	}
}
