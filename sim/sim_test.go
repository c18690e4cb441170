package sim_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"rtype/net/wire"
	"rtype/sim"
	"rtype/vocab"
)

// quiet returns a world without waves and without join invulnerability,
// with player 0 in it, its events taken.
func quiet(t testing.TB, mod func(*sim.Rules)) *sim.World {
	t.Helper()
	r := sim.DefaultRules()
	r.JoinInvulnTicks = 0
	if mod != nil {
		mod(&r)
	}
	w := sim.New(r, 1)
	w.NoWaves()
	w.AddPlayer(0, "Alice")
	w.TakeEvents()
	return w
}

// step runs n steps and returns a copy of their events.
func step(w *sim.World, n int) []wire.Event {
	var evs []wire.Event
	for range n {
		w.Step()
		evs = append(evs, w.TakeEvents()...)
	}
	return evs
}

func ofType(evs []wire.Event, typ wire.EventType) []wire.Event {
	var out []wire.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func entity(t testing.TB, w *sim.World, id uint32) *wire.Entity {
	t.Helper()
	for _, e := range entities1(w, nil) {
		if e.ID == id {
			return &e
		}
	}
	t.Fatalf("entity %#x not found", id)
	return nil
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestBounds(t *testing.T) {
	r := sim.DefaultRules()
	for _, c := range []struct {
		actions uint8
		x, y    float64
	}{
		{wire.ActionUp | wire.ActionLeft, 16.5, 8.5},
		{wire.ActionDown | wire.ActionRight, 1280 - 16.5, 720 - 8.5},
		{wire.ActionUp | wire.ActionRight, 1280 - 16.5, 8.5},
		{wire.ActionDown | wire.ActionLeft, 16.5, 720 - 8.5},
	} {
		w := quiet(t, nil)
		w.SetInput(0, c.actions)
		for i := range 600 {
			w.Step()
			x, y := w.ShipPos(0)
			if x-r.ShipW/2 < 0 || x+r.ShipW/2 > r.AreaW || y-r.ShipH/2 < 0 || y+r.ShipH/2 > r.AreaH {
				t.Fatalf("actions %#x tick %d: ship at (%g, %g) leaves the area", c.actions, i, x, y)
			}
		}
		if x, y := w.ShipPos(0); x != c.x || y != c.y {
			t.Errorf("actions %#x: ship at (%g, %g) after 10 s, want (%g, %g)", c.actions, x, y, c.x, c.y)
		}
		// Against the edge the ship is still.
		if e := entity(t, w, w.Ship(0)); e.VX() != 0 || e.VY() != 0 || e.Frame() != sim.ShipFrameLevel {
			t.Errorf("actions %#x: ship against the corner has v (%g, %g) frame %d", c.actions, e.VX(), e.VY(), e.Frame())
		}
	}
}

func TestSpeedAndFrames(t *testing.T) {
	w := quiet(t, nil)
	x0, y0 := w.ShipPos(0)
	if x0 != 100 || y0 != 180 {
		t.Fatalf("player 0 spawns at (%g, %g), want (100, 180)", x0, y0)
	}
	w.SetInput(0, wire.ActionRight)
	step(w, 60)
	if x, y := w.ShipPos(0); x != 460 || y != 180 {
		t.Fatalf("after 1 s right: (%g, %g), want (460, 180)", x, y)
	}
	e := entity(t, w, w.Ship(0))
	if e.VX() != 360 || e.VY() != 0 || e.Frame() != sim.ShipFrameLevel || e.X() != 460 {
		t.Errorf("moving right: %+v", e)
	}
	w.SetInput(0, wire.ActionUp)
	step(w, 1)
	if e := entity(t, w, w.Ship(0)); e.VY() != -360 || e.Frame() != sim.ShipFrameClimb {
		t.Errorf("moving up: vy %g frame %d", e.VY(), e.Frame())
	}
	w.SetInput(0, wire.ActionDown)
	step(w, 1)
	if e := entity(t, w, w.Ship(0)); e.VY() != 360 || e.Frame() != sim.ShipFrameDive {
		t.Errorf("moving down: vy %g frame %d", e.VY(), e.Frame())
	}
	// Up and down cancel; bits above the mask are ignored.
	w.SetInput(0, wire.ActionUp|wire.ActionDown|0xE0)
	x1, y1 := w.ShipPos(0)
	step(w, 10)
	if x, y := w.ShipPos(0); x != x1 || y != y1 {
		t.Errorf("up+down moved the ship from (%g,%g) to (%g,%g)", x1, y1, x, y)
	}
}

func TestDiagonalNormalized(t *testing.T) {
	w := quiet(t, func(r *sim.Rules) {})
	w.SetShipPos(0, 300, 500)
	w.SetInput(0, wire.ActionUp|wire.ActionRight)
	step(w, 60)
	x, y := w.ShipPos(0)
	// The motion's velocity is quantized to 1/16 px/s (PROTOCOL.md 7.5):
	// within 1/32 px/s of 360/sqrt(2) on each axis.
	want := 360 / math.Sqrt2
	if math.Abs(x-300-want) > 1.0/32 || math.Abs(500-y-want) > 1.0/32 {
		t.Fatalf("1 s up-right moved (%g, %g), want (%g, %g)", x-300, y-500, want, -want)
	}
	if d := math.Hypot(x-300, y-500); math.Abs(d-360) > 1.0/16 {
		t.Errorf("diagonal distance %g, want 360", d)
	}
	e := entity(t, w, w.Ship(0))
	if e.VX() != 255 || e.VY() != -255 {
		t.Errorf("diagonal velocity (%g, %g), want (255, -255)", e.VX(), e.VY())
	}
}

func TestFireRate(t *testing.T) {
	w := quiet(t, nil)
	w.SetShipPos(0, 100, 360)
	w.SetInput(0, wire.ActionFire)
	evs := ofType(step(w, 60), wire.EventSpawn)
	if len(evs) != 6 {
		t.Fatalf("60 ticks of fire: %d spawns, want 6", len(evs))
	}
	for i, e := range evs {
		if e.Kind != wire.KindPlayerMissile || e.Owner != 0 || e.Tick != uint32(1+10*i) {
			t.Errorf("shot %d: %+v", i, e)
		}
	}
	if e := evs[0]; e.X != 120 || e.Y != 360 || e.VX != 900 || e.VY != 0 {
		t.Errorf("first missile at (%g, %g) v (%g, %g), want (120, 360) v (900, 0)", e.X, e.Y, e.VX, e.VY)
	}
	// It flies 15 px a tick.
	if x, _, ok := w.Pos(evs[5].ID); !ok || !near(x, 120+15*9) {
		t.Errorf("last missile at x %g (ok %v), want %d", x, ok, 120+15*9)
	}
	// Tapping fire faster than the interval fires no faster.
	w2 := quiet(t, nil)
	n := 0
	for i := range 60 {
		w2.SetInput(0, wire.ActionFire*uint8(1-i%2))
		w2.Step()
		n += len(ofType(w2.TakeEvents(), wire.EventSpawn))
	}
	if n != 6 {
		t.Errorf("tapping fire for 60 ticks: %d missiles, want 6", n)
	}
}

// destroyed returns the Destroy events of evs by id.
func destroyed(evs []wire.Event) map[uint32]wire.Event {
	m := map[uint32]wire.Event{}
	for _, e := range ofType(evs, wire.EventDestroy) {
		m[e.ID] = e
	}
	return m
}

func TestMissileDoesNotPassThroughBydos(t *testing.T) {
	// At every sub-step offset, with the Bydos still or flying at up to
	// 400 px/s, a missile fired at a Bydos in its row hits it.
	for _, missileSpeed := range []float64{900, 6000} { // 15 and 100 px a tick
		for _, bv := range []float64{0, -90, -160, -400} {
			for off := 0.0; off < missileSpeed/60; off += missileSpeed / 60 / 64 {
				w := quiet(t, func(r *sim.Rules) { r.MissileSpeed, r.MaxEntities = missileSpeed, 64 })
				b := w.SpawnBydosAt(640, 400, bv, 0)
				m := w.SpawnPlayerMissileAt(0, 400+off, 400)
				d := destroyed(step(w, 60))
				if d[b].Reason != wire.DestroyKilled || d[m].Reason != wire.DestroyConsumed || len(d) != 2 {
					t.Fatalf("speed %g, Bydos vx %g, offset %g: destroys %+v", missileSpeed, bv, off, d)
				}
			}
		}
	}
	// The boxes are exact: 2 + 16 px of half heights.
	for _, c := range []struct {
		dy  float64
		hit bool
	}{{17.9, true}, {-17.9, true}, {18, false}, {-18, false}, {30, false}} {
		w := quiet(t, nil)
		b := w.SpawnBydosAt(640, 400, 0, 0)
		w.SpawnPlayerMissileAt(0, 400, 400+c.dy)
		d := destroyed(step(w, 60))
		if _, hit := d[b]; hit != c.hit {
			t.Errorf("missile %g px off the Bydos center: hit %v, want %v", c.dy, hit, c.hit)
		}
	}
}

func TestKillScores(t *testing.T) {
	w := quiet(t, nil)
	w.AddPlayer(2, "Carol")
	w.TakeEvents()
	w.SetShipPos(2, 100, 400)
	b := w.SpawnBydosAt(300, 400, -120, 0)
	w.SetInput(2, wire.ActionFire)
	evs := step(w, 30)
	var got []wire.Event
	var missile uint32
	for _, e := range evs {
		if e.Type == wire.EventSpawn && e.Kind == wire.KindPlayerMissile && missile == 0 {
			missile = e.ID
		}
		if e.Type == wire.EventDestroy {
			got = append(got, e)
		}
	}
	if len(got) != 2 || got[0].ID != b || got[0].Reason != wire.DestroyKilled ||
		got[1].ID != missile || got[1].Reason != wire.DestroyConsumed || got[0].Tick != got[1].Tick {
		t.Fatalf("destroys %+v, want Bydos %#x Killed then missile %#x Consumed", got, b, missile)
	}
	if w.Score(2) != 100 || w.Score(0) != 0 {
		t.Errorf("scores %d and %d, want 100 to the shooter", w.Score(2), w.Score(0))
	}
	ps := players1(w, nil)
	if len(ps) != 2 || ps[1].Player != 2 || ps[1].Score != 100 || ps[0].Score != 0 {
		t.Errorf("players %+v", ps)
	}
	// A missile of a player who left scores for nobody, even when the
	// number is taken again.
	m := w.SpawnPlayerMissileAt(2, 500, 600)
	w.RemovePlayer(2, wire.LeftLeft)
	w.AddPlayer(2, "Dave")
	b2 := w.SpawnBydosAt(600, 600, 0, 0)
	d := destroyed(step(w, 20))
	if d[m].Reason != wire.DestroyConsumed || d[b2].Reason != wire.DestroyKilled || w.Score(2) != 0 {
		t.Errorf("orphan missile: destroys %+v, score %d", d, w.Score(2))
	}
}

func TestShipHitRespawnInvulnerableOut(t *testing.T) {
	w := quiet(t, nil)
	ship := w.Ship(0)
	w.SetInput(0, wire.ActionRight)
	step(w, 30) // ship at (280, 180)
	em := w.SpawnEnemyMissileAt(400, 180, -300, 0)
	evs := step(w, 60)
	deaths := ofType(evs, wire.EventDeath)
	if len(deaths) != 1 {
		t.Fatalf("deaths %+v", deaths)
	}
	dt := deaths[0].Tick
	if d := deaths[0]; d.Player != 0 || d.Lives != 2 || d.X < 280 || d.Y != 180 {
		t.Errorf("death %+v", d)
	}
	if d := destroyed(evs); len(d) != 1 || d[em].Reason != wire.DestroyConsumed || d[em].Tick != dt {
		t.Errorf("destroys %+v, want the enemy missile Consumed", d)
	}
	if w.Ship(0) != ship || w.Lives(0) != 2 {
		t.Fatalf("ship %#x lives %d after a death, want %#x 2", w.Ship(0), w.Lives(0), ship)
	}

	// Respawn at the spawn point at the tick of the Death, invulnerable
	// for 120 ticks counting it: a Bydos sitting on the ship does nothing.
	w2 := quiet(t, nil)
	w2.SpawnEnemyMissileAt(120, 180, -300, 0)
	evs = step(w2, 1)
	if d := ofType(evs, wire.EventDeath); len(d) != 1 || d[0].Tick != 1 {
		t.Fatalf("no death at tick 1: %+v", evs)
	}
	if x, y := w2.ShipPos(0); x != 100 || y != 180 || w2.Invuln(0) != 120 {
		t.Fatalf("respawned at (%g, %g) invuln %d", x, y, w2.Invuln(0))
	}
	if e := entity(t, w2, w2.Ship(0)); e.Frame() != sim.ShipFrameInvuln || e.X() != 100 {
		t.Errorf("respawned ship frame %d x %g", e.Frame(), e.X())
	}
	b := w2.SpawnBydosAt(100, 180, 0, 0)
	w2.SetInput(0, wire.ActionUp) // climbing: frame 1 when not blinking
	for tick := uint32(2); tick < 121; tick++ {
		evs = step(w2, 1)
		if len(ofType(evs, wire.EventDeath)) != 0 {
			t.Fatalf("invulnerable ship hit at tick %d", tick)
		}
		w2.SetShipPos(0, 100, 180)
		wantFrame := uint8(sim.ShipFrameClimb)
		if (tick-1)/8%2 == 0 {
			wantFrame = sim.ShipFrameInvuln
		}
		if f := entity(t, w2, w2.Ship(0)).Frame(); f != wantFrame {
			t.Fatalf("tick %d: frame %d, want %d", tick, f, wantFrame)
		}
	}
	w2.SetInput(0, 0)
	evs = step(w2, 1) // tick 121: vulnerable again
	if d := ofType(evs, wire.EventDeath); len(d) != 1 || d[0].Lives != 1 || d[0].Tick != 121 {
		t.Fatalf("tick 121: %+v, want a Death with 1 life", evs)
	}
	if d := destroyed(evs); d[b].Reason != wire.DestroyKilled {
		t.Errorf("the Bydos the ship hit: %+v, want Killed", d)
	}

	// Last life: Death with 0 lives, then Destroy Killed of the ship, then
	// GameOver.
	step(w2, 120)
	shipID := w2.Ship(0)
	w2.SpawnBydosAt(100, 180, 0, 0)
	w2.TakeEvents()
	evs = step(w2, 1)
	if len(evs) != 4 || evs[0].Type != wire.EventDeath || evs[0].Lives != 0 ||
		evs[1].Type != wire.EventDestroy || evs[1].ID != shipID || evs[1].Reason != wire.DestroyKilled ||
		evs[2].Type != wire.EventDestroy || evs[2].Reason != wire.DestroyKilled ||
		evs[3].Type != wire.EventGameOver || evs[3].NumScores != 1 || evs[3].Scores[0] != (wire.Score{Player: 0}) {
		t.Fatalf("last life: %+v", evs)
	}
	if !w2.Over() || w2.Ship(0) != wire.NoEntity || w2.Lives(0) != 0 || !w2.InGame(0) {
		t.Errorf("after game over: over %v ship %#x lives %d", w2.Over(), w2.Ship(0), w2.Lives(0))
	}
	if ps := players1(w2, nil); len(ps) != 1 || ps[0].HasShip || ps[0].Ship != wire.NoEntity || ps[0].Lives != 0 {
		t.Errorf("players %+v", ps)
	}
	// GameOver is emitted once; the world still steps.
	if evs := step(w2, 60); len(ofType(evs, wire.EventGameOver)) != 0 || w2.Tick() != 302 {
		t.Errorf("after game over: %+v at tick %d", evs, w2.Tick())
	}
}

func TestJoinInvulnerability(t *testing.T) {
	w := sim.New(sim.DefaultRules(), 1)
	w.NoWaves()
	w.AddPlayer(1, "Bob")
	if e := entity(t, w, w.Ship(1)); e.Frame() != sim.ShipFrameInvuln || e.X() != 100 || e.Y() != 300 {
		t.Errorf("joined ship %+v", e)
	}
	w.SpawnBydosAt(100, 300, 0, 0)
	if evs := step(w, 119); len(ofType(evs, wire.EventDeath)) != 0 {
		t.Fatalf("hit during the join invulnerability")
	}
	if evs := step(w, 1); len(ofType(evs, wire.EventDeath)) != 1 {
		t.Fatalf("not hit at tick 120: %+v", evs)
	}
}

func TestGameOverWithTwoPlayers(t *testing.T) {
	w := quiet(t, func(r *sim.Rules) { r.Lives = 1 })
	w.AddPlayer(3, "Zed")
	w.TakeEvents()
	w.SpawnBydosAt(100, 180, 0, 0)
	evs := step(w, 1)
	if len(ofType(evs, wire.EventDeath)) != 1 || len(ofType(evs, wire.EventGameOver)) != 0 || w.Over() {
		t.Fatalf("one of two out: %+v", evs)
	}
	w.SetInput(3, wire.ActionFire)
	w.SetShipPos(3, 100, 400)
	w.SpawnBydosAt(300, 400, 0, 0)
	step(w, 30)
	w.RemovePlayer(3, wire.LeftLeft)
	if w.Over() {
		t.Fatal("over before the next step")
	}
	evs = step(w, 1)
	g := ofType(evs, wire.EventGameOver)
	if len(g) != 1 || g[0].NumScores != 1 || g[0].Scores[0].Player != 0 || !w.Over() {
		t.Errorf("game over after the last living player left: %+v", evs)
	}

	// A game left by everybody is not over.
	w = quiet(t, nil)
	w.RemovePlayer(0, wire.LeftLeft)
	step(w, 10)
	if w.Over() {
		t.Error("an empty game is over")
	}
}

func TestJoinAndLeaveEvents(t *testing.T) {
	w := sim.New(sim.DefaultRules(), 7)
	w.AddPlayer(0, "Alice")
	w.AddPlayer(1, "Bob")
	evs := w.TakeEvents()
	if len(evs) != 4 || evs[0].Type != wire.EventPlayerJoined || evs[0].Name != "Alice" ||
		evs[1].Type != wire.EventSpawn || evs[1].Kind != wire.KindPlayerShip || evs[1].Owner != 0 ||
		evs[1].X != 100 || evs[1].Y != 180 ||
		evs[2].Type != wire.EventPlayerJoined || evs[2].Player != 1 ||
		evs[3].Type != wire.EventSpawn || evs[3].Owner != 1 || evs[3].Y != 300 {
		t.Fatalf("joins: %+v", evs)
	}
	step(w, 200)
	if len(w.Events()) != 0 {
		t.Fatal("Events not empty after TakeEvents")
	}
	// 4.6: PlayerJoined for every player, then a Spawn for every entity.
	joins := w.AppendJoins(nil)
	if len(joins) != 2 || joins[1].Name != "Bob" || joins[1].Tick != 200 {
		t.Errorf("joins %+v", joins)
	}
	spawns := w.AppendSpawns(nil)
	ents := entities1(w, nil)
	if len(spawns) != len(ents) || len(ents) < 3 {
		t.Fatalf("%d spawns for %d entities", len(spawns), len(ents))
	}
	for i, s := range spawns {
		if s.Type != wire.EventSpawn || s.ID != ents[i].ID || s.Kind != ents[i].Kind || s.Tick != 200 {
			t.Errorf("spawn %d: %+v for %+v", i, s, ents[i])
		}
	}
	ship := w.Ship(1)
	w.RemovePlayer(1, wire.LeftTimedOut)
	evs = w.TakeEvents()
	if len(evs) != 2 || evs[0].Type != wire.EventPlayerLeft || evs[0].Player != 1 || evs[0].Reason != wire.LeftTimedOut ||
		evs[1].Type != wire.EventDestroy || evs[1].ID != ship || evs[1].Reason != wire.DestroyPlayerLeft || evs[1].Tick != 200 {
		t.Fatalf("leave: %+v", evs)
	}
	if w.InGame(1) || len(players1(w, nil)) != 1 {
		t.Error("player 1 still in the game")
	}
	w.RemovePlayer(1, wire.LeftLeft) // not in the game: nothing
	if len(w.TakeEvents()) != 0 {
		t.Error("RemovePlayer of an absent player emitted events")
	}
	// A player out of lives leaves without a Destroy.
	w = quiet(t, func(r *sim.Rules) { r.Lives = 1 })
	w.SpawnBydosAt(100, 180, 0, 0)
	step(w, 1)
	w.RemovePlayer(0, wire.LeftKicked)
	if evs := w.TakeEvents(); len(evs) != 1 || evs[0].Type != wire.EventPlayerLeft {
		t.Errorf("out player leaves: %+v", evs)
	}
}

func TestDespawn(t *testing.T) {
	w := quiet(t, nil)
	m := w.SpawnPlayerMissileAt(0, 1300, 400)     // gone once x - 8 > 1344
	b := w.SpawnBydosAt(-30.5, 300, -60, 0)       // gone once x + 16 < -64: 1 px a tick
	e := w.SpawnEnemyMissileAt(640, 780.5, 0, 60) // gone once y - 4 > 784: 1 px a tick
	keep := w.SpawnEnemyMissileAt(640, -60, 0, 0) // overlaps the margin: stays
	keep2 := w.SpawnBydosAt(1300, 300, 0, 0)      // the entry point: stays
	for range 200 {
		w.Step()
		for _, ev := range w.TakeEvents() {
			if ev.Type != wire.EventDestroy {
				continue
			}
			if ev.Reason != wire.DestroyDespawned {
				t.Errorf("destroy %+v", ev)
			}
			var want uint32
			switch ev.ID {
			case m:
				want = 4 // 1360 > 1352
			case b:
				want = 50 // x = -80.5 < -80
			case e:
				want = 8 // 788.5 > 788
			default:
				t.Errorf("unexpected destroy %+v", ev)
			}
			if ev.Tick != want {
				t.Errorf("%#x despawned at tick %d (%g, %g), want %d", ev.ID, ev.Tick, ev.X, ev.Y, want)
			}
		}
	}
	for _, id := range []uint32{keep, keep2} {
		if _, _, ok := w.Pos(id); !ok {
			t.Errorf("%#x despawned", id)
		}
	}
	if _, _, ok := w.Pos(m); ok {
		t.Error("missile alive")
	}
}

func TestIDReuse(t *testing.T) {
	w := quiet(t, nil)
	// Index 1 is the ship; a missile takes index 2 and despawns.
	m := w.SpawnPlayerMissileAt(0, 1350, 100)
	if wire.Index(m) != 2 || wire.Generation(m) != 0 {
		t.Fatalf("first missile %#x", m)
	}
	w.TakeEvents()
	evs := step(w, 1)
	if len(evs) != 1 || evs[0].ID != m {
		t.Fatalf("%+v", evs)
	}
	freed := evs[0].Tick
	for w.Tick() < freed+599 {
		w.Step()
	}
	id := w.SpawnEnemyMissileAt(640, 100, 0, 0)
	if wire.Index(id) == 2 {
		t.Fatalf("index 2 reused %d ticks after its Destroy", w.Tick()-freed)
	}
	w.Step()
	id = w.SpawnEnemyMissileAt(640, 100, 0, 0)
	if wire.Index(id) != 2 || wire.Generation(id) != 1 {
		t.Fatalf("%d ticks after: id %#x, want index 2 generation 1", w.Tick()-freed, id)
	}

	// In a long busy game: no index reused within 600 ticks, always with
	// a new generation, and indices stay low.
	w = sim.New(sim.DefaultRules(), 3)
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	type slot struct {
		id      uint32
		freedAt uint32
		dead    bool
	}
	slots := map[uint32]*slot{}
	reused, maxIndex := 0, uint32(0)
	for tick := range 6000 {
		for p := range uint8(4) {
			w.SetInput(p, uint8(wire.ActionFire|[]uint8{wire.ActionUp, wire.ActionDown}[(tick/90+int(p))%2]))
		}
		w.Step()
		for _, ev := range w.TakeEvents() {
			switch ev.Type {
			case wire.EventSpawn:
				i := wire.Index(ev.ID)
				maxIndex = max(maxIndex, i)
				if s := slots[i]; s != nil {
					if !s.dead || ev.Tick-s.freedAt < 600 || wire.Generation(ev.ID) != wire.Generation(s.id)+1 {
						t.Fatalf("spawn %#x at tick %d: index last %#x dead %v freed at %d", ev.ID, ev.Tick, s.id, s.dead, s.freedAt)
					}
					reused++
				}
				slots[i] = &slot{id: ev.ID}
			case wire.EventDestroy:
				s := slots[wire.Index(ev.ID)]
				if s == nil || s.id != ev.ID || s.dead {
					t.Fatalf("destroy of %#x: %+v", ev.ID, s)
				}
				s.dead, s.freedAt = true, ev.Tick
			}
		}
	}
	if reused < 100 {
		t.Errorf("only %d reuses", reused)
	}
	if maxIndex > 1000 {
		t.Errorf("indices up to %d", maxIndex)
	}
	t.Logf("%d reuses, indices up to %d", reused, maxIndex)
}

func TestMaxEntities(t *testing.T) {
	r := sim.DefaultRules()
	r.MaxEntities = 40
	w := sim.New(r, 5)
	w.AddPlayer(0, "A")
	w.AddPlayer(1, "B")
	for range 3000 {
		w.SetInput(0, wire.ActionFire)
		w.Step()
		w.TakeEvents()
		if n := w.NumEntities(); n > 40 {
			t.Fatalf("%d entities", n)
		}
		for _, e := range entities1(w, nil) {
			if wire.Index(e.ID) > 40 || wire.Index(e.ID) == 0 {
				t.Fatalf("index %d", wire.Index(e.ID))
			}
		}
		if w.Over() {
			break
		}
	}
	// Whatever the load, a joining player gets a ship.
	w = sim.New(r, 5)
	w.AddPlayer(0, "A")
	w.NoWaves()
	for range 100 {
		w.SpawnEnemyMissileAt(640, 700, 0, 0)
	}
	if n := w.NumEntities(); n != 37 {
		t.Errorf("%d entities, want 40 less 3 reserved", n)
	}
	w.TakeEvents()
	for p := range uint8(3) {
		w.AddPlayer(p+1, "X")
		if w.Ship(p+1) == wire.NoEntity {
			t.Fatalf("player %d got no ship", p+1)
		}
	}
	// Even when every slot is taken or waiting out its delay.
	w.RemovePlayer(3, wire.LeftLeft)
	w.AddPlayer(3, "Y")
	if w.Ship(3) == wire.NoEntity {
		t.Fatal("rejoining player got no ship")
	}
}

func TestBydos(t *testing.T) {
	w := quiet(t, nil)
	w.SetShipPos(0, 300, 600)
	b := w.SpawnBydosAt(700, 300, -120, 30)
	for tick := 1; tick <= 29; tick++ {
		w.Step()
		if e := entity(t, w, b); e.Frame() != uint8(tick/6%8) || e.VX() != -120 {
			t.Fatalf("tick %d: %+v", tick, e)
		}
	}
	w.TakeEvents()
	w.Step()
	evs := w.TakeEvents()
	if len(evs) != 1 || evs[0].Kind != wire.KindEnemyMissile || evs[0].Owner != wire.NoPlayer {
		t.Fatalf("Bydos shot: %+v", evs)
	}
	e := evs[0]
	// Its velocity is quantized to 1/16 px/s (PROTOCOL.md 7.5).
	if math.Abs(math.Hypot(float64(e.VX), float64(e.VY))-300) > 1.0/16 {
		t.Errorf("enemy missile speed (%g, %g)", e.VX, e.VY)
	}
	// Aimed at the ship: (300, 600) from (640, 300), within 1e-3 rad.
	if dx, dy := 300-float64(e.X), 600-float64(e.Y); math.Abs(dx*float64(e.VY)-dy*float64(e.VX)) > 1e-3*math.Hypot(dx, dy)*300 {
		t.Errorf("missile from (%g, %g) v (%g, %g) not aimed at (300, 600)", e.X, e.Y, e.VX, e.VY)
	}
	// It shoots again every 2 to 4 s.
	last := w.Tick()
	for range 1200 {
		w.Step()
		for _, ev := range w.TakeEvents() {
			if ev.Type == wire.EventSpawn {
				if d := ev.Tick - last; d < 120 || d > 240 {
					t.Errorf("shots %d ticks apart", d)
				}
				last = ev.Tick
			}
		}
		w.SetShipPos(0, 300, 600)
		if w.Lives(0) < 3 {
			break // shot down: its invulnerability would skew nothing, but stop here
		}
	}

	// Wave Bydos stay in the area vertically and fly at 90-160 px/s at first.
	w = sim.New(sim.DefaultRules(), 9)
	w.AddPlayer(0, "A")
	n := 0
	for range 600 {
		w.Step()
		for _, ev := range w.TakeEvents() {
			if ev.Type == wire.EventSpawn && ev.Kind == wire.KindBydosSlave {
				n++
				if ev.X != 1300 || ev.VX > -90 || ev.VX < -160*1.04 {
					t.Errorf("wave Bydos %+v", ev)
				}
			}
		}
		for _, e := range entities1(w, nil) {
			if e.Kind == wire.KindBydosSlave && (e.Y() < 16 || e.Y() > 704) {
				t.Fatalf("Bydos %+v outside vertically", e)
			}
		}
	}
	if n < 5 {
		t.Errorf("%d Bydos in 10 s", n)
	}
}

// bot plays player p: of nine moves, it takes the one that keeps its
// ship farthest from the Bydos and enemy missiles over the next half
// second, extrapolating everything in straight lines, and fires.
func bot(w *sim.World, p uint8, ents []wire.Entity) uint8 {
	r := w.Rules()
	sx, sy := w.ShipPos(p)
	near := ents[:0:0]
	for _, e := range ents {
		if (e.Kind == wire.KindBydosSlave || e.Kind == wire.KindEnemyMissile) && math.Abs(float64(e.X())-sx) < 450 {
			near = append(near, e)
		}
	}
	ents = near
	moves := [...]uint8{0, wire.ActionUp, wire.ActionDown, wire.ActionLeft, wire.ActionRight,
		wire.ActionUp | wire.ActionLeft, wire.ActionDown | wire.ActionLeft,
		wire.ActionUp | wire.ActionRight, wire.ActionDown | wire.ActionRight}
	best, bestScore := uint8(0), math.Inf(-1)
	for _, m := range moves {
		var dx, dy float64
		if m&wire.ActionLeft != 0 {
			dx = -1
		}
		if m&wire.ActionRight != 0 {
			dx = 1
		}
		if m&wire.ActionUp != 0 {
			dy = -1
		}
		if m&wire.ActionDown != 0 {
			dy = 1
		}
		sp := r.ShipSpeed / 60
		if dx != 0 && dy != 0 {
			sp /= math.Sqrt2
		}
		clear := math.Inf(1)
		for k := 2.0; k <= 30; k += 4 {
			x := min(max(sx+dx*sp*k, 16.5), 1280-16.5)
			y := min(max(sy+dy*sp*k, 8.5), 720-8.5)
			for i := range ents {
				e := &ents[i]
				var hx, hy float64
				switch e.Kind {
				case wire.KindBydosSlave:
					hx, hy = 16+16.5, 16+8.5
				case wire.KindEnemyMissile:
					hx, hy = 4+16.5, 4+8.5
				default:
					continue
				}
				ex, ey := float64(e.X())+float64(e.VX())*k/60, float64(e.Y())+float64(e.VY())*k/60
				c := max(math.Abs(ex-x)-hx, math.Abs(ey-y)-hy)
				clear = min(clear, c+k) // nearer in time weighs more
			}
		}
		// Keep to the left third, away from the edges.
		x := min(max(sx+dx*sp*30, 16.5), 1280-16.5)
		y := min(max(sy+dy*sp*30, 8.5), 720-8.5)
		score := min(clear, 200) - math.Abs(x-200)/20 - max(0, 60-y, y-660)/4
		if score > bestScore {
			best, bestScore = m, score
		}
	}
	return best | wire.ActionFire
}

func TestWavesGetHard(t *testing.T) {
	const threeMinutes = 3 * 60 * 60
	// Idle: out within 3 minutes.
	w := sim.New(sim.DefaultRules(), 11)
	w.AddPlayer(0, "Idle")
	for !w.Over() && w.Tick() < threeMinutes {
		w.Step()
		w.TakeEvents()
	}
	if !w.Over() {
		t.Fatal("an idle player survives 3 minutes")
	}
	t.Logf("idle player: game over at %.1f s", float64(w.Tick())/60)

	// A dodging, firing bot (superhuman: it sees everything and reacts
	// at once) lasts much longer, but the game gets the better of it too
	// within about 3 minutes: with seeds 1 to 10 it is first hit at 76 to
	// 176 s and out at 105 to 189 s (9 of 10 within 3 minutes). Later
	// minutes bring more and faster Bydos.
	for seed := uint64(1); seed <= 3; seed++ {
		w = sim.New(sim.DefaultRules(), seed)
		w.AddPlayer(0, "Bot")
		var ents []wire.Entity
		var perMinute [3]int
		var fastest [3]float32
		firstDeath := uint32(0)
		for !w.Over() && w.Tick() < threeMinutes {
			ents = entities1(w, ents[:0])
			if w.Ship(0) != wire.NoEntity && w.Tick()%3 == 0 {
				w.SetInput(0, bot(w, 0, ents))
			}
			w.Step()
			for _, ev := range w.TakeEvents() {
				if ev.Type == wire.EventSpawn && ev.Kind == wire.KindBydosSlave {
					m := min(2, ev.Tick/3600)
					perMinute[m]++
					fastest[m] = max(fastest[m], -ev.VX)
				}
				if ev.Type == wire.EventDeath && firstDeath == 0 {
					firstDeath = ev.Tick
				}
			}
		}
		t.Logf("seed %d: bot first hit at %.1f s, out at %.1f s, score %d, Bydos per minute %v, fastest %v",
			seed, float64(firstDeath)/60, float64(w.Tick())/60, w.Score(0), perMinute, fastest)
		if !w.Over() {
			t.Errorf("seed %d: the bot survives 3 minutes", seed)
		}
		if w.Tick() < 60*60 {
			t.Errorf("seed %d: the bot is out in %d s: too hard too early", seed, w.Tick()/60)
		}
		if perMinute[1] <= perMinute[0] {
			t.Errorf("seed %d: Bydos per minute %v do not grow", seed, perMinute)
		}
		if fastest[1] <= fastest[0] {
			t.Errorf("seed %d: fastest Bydos per minute %v do not grow", seed, fastest)
		}
	}
}

// run plays two players with scripted inputs for n ticks and returns
// every event and every entity list.
func run(seed uint64, n int) ([]wire.Event, [][]wire.Entity) {
	w := sim.New(sim.DefaultRules(), seed)
	w.AddPlayer(0, "A")
	w.AddPlayer(2, "C")
	evs := append([]wire.Event(nil), w.TakeEvents()...)
	var ents [][]wire.Entity
	for tick := range n {
		w.SetInput(0, uint8(tick/37%32)) // every combination, Fire in half
		w.SetInput(2, uint8(tick/53%32))
		w.Step()
		evs = append(evs, w.TakeEvents()...)
		ents = append(ents, entities1(w, nil))
	}
	return evs, ents
}

func TestDeterminism(t *testing.T) {
	e1, s1 := run(42, 3600)
	e2, s2 := run(42, 3600)
	if !reflect.DeepEqual(e1, e2) {
		t.Fatal("same seed, different events")
	}
	if !reflect.DeepEqual(s1, s2) {
		t.Fatal("same seed, different entities")
	}
	e3, s3 := run(43, 3600)
	if reflect.DeepEqual(e1, e3) || reflect.DeepEqual(s1, s3) {
		t.Fatal("another seed, same game")
	}
	if len(e1) < 100 {
		t.Errorf("only %d events in a minute", len(e1))
	}
}

func TestAppendEntitiesSorted(t *testing.T) {
	w := sim.New(sim.DefaultRules(), 8)
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	var ents []wire.Entity
	for tick := range 5000 {
		for p := range uint8(4) {
			w.SetInput(p, wire.ActionFire|uint8(tick/40+int(p))%16)
		}
		w.Step()
		w.TakeEvents()
		ents = entities1(w, ents[:0])
		for i := 1; i < len(ents); i++ {
			if !wire.Less(ents[i-1].ID, ents[i].ID) || wire.Index(ents[i-1].ID) == wire.Index(ents[i].ID) {
				t.Fatalf("tick %d: %#x before %#x", w.Tick(), ents[i-1].ID, ents[i].ID)
			}
		}
		if len(ents) != w.NumEntities() {
			t.Fatal("count")
		}
	}
}

func TestNewPanicsOnBadRules(t *testing.T) {
	r := sim.DefaultRules()
	r.MaxEntities = 3
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	sim.New(r, 1)
}

// PROTOCOL.md 4.4: a server MUST NOT have more than 4096 entities alive in
// a game. Rules whose entity slots (live entities and those waiting out
// IDReuseTicks share them) could exceed it are refused; 4096 itself, the
// default, is allowed, and so is the least that leaves a slot beyond the
// ships.
func TestMaxEntitiesBound(t *testing.T) {
	if sim.MaxLiveEntities != 4096 {
		t.Fatalf("sim.MaxLiveEntities = %d, PROTOCOL.md 4.4 says 4096", sim.MaxLiveEntities)
	}
	for _, c := range []struct {
		n  int
		ok bool
	}{
		{wire.MaxPlayers, false},
		{wire.MaxPlayers + 1, true},
		{4096, true},
		{4097, false},
		{8192, false},
		{1<<24 - 1, false},
	} {
		r := sim.DefaultRules()
		r.MaxEntities = c.n
		err := func() (err any) {
			defer func() { err = recover() }()
			sim.New(r, 1)
			return nil
		}()
		if (err == nil) != c.ok {
			t.Errorf("MaxEntities %d: sim.New panic = %v, want ok = %v", c.n, err, c.ok)
		}
		if err != nil && !strings.Contains(fmt.Sprint(err), "MaxEntities") {
			t.Errorf("MaxEntities %d: the error %q does not name the rule", c.n, err)
		}
	}
}

// busy returns a world with 4 ships, 40 Bydos and 100 missiles, every
// ship firing and moving.
func busy(testing.TB) *sim.World {
	w := sim.New(sim.DefaultRules(), 1)
	w.NoWaves()
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	w.TopUp(40, 100)
	w.TakeEvents()
	return w
}

func BenchmarkStep(b *testing.B) {
	w := busy(b)
	for i := range 1000 { // reach a steady state: buffers at their size
		for p := range uint8(4) {
			w.SetInput(p, wire.ActionFire|[]uint8{wire.ActionUp, wire.ActionDown}[(i/60+int(p))%2])
		}
		w.Step()
		w.TopUp(40, 100)
		w.TakeEvents()
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if i%60 == 0 {
			for p := range uint8(4) {
				w.SetInput(p, wire.ActionFire|uint8(1+(i/60+int(p))%2))
			}
		}
		w.Step()
		if i%10 == 0 {
			w.TopUp(40, 100)
		}
		w.TakeEvents()
		i++
	}
	b.ReportMetric(float64(w.NumEntities()), "entities")
}

func BenchmarkAppendEntities(b *testing.B) {
	w := busy(b)
	for range 100 {
		w.Step()
		w.TopUp(40, 100)
		w.TakeEvents()
	}
	dst := make([]vocab.Entity, 0, 1024)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		dst = w.AppendEntities(dst[:0])
	}
	b.ReportMetric(float64(len(dst)), "entities")
}
