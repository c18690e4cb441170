package server

// Version 2.3 (PROTOCOL.md 7.19): the events of a v2.3 session wait for
// the next snapshot tick and go out together, still before that tick's
// Snapshot; a v2.2 session in the same game gets each tick's events at
// that tick (5.3), as before.

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rtype/net/wire"
)

// eventTrace is what one client saw of the server's Event datagrams.
type eventTrace struct {
	c *tclient2
	// windows counts, per snapshot window (the snapshot tick the events
	// of a tick are due at: 3*ceil(tick/3)), the Event datagrams that
	// brought fresh events of it, and their bytes.
	windows map[uint32]*windowCount
	ids     map[uint32]int // fresh event ids: how many times each came
	maxID   uint32
	snap    uint32 // newest snapshot tick received
	hasSnap bool
	late    []string // events that came after a snapshot of their tick or later
}

type windowCount struct{ datagrams, bytes int }

// pump plays the client until done holds, an Input a tick (fire pressed and
// released), acknowledging an Event datagram at once with its next Input
// (as the reference client does, 7.7), and records every datagram.
func (tr *eventTrace) pump(done func() bool, interval uint32) {
	c := tr.c
	inputs := 0
	for !done() {
		nev, nsnap := len(c.events), len(c.snaps)
		events := c.types[wire.TypeEvent]
		got := c.readOne(20 * time.Millisecond)
		switch {
		case !got:
		case len(c.snaps) > nsnap:
			tr.snap, tr.hasSnap = c.snaps[len(c.snaps)-1].tick, true
		case c.types[wire.TypeEvent] > events && len(c.frames) > 0:
			if len(c.events)-nev != len(c.frames) {
				c.t.Errorf("%s: %d events parsed of %d frames", c.name, len(c.events)-nev, len(c.frames))
				return
			}
			size := 20 + 1 // v2 header and count (7.2, 7.7)
			newest := uint32(0)
			for i, f := range c.frames {
				size += 5 + len(f.Data)
				tr.ids[f.ID]++
				tr.maxID = max(tr.maxID, f.ID)
				ev := &c.events[nev+i]
				newest = max(newest, ev.Tick)
				// A join's events (PlayerJoined, the ship's Spawn) are
				// made by a Bind between two ticks, with the tick of the
				// last step, whose snapshot may be out already (4.6):
				// not a tick's events.
				join := ev.Type == wire.EventPlayerJoined || (ev.Type == wire.EventSpawn && ev.Kind == wire.KindPlayerShip)
				if tr.hasSnap && ev.Tick <= tr.snap && !join {
					tr.late = append(tr.late, eventString(ev)+" after the snapshot of tick "+strconv.Itoa(int(tr.snap)))
				}
			}
			if tr.hasSnap { // the joining burst (with the Accept, 3.4) is not counted
				w := (newest + interval - 1) / interval * interval
				wc := tr.windows[w]
				if wc == nil {
					wc = &windowCount{}
					tr.windows[w] = wc
				}
				wc.datagrams++
				wc.bytes += size
			}
			c.keep(true) // acknowledge at once (7.7)
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

// split counts the snapshot windows whose fresh events came in several
// Event datagrams that would have fitted in one (1.3), and the windows.
func (tr *eventTrace) split() (split, all int) {
	for _, wc := range tr.windows {
		all++
		if wc.datagrams > 1 && wc.bytes-21*(wc.datagrams-1) <= wire.MaxDatagram {
			split++
		}
	}
	return split, all
}

// 7.19: two v2.3 players and a v2.2 player, firing, in a game with waves.
// The v2.3 sessions get the events of each snapshot window in one Event
// datagram (the window's ticks' events were not sent each at its tick),
// the v2.2 session gets them tick by tick (5.3); every client gets every
// event exactly once, and none after a snapshot of its tick or later
// (4.3, 5.3).
func TestEventsHeldToSnapshotTick(t *testing.T) {
	t.Parallel()
	s := startServer(t, busyOrderConfig())
	interval := uint32(s.cfg.SnapshotInterval)
	minors := []uint8{3, 2, 3}
	var traces []*eventTrace
	for i, minor := range minors {
		name := "Minor" + strconv.Itoa(int(minor)) + "x" + strconv.Itoa(i)
		c := connectWith2(t, s, name, wire.AppendMessage2(nil, &wire.Message{Type: wire.MsgLoginRequest,
			Version: wire.Version2, Name: name, Minor: minor, Mode: wire.ModeClassic}))
		if c.acc.Minor != minor {
			t.Fatalf("%s: session of minor %d, asked for %d", name, c.acc.Minor, minor)
		}
		c.bind()
		c.actions = wire.ActionFire | []uint8{0, wire.ActionUp, wire.ActionDown}[i]
		traces = append(traces, &eventTrace{c: c, windows: map[uint32]*windowCount{}, ids: map[uint32]int{}})
	}
	for i, tr := range traces {
		if tr.c.acc.Player != uint8(i) {
			t.Fatalf("%s is player %d of its game: not one game", tr.c.name, tr.c.acc.Player)
		}
	}
	// Every client plays until each saw 20 snapshot windows with events.
	until := untilAll(len(traces))
	var wg sync.WaitGroup
	for _, tr := range traces {
		done := until(func() bool { _, all := tr.split(); return all >= 20 })
		wg.Add(1)
		go func() { defer wg.Done(); tr.pump(done, interval) }()
	}
	wg.Wait()
	for i, tr := range traces {
		name := tr.c.name
		for id := uint32(0); id <= tr.maxID; id++ {
			if tr.ids[id] != 1 {
				t.Errorf("%s: event %d received %d times", name, id, tr.ids[id])
			}
		}
		if len(tr.late) > 0 {
			t.Errorf("%s: %d events after a snapshot of their tick, e.g. %s", name, len(tr.late), tr.late[0])
		}
		split, all := tr.split()
		t.Logf("%s (minor %d): %d events, %d snapshot windows with events, %d of them in several datagrams",
			name, minors[i], tr.maxID+1, all, split)
		switch {
		case all < 20:
			t.Errorf("%s: only %d snapshot windows with events: the game is not busy", name, all)
		case minors[i] >= 3 && split > 0:
			t.Errorf("%s: v2.3: %d of %d snapshot windows' events came in several datagrams that fit in one (7.19)", name, split, all)
		case minors[i] < 3 && split < all/10:
			t.Errorf("%s: v2.2: only %d of %d snapshot windows' events came tick by tick (5.3)", name, split, all)
		}
	}
}
