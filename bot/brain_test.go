package bot

import (
	"math/rand/v2"
	"testing"

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
