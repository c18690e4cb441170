package server

// Games (PROTOCOL.md 3.3), snapshots and baselines (4.3, 4.8) and the end
// of a game (4.4 GameOver, 3.2 Logout GameOver).

import (
	"net"
	"sync"
	"testing"
	"time"

	"rtype/internal/testrules"
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/sim"
)

// 3.3: with MaxGames 2, the fifth login starts a second game (player 0,
// its own tick from 0), the ninth is GameFull.
func TestSeveralGames(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxGames = 2
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	first := join(t, s, "Player0")
	first.pumpUntil(wait, func() bool { return first.lastSnap() != nil && first.lastSnap().tick >= 30 })
	var clients []*tclient
	for i := 1; i < 8; i++ {
		c := connect(t, s, "Player"+string(rune('0'+i)))
		if want := uint8(i % 4); c.acc.Player != want {
			t.Fatalf("login %d: player %d, want %d", i+1, c.acc.Player, want)
		}
		if i == 4 && c.acc.Tick != 0 {
			t.Fatalf("fifth login: tick %d, want 0 (a new game)", c.acc.Tick)
		}
		if i < 4 && c.acc.Tick < 30 {
			t.Fatalf("login %d: tick %d, want the first game's", i+1, c.acc.Tick)
		}
		clients = append(clients, c)
	}
	expectRejected(t, s.Addr(), "Player8", wire.RejectGameFull)
	// The games are separate: the second game's first player is alone in
	// its world, with its own ticks and ids.
	g2 := clients[3]
	g2.bind()
	g2.waitEvent("its ship", func(ev *wire.Event) bool { return ev.Type == wire.EventSpawn && ev.Owner == 0 })
	g2.waitSnaps(2)
	if sn := g2.lastSnap(); len(sn.players) != 1 || sn.tick > 60 || len(sn.entities) != 1 {
		t.Fatalf("second game's snapshot: tick %d, players %+v, %d entities", sn.tick, sn.players, len(sn.entities))
	}
	for _, ev := range g2.events {
		if ev.Type == wire.EventPlayerJoined && ev.Name != "Player4" {
			t.Fatalf("second game's client heard of %q", ev.Name)
		}
	}
	// A name taken in game 1 but free in game 2 goes there... when game 2
	// has room: here both are full, so GameFull or NameTaken is fine.
	c, m := loginAs(t, s.Addr(), 1, "player0")
	if m.Type != wire.MsgLoginRejected || (m.Reason != wire.RejectGameFull && m.Reason != wire.RejectNameTaken) {
		t.Fatalf("%+v", m)
	}
	expectClosed(t, c, wait)
}

// 3.3: a game whose last player left is over; the next login gets a new
// game (tick 0, an empty world), even at once.
func TestEmptyGameDiscarded(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxGames = 1
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	for round := range 5 {
		a := join(t, s, "Alpha")
		if a.acc.Tick != 0 {
			t.Fatalf("round %d: LoginAccepted tick %d, want 0 (a new game)", round, a.acc.Tick)
		}
		a.shipID()
		a.pumpUntil(wait, func() bool { return a.lastSnap() != nil && a.lastSnap().tick >= 30 })
		if round%2 == 0 {
			a.logout()
		} else {
			// Closed without Logout; a half close lets us see the
			// server's own close once it noticed.
			a.tcp.(*net.TCPConn).CloseWrite()
		}
		expectClosed(t, a.tcp, wait)
	}
	// The same with a player who never bound.
	b := connect(t, s, "Bravo")
	b.logout()
	expectClosed(t, b.tcp, wait)
	c := join(t, s, "Charlie")
	if c.acc.Tick != 0 || c.acc.Player != 0 {
		t.Fatalf("LoginAccepted %+v", c.acc)
	}
	c.waitSnaps(1)
	if sn := c.lastSnap(); len(sn.entities) != 1 || sn.tick > 30 {
		t.Fatalf("a new game's snapshot: tick %d, %d entities", sn.tick, len(sn.entities))
	}
}

// 4.8: acknowledging every snapshot, the client gets deltas against the
// previous one (baseline_age 3 at 20 snapshots a second).
func TestDeltaSnapshots(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	r := noWaveRules()
	r.FirstWave = 1 // some Bydos moving
	cfg.Rules = r
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	c.actions = wire.ActionDown | wire.ActionFire
	c.waitSnaps(40)
	// Under load an acknowledgement may come after the next snapshot
	// left (baseline_age 6 or more), but most of the time it is 3, and
	// the baseline is always one the client acknowledged.
	full, age3 := 0, 0
	for _, sn := range c.snaps[5:] {
		switch {
		case !sn.hasBase:
			full++
		case sn.age == 3:
			age3++
		case sn.age%3 != 0:
			t.Fatalf("baseline_age %d", sn.age)
		}
	}
	if full > 0 || age3 < len(c.snaps[5:])/4 {
		t.Fatalf("of %d snapshots, %d full and %d with baseline_age 3", len(c.snaps)-5, full, age3)
	}
	if c.snaps[0].hasBase {
		t.Fatal("the first snapshot has a baseline")
	}
	// Consecutive ticks are 3 apart.
	for i := 1; i < len(c.snaps); i++ {
		if d := c.snaps[i].tick - c.snaps[i-1].tick; d != 3 {
			t.Fatalf("snapshots of ticks %d then %d", c.snaps[i-1].tick, c.snaps[i].tick)
		}
	}
}

// 4.8: a client that stops acknowledging (its Inputs carry frozen ack
// fields) gets snapshots against its last acknowledged one, then full
// snapshots once the server's history (32) no longer holds it.
func TestSnapshotsWithoutAcks(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	c.actions = wire.ActionDown // the ship moves: deltas have records
	c.waitSnaps(10)
	c.ackSnaps, c.ackOthers = false, false
	frozen := c.lastSnap().tick // the newest snapshot acknowledged
	c.waitSnaps(link.Snapshots + 12)
	// The snapshots in flight when the acks stopped may use an older
	// baseline (how many depends on how soon the server read the last
	// acks); then every delta uses the last one acknowledged, until the
	// history (32 snapshots) drops it and the snapshots are full: the
	// 32 snapshots after it have a baseline, whatever the timing.
	var deltas, fulls, older int
	var bases []uint32
	for _, sn := range c.snaps {
		if sn.tick <= frozen {
			continue
		}
		if !sn.hasBase {
			fulls++
			continue
		}
		if fulls > 0 {
			t.Fatalf("a delta (tick %d) after a full snapshot without acks", sn.tick)
		}
		base := sn.tick - sn.age
		bases = append(bases, base)
		switch {
		case base > frozen:
			t.Fatalf("baseline %d, after the acks stopped at tick %d", base, frozen)
		case base == frozen:
			deltas++
		case deltas > 0:
			t.Fatalf("baselines %v after the acks stopped at tick %d", bases, frozen)
		default:
			older++
		}
	}
	t.Logf("%d deltas against older baselines, %d against tick %d, then %d full snapshots", older, deltas, frozen, fulls)
	if deltas == 0 || older+deltas != link.Snapshots || fulls < 10 {
		t.Fatalf("%d deltas against older baselines, %d against tick %d (want %d in all, some against it), then %d full snapshots (want 10 or more)",
			older, deltas, frozen, link.Snapshots, fulls)
	}
	// Acknowledging again brings deltas back.
	c.ackSnaps, c.ackOthers = true, true
	if !c.pumpUntil(wait, func() bool { sn := c.lastSnap(); return sn.hasBase && sn.age == 3 }) {
		t.Fatalf("after acks resumed: %+v", c.lastSnap())
	}
}

// 1.3, 4.3: snapshots of a big world come in several datagrams, each at
// most 1200 bytes, same tick and baseline; together they hold the world.
func TestSnapshotsSplit(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	counts := map[uint32]int{} // tick -> entities on the server
	cfg := testConfig()
	r := noWaveRules()
	r.FireInterval = 1
	r.MissileSpeed = 0 // missiles stay: the world grows by 60 a second
	cfg.Rules = r
	cfg.OnSnapshot = func(game int, sn Snapshot) {
		mu.Lock()
		counts[sn.Tick] = len(sn.Entities)
		mu.Unlock()
	}
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	c.ackSnaps = false // full snapshots: the largest
	c.actions = wire.ActionFire | wire.ActionDown
	c.pumpUntil(wait, func() bool {
		sn := c.lastSnap()
		return sn != nil && sn.parts >= 2 && len(sn.entities) > 130
	})
	multi := 0
	for _, sn := range c.snaps {
		if sn.size > wire.MaxDatagram {
			t.Fatalf("snapshot datagram of %d bytes", sn.size)
		}
		if sn.parts >= 2 {
			multi++
		}
	}
	if multi == 0 {
		t.Fatalf("no snapshot in several datagrams; last %d entities", len(c.lastSnap().entities))
	}
	// Then deltas against those baselines (small: the missiles stay).
	c.ackSnaps = true
	c.actions = wire.ActionFire | wire.ActionUp
	c.waitSnaps(20)
	// Every complete snapshot holds what the server had.
	mu.Lock()
	defer mu.Unlock()
	complete := 0
	for _, sn := range c.snaps {
		want, ok := counts[sn.tick]
		if !ok {
			t.Fatalf("tick %d unknown to the server", sn.tick)
		}
		if len(sn.entities) > want {
			t.Fatalf("tick %d: %d entities rebuilt, the server had %d", sn.tick, len(sn.entities), want)
		}
		if len(sn.entities) == want && want > 120 {
			complete++
		}
	}
	if complete < 10 {
		t.Fatalf("only %d complete large snapshots", complete)
	}
}

// The server's snapshots match what a client rebuilds, entity by entity.
func TestSnapshotsMatchServer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	states := map[uint32][]wire.Entity{}
	cfg := testConfig()
	r := sim.DefaultRules()
	r.FirstWave = 1
	cfg.Rules = &r
	cfg.OnSnapshot = func(game int, sn Snapshot) {
		mu.Lock()
		states[sn.Tick] = append([]wire.Entity(nil), sn.Entities...)
		mu.Unlock()
	}
	s := startServer(t, cfg)
	c := join(t, s, "Alpha")
	c.actions = wire.ActionFire | wire.ActionUp
	c.waitSnaps(30)
	mu.Lock()
	defer mu.Unlock()
	for _, sn := range c.snaps {
		want := states[sn.tick]
		if len(want) != len(sn.entities) {
			t.Fatalf("tick %d: %d entities, server %d", sn.tick, len(sn.entities), len(want))
		}
		for i := range want {
			if want[i] != sn.entities[i] {
				t.Fatalf("tick %d: entity %+v, server %+v", sn.tick, sn.entities[i], want[i])
			}
		}
	}
}

// quickDeath returns rules in which a ship that does not move dies at
// once (testrules.QuickDeath).
func quickDeath() *sim.Rules { return testrules.QuickDeath() }

// 4.4 GameOver, 3.2: once no player has a life left, the clients get the
// GameOver event with their scores, then Logout(GameOver) once they
// acknowledged it.
func TestGameOver(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxGames = 1
	cfg.Rules = quickDeath()
	cfg.GameOverLinger = 10 * time.Second // the acknowledgement ends it
	s := startServer(t, cfg)
	a := join(t, s, "Alpha")
	b := join(t, s, "Bravo")
	var over [2]int
	for i, c := range []*tclient{a, b} {
		over[i] = c.waitEvent("GameOver", func(ev *wire.Event) bool { return ev.Type == wire.EventGameOver })
	}
	for i, c := range []*tclient{a, b} {
		ev := c.events[over[i]]
		if ev.NumScores != 2 || ev.Scores[0].Player != 0 || ev.Scores[1].Player != 1 {
			t.Fatalf("%s: %s", c.name, eventString(&ev))
		}
		// Its score is the one of the last snapshot.
		for _, sc := range ev.Scores[:2] {
			ps, ok := c.lastSnap().player(sc.Player)
			if !ok || ps.Score != sc.Score {
				t.Fatalf("%s: GameOver %s, snapshot %+v", c.name, eventString(&ev), ps)
			}
		}
		for p := range uint8(2) {
			if c.findEvent(0, func(ev *wire.Event) bool {
				return ev.Type == wire.EventDeath && ev.Player == p && ev.Lives == 0
			}) < 0 {
				t.Fatalf("%s: no Death of player %d: %v", c.name, p, c.eventList())
			}
		}
	}
	// The events are acknowledged (the clients keep playing): Logout.
	expectGameOverLogouts(t, a, b)
	// The game is gone: a new login starts a new one.
	c := connect(t, s, "Charlie")
	if c.acc.Tick != 0 {
		t.Fatalf("after the game over, tick %d", c.acc.Tick)
	}
}

// 4.4, 5.5: a client that does not acknowledge GameOver gets its Logout
// after GameOverLinger, not before (counted from before the game
// began: the linger starts later); meanwhile snapshots keep coming, one
// every 3 ticks and valid, and a login is refused with GameEnding.
func TestGameOverLinger(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxGames = 1
	cfg.Rules = quickDeath()
	cfg.GameOverLinger = 1500 * time.Millisecond
	s := startServer(t, cfg)
	begin := time.Now()
	a := join(t, s, "Alpha")
	a.ackSnaps, a.ackOthers = false, false // GameOver stays unacknowledged
	i := a.waitEvent("GameOver", func(ev *wire.Event) bool { return ev.Type == wire.EventGameOver })
	overAt := time.Now()
	if ev := a.events[i]; ev.NumScores != 1 || ev.Scores[0].Player != 0 {
		t.Fatalf("%s", eventString(&ev))
	}
	n := len(a.snaps)
	expectRejected(t, s.Addr(), "Bravo", wire.RejectGameEnding)
	// Play on, reading TCP in the background.
	got := make(chan wire.Message, 1)
	go func() {
		m, err := readMsg(a.tcp, wait)
		if err != nil {
			m.Type = 0
		}
		got <- m
	}()
	var m wire.Message
	a.pumpUntil(wait, func() bool {
		select {
		case m = <-got:
			return true
		default:
			return false
		}
	})
	d := time.Since(overAt)
	if m.Type != wire.MsgLogout || m.Reason != wire.LogoutGameOver {
		t.Fatalf("after GameOver: %+v", m)
	}
	if since := time.Since(begin); since < cfg.GameOverLinger {
		t.Fatalf("Logout(GameOver) %v after the join, before the linger of %v", since, cfg.GameOverLinger)
	}
	t.Logf("Logout(GameOver) %v after the client had GameOver", d)
	// Snapshots went on, one every 3 ticks, valid (handle checks them).
	snaps := a.snaps[n:]
	for i := 1; i < len(snaps); i++ {
		if snaps[i].tick != snaps[i-1].tick+3 {
			t.Fatalf("snapshots of ticks %d then %d after GameOver", snaps[i-1].tick, snaps[i].tick)
		}
	}
	if len(snaps) == 0 {
		t.Fatalf("no snapshot in the %v after GameOver", d)
	}
	expectClosed(t, a.tcp, wait)
}
