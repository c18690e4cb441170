package server

// The order of what the server sends (PROTOCOL.md 3.4, 4.3, 4.6): the
// Accept first, the joining events before the first Snapshot, and within
// a tick the Event datagrams before the Snapshot, so that a client knows
// every entity from its Spawn before a record of it arrives.

import (
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"rtype/net/wire"
)

// 3.4, 4.6: over many joins into a running game, the first datagram after
// the Bind is the Accept, and before the first Snapshot the client has:
// the PlayerJoined of every player of the game, itself included; the
// Spawn of its own ship (so it knows it has one before any snapshot); a
// Spawn for every entity of that first snapshot. The replayed joining
// events carry the Accept's tick (4.4, 4.6).
func TestJoinEventsBeforeSnapshot(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	r := noWaveRules()
	r.FirstWave = 5 // Bydos in the world to replay
	r.WaveStagger = 1
	r.BydosFireMin, r.BydosFireMax = 10000, 10000
	cfg.Rules = r
	s := startServer(t, cfg)
	anchor := join(t, s, "Anchor") // keeps the game running between joins
	anchor.actions = wire.ActionFire
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				anchor.pump(50 * time.Millisecond)
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	const joins = 18 // without the rule, 1 join in 3 gets a snapshot first
	for j := range joins {
		c := connect(t, s, "Joiner"+strconv.Itoa(j))
		c.udp = c.newUDP()
		c.send(wire.TypeBind, c.acc.Token[:])
		if !c.readOne(wait) || len(c.accepts) != 1 {
			t.Fatalf("join %d: first datagram after the Bind is not the Accept: %v", j, c.types)
		}
		acc := c.accepts[0]
		if !c.pumpUntil(wait, func() bool { return len(c.snaps) > 0 }) {
			t.Fatalf("join %d: no snapshot", j)
		}
		// What came before the first Snapshot datagram.
		spawned := map[uint32]bool{}
		joined := map[uint8]bool{}
		ownShip, replay := false, true
		for _, ev := range c.events {
			if ev.Type == wire.EventPlayerJoined && ev.Player == c.acc.Player {
				replay = false // the live events begin with our own joining
			}
			switch ev.Type {
			case wire.EventSpawn:
				spawned[ev.ID] = true
				if ev.Kind == wire.KindPlayerShip && ev.Owner == c.acc.Player {
					ownShip = true
				}
			case wire.EventDestroy:
				delete(spawned, ev.ID)
			case wire.EventPlayerJoined:
				joined[ev.Player] = true
			}
			if ev.Tick < acc.Tick || (replay && ev.Tick != acc.Tick) {
				t.Fatalf("join %d: event %s before the first snapshot; Accept at tick %d (replayed events carry it)",
					j, eventString(&ev), acc.Tick)
			}
		}
		first := c.snaps[0]
		for _, ps := range first.players {
			if !joined[ps.Player] {
				t.Fatalf("join %d: player %d in the first snapshot (tick %d) before its PlayerJoined; events %v",
					j, ps.Player, first.tick, c.eventList())
			}
		}
		if !ownShip {
			t.Fatalf("join %d: first snapshot (tick %d) before the Spawn of our ship; events %v", j, first.tick, c.eventList())
		}
		for _, e := range first.entities {
			if !spawned[e.ID] {
				t.Fatalf("join %d: entity %#x (kind %d) in the first snapshot (tick %d) before its Spawn; events %v",
					j, e.ID, e.Kind, first.tick, c.eventList())
			}
		}
		if len(first.entities) < 2 {
			t.Fatalf("join %d: only %d entities to replay", j, len(first.entities))
		}
		c.logout()
		expectClosed(t, c.tcp, wait)
	}
}

// recordOrder counts, for one client, the snapshot records (entities of
// each rebuilt snapshot datagram) of ids whose Spawn has not arrived yet,
// and of ids already destroyed: a client ignores both (4.3, 4.5).
type recordOrder struct {
	c               *tclient
	seen            int // events looked at
	spawned, dead   map[uint32]bool
	spawnAt         map[uint32]spawnMark
	records         int
	unknown, killed int
}

// spawnMark is the event id and the tick of an entity's Spawn.
type spawnMark struct {
	event uint32
	tick  uint32
}

func (o *recordOrder) pump(d time.Duration) {
	c := o.c
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		nsnaps := len(c.snaps)
		got := c.readOne(min(time.Until(end), 50*time.Millisecond))
		c.keep(got)
		// The new events are those of the datagram just read: c.frames
		// holds their frames, in the same order.
		for k := 0; o.seen < len(c.events); o.seen, k = o.seen+1, k+1 {
			ev := &c.events[o.seen]
			switch ev.Type {
			case wire.EventSpawn:
				o.spawned[ev.ID] = true
				o.spawnAt[ev.ID] = spawnMark{c.frames[k].ID, ev.Tick}
			case wire.EventDestroy:
				o.dead[ev.ID] = true
				// 4.5: an entity's Spawn has an earlier event id and a
				// tick not after its Destroy's, even in one tick.
				if sp, ok := o.spawnAt[ev.ID]; !ok || !wire.SeqNewer(uint16(c.frames[k].ID), uint16(sp.event)) || ev.Tick < sp.tick {
					o.c.t.Errorf("%s: Destroy %s (event %d) and its Spawn %+v out of order", c.name, eventString(ev), c.frames[k].ID, sp)
				}
			}
		}
		if len(c.snaps) > nsnaps {
			for _, e := range c.snaps[len(c.snaps)-1].entities {
				o.records++
				switch {
				case o.dead[e.ID]:
					o.killed++
				case !o.spawned[e.ID]:
					o.unknown++
				}
			}
		}
	}
}

// 4.3, 5.3: within a tick the server sends the Event datagrams before the
// Snapshot, so no snapshot record reaches a client before the Spawn of its
// entity, nor after its Destroy, on a link that loses and reorders
// nothing; and an entity's Spawn comes before its Destroy (4.5). Four players firing, waves coming. RTYPE_ORDER_SECONDS sets how
// long the game runs (default 3).
func TestSpawnBeforeRecords(t *testing.T) {
	t.Parallel()
	d := 3 * time.Second
	if v := os.Getenv("RTYPE_ORDER_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("RTYPE_ORDER_SECONDS=%q", v)
		}
		d = time.Duration(n) * time.Second
	}
	s := startServer(t, busyOrderConfig())
	var orders []*recordOrder
	for i, act := range []uint8{wire.ActionFire, wire.ActionFire | wire.ActionUp, wire.ActionFire | wire.ActionDown, wire.ActionFire | wire.ActionRight} {
		c := join(t, s, "Gunner"+strconv.Itoa(i))
		c.actions = act
		orders = append(orders, &recordOrder{c: c, spawned: map[uint32]bool{}, dead: map[uint32]bool{}, spawnAt: map[uint32]spawnMark{}})
	}
	var wg sync.WaitGroup
	for _, o := range orders {
		wg.Add(1)
		go func() { defer wg.Done(); o.pump(d) }()
	}
	wg.Wait()
	for i, o := range orders {
		t.Logf("client %d: %d snapshots, %d events, %d records: %d of ids not spawned yet, %d of destroyed ids",
			i, len(o.c.snaps), len(o.c.events), o.records, o.unknown, o.killed)
		if o.records == 0 || len(o.c.events) < 20 {
			t.Errorf("client %d: %d records, %d events: the game did not run", i, o.records, len(o.c.events))
		}
		if o.unknown > 0 || o.killed > 0 {
			t.Errorf("client %d: %d records of ids not spawned yet, %d of destroyed ids, want 0", i, o.unknown, o.killed)
		}
	}
}

// busyOrderConfig is the server of the order tests: a wave every second
// from tick 10 with its Bydos staggered over 4 ticks, so that most ticks
// have events, ships that cannot die, and sessions that last while the
// test's clients pump in turns.
func busyOrderConfig() Config {
	cfg := testConfig()
	r := noWaveRules()
	r.FirstWave = 10
	r.WaveInterval, r.WaveIntervalMin = 60, 60
	r.WaveStagger = 4
	r.JoinInvulnTicks = 1 << 30 // the game lasts
	cfg.Rules = r
	cfg.SessionTimeout = time.Minute
	return cfg
}
