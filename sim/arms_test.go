package sim

import (
	"math"
	"testing"

	"rtype/internal/testutil"
	"rtype/net/wire"
)

// Tests of the player's side of Stage mode, tick by tick. The stage
// runner is not involved: foes are placed with spawnFoe, items with
// dropItem or takeItem.

// armsWorld returns a Stage world with players 0..n-1 in it, without
// join invulnerability, its events taken.
func armsWorld(t testing.TB, n int) *World {
	t.Helper()
	r := DefaultRules()
	r.JoinInvulnTicks = 0
	w, err := NewStage(r, quietStage(t), 1, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for p := range n {
		w.AddPlayer(uint8(p), "P")
	}
	w.TakeEvents()
	return w
}

// armsRun sets player p's input to actions and steps n times; it returns a
// copy of the events.
func armsRun(w *World, p uint8, actions uint8, n int) []wire.Event {
	w.SetInput(p, actions)
	return stepN(w, n)
}

func armsEvents(evs []wire.Event, typ wire.EventType) []wire.Event {
	var out []wire.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// armsDestroy returns the Destroy of id in evs, if any.
func armsDestroy(evs []wire.Event, id uint32) (wire.Event, bool) {
	for _, e := range evs {
		if e.Type == wire.EventDestroy && e.ID == id {
			return e, true
		}
	}
	return wire.Event{}, false
}

// armsFoe places a still foe of kind that never fires nor drops, with hp
// hit points (0: it cannot be hurt), and returns its slot. (Not through
// spawnFoe, whose kinds fly at their own speeds and scale their hit
// points: these tests want foes that stay put.)
func armsFoe(t testing.TB, w *World, kind uint8, x, y float64, hp int32) int32 {
	t.Helper()
	w.ids.ripen(w.tick)
	s := w.spawn(kind, wire.Stationary(w.tick, x, y), wire.Anim{}, wire.NoPlayer)
	if s == 0 {
		t.Fatal("no slot for a foe")
	}
	e := w.ent(s)
	w.cold(e).hp, w.cold(e).maxHP = hp, hp
	w.cold(e).foe.score, w.cold(e).foe.drop = 100, noDrop
	w.TakeEvents()
	return s
}

// armsShot places an enemy shot of kind moving at (vx, vy).
func armsShot(w *World, kind uint8, x, y, vx, vy float64) int32 {
	w.ids.ripen(w.tick)
	s := w.spawn(kind, wire.Linear(w.tick, x, y, vx, vy), wire.Anim{}, wire.NoPlayer)
	w.TakeEvents()
	return s
}

// armsForce returns player p's Force.
func armsForce(t testing.TB, w *World, p uint8) *entity {
	t.Helper()
	f := w.pl[p].arms.force
	if f == 0 || !w.ent(f).alive {
		t.Fatalf("player %d has no Force", p)
	}
	return w.ent(f)
}

// armsGiveForce gives player p a Force attached at its back: a red laser
// item, then the ticks it takes to fly in from the left edge.
func armsGiveForce(t testing.TB, w *World, p uint8) *entity {
	t.Helper()
	w.takeItem(p, wire.ItemLaserRed)
	for range 100 {
		w.Step()
		w.TakeEvents()
		if w.pl[p].arms.a.ForceAt == wire.ForceBack || w.pl[p].arms.a.ForceAt == wire.ForceFront {
			return armsForce(t, w, p)
		}
	}
	t.Fatal("the Force never attached")
	return nil
}

// armsAttach steps w, player 0 holding actions, until its loose Force
// attaches, at most n ticks.
func armsAttach(t testing.TB, w *World, actions uint8, n int) {
	t.Helper()
	for i := 0; w.pl[0].arms.a.ForceAt == wire.ForceLoose; i++ {
		if i > n {
			t.Fatalf("the Force did not attach in %d ticks", n)
		}
		armsRun(w, 0, actions, 1)
	}
}

func armsNear(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestChargeLevel(t *testing.T) {
	r := DefaultArmsRules()
	for _, c := range []struct{ held, want int }{
		{0, 0}, {1, 0}, {23, 0}, {24, 1}, {59, 1}, {60, 2}, {95, 2}, {96, 3}, {10000, 3},
	} {
		if got := r.ChargeLevel(c.held); got != c.want {
			t.Errorf("ChargeLevel(%d) = %d, want %d", c.held, got, c.want)
		}
	}
}

// Holding Fire n ticks then releasing it: one missile at the press, no
// other while held, and at the release a beam of ChargeLevel(n), none for
// a short tap.
func TestChargeAndRelease(t *testing.T) {
	r := DefaultArmsRules()
	for _, n := range []int{1, 5, 23, 24, 59, 60, 95, 96, 200} {
		w := armsWorld(t, 1)
		press := w.tick + 1
		evs := armsRun(w, 0, wire.ActionFire, n)
		if b := spawnsOf(evs, wire.KindWaveBeam); len(b) != 0 {
			t.Errorf("held %d: a beam while Fire is held", n)
		}
		release := w.tick + 1
		evs = append(evs, armsRun(w, 0, 0, 1)...)
		m := spawnsOf(evs, wire.KindPlayerMissile)
		if len(m) != 1 || m[0].Tick != press {
			t.Errorf("held %d: missiles %v, want one at the press (tick %d)", n, m, press)
		}
		want := r.ChargeLevel(n)
		b := spawnsOf(evs, wire.KindWaveBeam)
		if want == 0 {
			if len(b) != 0 {
				t.Errorf("held %d: a beam after a short tap", n)
			}
			continue
		}
		if len(b) != 1 || b[0].Tick != release || b[0].Anim.Frame0 != uint8(want) || b[0].Owner != 0 {
			t.Fatalf("held %d: beams %+v, want one of level %d at tick %d", n, b, want, release)
		}
		e := w.ent(int32(wire.Index(b[0].ID)))
		bw, bh := r.BeamSize(want)
		if w.halfOf(e).w != bw/2 || w.halfOf(e).h != bh/2 || e.frame != uint8(want) || w.cold(e).arm.dmg != r.BeamDamage[want-1] {
			t.Errorf("held %d: beam box %gx%g frame %d dmg %d, want %gx%g, %d, %d", n, 2*w.halfOf(e).w, 2*w.halfOf(e).h, e.frame, w.cold(e).arm.dmg, bw, bh, want, r.BeamDamage[want-1])
		}
	}
}

// Taps shoot missiles, one per press, never faster than FireInterval.
func TestTapsKeepTheCooldown(t *testing.T) {
	w := armsWorld(t, 1)
	var evs []wire.Event
	evs = append(evs, armsRun(w, 0, wire.ActionFire, 1)...) // tick 1: missile, cooldown 10
	evs = append(evs, armsRun(w, 0, 0, 1)...)
	evs = append(evs, armsRun(w, 0, wire.ActionFire, 1)...) // tick 3: cooling down
	evs = append(evs, armsRun(w, 0, 0, 7)...)
	evs = append(evs, armsRun(w, 0, wire.ActionFire, 1)...) // tick 11: missile
	evs = append(evs, armsRun(w, 0, 0, 1)...)
	m := spawnsOf(evs, wire.KindPlayerMissile)
	if len(m) != 2 || m[0].Tick != 1 || m[1].Tick != 11 {
		t.Fatalf("missiles at %v, want ticks 1 and 11", m)
	}
	if len(spawnsOf(evs, wire.KindWaveBeam)) != 0 {
		t.Error("taps fired a beam")
	}
}

// A beam crosses a row of foes, hurting each once by its level's damage.
func TestBeamPierces(t *testing.T) {
	r := DefaultArmsRules()
	for l := 1; l <= 3; l++ {
		w := armsWorld(t, 1)
		var foes []int32
		var ids []uint32
		for _, x := range []float64{400, 520, 640, 760} {
			s := armsFoe(t, w, wire.KindPowArmor, x, 180, 20)
			foes = append(foes, s)
			ids = append(ids, w.id(s))
		}
		w.fireBeam(0, l)
		evs := w.TakeEvents()
		b := spawnsOf(evs, wire.KindWaveBeam)
		if len(b) != 1 {
			t.Fatalf("level %d: no beam", l)
		}
		evs = armsRun(w, 0, 0, 60)
		for i, s := range foes {
			want := 20 - r.BeamDamage[l-1]
			if want <= 0 {
				if d, ok := armsDestroy(evs, ids[i]); !ok || d.Reason != wire.DestroyKilled {
					t.Errorf("level %d: foe %d not killed", l, i)
				}
				continue
			}
			if e := w.ent(s); !e.alive || w.cold(e).hp != want {
				t.Errorf("level %d: foe %d hp %d, want %d (hurt once)", l, i, w.cold(e).hp, want)
			}
		}
		if d, ok := armsDestroy(evs, b[0].ID); ok && d.Reason != wire.DestroyDespawned {
			t.Errorf("level %d: the beam was %d, want it to fly on through the foes", l, d.Reason)
		}
	}
}

// A beam stops on a boss's body: what is behind it is safe.
func TestBeamStopsOnBossBody(t *testing.T) {
	w := armsWorld(t, 1)
	armsFoe(t, w, wire.KindBoss, 420, 180, 0)
	behind := armsFoe(t, w, wire.KindPowArmor, 700, 180, 20)
	w.fireBeam(0, 3)
	b := spawnsOf(w.TakeEvents(), wire.KindWaveBeam)
	evs := armsRun(w, 0, 0, 60)
	if d, ok := armsDestroy(evs, b[0].ID); !ok || d.Reason != wire.DestroyConsumed {
		t.Errorf("the beam was not stopped by the boss's body: %+v", d)
	}
	if e := w.ent(behind); !e.alive || w.cold(e).hp != 20 {
		t.Errorf("the foe behind the body has hp %d, want 20", w.cold(e).hp)
	}
}

// The first laser item gives the Force: it enters from the left edge at
// the ship's height and attaches to the side it touches (here the back).
func TestForcePickupAndAttachBack(t *testing.T) {
	w := armsWorld(t, 1)
	sx, sy := w.ShipPos(0)
	w.dropItem(wire.ItemLaserRed, sx, sy)
	item := w.TakeEvents()[0]
	evs := armsRun(w, 0, 0, 1)
	if d, ok := armsDestroy(evs, item.ID); !ok || d.Reason != wire.DestroyConsumed {
		t.Fatalf("item not taken: %v", evs)
	}
	f := spawnsOf(evs, wire.KindForce)
	if len(f) != 1 || f[0].Owner != 0 || f[0].X != -13 || f[0].Y != float32(sy) {
		t.Fatalf("Force spawns %+v, want one at (-13, %g)", f, sy)
	}
	a := armsEvents(evs, wire.EventArms)
	if len(a) != 1 || a[0].Player != 0 || a[0].Arms != (wire.Arms{Force: 1, Laser: wire.LaserRed, ForceAt: wire.ForceLoose}) {
		t.Fatalf("Arms events %+v", a)
	}
	evs = armsRun(w, 0, 0, 30)
	a = armsEvents(evs, wire.EventArms)
	if len(a) != 1 || a[0].Arms.ForceAt != wire.ForceBack {
		t.Fatalf("Arms events %+v, want the Force attached at the back", a)
	}
	fe := armsForce(t, w, 0)
	if fe.x != sx-28 || fe.y != sy {
		t.Errorf("attached Force at (%g, %g), want (%g, %g)", fe.x, fe.y, sx-28, sy)
	}
}

// A Force waiting in the area attaches to the front of a ship that
// touches it from the left, and moves with the ship: same motion, offset.
func TestForceAttachFrontAndFollow(t *testing.T) {
	w := armsWorld(t, 1)
	w.SetShipPos(0, 300, 360)
	fe := armsGiveForce(t, w, 0)       // at the back
	armsRun(w, 0, wire.ActionForce, 1) // launched backward
	armsRun(w, 0, 0, 45)               // waiting near the left edge
	if w.pl[0].arms.a.ForceAt != wire.ForceLoose || fe.mo.Model != wire.ModelStationary {
		t.Fatalf("the Force is %d, model %d; want loose and waiting", w.pl[0].arms.a.ForceAt, fe.mo.Model)
	}
	fx := fe.x
	w.SetShipPos(0, fx+30, fe.y) // just in front of it
	armsAttach(t, w, wire.ActionLeft, 60)
	if w.pl[0].arms.a.ForceAt != wire.ForceBack {
		t.Fatalf("touched from the right: ForceAt %d, want back", w.pl[0].arms.a.ForceAt)
	}
	armsRun(w, 0, 0, 1)
	armsRun(w, 0, wire.ActionForce, 1) // launched backward again: it waits at the edge
	w.SetShipPos(0, 20, fe.y-60)       // to its left, above it
	armsRun(w, 0, 0, 45)
	armsAttach(t, w, wire.ActionDown, 60)
	if w.pl[0].arms.a.ForceAt != wire.ForceFront {
		sx, sy := w.ShipPos(0)
		t.Fatalf("ForceAt %d, want front; Force at (%g, %g), ship at (%g, %g)", w.pl[0].arms.a.ForceAt, fe.x, fe.y, sx, sy)
	}
	if _, sy := w.ShipPos(0); sy+8.5+13 < fe.y-60+13 {
		t.Errorf("attached at ship y %g, before touching the Force", sy)
	}
	for i, a := range []uint8{wire.ActionUp, wire.ActionUp | wire.ActionRight, 0, wire.ActionDown | wire.ActionLeft, wire.ActionUp} {
		if i == 4 { // into the top wall, which stops the ship within a tick
			w.SetShipPos(0, 300, 12)
		}
		armsRun(w, 0, a, 7)
		ship := w.ent(w.pl[0].slot)
		if i == 4 && ship.y != w.shipLoY {
			t.Fatalf("ship at y %g, want it against the wall", ship.y)
		}
		want := shifted(&ship.mo, 28, 0)
		if fe.mo != want || fe.x != ship.x+28 && !armsNear(fe.x, ship.x+28, 1.0/16) || !armsNear(fe.y, ship.y, 1.0/16) {
			t.Errorf("actions %#x: Force motion %+v at (%g, %g), ship %+v at (%g, %g)", a, fe.mo, fe.x, fe.y, ship.mo, ship.x, ship.y)
		}
	}
}

// ActionForce launches an attached Force forward (from the front) or
// backward (from the back); pressed again, it recalls it, and it attaches
// where it touches.
func TestForceLaunchAndRecall(t *testing.T) {
	w := armsWorld(t, 1)
	w.SetShipPos(0, 300, 360)
	fe := armsGiveForce(t, w, 0) // back, at x 272
	x0 := fe.x
	armsRun(w, 0, wire.ActionForce, 1)
	if w.pl[0].arms.a.ForceAt != wire.ForceLoose {
		t.Fatal("not launched")
	}
	armsRun(w, 0, wire.ActionForce, 30) // held: no second press
	if fe.x > x0-200 || fe.x < 40-12 || w.pl[0].arms.a.ForceAt != wire.ForceLoose {
		t.Errorf("launched backward from %g: at %g, %d", x0, fe.x, w.pl[0].arms.a.ForceAt)
	}
	armsRun(w, 0, 0, 1)
	armsRun(w, 0, wire.ActionForce, 1) // recall
	armsAttach(t, w, 0, 60)
	if w.pl[0].arms.a.ForceAt != wire.ForceBack {
		t.Errorf("recalled from behind, attached at %d", w.pl[0].arms.a.ForceAt)
	}

	// Launch it backward, get behind it, recall it: front.
	_, sy := w.ShipPos(0)
	armsRun(w, 0, 0, 1)
	armsRun(w, 0, wire.ActionForce, 1)
	armsRun(w, 0, 0, 45)
	if fe.x < 40 || fe.x > 52 || fe.mo.Model != wire.ModelStationary {
		t.Errorf("launched backward: at %g, model %d, want waiting just right of 40", fe.x, fe.mo.Model)
	}
	w.SetShipPos(0, 17, sy+100)
	armsRun(w, 0, wire.ActionForce, 1)
	armsAttach(t, w, 0, 90)
	if w.pl[0].arms.a.ForceAt != wire.ForceFront {
		t.Errorf("recalled from the front, attached at %d", w.pl[0].arms.a.ForceAt)
	}

	// Launch forward: 480 px in 40 ticks, then it waits.
	ship := w.ent(w.pl[0].slot)
	w.SetShipPos(0, 200, 360)
	armsRun(w, 0, 0, 2)
	x0 = fe.x
	if x0 != ship.x+28 {
		t.Fatalf("Force at %g, ship at %g", x0, ship.x)
	}
	armsRun(w, 0, wire.ActionForce, 1)
	armsRun(w, 0, 0, 50)
	if !armsNear(fe.x, x0+480, 12) || fe.mo.Model != wire.ModelStationary {
		t.Errorf("launched forward from %g: at %g, model %d; want %g, waiting", x0, fe.x, fe.mo.Model, x0+480)
	}
}

// The Force blocks an EnemyMissile but not a BossBullet.
func TestForceBlocksSmallShotsOnly(t *testing.T) {
	w := armsWorld(t, 1)
	w.SetShipPos(0, 300, 360)
	w.takeItem(0, wire.ItemLaserRed)
	w.SetShipPos(0, 100, w.ent(w.pl[0].arms.force).y)
	armsRun(w, 0, 0, 40)
	if w.pl[0].arms.a.ForceAt != wire.ForceBack {
		t.Fatal("no Force at the back")
	}
	w.SetShipPos(0, 300, 360)
	w.takeItem(0, wire.ItemLaserRed) // level 2
	armsRun(w, 0, 0, 2)
	// Missiles from behind, at the ship's height: the Force is in the way.
	m := armsShot(w, wire.KindEnemyMissile, 150, 360, 300, 0)
	mid := w.id(m)
	evs := armsRun(w, 0, 0, 40)
	if d, ok := armsDestroy(evs, mid); !ok || d.Reason != wire.DestroyConsumed {
		t.Errorf("the Force did not block the EnemyMissile: %+v", d)
	}
	if len(armsEvents(evs, wire.EventDeath)) != 0 {
		t.Error("the ship died behind its Force")
	}
	b := armsShot(w, wire.KindBossBullet, 150, 360, 300, 0)
	bid := w.id(b)
	evs = armsRun(w, 0, 0, 40)
	if d := armsEvents(evs, wire.EventDeath); len(d) != 1 {
		t.Errorf("a BossBullet through the Force: deaths %v, want 1", d)
	}
	if d, ok := armsDestroy(evs, bid); !ok || d.Reason != wire.DestroyConsumed {
		t.Errorf("the BossBullet: %+v, want Consumed on the ship", d)
	}
}

// A Force hurts the foes it touches at every tick, and is never spent.
func TestForceDamagesOnContact(t *testing.T) {
	w := armsWorld(t, 1)
	w.SetShipPos(0, 300, 360)
	fe := armsGiveForce(t, w, 0)
	// The Force is behind: a foe touching it and not the ship.
	foe := armsFoe(t, w, wire.KindPowArmor, fe.x-25, fe.y, 100)
	armsRun(w, 0, 0, 10)
	if e := w.ent(foe); !e.alive || w.cold(e).hp != 90 {
		t.Errorf("foe hp %d after 10 ticks against the Force, want 90", w.cold(e).hp)
	}
	if !fe.alive || w.pl[0].lives != 3 {
		t.Error("the Force or the ship suffered")
	}
	before := w.pl[0].score
	w.colds[w.at[foe]].hp = 1
	evs := armsRun(w, 0, 0, 1)
	if _, ok := armsDestroy(evs, w.id(foe)); !ok && w.ent(foe).alive {
		t.Error("foe not killed by the Force")
	}
	if w.pl[0].score <= before {
		t.Error("no score for a foe killed by the Force")
	}
}

// The Force fires with the ship: its laser pattern by colour and level,
// backward from the back; bits fire one shot each.
func TestForceAndBitsFire(t *testing.T) {
	w := armsWorld(t, 1)
	w.SetShipPos(0, 300, 360)
	fe := armsGiveForce(t, w, 0) // back, red 1
	shots := func() []wire.Event {
		evs := armsRun(w, 0, wire.ActionFire, 1)
		armsRun(w, 0, 0, 12)
		if len(spawnsOf(evs, wire.KindPlayerMissile)) != 1 {
			t.Fatal("no missile")
		}
		return spawnsOf(evs, wire.KindForceShot)
	}
	s := shots()
	if len(s) != 1 || s[0].Anim.Frame0 != wire.LaserRed || s[0].X != float32(fe.x) || s[0].Motion.VX >= 0 || s[0].Motion.VY != 0 {
		t.Fatalf("red 1 from the back: %+v, want one straight backward", s)
	}
	w.takeItem(0, wire.ItemLaserRed)
	w.takeItem(0, wire.ItemLaserRed)
	if s = shots(); len(s) != 3 {
		t.Errorf("red 3: %d shots, want 3", len(s))
	}
	w.takeItem(0, wire.ItemLaserYellow)
	s = shots()
	if len(s) != 5 || w.pl[0].arms.a.Force != 3 || s[0].Anim.Frame0 != wire.LaserYellow {
		t.Fatalf("yellow 3: %+v", s)
	}
	up := 0
	for _, e := range s {
		if e.Motion.VX == 0 && e.Motion.VY < 0 {
			up++
		}
	}
	if up != 1 {
		t.Errorf("yellow 3: %d shots straight up, want 1", up)
	}
	w.takeItem(0, wire.ItemBit)
	w.takeItem(0, wire.ItemBit)
	armsRun(w, 0, 0, 1)
	if s = shots(); len(s) != 7 {
		t.Errorf("yellow 3 and 2 bits: %d shots, want 5+2", len(s))
	}
}

// Two ships touching one item in the same tick: the earlier contact in the
// tick takes it; at the same time, the lower player number.
func TestTwoPlayersRaceForOnePickup(t *testing.T) {
	for _, c := range []struct {
		gap0, gap1 float64 // how far each ship is from touching the item
		want       uint8
	}{
		{2, 3, 0},
		{3, 2, 1},
		{2, 2, 0},
		{4, 4, 0},
	} {
		w := armsWorld(t, 2)
		const x, y = 400.0, 300.0
		reach := 17.0/2 + 12 // ship's half height + item's
		w.SetShipPos(0, x, y-reach-c.gap0)
		w.SetShipPos(1, x, y+reach+c.gap1)
		w.dropItem(wire.ItemSpeed, x, y)
		w.TakeEvents()
		w.SetInput(0, wire.ActionDown)
		w.SetInput(1, wire.ActionUp)
		w.Step() // 4.5 px each: both touch it
		evs := w.TakeEvents()
		a := armsEvents(evs, wire.EventArms)
		if len(a) != 1 || a[0].Player != c.want || a[0].Arms.Speed != 1 {
			t.Errorf("gaps %g, %g: Arms events %+v, want player %d speed 1", c.gap0, c.gap1, a, c.want)
		}
		if w.pl[1-c.want].arms.a.Speed != 0 {
			t.Errorf("gaps %g, %g: both players took it", c.gap0, c.gap1)
		}
	}
}

// Speed-ups: each adds a step up to 3; the ship moves at ShipSpeeds.
func TestSpeedUps(t *testing.T) {
	r := DefaultArmsRules()
	w := armsWorld(t, 1)
	for n := 0; n <= 4; n++ {
		if n > 0 {
			w.takeItem(0, wire.ItemSpeed)
		}
		want := r.ShipSpeeds[min(n, 3)]
		w.SetShipPos(0, 200, 300)
		armsRun(w, 0, wire.ActionRight, 10)
		x, _ := w.ShipPos(0)
		if !armsNear(x-200, want/6, 1.0/8) {
			t.Errorf("%d speed items: moved %g px in 10 ticks, want %g", n, x-200, want/6)
		}
		armsRun(w, 0, 0, 1)
	}
	if w.pl[0].arms.a.Speed != 3 {
		t.Errorf("speed %d, want at most 3", w.pl[0].arms.a.Speed)
	}
}

// Bits: at most 2, above and below the ship, following it; they block
// small shots and hurt foes.
func TestBits(t *testing.T) {
	w := armsWorld(t, 1)
	w.SetShipPos(0, 300, 360)
	w.takeItem(0, wire.ItemBit)
	w.takeItem(0, wire.ItemBit)
	w.takeItem(0, wire.ItemBit)
	if b := spawnsOf(w.TakeEvents(), wire.KindBit); len(b) != 2 || b[0].Owner != 0 {
		t.Fatalf("bit spawns %+v, want 2", b)
	}
	evs := armsRun(w, 0, 0, 1)
	if b := spawnsOf(evs, wire.KindBit); len(b) != 0 {
		t.Fatalf("bits spawned in the step: %v", b)
	}
	if w.CountKind(wire.KindBit) != 2 || w.pl[0].arms.a.Bits != 2 {
		t.Fatalf("%d bits, arms %d, want 2", w.CountKind(wire.KindBit), w.pl[0].arms.a.Bits)
	}
	if a := armsEvents(evs, wire.EventArms); len(a) != 1 || a[0].Arms.Bits != 2 {
		t.Errorf("Arms events %+v", a)
	}
	armsRun(w, 0, wire.ActionDown|wire.ActionLeft, 10)
	ship := w.ent(w.pl[0].slot)
	up, down := w.ent(w.pl[0].arms.bits[0]), w.ent(w.pl[0].arms.bits[1])
	if !armsNear(up.x, ship.x, 1.0/16) || !armsNear(up.y, ship.y-30, 1.0/16) || !armsNear(down.y, ship.y+30, 1.0/16) {
		t.Errorf("bits at (%g,%g) and (%g,%g), ship at (%g,%g)", up.x, up.y, down.x, down.y, ship.x, ship.y)
	}
	m := armsShot(w, wire.KindEnemyMissile, ship.x+100, up.y, -300, 0)
	mid := w.id(m)
	foe := armsFoe(t, w, wire.KindPowArmor, down.x+25, down.y+10, 50)
	evs = armsRun(w, 0, 0, 30)
	if d, ok := armsDestroy(evs, mid); !ok || d.Reason != wire.DestroyConsumed || len(armsEvents(evs, wire.EventDeath)) != 0 {
		t.Errorf("the bit did not block the missile: %+v", d)
	}
	if e := w.ent(foe); w.cold(e).hp != 20 {
		t.Errorf("foe against a bit for 30 ticks: hp %d, want 20", w.cold(e).hp)
	}
}

// armsKill makes player p's ship vulnerable and puts an enemy missile on
// it; it returns the step's events.
func armsKill(w *World, p uint8) []wire.Event {
	w.pl[p].invuln = 0
	x, y := w.ShipPos(p)
	armsShot(w, wire.KindEnemyMissile, x, y, 0, 0)
	w.Step()
	return w.TakeEvents()
}

// A death costs a life and every arm: the Force and bits are destroyed,
// speed and Force level gone; the ship respawns bare and invulnerable.
func TestDeathLosesArms(t *testing.T) {
	w := armsWorld(t, 1)
	w.SetShipPos(0, 300, 360)
	armsGiveForce(t, w, 0)
	force := w.id(w.pl[0].arms.force)
	w.takeItem(0, wire.ItemLaserBlue)
	w.takeItem(0, wire.ItemSpeed)
	w.takeItem(0, wire.ItemBit)
	w.takeItem(0, wire.ItemBit)
	armsRun(w, 0, 0, 1)
	bits := []uint32{w.id(w.pl[0].arms.bits[0]), w.id(w.pl[0].arms.bits[1])}
	evs := armsKill(w, 0)
	d := armsEvents(evs, wire.EventDeath)
	if len(d) != 1 || d[0].Lives != 2 {
		t.Fatalf("deaths %+v", d)
	}
	for _, id := range append(bits, force) {
		if e, ok := armsDestroy(evs, id); !ok || e.Reason != wire.DestroyKilled {
			t.Errorf("%#x not destroyed (Killed) with the ship: %+v", id, e)
		}
	}
	if a := armsEvents(evs, wire.EventArms); len(a) != 1 || a[0].Arms != (wire.Arms{}) {
		t.Errorf("Arms events %+v, want one, bare", a)
	}
	x, y := w.ShipPos(0)
	if sx, sy := w.spawnPoint(0); x != sx || y != sy || w.Invuln(0) != w.r.RespawnInvulnTicks {
		t.Errorf("respawned at (%g,%g), invuln %d", x, y, w.Invuln(0))
	}
	if w.CountKind(wire.KindForce)+w.CountKind(wire.KindBit) != 0 {
		t.Error("arms left in the world")
	}
}

// Ships die on foes too (the foe flies on), not while invulnerable.
func TestShipDiesOnFoe(t *testing.T) {
	w := armsWorld(t, 1)
	x, y := w.ShipPos(0)
	foe := armsFoe(t, w, wire.KindPowArmor, x+10, y, 5)
	evs := armsRun(w, 0, 0, 1)
	if len(armsEvents(evs, wire.EventDeath)) != 1 || !w.ent(foe).alive {
		t.Errorf("ship against a foe: %v", evs)
	}
	armsFoe(t, w, wire.KindPowArmor, x+10, y, 5)
	if evs = armsRun(w, 0, 0, 1); len(armsEvents(evs, wire.EventDeath)) != 0 {
		t.Error("an invulnerable ship died")
	}
}

// Out of lives, a player is down; at a checkpoint it comes back with one
// life while a teammate plays; when all are down, the game is over.
func TestDownContinueAndGameOver(t *testing.T) {
	w := armsWorld(t, 2)
	w.SetShipPos(1, 600, 600)
	for range 3 {
		armsKill(w, 0)
	}
	if w.pl[0].slot != 0 || w.pl[0].lives != 0 || w.Ship(0) != wire.NoEntity || w.Over() {
		t.Fatalf("player 0 not down, or game over: lives %d over %v", w.pl[0].lives, w.Over())
	}
	armsRun(w, 0, wire.ActionFire, 5) // down: nothing happens
	w.onCheckpoint()
	evs := w.TakeEvents()
	if len(evs) < 2 || evs[0].Type != wire.EventStage || evs[0].What != wire.StageContinue || evs[0].Value != 0 ||
		evs[1].Type != wire.EventSpawn || evs[1].Kind != wire.KindPlayerShip || evs[1].Owner != 0 {
		t.Fatalf("checkpoint events %+v, want StageContinue 0 and its ship", evs)
	}
	if w.pl[0].lives != 1 || w.Ship(0) != evs[1].ID || w.Invuln(0) != w.r.RespawnInvulnTicks {
		t.Errorf("continued: lives %d ship %#x invuln %d", w.pl[0].lives, w.Ship(0), w.Invuln(0))
	}
	w.onCheckpoint() // no one is down: nothing
	if evs := w.TakeEvents(); len(evs) != 0 {
		t.Errorf("a checkpoint with nobody down: %v", evs)
	}
	for range 3 {
		armsKill(w, 1)
	}
	if w.Over() {
		t.Fatal("game over while player 0 plays")
	}
	evs = armsKill(w, 0)
	g := armsEvents(evs, wire.EventGameOver)
	if len(g) != 1 || !w.Over() || g[0].NumScores != 2 {
		t.Fatalf("GameOver %+v", g)
	}
	w.onCheckpoint() // too late
	if evs := w.TakeEvents(); len(evs) != 0 || w.pl[0].slot != 0 {
		t.Errorf("a checkpoint after the game over: %v", evs)
	}
}

// Alone: no checkpoint brings back the last player; down is game over.
func TestAloneDownIsGameOver(t *testing.T) {
	w := armsWorld(t, 1)
	var evs []wire.Event
	for range 3 {
		evs = append(evs, armsKill(w, 0)...)
	}
	if len(armsEvents(evs, wire.EventGameOver)) != 1 {
		t.Fatal("no GameOver")
	}
}

// Arms events: one per change and tick, none when nothing changes; a
// joining client gets them all from AppendArms.
func TestArmsEvents(t *testing.T) {
	w := armsWorld(t, 2)
	w.takeItem(1, wire.ItemSpeed)
	w.takeItem(1, wire.ItemSpeed)
	w.takeItem(1, wire.ItemBit)
	evs := armsRun(w, 0, 0, 1)
	a := armsEvents(evs, wire.EventArms)
	if len(a) != 1 || a[0].Player != 1 || a[0].Arms != (wire.Arms{Speed: 2, Bits: 1}) || a[0].Tick != w.tick {
		t.Fatalf("Arms events %+v", a)
	}
	if a := armsEvents(armsRun(w, 0, 0, 5), wire.EventArms); len(a) != 0 {
		t.Errorf("Arms events without a change: %+v", a)
	}
	for range 3 {
		w.takeItem(1, wire.ItemSpeed)
	}
	if a := armsEvents(armsRun(w, 0, 0, 1), wire.EventArms); len(a) != 1 || a[0].Arms.Speed != 3 {
		t.Errorf("Arms events %+v, want speed 3", a)
	}
	w.takeItem(1, wire.ItemSpeed)
	if a := armsEvents(armsRun(w, 0, 0, 1), wire.EventArms); len(a) != 0 {
		t.Errorf("a speed item beyond the maximum: %+v", a)
	}
	all := w.AppendArms(nil)
	if len(all) != 2 || all[0].Player != 0 || all[1].Arms != (wire.Arms{Speed: 3, Bits: 1}) || w.Arms(1) != all[1].Arms {
		t.Errorf("AppendArms %+v", all)
	}
	if c := New(DefaultRules(), 1); len(c.AppendArms(nil)) != 0 {
		t.Error("AppendArms in Classic")
	}
}

// A player who leaves takes its Force and bits with it.
func TestLeaveTakesArms(t *testing.T) {
	w := armsWorld(t, 2)
	w.SetShipPos(0, 300, 360)
	armsGiveForce(t, w, 0)
	w.takeItem(0, wire.ItemBit)
	armsRun(w, 0, 0, 1)
	w.RemovePlayer(0, wire.LeftLeft)
	w.TakeEvents()
	if n := w.CountKind(wire.KindForce) + w.CountKind(wire.KindBit); n != 0 {
		t.Errorf("%d arms left after their player", n)
	}
	armsRun(w, 1, 0, 5)
	w.AddPlayer(0, "Again")
	armsRun(w, 0, wire.ActionFire|wire.ActionForce, 5)
	if w.Arms(0) != (wire.Arms{}) {
		t.Errorf("a new player starts with %+v", w.Arms(0))
	}
}

// The same inputs give the same events, tick for tick.
func TestArmsDeterministic(t *testing.T) {
	a, b := armsBusy(t), armsBusy(t)
	for i := range 600 {
		ea := armsBusyTick(a, i)
		eb := armsBusyTick(b, i)
		if len(ea) != len(eb) {
			t.Fatalf("tick %d: %d events, then %d", i, len(ea), len(eb))
		}
		for j := range ea {
			if ea[j] != eb[j] {
				t.Fatalf("tick %d: event %d differs: %+v, %+v", i, j, ea[j], eb[j])
			}
		}
	}
}

// armsBusy is a Stage world with 4 players, Forces, bits, foes and
// enemy shots.
func armsBusy(t testing.TB) *World {
	w := armsWorld(t, 4)
	for p := range uint8(4) {
		w.SetShipPos(p, 200+float64(p)*40, 120+float64(p)*150)
		w.takeItem(p, p%3)
		w.takeItem(p, wire.ItemBit)
		w.takeItem(p, wire.ItemBit)
		w.takeItem(p, wire.ItemSpeed)
	}
	w.TakeEvents()
	return w
}

// armsBusyTick scripts tick i of a busy world: the players charge, tap and
// launch, foes and shots are topped up, items dropped; it returns the
// tick's events (the world's buffer).
func armsBusyTick(w *World, i int) []wire.Event {
	for p := range uint8(4) {
		pl := &w.pl[p]
		if pl.lives < 3 && pl.slot != 0 {
			pl.lives = 3
		}
		if p < 2 { // two immortals keep their arms; two die and take them again
			pl.invuln = 2
		}
		if i%60 == int(p)*15 && pl.slot != 0 {
			w.takeItem(p, uint8(i/60+int(p))%5)
		}
		k := (i + int(p)*17) % 120
		var a uint8
		switch {
		case k < 40:
			a = wire.ActionFire // charging
		case k < 80:
			a = uint8(k%2) * wire.ActionFire // taps
		case k < 85:
			a = wire.ActionForce
		}
		a |= []uint8{wire.ActionUp, wire.ActionDown, wire.ActionLeft, wire.ActionRight}[(i/50+int(p))%4]
		w.SetInput(p, a)
	}
	if i%30 == 0 {
		w.dropItem(uint8(i/30%5), w.uniform(300, 1200), w.uniform(50, 670))
	}
	if i%5 == 0 {
		w.ids.ripen(w.tick)
		for range 40 - len(w.foes) {
			w.spawnFoe(&foeSpawn{kind: wire.KindChaser, x: w.uniform(500, 1300), y: w.uniform(40, 680),
				vx: -w.uniform(60, 200), hp: 3, drop: noDrop})
		}
		for range 60 - len(w.eshots) {
			kind := wire.KindEnemyMissile
			if w.rng.IntN(4) == 0 {
				kind = wire.KindBossBullet
			}
			w.spawn(kind, wire.Linear(w.tick, w.uniform(0, 1280), w.uniform(0, 720),
				w.uniform(-300, 300), w.uniform(-300, 300)), wire.Anim{}, wire.NoPlayer)
		}
	}
	w.Step()
	return w.TakeEvents()
}

// A busy Stage tick allocates nothing in steady state.
func TestArmsBusyTickNoAllocs(t *testing.T) {
	w := armsBusy(t)
	i := 0
	for ; i < 1200; i++ {
		armsBusyTick(w, i)
	}
	testutil.NoAllocs(t, 600, "a busy Stage tick", func() {
		armsBusyTick(w, i)
		i++
	})
	if w.CountKind(wire.KindForce) == 0 || w.CountKind(wire.KindWaveBeam)+w.CountKind(wire.KindForceShot) == 0 {
		t.Error("the busy world is not busy")
	}
}

func BenchmarkArmsBusyStep(b *testing.B) {
	w := armsBusy(b)
	i := 0
	for ; i < 1200; i++ {
		armsBusyTick(w, i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		armsBusyTick(w, i)
		i++
	}
	b.ReportMetric(float64(w.NumEntities()), "entities")
}
