package sim_test

import (
	"testing"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
)

// clientFrame is the frame a v2 client draws for entity e at tick, from
// the v2 records alone (PROTOCOL.md 7.5, 7.8): the animation, and for a
// ship its player's blink.
func clientFrame(e *wire2.Entity, players []wire2.Player, blink uint32, tick uint32) uint8 {
	m, a := e.Motion(), e.Anim()
	if e.Kind() == wire.KindPlayerShip {
		for _, p := range players {
			if p.Ship == e.ID && p.InvulnTicks != 0 && tick >= p.InvulnStart && tick-p.InvulnStart < p.InvulnTicks &&
				(tick-p.InvulnStart)/blink%2 == 0 {
				return sim.ShipFrameInvuln
			}
		}
	}
	return a.Frame(m.T0, float64(tick))
}

// TestMotionIsTheTruth plays a busy game and checks, at every tick, that
// each entity is exactly where its motion says (what a client evaluating
// the same wire.Motion computes), and that the v1 records (position,
// velocity, frame) follow from the v2 ones.
func TestMotionIsTheTruth(t *testing.T) {
	r := sim.DefaultRules()
	w := sim.New(r, 5)
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	var e1 []wire.Entity
	var e2 []wire2.Entity
	var pl []wire2.Player
	motions := map[uint32]wire.Motion{}
	checked := 0
	for tick := range 3600 {
		for p := range uint8(4) {
			w.SetInput(p, uint8((tick/(23+7*int(p))+int(p))%32))
		}
		w.Step()
		w.TopUp(40, 100)
		for _, ev := range w.TakeEvents() { // the Step's and TopUp's
			if ev.Type == wire.EventSpawn {
				if x, y, vx, vy := ev.Motion.At(float64(ev.Tick)); float32(x) != ev.X || float32(y) != ev.Y ||
					float32(vx) != ev.VX || float32(vy) != ev.VY {
					t.Fatalf("Spawn %+v: v1 fields are not its motion's", ev)
				}
			}
		}
		now := w.Tick()
		e1 = entities1(w, e1[:0])
		e2 = entities2(w, e2[:0])
		pl = players2(w, pl[:0])
		if len(e1) != len(e2) {
			t.Fatalf("tick %d: %d v1 entities, %d v2", now, len(e1), len(e2))
		}
		for i := range e2 {
			e := &e2[i]
			m := e.Motion()
			x, y, vx, vy := m.At(float64(now))
			sx, sy, ok := w.Pos(e.ID)
			if !ok || x != sx || y != sy {
				t.Fatalf("tick %d: entity %#x at (%v, %v), its motion says (%v, %v)", now, e.ID, sx, sy, x, y)
			}
			want := wire.MakeEntity(e.ID, e.Kind(), float32(x), float32(y), float32(vx), float32(vy),
				int(clientFrame(e, pl, uint32(r.BlinkTicks), now)))
			if e1[i] != want {
				t.Fatalf("tick %d: v1 record %+v, from v2 %+v", now, e1[i], want)
			}
			if k := e.Kind(); k != wire.KindPlayerShip {
				if old, seen := motions[e.ID]; seen && old != m {
					t.Fatalf("tick %d: kind %d entity %#x changed its motion from %+v to %+v", now, k, e.ID, old, m)
				}
				motions[e.ID] = m
			}
			checked++
		}
	}
	// The joining Spawns: with the motion that gives the entity's
	// current position.
	sp := w.AppendSpawns(nil)
	if len(sp) != w.NumEntities() {
		t.Fatalf("%d joining Spawns for %d entities", len(sp), w.NumEntities())
	}
	for i := range sp {
		x, y, _, _ := sp[i].Motion.At(float64(w.Tick()))
		if float32(x) != sp[i].X || float32(y) != sp[i].Y {
			t.Fatalf("joining Spawn %+v", sp[i])
		}
	}
	if checked < 100000 {
		t.Errorf("only %d entity-ticks checked", checked)
	}
}

// TestShipMotionChanges: a ship's motion changes when its input changes
// its velocity, or a wall stops it, and at no other tick.
func TestShipMotionChanges(t *testing.T) {
	w := quiet(t, nil)
	id := w.Ship(0)
	motion := func() wire.Motion {
		m, _, ok := w.Motion(id)
		if !ok {
			t.Fatal("no ship")
		}
		return m
	}
	changes := 0
	last := motion()
	run := func(actions uint8, n int) {
		w.SetInput(0, actions)
		for range n {
			w.Step()
			if m := motion(); m != last {
				changes++
				last = m
			}
		}
	}
	run(0, 30) // still: no change
	if changes != 0 {
		t.Fatalf("a still ship changed motion %d times", changes)
	}
	run(wire.ActionRight, 60) // one change
	run(wire.ActionRight|wire.ActionFire, 30)
	if changes != 1 {
		t.Fatalf("holding right (with and without fire): %d changes, want 1", changes)
	}
	if m := motion(); m.Model != wire.ModelLinear || m.VX != 360*wire.VelScale || m.VY != 0 {
		t.Fatalf("moving right: %+v", m)
	}
	run(wire.ActionUp, 200) // one change, then the top wall stops it: a second
	if changes != 3 {
		t.Fatalf("up into the wall: %d changes, want 3", changes)
	}
	if m := motion(); m.VX != 0 || m.VY != 0 {
		t.Fatalf("against the wall: %+v", m)
	}
	if _, y := w.ShipPos(0); y != 8.5 {
		t.Fatalf("against the top wall y = %v", y)
	}
	run(wire.ActionUp, 100) // still pushing: no change
	if changes != 3 {
		t.Fatalf("pushing against the wall: %d changes", changes)
	}
}

func TestStepAllocs(t *testing.T) {
	w := sim.New(sim.DefaultRules(), 1)
	w.NoWaves()
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	w.TopUp(40, 100)
	w.TakeEvents()
	i := 0
	step := func() {
		for p := range uint8(4) {
			w.SetInput(p, wire.ActionFire|uint8(1+(i/20+int(p))%10))
		}
		w.Step()
		w.TopUp(40, 100)
		w.TakeEvents()
		i++
	}
	for range 500 {
		step()
	}
	testutil.NoAllocs(t, 500, "Step", step)
}
