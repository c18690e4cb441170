package bot

import (
	"math/rand/v2"
	"testing"

	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wire"
)

// stageBrain is a Stage brain of player 0 at home x 200 that charges for
// 72 ticks.
func stageBrain() *Brain {
	b := NewMode(0, wire.ModeStage, rand.New(rand.NewPCG(1, 2)))
	b.homeX, b.chargeFor = 200, 72
	return b
}

func foe(id uint32, kind uint8, x, y float32) client.Entity {
	return client.Entity{ID: id, Kind: kind, Owner: wire.NoPlayer, X: x, Y: y, VX: -60}
}

// run calls Decide n times with f and returns the actions of each call.
func run(b *Brain, f *client.Frame, n int) []uint8 {
	acts := make([]uint8, n)
	for i := range acts {
		acts[i] = b.Decide(f)
	}
	return acts
}

// held returns how many calls from the first held bit, and at which call
// it was first let go (-1 if never).
func held(acts []uint8, bit uint8) (n, release int) {
	release = -1
	for i, a := range acts {
		if a&bit == 0 {
			release = i
			break
		}
		n++
	}
	return n, release
}

func TestNewModeHabits(t *testing.T) {
	for seed := range uint64(50) {
		c := New(0, rand.New(rand.NewPCG(seed, 7)))
		s := NewMode(0, wire.ModeStage, rand.New(rand.NewPCG(seed, 7)))
		if c.stage || !s.stage || c.homeX != s.homeX || c.lookY != s.lookY {
			t.Fatalf("seed %d: classic %+v, stage %+v: the same habits but the mode", seed, c, s)
		}
		if s.chargeFor < 60 || s.chargeFor > 96 {
			t.Fatalf("seed %d: charge of %d ticks, want 1 to 1.6 s", seed, s.chargeFor)
		}
	}
	if b := NewMode(0, wire.ModeAny, rand.New(rand.NewPCG(1, 2))); b.stage {
		t.Fatal("a brain of ModeAny plays Stage; the client's Mode is Classic or Stage")
	}
}

// A Classic brain never charges nor touches the Force, even in a world
// with Stage kinds: it holds Fire as long as a Bydos is in line.
func TestClassicHoldsFireAndNoForce(t *testing.T) {
	b := testBrain()
	f := frameWith(ship(200, 360), foe(3, wire.KindBydosSlave, 900, 360),
		client.Entity{ID: 4, Kind: wire.KindForce, Owner: 0, X: 230, Y: 360})
	for i, a := range run(b, f, 200) {
		if a&wire.ActionFire == 0 || a&wire.ActionForce != 0 {
			t.Fatalf("call %d: actions %#x, want Fire held and no Force", i, a)
		}
	}
}

// An armoured foe in line: Fire is held for the brain's charge time, then
// let go (the beam), then held again for the next charge.
func TestChargesAtArmored(t *testing.T) {
	for _, kind := range []uint8{wire.KindArmored, wire.KindBossCore, wire.KindMidBoss} {
		b := stageBrain()
		f := frameWith(ship(200, 360), foe(3, kind, 900, 365))
		acts := run(b, f, 200)
		n, release := held(acts, wire.ActionFire)
		if n != b.chargeFor || release != b.chargeFor {
			t.Fatalf("kind %d: Fire held %d calls, let go at %d, want %d", kind, n, release, b.chargeFor)
		}
		// Up for tapOff calls, then the next charge.
		if n2, _ := held(acts[release+tapOff:], wire.ActionFire); n2 != b.chargeFor {
			t.Fatalf("kind %d: second charge of %d calls", kind, n2)
		}
		if a := acts[release+tapOff-1]; a&wire.ActionFire != 0 {
			t.Fatalf("kind %d: Fire down %d calls after the release", kind, tapOff-1)
		}
	}
}

// Three foes in the ship's line are worth a charge; two are tapped at.
func TestChargesAtDenseLine(t *testing.T) {
	b := stageBrain()
	f := frameWith(ship(200, 360), foe(3, wire.KindChaser, 700, 350), foe(4, wire.KindChaser, 800, 370), foe(5, wire.KindBydosSlave, 900, 360))
	if n, _ := held(run(b, f, 200), wire.ActionFire); n != b.chargeFor {
		t.Fatalf("Fire held %d calls at a line of three, want %d", n, b.chargeFor)
	}
	b = stageBrain()
	f = frameWith(ship(200, 360), foe(3, wire.KindChaser, 700, 350), foe(4, wire.KindChaser, 800, 370))
	if n, release := held(run(b, f, 200), wire.ActionFire); n != tapOn || release != tapOn {
		t.Fatalf("Fire held %d calls at two foes, want taps of %d", n, tapOn)
	}
}

// A single light foe in line: taps, tapOn calls down and tapOff up; no
// foe in line: no Fire.
func TestTapsAtLightFoes(t *testing.T) {
	b := stageBrain()
	f := frameWith(ship(200, 360), foe(3, wire.KindChaser, 900, 362))
	acts := run(b, f, 40)
	for i, a := range acts {
		down := i%(tapOn+tapOff) < tapOn
		if (a&wire.ActionFire != 0) != down {
			t.Fatalf("call %d: actions %#x, want Fire %v", i, a, down)
		}
	}
	// Out of line, behind, or a boss's body (shots stop on it): no Fire.
	for _, e := range []client.Entity{foe(3, wire.KindChaser, 900, 500), foe(3, wire.KindChaser, 100, 360), foe(3, wire.KindBoss, 1100, 360)} {
		b := stageBrain()
		for i, a := range run(b, frameWith(ship(200, 360), e), 30) {
			if a&wire.ActionFire != 0 {
				t.Fatalf("%+v: call %d: Fire", e, i)
			}
		}
	}
}

// A charge whose target leaves the line is still released as a beam,
// after beamMin calls.
func TestChargeReleasedWhenTargetLeaves(t *testing.T) {
	b := stageBrain()
	run(b, frameWith(ship(200, 360), foe(3, wire.KindArmored, 900, 360)), 5)
	acts := run(b, frameWith(ship(200, 360)), 40)
	n, release := held(acts, wire.ActionFire)
	if n+5 != beamMin || release != beamMin-5 {
		t.Fatalf("held %d more calls after the target left, want up to %d in all", n, beamMin)
	}
}

// Dodging a big boss bullet by its box: it comes at the ship 15 px below
// its centre, beyond a Classic missile's radius but within its box. One
// passing 40 px below leaves room enough: the bot stays.
func TestDodgesBossBullet(t *testing.T) {
	b := stageBrain()
	act := b.Decide(frameWith(ship(200, 360), client.Entity{ID: 2, Kind: wire.KindBossBullet, X: 400, Y: 375, VX: -400}))
	if act&wire.ActionUp == 0 || act&wire.ActionDown != 0 {
		t.Fatalf("actions %#x, want Up", act)
	}
	// (A foe far ahead keeps the bot at its y.)
	act = stageBrain().Decide(frameWith(ship(200, 360), foe(3, wire.KindChaser, 1200, 360),
		client.Entity{ID: 2, Kind: wire.KindBossBullet, X: 400, Y: 400, VX: -400}))
	if act&(wire.ActionUp|wire.ActionDown) != 0 {
		t.Fatalf("actions %#x for a bullet passing 40 px below, want none", act)
	}
	// A power-up coming at the ship is no threat.
	act = stageBrain().Decide(frameWith(ship(200, 360), client.Entity{ID: 2, Kind: wire.KindPowerUp, X: 300, Y: 360, VX: -100}))
	if act&(wire.ActionUp|wire.ActionDown) != 0 {
		t.Fatalf("actions %#x: dodged a power-up", act)
	}
}

// An item below and ahead: the bot goes for it, leaving its home; with a
// missile coming it dodges instead; an item far ahead is left to come.
func TestFetchesItemsWhenSafe(t *testing.T) {
	item := client.Entity{ID: 5, Kind: wire.KindPowerUp, Owner: wire.NoPlayer, X: 400, Y: 500, VX: -60}
	act := stageBrain().Decide(frameWith(ship(200, 360), item))
	if act != wire.ActionDown|wire.ActionRight {
		t.Fatalf("actions %#x, want Down|Right towards the item", act)
	}
	// Past home too: no Left pulling it back.
	act = stageBrain().Decide(frameWith(ship(300, 500), item))
	if act != wire.ActionRight {
		t.Fatalf("actions %#x beside the item, want Right", act)
	}
	// A missile crossing the way to the item: the bot goes another way.
	act = stageBrain().Decide(frameWith(ship(200, 360), item,
		client.Entity{ID: 6, Kind: wire.KindEnemyMissile, X: 420, Y: 440, VX: -300}))
	if act == wire.ActionDown|wire.ActionRight {
		t.Fatalf("actions %#x: into the missile on the way to the item", act)
	}
	// One that passes well away from the way: the bot goes on.
	act = stageBrain().Decide(frameWith(ship(200, 360), item,
		client.Entity{ID: 6, Kind: wire.KindEnemyMissile, X: 400, Y: 365, VX: -300}))
	if act != wire.ActionDown|wire.ActionRight {
		t.Fatalf("actions %#x with a missile passing behind, want Down|Right", act)
	}
	// Far ahead: the bot stays home, in its lane (player 0's: y 110).
	item.X = 1000
	if act := stageBrain().Decide(frameWith(ship(200, 110), item)); act != 0 {
		t.Fatalf("actions %#x for an item far ahead, want none", act)
	}
	// Near the floor: the bot stops short of the edge.
	item.X, item.Y = 200, 715
	if act := stageBrain().Decide(frameWith(ship(200, 660), item)); act&wire.ActionDown != 0 {
		t.Fatalf("actions %#x: went for an item at the floor's edge", act)
	}
}

// The Force: launched at a boss in front when attached at the front, held
// forceHold calls, then not pressed again for forceRest.
func TestLaunchesForceAtBoss(t *testing.T) {
	b := stageBrain()
	force := client.Entity{ID: 4, Kind: wire.KindForce, Owner: 0, X: 230, Y: 360}
	f := frameWith(ship(200, 360), force, foe(9, wire.KindBoss, 1100, 360), foe(10, wire.KindBossCore, 1050, 300))
	acts := run(b, f, forceRest+10)
	if n, release := held(acts, wire.ActionForce); n != forceHold || release != forceHold {
		t.Fatalf("Force held %d calls, want %d", n, forceHold)
	}
	for i := forceHold; i <= forceRest; i++ {
		if acts[i]&wire.ActionForce != 0 {
			t.Fatalf("call %d: Force pressed again within %d calls", i, forceRest)
		}
	}
	// Attached at the back: not launched.
	force.X = 170
	for i, a := range run(stageBrain(), frameWith(ship(200, 360), force, foe(9, wire.KindBoss, 1100, 360)), 10) {
		if a&wire.ActionForce != 0 {
			t.Fatalf("call %d: launched a Force attached at the back", i)
		}
	}
	// Another player's Force, or nothing worth it in front: not pressed.
	other := client.Entity{ID: 4, Kind: wire.KindForce, Owner: 1, X: 230, Y: 360}
	for _, f := range []*client.Frame{
		frameWith(ship(200, 360), other, foe(9, wire.KindBoss, 1100, 360)),
		frameWith(ship(200, 360), client.Entity{ID: 4, Kind: wire.KindForce, Owner: 0, X: 230, Y: 360}, foe(3, wire.KindChaser, 900, 360)),
	} {
		for i, a := range run(stageBrain(), f, 10) {
			if a&wire.ActionForce != 0 {
				t.Fatalf("call %d: Force pressed in %+v", i, f.Entities)
			}
		}
	}
}

// A crowd in front (three foes near the ship's line) is worth the Force.
func TestLaunchesForceAtCrowd(t *testing.T) {
	f := frameWith(ship(200, 360), client.Entity{ID: 4, Kind: wire.KindForce, Owner: 0, X: 230, Y: 360},
		foe(5, wire.KindChaser, 500, 300), foe(6, wire.KindChaser, 550, 420), foe(7, wire.KindBydosSlave, 600, 360))
	if a := stageBrain().Decide(f); a&wire.ActionForce == 0 {
		t.Fatalf("actions %#x, want Force", a)
	}
}

// A Force attached at the back is launched (backward) at a foe coming
// from behind, and not for a crowd in front nor for a foe behind far
// from the ship's line.
func TestLaunchesBackForceAtFoeBehind(t *testing.T) {
	back := client.Entity{ID: 4, Kind: wire.KindForce, Owner: 0, X: 272, Y: 360} // attached: 28 px behind
	for _, c := range []struct {
		why  string
		foes []client.Entity
		want bool
	}{
		{"a chaser behind", []client.Entity{foe(5, wire.KindChaser, 40, 380)}, true},
		{"a chaser behind, off the line", []client.Entity{foe(5, wire.KindChaser, 40, 600)}, false},
		{"a crowd in front", []client.Entity{foe(5, wire.KindChaser, 500, 300), foe(6, wire.KindChaser, 550, 420), foe(7, wire.KindBydosSlave, 600, 360)}, false},
		{"nothing", nil, false},
	} {
		f := frameWith(append([]client.Entity{ship(300, 360), back}, c.foes...)...)
		if a := stageBrain().Decide(f); (a&wire.ActionForce != 0) != c.want {
			t.Errorf("%s: actions %#x, want Force %v", c.why, a, c.want)
		}
	}
}

// A loose Force far away is recalled; a flying one nearby once nothing
// was worth fighting for forceIdle calls; a stopped one after forceWait.
func TestRecallsForce(t *testing.T) {
	far := frameWith(ship(200, 360), client.Entity{ID: 4, Kind: wire.KindForce, Owner: 0, X: 900, Y: 360, VX: 300})
	if a := stageBrain().Decide(far); a&wire.ActionForce == 0 {
		t.Fatalf("actions %#x with the Force 700 px away, want Force", a)
	}
	first := func(acts []uint8) int {
		for i, a := range acts {
			if a&wire.ActionForce != 0 {
				return i
			}
		}
		return -1
	}
	flying := client.Entity{ID: 4, Kind: wire.KindForce, Owner: 0, X: 400, Y: 300, VX: 200, VY: -50}
	if i := first(run(stageBrain(), frameWith(ship(200, 360), flying), forceIdle+5)); i != forceIdle {
		t.Fatalf("idle loose Force recalled at call %d, want %d", i, forceIdle)
	}
	stopped := client.Entity{ID: 4, Kind: wire.KindForce, Owner: 0, X: 400, Y: 300}
	if i := first(run(stageBrain(), frameWith(ship(200, 360), stopped), forceIdle)); i != forceWait {
		t.Fatalf("stopped loose Force recalled at call %d, want %d", i, forceWait)
	}
	// While a crowd is in front, a flying Force stays out.
	busy := frameWith(ship(200, 360), flying,
		foe(5, wire.KindChaser, 500, 300), foe(6, wire.KindChaser, 550, 420), foe(7, wire.KindBydosSlave, 600, 360))
	if i := first(run(stageBrain(), busy, 2*forceIdle)); i >= 0 {
		t.Fatalf("call %d: recalled the Force in a fight", i)
	}
}

// Each bot lines up with the foes of its lane, so that four bots do not
// bunch where every aimed shot flies; with none ahead it goes back to its
// lane; a boss's core draws them all.
func TestKeepsToItsLane(t *testing.T) {
	lanes := [wire.MaxPlayers]float32{110, 110 + 500.0/3, 110 + 1000.0/3, 610}
	for p, lane := range lanes {
		b := NewMode(uint8(p), wire.ModeStage, rand.New(rand.NewPCG(1, 2)))
		if got := b.laneY(); abs(got-lane) > 0.01 {
			t.Fatalf("player %d: lane %v, want %v", p, got, lane)
		}
	}
	b := stageBrain() // player 0: lane 110
	// A foe ahead at 360 and one farther at 170: the one of the lane.
	f := frameWith(ship(200, 360), foe(3, wire.KindChaser, 500, 360), foe(4, wire.KindChaser, 800, 170))
	if act := b.Decide(f); act&wire.ActionUp == 0 {
		t.Fatalf("actions %#x, want Up to the foe of its lane", act)
	}
	if act := stageBrain().Decide(frameWith(ship(200, 360))); act != wire.ActionUp {
		t.Fatalf("actions %#x with no foe, want Up to its lane", act)
	}
	f = frameWith(ship(200, 360), foe(4, wire.KindChaser, 800, 170), foe(5, wire.KindBossCore, 1000, 500))
	if act := stageBrain().Decide(f); act&wire.ActionDown == 0 {
		t.Fatalf("actions %#x, want Down to the boss's core", act)
	}
}

// Without its ship the brain forgets its charge: the next ship starts
// with Fire up.
func TestStageResetsOnDeath(t *testing.T) {
	b := stageBrain()
	run(b, frameWith(ship(200, 360), foe(3, wire.KindArmored, 900, 360)), 20)
	if a := b.Decide(frameWith(foe(3, wire.KindArmored, 900, 360))); a != 0 {
		t.Fatalf("actions %#x without a ship", a)
	}
	if b.st != (stageState{}) {
		t.Fatalf("state %+v kept without a ship", b.st)
	}
}

// busyFrame is a Stage frame of a busy moment: the ship, its Force, a
// boss, 40 foes, 40 enemy shots and 4 items.
func busyFrame() *client.Frame {
	ents := []client.Entity{ship(200, 360), {ID: 2, Kind: wire.KindForce, Owner: 0, X: 230, Y: 360},
		foe(3, wire.KindBoss, 1100, 360), foe(4, wire.KindBossCore, 1040, 360)}
	for i := range 40 {
		ents = append(ents, foe(uint32(10+i), []uint8{wire.KindChaser, wire.KindArmored, wire.KindTurret, wire.KindPowArmor}[i%4],
			float32(500+15*i), float32(60+15*i)))
		ents = append(ents, client.Entity{ID: uint32(60 + i), Kind: wire.KindEnemyMissile, X: float32(400 + 20*i), Y: float32(700 - 15*i), VX: -300, VY: 40})
	}
	for i := range 4 {
		ents = append(ents, client.Entity{ID: uint32(110 + i), Kind: wire.KindPowerUp, X: float32(300 + 100*i), Y: 200, VX: -60})
	}
	return frameWith(ents...)
}

// Deciding allocates nothing, in either mode.
func TestDecideAllocatesNothing(t *testing.T) {
	f := busyFrame()
	for _, b := range []*Brain{testBrain(), stageBrain()} {
		testutil.NoAllocs(t, 1000, "Decide", func() { b.Decide(f) })
	}
}

func BenchmarkDecideStage(b *testing.B) {
	br, f := stageBrain(), busyFrame()
	b.ReportAllocs()
	for b.Loop() {
		br.Decide(f)
	}
}

// Near the top edge, a shot coming at the ship: the way out is down, away
// from the edge, even when the shot passes a little below the ship's
// centre.
func TestDodgesAwayFromEdges(t *testing.T) {
	act := stageBrain().Decide(frameWith(ship(200, 20), client.Entity{ID: 2, Kind: wire.KindEnemyMissile, X: 350, Y: 24, VX: -300}))
	if act&wire.ActionDown == 0 || act&wire.ActionUp != 0 {
		t.Fatalf("actions %#x at the top edge, want Down", act)
	}
}

// The brain plans with the speed its ship last moved at: a speed-up makes
// it faster, the death that takes it slower again.
func TestObservesSpeed(t *testing.T) {
	b := stageBrain()
	if b.speed != stageSpeed {
		t.Fatalf("speed %v at first, want %v", b.speed, stageSpeed)
	}
	for _, c := range []struct{ vx, vy, want float32 }{
		{0, 0, stageSpeed}, {330, 0, 330}, {0, -390, 390}, {-233.34524, 233.34524, 330}, {0, 0, 330}, {270, 0, 270},
	} {
		s := ship(200, 360)
		s.VX, s.VY = c.vx, c.vy
		b.observeSpeed(s)
		if abs(b.speed-c.want) > 0.01 {
			t.Fatalf("ship moving at (%v, %v): speed %v, want %v", c.vx, c.vy, b.speed, c.want)
		}
	}
}
