package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/server"
	"rtype/sim"
)

// snapRecord is a snapshot's entities and players at one tick.
type snapRecord struct {
	entities []wire.Entity
	players  []wire.PlayerState
}

// snapLog collects snapshots by tick, from any goroutine.
type snapLog struct {
	mu    sync.Mutex
	ticks map[uint32]snapRecord
}

func (l *snapLog) add(tick uint32, ents []wire.Entity, players []wire.PlayerState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ticks == nil {
		l.ticks = make(map[uint32]snapRecord)
	}
	l.ticks[tick] = snapRecord{slices.Clone(ents), slices.Clone(players)}
}

// clone returns the snapshots collected so far.
func (l *snapLog) clone() map[uint32]snapRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.ticks)
}

// latest returns the newest frame, or false before any.
func latest(c *Client) (Frame, bool) {
	f := c.Frames(nil)
	if len(f) == 0 {
		return Frame{}, false
	}
	return f[len(f)-1], true
}

// shipOf returns the ship of player p in the newest frame.
func shipOf(c *Client, p uint8) (Entity, uint32, bool) {
	f, ok := latest(c)
	if !ok {
		return Entity{}, 0, false
	}
	for _, e := range f.Entities {
		if e.Kind == wire.KindPlayerShip && e.Owner == p {
			return e, f.Tick, true
		}
	}
	return Entity{}, f.Tick, false
}

// TestEndToEnd runs the real server and two clients: they see each other
// join, their ships spawn, a held Right moves a ship, every snapshot a
// client rebuilt equals the server's state at that tick, Close makes the
// other see PlayerLeft, and the server's shutdown ends the last session.
func TestEndToEnd(t *testing.T) {
	for _, v := range []uint8{1, 2} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { testEndToEnd(t, v) })
	}
}

// v1Form returns the entities and players of a rebuilt v2 snapshot as v1
// carries them (7.11): each motion and animation at the snapshot's tick,
// a ship's blink included.
func v1Form(r *link2.Rebuilt, blink uint8) ([]wire.Entity, []wire.PlayerState) {
	var ents []wire.Entity
	var players []wire.PlayerState
	for _, p := range r.Players {
		players = append(players, p.PlayerState)
	}
	for i := range r.Entities {
		e := &r.Entities[i]
		m, a := e.Motion(), e.Anim()
		x, y, vx, vy := m.At(float64(r.Tick))
		frame := a.Frame(m.T0, float64(r.Tick))
		for _, p := range r.Players {
			if e.Kind() == wire.KindPlayerShip && p.HasShip && p.Ship == e.ID && p.InvulnTicks > 0 &&
				r.Tick >= p.InvulnStart && r.Tick-p.InvulnStart < p.InvulnTicks && (r.Tick-p.InvulnStart)/uint32(blink)%2 == 0 {
				frame = sim.ShipFrameInvuln
			}
		}
		ents = append(ents, wire.MakeEntity(e.ID, e.Kind(), float32(x), float32(y), float32(vx), float32(vy), int(frame)))
	}
	return ents, players
}

func testEndToEnd(t *testing.T, version uint8) {
	var srvLog, c1Log, c2Log snapLog
	srv := testserver.Start(t, server.Config{
		MaxGames: 1,
		Seed:     7,
		OnSnapshot: func(game int, s server.Snapshot) {
			srvLog.add(s.Tick, s.Entities, s.Players)
		},
	})

	blink := sim.DefaultRules().BlinkTicks
	cfg := func(name string, l *snapLog) Config {
		return Config{Addr: srv.Addr(), Name: name, Logger: testLogger(), Version: version,
			OnSnapshot: func(r *link.Rebuilt) { l.add(r.Tick, r.Entities, r.PlayerStates()) },
			OnFrame: func(r *link2.Rebuilt) {
				ents, players := v1Form(r, uint8(blink))
				l.add(r.Tick, ents, players)
			}}
	}
	dialCtx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c1, err := Dial(dialCtx, cfg("alice", &c1Log))
	if err != nil {
		t.Fatalf("alice: %v", err)
	}
	defer c1.Close()
	c2, err := Dial(dialCtx, cfg("bob", &c2Log))
	if err != nil {
		t.Fatalf("bob: %v", err)
	}
	defer c2.Close()
	if c1.Version() != version || c2.Version() != version {
		t.Fatalf("versions %d and %d, want %d", c1.Version(), c2.Version(), version)
	}
	p1, p2 := c1.Player(), c2.Player()
	if p1 == p2 {
		t.Fatalf("both players are %d", p1)
	}

	// Each sees the other join.
	waitFor(t, testutil.Wait, "the PlayerJoined of both players", func() bool {
		a, b := c1.Players(), c2.Players()
		return a[p1].Name == "alice" && a[p2].Present && a[p2].Name == "bob" &&
			b[p1].Present && b[p1].Name == "alice" && b[p2].Name == "bob"
	})
	// Both ships spawn, in both worlds.
	waitFor(t, testutil.Wait, "both ships in both worlds", func() bool {
		_, _, a1 := shipOf(c1, p1)
		_, _, a2 := shipOf(c1, p2)
		_, _, b1 := shipOf(c2, p1)
		_, _, b2 := shipOf(c2, p2)
		return a1 && a2 && b1 && b2
	})

	// Holding Right moves alice's ship right, as both clients see it.
	start, startTick, _ := shipOf(c1, p1)
	c1.SetInput(wire.ActionRight)
	waitFor(t, testutil.Wait, "alice's ship moving right", func() bool {
		s, tick, ok := shipOf(c1, p1)
		return ok && tick >= startTick+30 && s.X > start.X+60
	})
	waitFor(t, testutil.Wait, "bob seeing alice's ship move right", func() bool {
		s, _, ok := shipOf(c2, p1)
		return ok && s.X > start.X+60
	})
	c1.SetInput(0)
	if version == 2 {
		// Input v2 (7.4): numbered steps, and the server says which it
		// applied last.
		waitFor(t, testutil.Wait, "a last_step", func() bool {
			pl := c1.Players()[p1]
			return pl.HasStep && pl.LastStep >= 30
		})
		pl := c1.Players()[p1]
		steps := c1.Steps(pl.LastStep-10, nil)
		if len(steps) < 10 || steps[0].Step != pl.LastStep-9 {
			t.Fatalf("steps after %d: %d, from %+v", pl.LastStep-10, len(steps), steps[0])
		}
		if got := c2.Steps(^uint32(0), nil); len(got) == 0 {
			t.Fatal("bob sent no steps")
		}
	}
	if s, _, _ := shipOf(c1, p1); s.X > 1280 {
		t.Fatalf("ship left the screen: %+v", s)
	}

	// Every snapshot a client rebuilt is the server's state at its tick.
	// Those rebuilt so far are compared, once the server's record holds
	// each of their ticks (it records a tick before sending it: at once).
	rebuilt := map[string]map[uint32]snapRecord{"alice": c1Log.clone(), "bob": c2Log.clone()}
	testutil.Eventually(testutil.Wait, func() bool {
		srvLog.mu.Lock()
		defer srvLog.mu.Unlock()
		for _, ticks := range rebuilt {
			for tick := range ticks {
				if _, ok := srvLog.ticks[tick]; !ok {
					return false
				}
			}
		}
		return true
	})
	srvLog.mu.Lock()
	for name, ticks := range rebuilt {
		// v2 sends a snapshot only when something changed, or every
		// 200 ms (7.9).
		if len(ticks) < 10 && (version == 1 || len(ticks) < 4) {
			t.Errorf("%s rebuilt only %d snapshots", name, len(ticks))
		}
		for tick, got := range ticks {
			want, ok := srvLog.ticks[tick]
			if !ok {
				t.Errorf("%s rebuilt a snapshot of tick %d the server did not make", name, tick)
				continue
			}
			if !slices.Equal(got.entities, want.entities) {
				t.Errorf("%s, tick %d: entities\n%v\nserver\n%v", name, tick, got.entities, want.entities)
			}
			if !slices.Equal(got.players, want.players) {
				t.Errorf("%s, tick %d: players %v, server %v", name, tick, got.players, want.players)
			}
		}
	}
	srvLog.mu.Unlock()
	if st := c1.Stats(); st.BaselineAge == 0 || st.SnapshotsPerSec == 0 || !st.HasRTT {
		t.Errorf("alice's stats: %+v", st)
	}

	// Alice leaves: bob sees PlayerLeft, then the Destroy of her ship.
	ship1, _, _ := shipOf(c2, p1)
	c2.DrainEvents(nil)
	c1.Close()
	var evs []wire.Event
	waitFor(t, testutil.Wait, "alice's PlayerLeft and ship Destroy", func() bool {
		evs = c2.DrainEvents(evs)
		left, gone := false, false
		for _, ev := range evs {
			left = left || (ev.Type == wire.EventPlayerLeft && ev.Player == p1 && ev.Reason == wire.LeftLeft)
			gone = gone || (ev.Type == wire.EventDestroy && ev.ID == ship1.ID && ev.Reason == wire.DestroyPlayerLeft)
		}
		return left && gone
	})
	if p := c2.Players()[p1]; p.Present {
		t.Fatalf("alice still present for bob: %+v", p)
	}
	if _, _, ok := shipOf(c2, p1); ok {
		waitFor(t, testutil.Wait, "alice's ship gone from bob's frames", func() bool {
			_, _, ok := shipOf(c2, p1)
			return !ok
		})
	}
	if err := c2.Err(); err != nil {
		t.Fatalf("bob's session ended: %v", err)
	}

	// The server shuts down: bob is told so.
	srv.Close()
	err = waitDone(t, c2, testutil.Wait)
	var lo *LogoutError
	if !errors.As(err, &lo) || lo.Reason != wire.LogoutServerShutdown {
		t.Fatalf("bob's session ended with %v, want Logout(ServerShutdown)", err)
	}
}
