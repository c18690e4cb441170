package server

import (
	"math"
	"testing"
	"time"

	"rtype/net/wire"
)

// busyRules: waves from the start, so that Bydos (sine motions), their
// missiles and the players' missiles fly within a second.
func busyRules() Config {
	cfg := testConfig()
	cfg.MaxGames = 1
	r := *noWaveRules()
	r.FirstWave, r.WaveInterval, r.WaveIntervalMin, r.WaveSize = 20, 40, 40, 4
	r.BydosFireMin, r.BydosFireMax = 30, 60
	cfg.Rules = &r
	return cfg
}

// eventKey is what identifies an event across versions.
type eventKey struct {
	typ    wire.EventType
	tick   uint32
	id     uint32
	player uint8
}

func keyOf(ev *wire.Event) eventKey {
	return eventKey{typ: ev.Type, tick: ev.Tick, id: ev.ID, player: ev.Player}
}

// 7.11: a v1 and a v2 client in one Classic game see the same world, each
// in its version: at every tick both rebuilt, the same entities with the
// same kinds (all of 4.1), the v2 motion evaluated at the tick within the
// v1 quantization (1/16 px) of the v1 position, the same players; and
// every event once, the same events in the same order, a v2 Spawn's
// motion at its tick where the v1 Spawn says.
func TestV1AndV2ShareAGame(t *testing.T) {
	t.Parallel()
	s := startServer(t, busyRules())
	c1 := join(t, s, "Dallas")
	c1.actions = wire.ActionFire | wire.ActionRight
	c2 := join2(t, s, "Ripley")
	c2.actions = wire.ActionFire | wire.ActionDown
	joined := c2.accepts[0].Tick
	end := time.Now().Add(3 * time.Second)
	for time.Now().Before(end) {
		c1.pumpUntil(5*time.Millisecond, nil)
		c2.pumpUntil(5*time.Millisecond, nil)
	}
	if t.Failed() {
		return
	}

	// The worlds.
	v2At := map[uint32]*snap2{}
	for i := range c2.snaps {
		v2At[c2.snaps[i].tick] = &c2.snaps[i]
	}
	compared, entities, bydos := 0, 0, 0
	for i := range c1.snaps {
		s1 := &c1.snaps[i]
		s2 := v2At[s1.tick]
		if s2 == nil || (i+1 < len(c1.snaps) && c1.snaps[i+1].tick == s1.tick) {
			continue // not rebuilt by both, or not whole yet
		}
		if len(s2.entities) != len(s1.entities) {
			t.Fatalf("tick %d: v1 has %d entities, v2 %d", s1.tick, len(s1.entities), len(s2.entities))
		}
		for _, e1 := range s1.entities {
			e2, ok := s2.entity(e1.ID)
			if !ok || e2.Kind() != e1.Kind || e1.Kind < wire.KindPlayerShip || e1.Kind > wire.KindEnemyMissile {
				t.Fatalf("tick %d: entity %#x kind %d in v1, %v kind %d in v2", s1.tick, e1.ID, e1.Kind, ok, e2.Kind())
			}
			m := e2.Motion()
			x, y, _, _ := m.At(float64(s1.tick))
			if dx, dy := math.Abs(x-float64(e1.X())), math.Abs(y-float64(e1.Y())); dx > 1.0/16+1e-3 || dy > 1.0/16+1e-3 {
				t.Fatalf("tick %d: entity %#x kind %d at (%v, %v) in v1, (%v, %v) in v2", s1.tick, e1.ID, e1.Kind, e1.X(), e1.Y(), x, y)
			}
			entities++
			if e1.Kind == wire.KindBydosSlave {
				bydos++
			}
		}
		for _, p1 := range s1.players {
			p2, ok := s2.player(p1.Player)
			if !ok || p2.PlayerState != p1 {
				t.Fatalf("tick %d: player %+v in v1, %+v in v2", s1.tick, p1, p2)
			}
		}
		compared++
	}
	t.Logf("%d ticks compared, %d entity states (%d Bydos); %d v1 and %d v2 snapshot datagrams", compared, entities, bydos, len(c1.snaps), len(c2.snaps))
	if compared < 10 || bydos == 0 {
		t.Fatalf("only %d ticks (%d Bydos states) rebuilt by both", compared, bydos)
	}

	// The events: each once, the same after the v2 client joined.
	var after1, after2 []*wire.Event
	for name, evs := range map[string][]wire.Event{"v1": c1.events, "v2": c2.events} {
		seen := map[eventKey]bool{}
		for i := range evs {
			k := keyOf(&evs[i])
			if seen[k] {
				t.Fatalf("%s: event %s twice", name, eventString(&evs[i]))
			}
			seen[k] = true
		}
	}
	for i := range c1.events {
		if c1.events[i].Tick > joined {
			after1 = append(after1, &c1.events[i])
		}
	}
	for i := range c2.events {
		if c2.events[i].Tick > joined {
			after2 = append(after2, &c2.events[i])
		}
	}
	n := min(len(after1), len(after2)) // the last ones may still be in flight
	if n < 10 || max(len(after1), len(after2))-n > 20 {
		t.Fatalf("%d v1 events and %d v2 events after tick %d", len(after1), len(after2), joined)
	}
	spawns := 0
	for i := 0; i < n; i++ {
		a, b := after1[i], after2[i]
		if keyOf(a) != keyOf(b) || a.Kind != b.Kind || a.Owner != b.Owner {
			t.Fatalf("event %d: %s in v1, %s in v2", i, eventString(a), eventString(b))
		}
		if a.Type == wire.EventSpawn {
			x, y, _, _ := b.Motion.At(float64(b.Tick))
			if math.Abs(x-float64(a.X)) > 1e-2 || math.Abs(y-float64(a.Y)) > 1e-2 {
				t.Fatalf("%s: v1 at (%v, %v), v2 motion %+v at (%v, %v)", eventString(a), a.X, a.Y, b.Motion, x, y)
			}
			spawns++
		}
	}
	t.Logf("%d events compared (%d Spawns)", n, spawns)
}
