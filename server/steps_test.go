package server

import (
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// input builds a v2 Input (wire2.Input) of step with actions newest first.
func input(step uint32, actions ...uint8) *wire2.Input {
	in := &wire2.Input{Step: step, Count: len(actions)}
	copy(in.Actions[:], actions)
	return in
}

// 7.4, the server's queue, tick by tick.
func TestStepQueue(t *testing.T) {
	const R, U, F = wire.ActionRight, wire.ActionUp, wire.ActionFire
	type tick struct {
		add  []*wire2.Input // before the tick
		held uint8          // actions of the tick
		last uint32
		has  bool
	}
	cases := []struct {
		name  string
		ticks []tick
	}{
		{"nothing yet: nothing held", []tick{{held: 0, has: false}}},
		{"in order, one per tick", []tick{
			{add: []*wire2.Input{input(0, R)}, held: R, last: 0, has: true},
			{add: []*wire2.Input{input(1, U, R)}, held: U, last: 1, has: true},
			{add: []*wire2.Input{input(2, F, U, R)}, held: F, last: 2, has: true},
		}},
		{"late: the last actions repeat, the step does not advance", []tick{
			{add: []*wire2.Input{input(0, R)}, held: R, last: 0, has: true},
			{held: R, last: 0, has: true},
			{add: []*wire2.Input{input(1, U, R)}, held: U, last: 1, has: true},
		}},
		{"out of order: applied in step order, repeats ignored", []tick{
			{add: []*wire2.Input{input(2, F, U, R), input(0, R), input(1, U, R)}, held: R, last: 0, has: true},
			{held: U, last: 1, has: true},
			{held: F, last: 2, has: true},
			{add: []*wire2.Input{input(2, 0, 0, 0)}, held: F, last: 2, has: true}, // a repeat, other bytes: ignored
		}},
		{"loss: a step lost in every Input is skipped", []tick{
			{add: []*wire2.Input{input(0, R)}, held: R, last: 0, has: true},
			{add: []*wire2.Input{input(4, U, F)}, held: F, last: 3, has: true}, // 1 and 2 lost
			{held: U, last: 4, has: true},
		}},
		{"more than 4 waiting: the lowest are skipped", []tick{
			{add: []*wire2.Input{input(7, 7, 6, 5, 4, 3, 2, 1, 0)}, held: 4, last: 4, has: true}, // 0-3 skipped
			{held: 5, last: 5, has: true},
			{held: 6, last: 6, has: true},
			{held: 7, last: 7, has: true},
			{held: 7, last: 7, has: true},
		}},
		{"at most 16 kept, the lowest dropped", []tick{
			{add: []*wire2.Input{input(0, 1)}, held: 1, last: 0, has: true},
			{add: []*wire2.Input{
				input(8, 8, 7, 6, 5, 4, 3, 2, 1), input(16, 16, 15, 14, 13, 12, 11, 10, 9), input(24, 24, 23, 22, 21, 20, 19, 18, 17),
			}, held: 21, last: 21, has: true}, // 9 to 24 kept; then 9 to 20 skipped, 4 wait
			{held: 22, last: 22, has: true},
		}},
	}
	for _, c := range cases {
		var q stepQueue
		for i, tk := range c.ticks {
			for _, in := range tk.add {
				q.add(in)
			}
			if q.n > maxSteps {
				t.Fatalf("%s: %d steps kept", c.name, q.n)
			}
			held := q.next()
			if held != tk.held || q.last != tk.last || q.has != tk.has {
				t.Fatalf("%s, tick %d: held %#x last %d (%v), want %#x %d (%v)", c.name, i, held, q.last, q.has, tk.held, tk.last, tk.has)
			}
		}
	}
}

// The queue bound holds whatever arrives: steps far ahead, far behind,
// and everything between, in any order.
func TestStepQueueBound(t *testing.T) {
	var q stepQueue
	for i := range 1000 {
		s := uint32(i*7919) % 5000
		q.add(input(s+7, 1, 2, 3, 4, 5, 6, 7, 8))
		if q.n > maxSteps {
			t.Fatalf("%d kept", q.n)
		}
		for k := 1; k < q.n; k++ {
			if q.steps[k-1] >= q.steps[k] {
				t.Fatalf("not sorted: %v", q.steps[:q.n])
			}
		}
		if i%3 == 0 {
			q.next()
			if q.n > maxWaiting {
				t.Fatalf("%d waiting after a tick", q.n)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { q.add(input(9000, 1, 2, 3)); q.next() }); n != 0 {
		t.Fatalf("%v allocs per Input and tick", n)
	}
}

// shipAt waits for a snapshot whose last_step is want and after which
// the ship has stood still for a while, and returns the ship's x then.
func shipAt(t *testing.T, c *tclient2, ship uint32, want uint32) float64 {
	t.Helper()
	var x float64
	ok := c.pumpUntil(wait, func() bool {
		s := c.lastSnap()
		if s == nil {
			return false
		}
		p, ok := s.player(c.acc.Player)
		e, found := s.entity(ship)
		if !ok || !p.HasStep || p.LastStep != want || !found {
			return false
		}
		m := e.Motion()
		x0, _, vx, vy := m.At(float64(s.tick))
		x = x0
		return vx == 0 && vy == 0
	})
	if !ok {
		s := c.lastSnap()
		t.Fatalf("no snapshot with last_step %d and the ship at rest; last: %+v", want, s)
	}
	return x
}

// 7.4 and 7.8 end to end: the server applies the steps in order, skips
// lost ones and repeats, reports last_step, and the ship is where the
// steps up to last_step put it (6 px per tick of Right), exactly. Bit 5
// is accepted (Classic ignores it); bits 6 and 7 drop the Input.
func TestInput2Steps(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := join2(t, s, "Ripley")
	c.keepAlive = false
	ship := c.shipID()
	send := func(in *wire2.Input) { c.send(wire.TypeInput, wire2.AppendInput(nil, in)) }
	const R = wire.ActionRight

	// Steps 0 to 2 in one Input, the later ones as repeats: Right, Right,
	// then nothing. 12 px.
	x0 := float64(cfg.Rules.SpawnX)
	send(input(2, 0, R, R))
	send(input(0, R))
	send(input(1, R, R))
	x := shipAt(t, c, ship, 2)
	if x != x0+12 {
		t.Fatalf("after steps 0-2: x %v, want %v", x, x0+12)
	}
	// Steps 3 to 5 lost; 6 (Right with the Force bit) and 7 (nothing)
	// arrive: 6 px more.
	send(input(7, 0, R|wire.ActionForce))
	x = shipAt(t, c, ship, 7)
	if x != x0+18 {
		t.Fatalf("after the gap: x %v, want %v", x, x0+18)
	}
	// Old steps again, holding Right: ignored.
	send(input(7, R, R, R, R, R, R, R, R))
	// Bits 6 and 7: dropped whole, although its steps are new.
	send(input(9, 0x40|R, R))
	send(input(9, 0x80, R))
	c.pumpUntil(300*time.Millisecond, nil)
	if x = shipAt(t, c, ship, 7); x != x0+18 {
		t.Fatalf("after stale and invalid Inputs: x %v, want %v", x, x0+18)
	}
	// 8 new steps at once: the 4 lowest are skipped (latency bound).
	send(input(15, 0, R, R, R, R, R, R, R))
	if x = shipAt(t, c, ship, 15); x != x0+18+18 {
		t.Fatalf("after a burst: x %v, want %v", x, x0+36)
	}
}
