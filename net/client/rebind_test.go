package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
)

// shipY is the y of player p's ship in the server's snapshots, by tick.
type shipY struct {
	mu   sync.Mutex
	p    uint8
	tick uint32
	y    int32
	ok   bool
}

func (s *shipY) onSnapshot(_ int, snap server.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ship uint32
	found := false
	for _, ps := range snap.Players {
		if ps.Player == s.p && ps.HasShip {
			ship, found = ps.Ship, true
		}
	}
	s.ok = false
	for _, e := range snap.Entities {
		if found && e.ID == ship {
			s.tick, s.y, s.ok = snap.Tick, e.F[wire.FieldY], true
		}
	}
}

func (s *shipY) get() (uint32, int32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tick, s.y, s.ok
}

// TestRebind moves a client to a new UDP socket in the middle of a game
// on the real server (3.4, Rebinding): the session goes on from the new
// address with the same link (its sequences continue), its Inputs move its
// ship, and the server ignores what still comes from the old address.
func TestRebind(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testRebind(t, v) })
	}
}

// testRebind: in v2 the new address proves itself with the cookie of a
// Challenge (7.3, Rebinding).
func testRebind(t *testing.T, version uint8) {
	sy := &shipY{p: 0}
	srv := testserver.Start(t, server.Config{MaxGames: 1, Seed: 3, OnSnapshot: sy.onSnapshot})

	dctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := Dial(dctx, Config{Addr: srv.Addr(), Name: "mover", Logger: testLogger(), Version: version})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Version() != version {
		t.Fatalf("version %d", c.Version())
	}
	if c.Player() != 0 {
		t.Fatalf("player %d", c.Player())
	}
	waitFor(t, testutil.Wait, "the ship", func() bool { _, _, ok := sy.get(); return ok })

	oldAddr := c.LocalAddr().(*net.UDPAddr)
	before := c.Stats().Link.SentDatagrams
	if err := c.Rebind(); err != nil {
		t.Fatalf("Rebind: %v", err)
	}
	newAddr := c.LocalAddr().(*net.UDPAddr)
	if newAddr.Port == oldAddr.Port {
		t.Fatalf("still on %v after Rebind", newAddr)
	}
	// The link went on: the Binds took the next sequences.
	if after := c.Stats().Link.SentDatagrams; after <= before {
		t.Fatalf("sent datagrams %d before Rebind, %d after", before, after)
	}

	// Down moves the ship down: the server takes the Inputs of the new
	// address.
	_, y0, _ := sy.get()
	c.SetInput(wire.ActionDown)
	waitFor(t, testutil.Wait, "the ship moving down", func() bool {
		_, y, ok := sy.get()
		return ok && y > y0+8*40
	})
	c.SetInput(0)
	// The ship stops: the same y in snapshots 6 ticks apart or more.
	stopTick, stopY, _ := sy.get()
	waitFor(t, testutil.Wait, "the ship stopping", func() bool {
		tick, y, ok := sy.get()
		if !ok || y != stopY {
			stopTick, stopY = tick, y
			return false
		}
		return tick >= stopTick+6
	})

	// Well-formed Inputs holding Up, of the session, with sequences ahead
	// of the client's, from the old address: the server drops them (6.1).
	old, err := net.ListenUDP("udp", oldAddr)
	if err != nil {
		t.Skipf("cannot take the old address %v again: %v", oldAddr, err)
	}
	defer old.Close()
	srvAddr, _ := net.ResolveUDPAddr("udp", srv.Addr())
	tick0, y1, _ := sy.get()
	seq := uint16(c.Stats().Link.SentDatagrams) + 100
	for i := range 30 {
		h := wire.Header{Type: wire.TypeInput, Seq: seq + uint16(i), Ack: 0xFFFF, Session: c.Session()}
		var b []byte
		if version == 2 {
			b = wire2.AppendHeader(nil, h)
			b = wire2.AppendInput(b, &wire2.Input{Step: 1e6 + uint32(i), Count: 1, Actions: [8]uint8{wire.ActionUp}})
		} else {
			b = wire.AppendHeader(nil, h)
			b = append(b, wire.ActionUp)
		}
		if _, err := old.WriteToUDP(b, srvAddr); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	waitFor(t, testutil.Wait, "snapshots after the spoofed Inputs", func() bool {
		tick, _, _ := sy.get()
		return tick > tick0+30
	})
	if _, y, _ := sy.get(); y != y1 {
		t.Fatalf("the ship moved from y %d to %d: the server took Inputs from the old address", y1, y)
	}
	// The client still holds the session.
	c.SetInput(wire.ActionUp)
	waitFor(t, testutil.Wait, "the ship moving up", func() bool {
		_, y, ok := sy.get()
		return ok && y < y1-8*40
	})
	if err := c.Err(); err != nil {
		t.Fatalf("session ended: %v", err)
	}
	if st := c.Stats(); st.SnapshotsPerSec == 0 {
		t.Fatalf("no snapshots after Rebind: %+v", st)
	}
}

// TestRebindTimeout: without an Accept, Rebind gives up after BindTimeout,
// and the session goes on from the old socket.
func TestRebindTimeout(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, func(cfg *Config) { cfg.BindTimeout = 300 * time.Millisecond })
	s.mu.Lock()
	s.ignoreBinds = -1
	s.mu.Unlock()
	addr := c.LocalAddr().String()
	start := time.Now()
	err := c.Rebind()
	if !errors.Is(err, ErrBindTimeout) {
		t.Fatalf("Rebind: %v, want ErrBindTimeout", err)
	}
	// The timer never fires early.
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("Rebind gave up after %v, before the bind timeout of 300ms", d)
	}
	if got := c.LocalAddr().String(); got != addr {
		t.Fatalf("socket changed from %s to %s", addr, got)
	}
	_, acks, _ := s.counts()
	waitFor(t, testutil.Wait, "Acks from the old socket", func() bool {
		_, n, _ := s.counts()
		return n > acks+5
	})
	if err := c.Err(); err != nil {
		t.Fatalf("session ended: %v", err)
	}
}

// TestRebindAfterClose returns the session's error.
func TestRebindAfterClose(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, nil)
	c.Close()
	if err := c.Rebind(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Rebind after Close: %v", err)
	}
}

// TestRebindDuringClose: Close while Rebind waits ends both.
func TestRebindDuringClose(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, nil)
	s.mu.Lock()
	s.ignoreBinds = -1
	s.mu.Unlock()
	binds, _, _ := s.counts()
	res := make(chan error, 1)
	go func() { res <- c.Rebind() }()
	// Rebind waits for an Accept once its first Bind reached the server.
	waitFor(t, testutil.Wait, "Rebind's first Bind", func() bool {
		n, _, _ := s.counts()
		return n > binds
	})
	c.Close()
	select {
	case err := <-res:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("Rebind: %v", err)
		}
	case <-time.After(testutil.Wait):
		t.Fatal("Rebind still running after Close")
	}
}

// TestAbandonSendsNothing: Abandon closes the session without a Logout.
func TestAbandonSendsNothing(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, nil)
	c.Abandon()
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed")
	}
	if !errors.Is(c.Err(), ErrClosed) {
		t.Fatalf("Err = %v", c.Err())
	}
	// The server reads until the connection ends: whatever the client
	// sent before closing it came first.
	select {
	case <-s.tcpDone:
	case <-time.After(testutil.Wait):
		t.Fatal("the TCP connection still open after Abandon")
	}
	select {
	case m := <-s.logouts:
		t.Fatalf("Abandon sent %+v", m)
	default:
	}
	c.Close() // idempotent after Abandon
}

// TestNoBaselineCounted: a snapshot against a baseline the client never
// had is dropped and counted apart (4.8 step 1).
func TestNoBaselineCounted(t *testing.T) {
	s := newFakeServer(t)
	c := mustDial(t, s, nil)
	s.mu.Lock()
	ents := []wire.Entity{{ID: 5, Kind: wire.KindBydosSlave}}
	payloads := s.enc.Encode(90, nil, []wire.Entity{}, 60, ents)
	for _, p := range payloads {
		s.buf = s.link.AppendSnapshot(s.buf[:0], p, 90, time.Now())
		s.sendRaw(s.buf)
	}
	s.mu.Unlock()
	waitFor(t, testutil.Wait, "the snapshot dropped", func() bool { return c.Stats().NoBaseline == 1 })
	if st := c.Stats(); st.Dropped != 1 || st.SnapshotTick != 0 {
		t.Fatalf("stats %+v", st)
	}
	s.snapshot(93) // a full one is rebuilt
	waitFor(t, testutil.Wait, "the full snapshot", func() bool { return c.Stats().SnapshotTick == 93 })
	if st := c.Stats(); st.NoBaseline != 1 {
		t.Fatalf("NoBaseline %d", st.NoBaseline)
	}
}
