package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/server"
	"rtype/sim"
)

// fastRules makes a game that the bots lose within a minute.
func fastRules() sim.Rules {
	r := sim.DefaultRules()
	r.Lives = 2
	r.FirstWave = 30
	r.WaveInterval = 90
	r.WaveIntervalMin = 40
	r.WaveSize = 8
	r.WaveSpeedStep = 0.15
	r.BydosFireMin, r.BydosFireMax = 40, 80
	r.EnemyMissileSpeed = 420
	return r
}

// serverLog records what the server sent: its state at every snapshot
// tick and every event its game produced, in order.
type serverLog struct {
	mu     sync.Mutex
	snaps  map[uint32]server.Snapshot
	events []wire.Event
}

func newServerLog() *serverLog { return &serverLog{snaps: map[uint32]server.Snapshot{}} }

func (l *serverLog) onSnapshot(_ int, s server.Snapshot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.snaps[s.Tick] = server.Snapshot{Tick: s.Tick, Players: slices.Clone(s.Players), Entities: slices.Clone(s.Entities)}
}

func (l *serverLog) onEvents(_ int, evs []wire.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, evs...)
}

// clientLog records what one client rebuilt and received.
type clientLog struct {
	mu     sync.Mutex
	snaps  map[uint32]link.Rebuilt
	events []wire.Event
}

func newClientLog() *clientLog { return &clientLog{snaps: map[uint32]link.Rebuilt{}} }

func (l *clientLog) onSnapshot(r *link.Rebuilt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := *r
	c.Entities = slices.Clone(r.Entities)
	l.snaps[r.Tick] = c // a later datagram of the tick replaces it
}

func (l *clientLog) onEvent(ev *wire.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, *ev)
}

// dial connects a recorded client named name to addr.
func dial(t testing.TB, addr, name string, l *clientLog) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: addr, Name: name, Logger: testutil.Logger(t),
		OnSnapshot: l.onSnapshot, OnEvent: l.onEvent,
		Version: wire.Version}) // the logs compare v1 snapshots and events
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// checkWorlds compares every snapshot a client rebuilt with the server's
// state at the same tick, and returns how many it compared.
func checkWorlds(t testing.TB, name string, sl *serverLog, cl *clientLog) int {
	t.Helper()
	sl.mu.Lock()
	defer sl.mu.Unlock()
	cl.mu.Lock()
	defer cl.mu.Unlock()
	n := 0
	for tick, r := range cl.snaps {
		s, ok := sl.snaps[tick]
		if !ok {
			t.Errorf("%s rebuilt tick %d, which the server never sent", name, tick)
			continue
		}
		if !slices.Equal(r.PlayerStates(), s.Players) {
			t.Errorf("%s tick %d players\n got %+v\nwant %+v", name, tick, r.PlayerStates(), s.Players)
		}
		if !slices.Equal(r.Entities, s.Entities) {
			t.Errorf("%s tick %d: %d entities rebuilt, server had %d; first difference: %s",
				name, tick, len(r.Entities), len(s.Entities), firstDiff(r.Entities, s.Entities))
		}
		n++
	}
	return n
}

func firstDiff(a, b []wire.Entity) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %+v vs %+v", i, a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}

// checkEvents checks that a client got, exactly once each, every event the
// server's game produced from the client's own PlayerJoined on, and
// otherwise only its joining burst (PlayerJoined and Spawn, 4.6).
func checkEvents(t testing.TB, name string, player uint8, sl *serverLog, cl *clientLog) int {
	t.Helper()
	sl.mu.Lock()
	defer sl.mu.Unlock()
	cl.mu.Lock()
	defer cl.mu.Unlock()
	from := slices.IndexFunc(sl.events, func(e wire.Event) bool {
		return e.Type == wire.EventPlayerJoined && e.Player == player && e.Name == name
	})
	if from < 0 {
		t.Fatalf("%s: the server never emitted its PlayerJoined", name)
	}
	got := map[wire.Event]int{}
	for _, e := range cl.events {
		got[e]++
	}
	to := len(sl.events)
	if over := slices.IndexFunc(sl.events, func(e wire.Event) bool { return e.Type == wire.EventGameOver }); over >= 0 {
		// After GameOver the sessions end (Logout GameOver once it is
		// acknowledged): what the world does next reaches no one.
		to = over + 1
		for _, e := range sl.events[to:] {
			delete(got, e)
		}
	}
	for _, e := range sl.events[from:to] {
		if got[e] != 1 {
			t.Errorf("%s received %d times: %+v", name, got[e], e)
		}
		delete(got, e)
	}
	joinTick := sl.events[from].Tick
	for e, n := range got {
		burst := (e.Type == wire.EventPlayerJoined || e.Type == wire.EventSpawn) && e.Tick <= joinTick
		if !burst || n != 1 {
			t.Errorf("%s received %d times an event the server did not send it: %+v", name, n, e)
		}
	}
	return to - from
}
