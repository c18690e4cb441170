package main

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
)

func frameWith(ents ...client.Entity) *client.Frame {
	f := &client.Frame{Tick: 100, Entities: ents}
	f.Players[0] = client.Player{Present: true, HasShip: true, Ship: 1, Lives: 3}
	return f
}

func ship(x, y float32) client.Entity {
	return client.Entity{ID: 1, Kind: wire.KindPlayerShip, Owner: 0, X: x, Y: y}
}

func testBrain() *brain {
	b := newBrain(0, rand.New(rand.NewPCG(1, 2)))
	b.homeX = 200
	return b
}

func TestDodgesMissileComingAtTheShip(t *testing.T) {
	b := testBrain()
	// An enemy missile flying straight at the ship from the right, slightly
	// below its center: the bot goes up.
	act := b.decide(frameWith(ship(200, 360),
		client.Entity{ID: 2, Kind: wire.KindEnemyMissile, X: 400, Y: 365, VX: -300}))
	if act&wire.ActionUp == 0 || act&wire.ActionDown != 0 {
		t.Fatalf("actions %#x, want Up", act)
	}
	// Near the top edge it goes down instead.
	act = b.decide(frameWith(ship(200, 20),
		client.Entity{ID: 2, Kind: wire.KindEnemyMissile, X: 400, Y: 25, VX: -300}))
	if act&wire.ActionDown == 0 {
		t.Fatalf("actions %#x at the top edge, want Down", act)
	}
	// A missile flying away is no threat: the bot does not dodge.
	act = b.decide(frameWith(ship(200, 360),
		client.Entity{ID: 2, Kind: wire.KindEnemyMissile, X: 400, Y: 360, VX: 300}))
	if act&(wire.ActionUp|wire.ActionDown) != 0 {
		t.Fatalf("actions %#x for a missile flying away", act)
	}
}

func TestAlignsAndFires(t *testing.T) {
	b := testBrain()
	// A Bydos far ahead and above: move up, no fire yet.
	act := b.decide(frameWith(ship(200, 400), client.Entity{ID: 3, Kind: wire.KindBydosSlave, X: 1100, Y: 300, VX: -100}))
	if act&wire.ActionUp == 0 || act&wire.ActionFire != 0 {
		t.Fatalf("actions %#x, want Up without Fire", act)
	}
	// Lined up: fire.
	act = b.decide(frameWith(ship(200, 302), client.Entity{ID: 3, Kind: wire.KindBydosSlave, X: 1100, Y: 300, VX: -100}))
	if act&wire.ActionFire == 0 {
		t.Fatalf("actions %#x, want Fire", act)
	}
}

func TestStaysInTheLeftThird(t *testing.T) {
	b := testBrain()
	if act := b.decide(frameWith(ship(600, 360))); act&wire.ActionLeft == 0 {
		t.Fatalf("actions %#x at x=600, want Left", act)
	}
	if act := b.decide(frameWith(ship(40, 360))); act&wire.ActionRight == 0 {
		t.Fatalf("actions %#x at x=40, want Right", act)
	}
	if act := b.decide(frameWith()); act != 0 {
		t.Fatalf("actions %#x without a ship", act)
	}
	for range 100 {
		b := newBrain(0, rand.New(rand.NewPCG(rand.Uint64(), 0)))
		if b.homeX < 60 || b.homeX > 1280/3-40 {
			t.Fatalf("home x %v outside the left third", b.homeX)
		}
	}
}

func TestLoginGate(t *testing.T) {
	g := newLoginGate(5, 10*time.Second, 100*time.Millisecond)
	t0 := time.Now()
	var slots []time.Duration
	for range 12 {
		slots = append(slots, g.reserve().Sub(t0))
	}
	near := func(got, want time.Duration) bool { return got >= want && got < want+50*time.Millisecond }
	for i, want := range []time.Duration{0, 100, 200, 300, 400, 10000, 10100, 10200, 10300, 10400, 20000, 20100} {
		if !near(slots[i], want*time.Millisecond) {
			t.Fatalf("slot %d at %v, want %v ms", i, slots[i], want)
		}
	}
	// At most 5 in any window of 10 s.
	for i := 5; i < len(slots); i++ {
		if slots[i]-slots[i-5] < 10*time.Second {
			t.Fatalf("slots %d and %d less than 10 s apart", i-5, i)
		}
	}
	g = newLoginGate(5, 10*time.Second, 100*time.Millisecond)
	g.reserve()
	g.backOff()
	if d := time.Until(g.reserve()); d < 9*time.Second {
		t.Fatalf("after a back-off the next slot is in %v, want a whole window", d)
	}
}

func TestFlags(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-n", "0"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "-n must be at least 1") {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	errs.Reset()
	if code := run([]string{"-name", "x"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "3 to 20 characters") {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	o, err := parse(nil, &errs)
	if err != nil || o.addr != "127.0.0.1:4242" || o.n != 1 || o.name != "bot" || o.duration != 0 || o.seed == 0 {
		t.Fatalf("defaults %+v, %v", o, err)
	}
	// A server that is not there: exit status 1 with a readable error.
	out.Reset()
	errs.Reset()
	if code := run([]string{"-addr", "127.0.0.1:1", "-log-level", "error"}, &out, &errs); code != 1 || !strings.Contains(out.String(), "bot1: error: cannot reach server 127.0.0.1:1") {
		t.Fatalf("exit %d, stdout %q", code, out.String())
	}
}
