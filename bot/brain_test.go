package bot

import (
	"math/rand/v2"
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

func testBrain() *Brain {
	b := New(0, rand.New(rand.NewPCG(1, 2)))
	b.homeX = 200
	return b
}

func TestDodgesMissileComingAtTheShip(t *testing.T) {
	b := testBrain()
	// An enemy missile flying straight at the ship from the right, slightly
	// below its center: the bot goes up.
	act := b.Decide(frameWith(ship(200, 360),
		client.Entity{ID: 2, Kind: wire.KindEnemyMissile, X: 400, Y: 365, VX: -300}))
	if act&wire.ActionUp == 0 || act&wire.ActionDown != 0 {
		t.Fatalf("actions %#x, want Up", act)
	}
	// Near the top edge it goes down instead.
	act = b.Decide(frameWith(ship(200, 20),
		client.Entity{ID: 2, Kind: wire.KindEnemyMissile, X: 400, Y: 25, VX: -300}))
	if act&wire.ActionDown == 0 {
		t.Fatalf("actions %#x at the top edge, want Down", act)
	}
	// A missile flying away is no threat: the bot does not dodge.
	act = b.Decide(frameWith(ship(200, 360),
		client.Entity{ID: 2, Kind: wire.KindEnemyMissile, X: 400, Y: 360, VX: 300}))
	if act&(wire.ActionUp|wire.ActionDown) != 0 {
		t.Fatalf("actions %#x for a missile flying away", act)
	}
}

func TestAlignsAndFires(t *testing.T) {
	b := testBrain()
	// A Bydos far ahead and above: move up, no fire yet.
	act := b.Decide(frameWith(ship(200, 400), client.Entity{ID: 3, Kind: wire.KindBydosSlave, X: 1100, Y: 300, VX: -100}))
	if act&wire.ActionUp == 0 || act&wire.ActionFire != 0 {
		t.Fatalf("actions %#x, want Up without Fire", act)
	}
	// Lined up: fire.
	act = b.Decide(frameWith(ship(200, 302), client.Entity{ID: 3, Kind: wire.KindBydosSlave, X: 1100, Y: 300, VX: -100}))
	if act&wire.ActionFire == 0 {
		t.Fatalf("actions %#x, want Fire", act)
	}
}

func TestStaysInTheLeftThird(t *testing.T) {
	b := testBrain()
	if act := b.Decide(frameWith(ship(600, 360))); act&wire.ActionLeft == 0 {
		t.Fatalf("actions %#x at x=600, want Left", act)
	}
	if act := b.Decide(frameWith(ship(40, 360))); act&wire.ActionRight == 0 {
		t.Fatalf("actions %#x at x=40, want Right", act)
	}
	if act := b.Decide(frameWith()); act != 0 {
		t.Fatalf("actions %#x without a ship", act)
	}
	for range 100 {
		b := New(0, rand.New(rand.NewPCG(rand.Uint64(), 0)))
		if b.homeX < 60 || b.homeX > 1280/3-40 {
			t.Fatalf("home x %v outside the left third", b.homeX)
		}
	}
}

// Present brings a v2 frame's motions to the server's present: a Bydos
// received 100 ms ago is 6 ticks further along its motion; a v1 entity
// stays where the frame has it.
func TestPresent(t *testing.T) {
	t0 := time.Unix(100, 0)
	m := wire.Linear(94, 1000, 300, -120, 0)
	f := frameWith(ship(200, 360),
		client.Entity{ID: 2, Kind: wire.KindBydosSlave, X: 988, Y: 300, VX: -120, Tick: 100, HasMotion: true, Motion: m},
		client.Entity{ID: 3, Kind: wire.KindEnemyMissile, X: 500, Y: 300, VX: -300, Tick: 100})
	f.Received = t0
	Present(f, t0.Add(100*time.Millisecond))
	if e := f.Entities[1]; e.X != 976 || e.Y != 300 || e.VX != -120 {
		t.Fatalf("Bydos at (%v, %v) v %v, want (976, 300) v -120", e.X, e.Y, e.VX)
	}
	if e := f.Entities[2]; e.X != 500 {
		t.Fatalf("v1 missile moved to %v", e.X)
	}
	// At most half a second ahead.
	Present(f, t0.Add(time.Hour))
	if e := f.Entities[1]; e.X != 1000-120*(100+30-94)/60.0 {
		t.Fatalf("Bydos at %v after an hour", e.X)
	}
}
