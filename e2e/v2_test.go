package e2e

import (
	"fmt"
	"math"
	"net"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/netsim"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
)

// v2raw is a client that speaks v2 by hand (net/wire and net/link only)
// through whatever sits between it and the server.
type v2raw struct {
	t    *testing.T
	acc  wire.Message
	udp  *net.UDPConn
	link *link.Link
	rb   link2.Rebuilder
	snap wire2.Snapshot

	frames []wire.EventFrame
	events []wire.Event
	ids    []uint32                 // the event id of each of events
	snaps  map[uint32]link2.Rebuilt // whole copies, by tick
	steps  []uint32                 // last_step of each snapshot, in arrival order
	sent   uint32                   // input steps sent
	hist   []uint8
}

// dialV2 logs in with version 2 at addr and binds by the exchange of 7.3.
func dialV2(t *testing.T, addr, name string) *v2raw {
	t.Helper()
	c := &v2raw{t: t, acc: rawLogin2(t, addr, name), snaps: map[uint32]link2.Rebuilt{}}
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if c.udp, err = net.DialUDP("udp", nil, ua); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.udp.Close() })
	c.link = link.NewV2(c.acc.Session, time.Now())
	var cookie *wire2.Cookie
	bound := false
	for end := time.Now().Add(testutil.Wait); !bound && time.Now().Before(end); {
		b := wire2.Bind{Token: c.acc.Token}
		if cookie != nil {
			b.HasCookie, b.Cookie = true, *cookie
		}
		d, _ := c.link.AppendDatagram(nil, wire.TypeBind, wire2.AppendBind(nil, b), time.Now())
		c.udp.Write(d)
		for until := time.Now().Add(100 * time.Millisecond); time.Now().Before(until); {
			typ, p, ok := c.read(until)
			if ok && typ == wire.TypeChallenge {
				ck, _ := wire2.ParseChallenge(p)
				cookie = &ck
				break
			}
			if ok && typ == wire.TypeAccept {
				bound = true
				break
			}
		}
	}
	if !bound {
		t.Fatal("no Accept")
	}
	return c
}

// read reads and handles one datagram before deadline.
func (c *v2raw) read(deadline time.Time) (wire.Type, []byte, bool) {
	buf := make([]byte, 2048)
	c.udp.SetReadDeadline(deadline)
	n, err := c.udp.Read(buf)
	if err != nil {
		return 0, nil, false
	}
	now := time.Now()
	h, p, err := wire2.ParseHeader(buf[:n], wire.ToClient)
	if err != nil || h.Session != c.acc.Session {
		c.t.Errorf("invalid datagram from the server: %v", err)
		return 0, nil, false
	}
	if c.link.Seen(h.Seq) {
		return 0, nil, false
	}
	switch h.Type {
	case wire.TypeSnapshot:
		tail, err := c.snap.DecodeTail(p)
		if err != nil {
			c.t.Errorf("snapshot: %v", err)
			return 0, nil, false
		}
		r, err := c.rb.Rebuild(&c.snap)
		if err != nil {
			return h.Type, p, true // its baseline is gone: unusable, not recorded, its tail not taken (4.8, 7.8)
		}
		// The tail's events come before the snapshot's records (7.8);
		// an empty tail is its count alone.
		c.frames = c.frames[:0]
		if len(tail) > 1 && !c.take(tail) {
			return 0, nil, false
		}
		var cp link2.Rebuilt
		cp.Frame.Set(r.Tick, r.Players, r.Entities)
		cp.Parts = r.Parts
		c.snaps[r.Tick] = cp
		for _, pl := range r.Players {
			if pl.Player == c.acc.Player && pl.HasStep {
				c.steps = append(c.steps, pl.LastStep)
			}
		}
	case wire.TypeEvent:
		if !c.take(p) {
			return 0, nil, false
		}
	}
	c.link.Accept(h, n, now)
	if len(c.frames) > 0 && (h.Type == wire.TypeEvent || h.Type == wire.TypeSnapshot) {
		// Acknowledge events at once (issue 12 item 9).
		d, _ := c.link.AppendDatagram(nil, wire.TypeAck, nil, now)
		c.udp.Write(d)
	}
	return h.Type, p, true
}

// take takes the events of an Event payload or a Snapshot's tail, those
// delivered for the first time, into c.frames and c.events; false for a
// payload badly framed.
func (c *v2raw) take(p []byte) bool {
	var err error
	if c.frames, err = c.link.ReceiveEvents(p, c.frames[:0]); err != nil {
		c.t.Errorf("events: %v", err)
		return false
	}
	for _, f := range c.frames {
		var ev wire.Event
		if err := wire2.ParseEvent(f.Data, &ev); err != nil {
			c.t.Errorf("event %d: %v", f.ID, err)
			continue
		}
		c.events = append(c.events, ev)
		c.ids = append(c.ids, f.ID)
	}
	return true
}

// input sends the next step holding actions, with up to 7 earlier steps.
func (c *v2raw) input(actions uint8) {
	c.hist = append(c.hist, actions)
	in := wire2.Input{Step: c.sent}
	for i := len(c.hist) - 1; i >= 0 && in.Count < wire2.MaxInputActions; i-- {
		in.Actions[in.Count] = c.hist[i]
		in.Count++
	}
	c.sent++
	d, _ := c.link.AppendDatagram(nil, wire.TypeInput, wire2.AppendInput(nil, &in), time.Now())
	c.udp.Write(d)
}

// A v2 session through the impairment relay (20% loss each way,
// duplicates, reordering, 30 ± 10 ms), playing until it sent 2 s of
// inputs and received 20 events and 20 snapshots whole, then until every
// event the game had produced by then arrived: every event arrives once
// and in order of ids, the rebuilt worlds are the server's (motions at
// the tick within v1's 1/16 px of the server's positions), and last_step
// never goes back nor passes the steps sent.
func TestV2ThroughImpairedRelay(t *testing.T) {
	rules := fastRules()
	rules.Lives = 255
	log := newServerLog()
	srv := testserver.Start(t, server.Config{MaxGames: 1, Seed: 9, Rules: &rules,
		OnSnapshot: log.onSnapshot, OnEvents: log.onEvents})
	imp := netsim.Impairment{Loss: 0.2, Dup: 0.05, Reorder: 0.05, Delay: 30 * time.Millisecond, Jitter: 10 * time.Millisecond}
	relay := startRelay(t, srv.Addr(), imp, 4)
	c := dialV2(t, relay.Addr(), "Ripley")
	// whole counts the snapshots rebuilt whole (as many entities as the
	// server's at the tick: a split one may miss some).
	whole := func() int {
		log.mu.Lock()
		defer log.mu.Unlock()
		n := 0
		for tick, r := range c.snaps {
			if s, ok := log.snaps[tick]; ok && len(r.Entities) == len(s.Entities) {
				n++
			}
		}
		return n
	}
	// received reports whether every event of id below cut arrived.
	received := func(cut int) bool {
		got := make(map[uint32]bool, len(c.ids))
		for _, id := range c.ids {
			got[id] = true
		}
		for id := range uint32(cut) {
			if !got[id] {
				return false
			}
		}
		return true
	}
	// play sends an Input every 1/60 s and reads until done holds, or
	// the guard passes.
	next := time.Now()
	play := func(what string, done func() bool) {
		t.Helper()
		guard := time.Now().Add(testutil.Wait)
		for !done() {
			if time.Now().After(guard) {
				t.Fatalf("still waiting after %v for %s", testutil.Wait, what)
			}
			for !time.Now().Before(next) {
				c.input(wire.ActionFire | []uint8{wire.ActionUp, wire.ActionDown}[c.sent/40%2])
				next = next.Add(time.Second / 60)
			}
			c.read(next)
		}
	}
	checked := 0
	play("2 s of inputs, 20 events and 20 snapshots whole", func() bool {
		if checked++; checked%30 != 0 { // whole takes the log's lock
			return false
		}
		return c.sent >= 120 && len(c.events) >= 20 && whole() >= 20
	})
	// Every event the server had made by now arrives, in a few resends.
	log.mu.Lock()
	cut := len(log.events)
	log.mu.Unlock()
	play(fmt.Sprintf("the first %d events", cut), func() bool { return received(cut) })
	if t.Failed() {
		return
	}
	// Events: each once, applied as they arrive (4.5); the session's
	// event ids number the game's events from its start, as it is the
	// game's only session.
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(c.events) < cut || len(c.events) > len(log.events) {
		t.Fatalf("%d events received, the server produced %d (%d by the cut)", len(c.events), len(log.events), cut)
	}
	seen := map[uint32]bool{}
	for i := range c.events {
		id := c.ids[i]
		if seen[id] || int(id) >= len(log.events) {
			t.Fatalf("event id %d twice or unknown (%d events)", id, len(log.events))
		}
		seen[id] = true
		a, b := &c.events[i], &log.events[id]
		if a.Type != b.Type || a.Tick != b.Tick || a.ID != b.ID || a.Player != b.Player || a.Kind != b.Kind {
			t.Fatalf("event %d: got %+v, the server's %+v", i, *a, *b)
		}
		if a.Type == wire.EventSpawn {
			x, y, _, _ := a.Motion.At(float64(a.Tick))
			if math.Abs(x-float64(b.X)) > 1e-2 || math.Abs(y-float64(b.Y)) > 1e-2 {
				t.Fatalf("Spawn %#x: motion at (%v, %v), the server's (%v, %v)", a.ID, x, y, b.X, b.Y)
			}
		}
	}
	// Worlds.
	compared := 0
	for tick, r := range c.snaps {
		s, ok := log.snaps[tick]
		if !ok {
			t.Fatalf("snapshot of tick %d the server never took", tick)
		}
		if len(r.Entities) != len(s.Entities) {
			continue // a split snapshot not whole yet
		}
		for i, e := range s.Entities {
			e2 := r.Entities[i]
			m := e2.Motion()
			x, y, _, _ := m.At(float64(tick))
			if e2.ID != e.ID || e2.Kind() != e.Kind || math.Abs(x-float64(e.X())) > 1.0/16+1e-3 || math.Abs(y-float64(e.Y())) > 1.0/16+1e-3 {
				t.Fatalf("tick %d, entity %d: %#x kind %d at (%v, %v); the server's %#x kind %d at (%v, %v)",
					tick, i, e2.ID, e2.Kind(), x, y, e.ID, e.Kind, e.X(), e.Y())
			}
		}
		compared++
	}
	// last_step.
	for i := 1; i < len(c.steps); i++ {
		if c.steps[i] > c.sent {
			t.Fatalf("last_step %d above the %d steps sent", c.steps[i], c.sent)
		}
	}
	up, down := relay.Stats()
	t.Logf("%d events, %d snapshots compared, %d steps sent, last_step %d; relay up %v, down %v",
		len(c.events), compared, c.sent, c.steps[len(c.steps)-1], up, down)
	if compared < 20 {
		t.Fatalf("only %d snapshots compared", compared)
	}
}
