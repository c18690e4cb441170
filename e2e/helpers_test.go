package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
	"rtype/sim"
)

// fastRules makes a game that the bots lose within a few seconds of the
// game: two lives each (a death, a respawn, a death), a second of
// invulnerability on joining and respawning, dense waves firing fast.
func fastRules() sim.Rules {
	r := sim.DefaultRules()
	r.Lives = 2
	r.JoinInvulnTicks, r.RespawnInvulnTicks = 60, 60
	r.FirstWave = 30
	r.WaveInterval = 90
	r.WaveIntervalMin = 40
	r.WaveSize = 8
	r.WaveSpeedStep = 0.15
	r.BydosFireMin, r.BydosFireMax = 15, 30
	r.EnemyMissileSpeed = 1200
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

// versions are the protocol versions the suites run for, each as a
// subtest named v1 or v2; the server speaks both (7.1).
var versions = []uint8{wire.Version, wire.Version2}

// forVersions runs f as a subtest for each protocol version.
func forVersions(t *testing.T, f func(t *testing.T, version uint8)) {
	for _, v := range versions {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { f(t, v) })
	}
}

// snapState is a rebuilt snapshot as the server's OnSnapshot gives its
// state: players and entities in v1's form.
type snapState struct {
	players  []wire.PlayerState
	entities []wire.Entity
	// v1 (4.8): the datagrams applied, and the baseline; parts is 0 in
	// v2, whose datagrams checkWorlds does not count.
	parts    int
	base     bool
	baseTick uint32
}

// v1Form returns a rebuilt v2 snapshot as v1 carries the same state
// (7.11): each entity at its motion and animation at the snapshot's tick,
// a blinking ship's frame included, so that it compares exactly with the
// server's state.
func v1Form(r *link2.Rebuilt) snapState {
	blink := uint32(sim.DefaultRules().BlinkTicks)
	var s snapState
	for i := range r.Players {
		s.players = append(s.players, r.Players[i].PlayerState)
	}
	for i := range r.Entities {
		s.entities = append(s.entities, v1Entity(r, &r.Entities[i], blink))
	}
	return s
}

// v1Entity is e of r in v1's form at r's tick.
func v1Entity(r *link2.Rebuilt, e *wire2.Entity, blink uint32) wire.Entity {
	m, a := e.Motion(), e.Anim()
	x, y, vx, vy := m.At(float64(r.Tick))
	frame := a.Frame(m.T0, float64(r.Tick))
	for i := range r.Players {
		p := &r.Players[i]
		if e.Kind() == wire.KindPlayerShip && p.HasShip && p.Ship == e.ID && p.InvulnTicks > 0 &&
			r.Tick >= p.InvulnStart && r.Tick-p.InvulnStart < p.InvulnTicks && (r.Tick-p.InvulnStart)/blink%2 == 0 {
			frame = sim.ShipFrameInvuln
		}
	}
	return wire.MakeEntity(e.ID, e.Kind(), float32(x), float32(y), float32(vx), float32(vy), int(frame))
}

// v1Event returns ev as a v1 session gets the same event (7.11): a v2
// Spawn's motion gives the position and velocity at its tick.
func v1Event(ev *wire.Event) wire.Event {
	e := *ev
	if e.Type == wire.EventSpawn && (e.Motion != wire.Motion{} || e.Anim != wire.Anim{}) {
		x, y, vx, vy := e.Motion.At(float64(e.Tick))
		e.X, e.Y, e.VX, e.VY = float32(x), float32(y), float32(vx), float32(vy)
		e.Motion, e.Anim = wire.Motion{}, wire.Anim{}
	}
	return e
}

// clientLog records what one client rebuilt and received, in v1's form
// whatever its version.
type clientLog struct {
	mu     sync.Mutex
	snaps  map[uint32]snapState
	events []wire.Event
}

func newClientLog() *clientLog { return &clientLog{snaps: map[uint32]snapState{}} }

func (l *clientLog) onSnapshot(r *link.Rebuilt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// A later datagram of the tick replaces it.
	l.snaps[r.Tick] = snapState{players: slices.Clone(r.PlayerStates()), entities: slices.Clone(r.Entities),
		parts: r.Parts, base: r.HasBaseline, baseTick: r.BaseTick}
}

func (l *clientLog) onSnapshot2(r *link2.Rebuilt) {
	s := v1Form(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.snaps[r.Tick] = s
}

func (l *clientLog) onEvent(ev *wire.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, v1Event(ev))
}

// dial connects a recorded client named name to addr, speaking version,
// to a Classic game (the games these tests check, where v1 and v2
// sessions play together; a v2 login left to the server's choice would
// get Stage mode).
func dial(t testing.TB, addr, name string, l *clientLog, version uint8) *client.Client {
	t.Helper()
	return dialVia(t, addr, nil, name, l, version)
}

// dialVia is dial through a transport (nil: TCP and UDP).
func dialVia(t testing.TB, addr string, tr client.Transport, name string, l *clientLog, version uint8) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: addr, Name: name, Logger: testutil.Logger(t), Transport: tr,
		OnSnapshot: l.onSnapshot, OnFrame: l.onSnapshot2, OnEvent: l.onEvent, Version: version, Mode: wire.ModeClassic})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if c.Version() != version {
		t.Fatalf("%s speaks version %d, want %d", name, c.Version(), version)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// checkWorlds compares every snapshot a client rebuilt with the server's
// state at the same tick, and returns how many it compared. A v1 snapshot
// of several datagrams of which some never arrived (a datagram lost on a
// loaded machine) is not compared: how many the server sent is what its
// encoder makes of the same state against the same baseline.
func checkWorlds(t testing.TB, name string, sl *serverLog, cl *clientLog) int {
	t.Helper()
	sl.mu.Lock()
	defer sl.mu.Unlock()
	cl.mu.Lock()
	defer cl.mu.Unlock()
	n := 0
	var enc wire.SnapshotEncoder
	for tick, r := range cl.snaps {
		s, ok := sl.snaps[tick]
		if !ok {
			t.Errorf("%s rebuilt tick %d, which the server never sent", name, tick)
			continue
		}
		if r.parts > 0 {
			var base []wire.Entity
			if r.base {
				base = append([]wire.Entity{}, sl.snaps[r.baseTick].Entities...)
			}
			if r.parts < len(enc.Encode(tick, s.Players, base, r.baseTick, s.Entities)) {
				continue
			}
		}
		if !slices.Equal(r.players, s.Players) {
			t.Errorf("%s tick %d players\n got %+v\nwant %+v", name, tick, r.players, s.Players)
		}
		if !slices.Equal(r.entities, s.Entities) {
			t.Errorf("%s tick %d: %d entities rebuilt, server had %d; first difference: %s",
				name, tick, len(r.entities), len(s.Entities), firstDiff(r.entities, s.Entities))
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
