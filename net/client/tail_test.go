package client

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"rtype/internal/evilserver"
	"rtype/internal/testutil"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// 7.8: a player in a busy game gets its events in the tails of its
// Snapshot datagrams: no Event datagram once it plays, every event once
// (none resent on a clean link), each acknowledged with the next Input
// (no Ack, 7.7), and the client applies them all.
func TestEventsInSnapshot(t *testing.T) {
	srv := ackTestServer(t)
	r := startTypeRelay(t, srv.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := Dial(ctx, Config{Addr: r.addr(), Name: "Ripley", Logger: testLogger(), Version: wire.Version2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.features.EventsInSnapshot || !c.features.EventsAtSnapshots {
		t.Fatalf("session of features %+v", c.features)
	}
	c.SetInput(wire.ActionFire) // a missile every few ticks: Spawn events
	var tails, events, inputs, acks, frames int
	waitFor(t, testutil.Wait, "Snapshots carrying events", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		tails, events, inputs, acks, frames = 0, 0, 0, 0, 0
		playing := false // from the first Snapshot with events: the joining events came with the Accept (3.4)
		for _, d := range r.trace {
			switch {
			case d.fromServer && d.typ == wire.TypeSnapshot:
				playing = true
				tails++
				frames += d.events
			case d.fromServer && playing:
				events++
			case !d.fromServer && playing && d.typ == wire.TypeInput:
				inputs++
			case !d.fromServer && playing && d.typ == wire.TypeAck:
				acks++
			}
		}
		return tails >= 10
	})
	t.Logf("%d Snapshots carried %d events; then %d Event datagrams, %d Inputs, %d Acks", tails, frames, events, inputs, acks)
	if events != 0 {
		t.Errorf("%d Event datagrams while the events fit in the Snapshots (7.8)", events)
	}
	if acks != 0 {
		t.Errorf("%d Acks besides %d Inputs: the acknowledgement rides the Input (7.7)", acks, inputs)
	}
	t.Logf("%d events resent (a loaded machine may delay an acknowledgement past R)", r.resent())
	if err := c.Err(); err != nil {
		t.Fatalf("the session ended: %v", err)
	}
	waitFor(t, testutil.Wait, "the events delivered", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return c.Stats().Link.EventsDelivered >= uint64(len(r.ids))
	})
}

// 7.8 and 7.7: a client that does not send an Input every tick
// acknowledges a Snapshot whose tail carried events at once, with an Ack.
func TestTailAckAtOnce(t *testing.T) {
	srv := ackTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	player, err := Dial(ctx, Config{Addr: srv.Addr(), Name: "Hicks", Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer player.Close()
	player.SetInput(wire.ActionFire)
	r := startTypeRelay(t, srv.Addr())
	c, err := Dial(ctx, Config{Addr: r.addr(), Name: "Newt", Logger: testLogger(),
		SendInterval: time.Hour, AckInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var tails, acks int
	waitFor(t, testutil.Wait, "Snapshots carrying events", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		tails, acks = 0, 0
		for _, d := range r.trace {
			switch {
			case d.fromServer && d.typ == wire.TypeSnapshot:
				tails++
			case !d.fromServer && d.typ == wire.TypeAck:
				acks++
			}
		}
		return tails >= 10
	})
	t.Logf("%d Acks for %d Snapshots carrying events", acks, tails)
	if acks < tails*3/4 {
		t.Fatalf("%d Acks for %d Snapshots carrying events: not at once (7.7, 7.8)", acks, tails)
	}
}

// 7.8, "A snapshot the client cannot rebuild": a Snapshot datagram
// whose baseline the client lacks is dropped whole, its tail's events not
// applied (nor taken as received); the same event, resent in the tail of
// a snapshot the client rebuilds, is applied once, before that
// snapshot's records; again in an Event datagram, it is not applied
// again.
func TestTailWithoutBaseline(t *testing.T) {
	s := startEvil(t, evilserver.Config{Version2: true})
	var mu sync.Mutex
	var order []string // what the client applied: "event" or "snapshot <tick>"
	var ticks []uint32
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := Dial(ctx, Config{Addr: s.Addr(), Name: "Bishop", Logger: testLogger(),
		OnEvent: func(ev *wire.Event) {
			if ev.Type == wire.EventSpawn && ev.ID == 0x500 {
				mu.Lock()
				order = append(order, "event")
				mu.Unlock()
			}
		},
		OnFrame: func(r *link2.Rebuilt) {
			mu.Lock()
			order = append(order, "snapshot")
			ticks = append(ticks, r.Tick)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitFor(t, testutil.Wait, "snapshots with empty tails", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(ticks) >= 3
	})
	s.Pause(true)
	mu.Lock()
	newest := slices.Max(ticks)
	order = order[:0]
	mu.Unlock()

	players := []wire2.Player{{PlayerState: wire.PlayerState{Player: 0, HasShip: true, Ship: 1, Lives: 3}}}
	m := wire.Linear(newest+2, 120, 360, 900, 0)
	spawn := wire.Event{Type: wire.EventSpawn, Tick: newest + 2, ID: 0x500, Kind: wire.KindPlayerMissile, Owner: 0, Motion: m}
	tail := wire2.AppendEventFrame([]byte{1}, 1000, wire2.AppendEvent(nil, &spawn))
	ents := []wire2.Entity{wire2.MakeEntity(0x500, wire.KindPlayerMissile, &m, wire.Anim{})}
	var enc wire2.SnapshotEncoder
	// Against the snapshot of tick newest+1, which the client never got.
	p := enc.Encode(newest+3, players, players, []wire2.Entity{}, newest+1, ents)
	delivered := c.Stats().Link.EventsDelivered
	s.Datagram(wire.TypeSnapshot, append(slices.Clone(p[0]), tail...))
	// A full snapshot without events after it: applied, and the event
	// still not.
	s.Datagram(wire.TypeSnapshot, append(slices.Clone(enc.Encode(newest+4, players, nil, nil, 0, ents)[0]), 0))
	waitFor(t, testutil.Wait, "the full snapshot without events", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(ticks, newest+4)
	})
	mu.Lock()
	if want := []string{"snapshot"}; !slices.Equal(order, want) {
		t.Errorf("applied %v, want %v: the tail of a snapshot not rebuilt was applied", order, want)
	}
	order = order[:0]
	mu.Unlock()
	// A full snapshot with the event: the client rebuilds it, and so
	// applies its tail, the same event resent (5.3).
	p = enc.Encode(newest+6, players, nil, nil, 0, ents)
	s.Datagram(wire.TypeSnapshot, append(slices.Clone(p[0]), tail...))
	waitFor(t, testutil.Wait, "the full snapshot", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(ticks, newest+6)
	})
	mu.Lock()
	got, rebuilt := slices.Clone(order), slices.Contains(ticks, newest+3)
	mu.Unlock()
	if rebuilt {
		t.Fatalf("the snapshot of tick %d was applied without its baseline", newest+3)
	}
	if want := []string{"event", "snapshot"}; !slices.Equal(got, want) {
		t.Fatalf("applied %v, want %v: the event once, before the snapshot's records", got, want)
	}
	if d := c.Stats().Link.EventsDelivered - delivered; d != 1 {
		t.Fatalf("%d events delivered, want 1", d)
	}
	// Once more, in an Event datagram: a repeat, not applied (5.3).
	s.Datagram(wire.TypeEvent, tail)
	s.Datagram(wire.TypeSnapshot, append(slices.Clone(enc.Encode(newest+9, players, nil, nil, 0, ents)[0]), 0))
	waitFor(t, testutil.Wait, "the next snapshot", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(ticks, newest+9)
	})
	mu.Lock()
	defer mu.Unlock()
	if n := len(slices.DeleteFunc(slices.Clone(order), func(s string) bool { return s != "event" })); n != 1 {
		t.Fatalf("the event applied %d times: %v", n, order)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("the session ended: %v", err)
	}
}
