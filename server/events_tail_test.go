package server

// PROTOCOL.md 7.9 and 7.8: a v2 session's events wait for the next
// snapshot tick and ride in the tail of its Snapshot datagram; those that
// do not fit go in Event datagrams before it.

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// untilAll returns, for each of n clients pumped at once, each in its
// own goroutine, the done of its pump: done holds once enough (called
// from that goroutine only) held for every client, so that they all play
// until the last has seen enough, or after wait (the test then fails on
// its counts).
func untilAll(n int) func(enough func() bool) (done func() bool) {
	var left atomic.Int32
	left.Store(int32(n))
	deadline := time.Now().Add(wait)
	return func(enough func() bool) func() bool {
		counted := false
		return func() bool {
			if !counted && enough() {
				counted = true
				left.Add(-1)
			}
			return left.Load() == 0 || time.Now().After(deadline)
		}
	}
}

// tailTrace is what a v2 client saw of its events.
type tailTrace struct {
	c       *tclient2
	ids     map[uint32]int // fresh event ids: how many times each came
	maxID   uint32
	snap    uint32 // newest snapshot tick received
	hasSnap bool
	late    []string // events that came after a snapshot of their tick or later
	early   []string // events in the tail of a snapshot older than their tick
	events  int      // Event datagrams after the first Snapshot
}

// pump plays the client until done holds, sending an Input step after
// each datagram, and records where each fresh event came from.
func (tr *tailTrace) pump(done func() bool) {
	c := tr.c
	inputs := 0
	for !done() {
		nev, nsnap, tails := len(c.events), len(c.snaps), c.tails
		events := c.types[wire.TypeEvent]
		got := c.readOne(20 * time.Millisecond)
		switch {
		case !got:
		case len(c.snaps) > nsnap:
			tick := c.snaps[len(c.snaps)-1].tick
			if c.tails > tails { // its events, applied before its records
				tr.record(nev, tick)
			}
			tr.snap, tr.hasSnap = tick, true
		case c.types[wire.TypeEvent] > events:
			if tr.hasSnap { // the joining burst (with the Accept, 3.4) is not counted
				tr.events++
			}
			tr.record(nev, 0)
			c.keep(true)
			continue
		}
		if time.Since(c.lastSent) >= 16*time.Millisecond { // an Input a tick, fire pressed and released
			if inputs++; inputs%4 == 0 {
				c.actions ^= wire.ActionFire
			}
			c.keep(true)
		}
	}
}

// record checks the fresh events c.events[from:], of c.frames, that came
// in an Event datagram (tick 0) or in the tail of the snapshot of tick.
func (tr *tailTrace) record(from int, tick uint32) {
	c := tr.c
	if len(c.events)-from != len(c.frames) {
		c.t.Errorf("%s: %d events parsed of %d frames", c.name, len(c.events)-from, len(c.frames))
		return
	}
	for i, f := range c.frames {
		tr.ids[f.ID]++
		tr.maxID = max(tr.maxID, f.ID)
		ev := &c.events[from+i]
		join := ev.Type == wire.EventPlayerJoined || (ev.Type == wire.EventSpawn && ev.Kind == wire.KindPlayerShip) // 4.6
		if tr.hasSnap && ev.Tick <= tr.snap && !join {
			tr.late = append(tr.late, eventString(ev)+" after the snapshot of tick "+strconv.Itoa(int(tr.snap)))
		}
		if tick != 0 && ev.Tick > tick {
			tr.early = append(tr.early, eventString(ev)+" in the snapshot of tick "+strconv.Itoa(int(tick)))
		}
	}
}

// 7.9, 7.8: three v2 players, firing, in a game with waves, get every
// event in the tail of a Snapshot datagram (no Event datagram once they
// play: the events fit), each exactly once, none after a snapshot of its
// tick or later and none in a snapshot older than it (4.3, 4.5).
func TestEventsInSnapshot(t *testing.T) {
	t.Parallel()
	s := startServer(t, busyOrderConfig())
	var traces []*tailTrace
	for i := range 3 {
		c := connect2(t, s, "Player"+strconv.Itoa(i))
		c.bind()
		c.actions = wire.ActionFire | []uint8{0, wire.ActionUp, wire.ActionDown}[i]
		if c.acc.Player != uint8(i) {
			t.Fatalf("%s is player %d of its game: not one game", c.name, c.acc.Player)
		}
		traces = append(traces, &tailTrace{c: c, ids: map[uint32]int{}})
	}
	// Every client plays until each saw 20 snapshots with events.
	until := untilAll(len(traces))
	var wg sync.WaitGroup
	for _, tr := range traces {
		done := until(func() bool { return tr.c.tails >= 20 })
		wg.Add(1)
		go func() { defer wg.Done(); tr.pump(done) }()
	}
	wg.Wait()
	for _, tr := range traces {
		name := tr.c.name
		checkDelivery(t, name, tr.ids, tr.maxID, tr.late)
		if len(tr.early) > 0 {
			t.Errorf("%s: %d events in a snapshot older than they, e.g. %s", name, len(tr.early), tr.early[0])
		}
		t.Logf("%s: %d events, %d Snapshots carried some, %d Event datagrams", name, tr.maxID+1, tr.c.tails, tr.events)
		if tr.c.tails < 20 {
			t.Errorf("%s: only %d Snapshots carried events: the game is not busy", name, tr.c.tails)
		}
		if tr.events > 0 {
			t.Errorf("%s: %d Event datagrams while the events fit in the Snapshots (7.8)", name, tr.events)
		}
	}
}

// checkDelivery checks that a client got the events 0 to maxID once each
// (ids counts them) and none late.
func checkDelivery(t *testing.T, name string, ids map[uint32]int, maxID uint32, late []string) {
	t.Helper()
	for id := uint32(0); id <= maxID; id++ {
		if ids[id] != 1 {
			t.Errorf("%s: event %d received %d times", name, id, ids[id])
		}
	}
	if len(late) > 0 {
		t.Errorf("%s: %d events after a snapshot of their tick, e.g. %s", name, len(late), late[0])
	}
}

// dgram is one datagram of the server as a test client received it.
type dgram struct {
	typ  wire.Type
	seq  uint16
	size int
	ids  []uint32 // the event ids it carried, repeats included
	last int      // the size of its last event
}

// 7.8: events that do not fit in the Snapshot datagram go, oldest
// first, in an Event datagram just before it, and the rest ride in its
// tail. A player that stops acknowledging has its events resent
// and its snapshots grow (their baseline stays), until they no longer
// fit; once it acknowledges again, it has received every event.
func TestEventsOverflow(t *testing.T) {
	t.Parallel()
	s := startServer(t, busyOrderConfig())
	name := "Burst"
	c := connect2(t, s, name)
	c.bind()
	c.actions = wire.ActionFire
	// Three more players firing, for more events.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 3 {
		o := join2(t, s, "Other"+strconv.Itoa(i))
		o.actions = wire.ActionFire
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				o.pumpUntil(50*time.Millisecond, nil)
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	c.pumpUntil(500*time.Millisecond, nil)
	// Silent for 2 s: read and record, send nothing.
	var got []dgram
	var snap wire2.Snapshot
	var frames []wire.EventFrame
	end := time.Now().Add(2 * time.Second)
	for time.Now().Before(end) {
		c.udp.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		n, err := c.udp.Read(c.buf)
		if err != nil {
			continue
		}
		b := c.buf[:n]
		h, p, err := wire2.ParseHeader(b, wire.ToClient)
		if err != nil {
			t.Fatalf("invalid datagram of %d bytes: %v", n, err)
		}
		d := dgram{typ: h.Type, seq: h.Seq, size: n}
		frames = frames[:0]
		switch h.Type {
		case wire.TypeSnapshot:
			tail, err := snap.DecodeTail(p)
			if err != nil {
				t.Fatalf("invalid Snapshot: %v", err)
			}
			frames = wire2.TailFrames(tail, frames)
		case wire.TypeEvent:
			frames, _ = wire2.ParseEventFrames(p, frames)
		}
		for _, f := range frames {
			d.ids = append(d.ids, f.ID)
			d.last = len(f.Data)
		}
		got = append(got, d)
		c.handle(b)
	}
	overflows := 0
	for i := 1; i < len(got); i++ {
		e, sn := got[i-1], got[i]
		if e.typ != wire.TypeEvent || sn.typ != wire.TypeSnapshot || len(sn.ids) == 0 {
			continue
		}
		if sn.seq != e.seq+1 {
			t.Errorf("Event datagram %d, then Snapshot %d: not the one just after", e.seq, sn.seq)
		}
		if slices.Max(e.ids) >= slices.Min(sn.ids) {
			t.Errorf("Event datagram %d carries %v, the Snapshot after it %v: not the oldest first", e.seq, e.ids, sn.ids)
		}
		if sn.size+wire2.FrameOverhead+e.last <= wire.MaxDatagram && len(sn.ids) < 255 {
			t.Errorf("the newest event of Event datagram %d (%d bytes) would have fitted in the Snapshot after it (%d bytes)",
				e.seq, e.last, sn.size)
		}
		overflows++
	}
	snaps := 0
	for _, d := range got {
		if d.typ == wire.TypeSnapshot {
			snaps++
		}
	}
	t.Logf("silent for 2 s: %d datagrams, %d Snapshots, %d after an Event datagram of events that did not fit", len(got), snaps, overflows)
	if overflows == 0 {
		t.Fatal("no Event datagram of events that did not fit in the Snapshot after it")
	}
	// Acknowledging again: every event the server sent comes (by
	// resend), and the server holds none unacknowledged.
	c.actions = 0
	s.mu.Lock()
	ss := s.sessions[c.acc.Session]
	s.mu.Unlock()
	var sent uint64
	var unacked int
	ok := c.pumpUntil(wait, func() bool {
		s.mu.Lock()
		sent, unacked = ss.link.Stats().EventsSent, ss.link.Unacked()
		s.mu.Unlock()
		return unacked == 0 && c.link.Stats().EventsDelivered == sent
	})
	if !ok {
		t.Fatalf("the server sent %d events, %d delivered, %d unacknowledged", sent, c.link.Stats().EventsDelivered, unacked)
	}
}

// 7.8 and 7.17: a spectator's Snapshots (one encoding shared by the
// game's spectators) end with an empty tail, and its events come in
// Event datagrams.
func TestSpectatorTail(t *testing.T) {
	t.Parallel()
	s := startServer(t, busyOrderConfig())
	p := player2(t, s, "Player", wire.ModeClassic)
	p.actions = wire.ActionFire
	var cs []*tclient2
	for i := range 2 {
		name := "Watcher" + strconv.Itoa(i)
		c := connectWith2(t, s, name, wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2,
			Name: name, Revision: wire.Revision, Mode: wire.ModeClassic, Flags: wire.LoginSpectate}))
		if c.acc.Player != wire.NoPlayer || c.acc.Revision != wire.Revision {
			t.Fatalf("%s: LoginAccepted %+v", name, c.acc)
		}
		c.spectator = true
		c.bind()
		cs = append(cs, c)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			p.pumpUntil(50*time.Millisecond, nil)
		}
	}()
	for _, c := range cs {
		c.pumpUntil(wait, func() bool { return len(c.snaps) >= 20 && len(c.events) >= 20 })
	}
	close(stop)
	<-done
	for _, c := range cs {
		t.Logf("%s: %d Snapshots, %d Event datagrams, %d events, %d tails with events", c.name, len(c.snaps), c.types[wire.TypeEvent], len(c.events), c.tails)
		if len(c.snaps) < 20 || len(c.events) < 20 || c.types[wire.TypeEvent] == 0 {
			t.Errorf("%s: %d Snapshots, %d events in %d Event datagrams", c.name, len(c.snaps), len(c.events), c.types[wire.TypeEvent])
		}
		if c.tails != 0 {
			t.Errorf("%s: %d Snapshots carried events", c.name, c.tails)
		}
	}
}
