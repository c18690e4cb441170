package sim

import (
	"math"
	"testing"

	"rtype/net/wire"
)

// foesWorld returns a Stage world at tick 0 with players 0..n-1 in it (255
// lives each, so that busy fights go on),
// their ships at their spawn points, its events taken. (The stage runner
// is not involved: the tests spawn the foes.)
func foesWorld(t testing.TB, n int) *World {
	t.Helper()
	w, err := NewStage(livelyRules(), quietStage(t), 7, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for p := range n {
		w.AddPlayer(uint8(p), "P")
	}
	w.TakeEvents()
	return w
}

// put spawns a foe between steps, as the runner does within one.
func put(t testing.TB, w *World, f foeSpawn) int32 {
	t.Helper()
	w.ids.ripen(w.tick)
	s := w.spawnFoe(&f)
	if s == 0 {
		t.Fatalf("spawnFoe %+v: no slot", f)
	}
	return s
}

// stepN runs n steps and returns a copy of their events.
func stepN(w *World, n int) []wire.Event {
	var evs []wire.Event
	for range n {
		w.Step()
		evs = append(evs, w.TakeEvents()...)
	}
	return evs
}

// spawnsOf returns the Spawns of kind in evs.
func spawnsOf(evs []wire.Event, kind uint8) []wire.Event {
	var out []wire.Event
	for _, e := range evs {
		if e.Type == wire.EventSpawn && e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// place moves player p's ship to (x, y), still.
func place(w *World, p uint8, x, y float64) {
	e := w.ent(w.pl[p].slot)
	w.setShipMotion(e, w.tick, x, y, 0, 0)
	w.eval(e)
	e.px, e.py = e.x, e.y
}

// velAngle is the direction of the Linear velocity of a Spawn.
func velAngle(ev wire.Event) float64 {
	return math.Atan2(float64(ev.Motion.VY), float64(ev.Motion.VX))
}

func angleNear(a, b, tol float64) bool { return math.Abs(wrapAngle(a-b)) <= tol }

// Each kind, spawned with zeros, takes its default hit points, score and
// speed; the hit points scale with the players and the loop.
func TestFoeDefaultsAndScaling(t *testing.T) {
	for _, c := range []struct {
		kind  uint8
		hp    int32
		score uint32
		speed float64
	}{
		{wire.KindBydosSlave, 1, 100, 120},
		{wire.KindPowArmor, 3, 200, 70},
		{wire.KindChaser, 2, 150, 150},
		{wire.KindTurret, 4, 200, 60},
		{wire.KindArmored, 20, 500, 50},
	} {
		w := foesWorld(t, 1)
		s := put(t, w, foeSpawn{kind: c.kind, x: 1300, y: 300, drop: noDrop})
		e := w.ent(s)
		if w.cold(e).hp != c.hp || w.cold(e).maxHP != c.hp || w.cold(e).foe.score != c.score {
			t.Errorf("kind %d: hp %d/%d score %d, want %d, %d", c.kind, w.cold(e).hp, w.cold(e).maxHP, w.cold(e).foe.score, c.hp, c.score)
		}
		if vx, vy := e.mo.Velocity(); vx != -c.speed || vy != 0 || e.mo.Model != wire.ModelLinear {
			t.Errorf("kind %d: motion %+v, want Linear (-%g, 0)", c.kind, e.mo, c.speed)
		}
		if w.cold(e).foe.every != 0 {
			t.Errorf("kind %d: fires every %d without a fireInterval", c.kind, w.cold(e).foe.every)
		}
	}
	// Scaling: ×(3+n)/4 ×(1+L)/2 rounded up; fire ÷(1+0.1(n−1))(1+0.3(L−1)).
	for _, c := range []struct {
		n, loop   int
		base, hp  int32
		iv, every int32
	}{
		{1, 1, 20, 20, 100, 100},
		{4, 1, 20, 35, 100, 77},
		{1, 2, 20, 30, 100, 77},
		{4, 2, 20, 53, 100, 59},
		{2, 1, 1, 2, 100, 91},
		{1, 9, 10, 25, 100, 53}, // loops beyond 4 count as 4
		{1, 1, 1, 1, 4, minFireEvery},
	} {
		w := foesWorld(t, c.n)
		s := put(t, w, foeSpawn{kind: wire.KindArmored, x: 900, y: 300, hp: c.base, fireInterval: c.iv, loop: c.loop, drop: noDrop})
		if e := w.ent(s); w.cold(e).hp != c.hp || w.cold(e).foe.every != c.every {
			t.Errorf("%d players loop %d: hp %d every %d, want %d, %d", c.n, c.loop, w.cold(e).hp, w.cold(e).foe.every, c.hp, c.every)
		}
	}
	w := foesWorld(t, 1)
	for _, k := range []uint8{wire.KindMidBoss, wire.KindBoss, wire.KindBossCore, wire.KindBossBullet, wire.KindPlayerShip, 200} {
		if s := w.spawnFoe(&foeSpawn{kind: k, x: 900, y: 300}); s != 0 || len(w.TakeEvents()) != 0 {
			t.Errorf("spawnFoe of kind %d: slot %d", k, s)
		}
	}
	if s := put(t, w, foeSpawn{kind: wire.KindPowArmor, x: 900, y: 300, hp: 9, score: 7, vx: -10, vy: 5, drop: noDrop}); w.colds[w.at[s]].hp != 9 || w.colds[w.at[s]].foe.score != 7 {
		t.Errorf("given hp and score: %d, %d", w.colds[w.at[s]].hp, w.colds[w.at[s]].foe.score)
	}
}

// A foe with fireInterval 0 never fires (the stage's first 30 s); a
// PowArmor and a Chaser never fire at all.
func TestNoFireWithoutInterval(t *testing.T) {
	w := foesWorld(t, 2)
	for _, k := range []uint8{wire.KindBydosSlave, wire.KindTurret, wire.KindArmored} {
		put(t, w, foeSpawn{kind: k, x: 1000, y: 200, vx: -20, drop: noDrop})
	}
	put(t, w, foeSpawn{kind: wire.KindPowArmor, x: 1000, y: 400, vx: -20, fireInterval: 30, drop: noDrop})
	put(t, w, foeSpawn{kind: wire.KindChaser, x: 1000, y: 500, vx: -20, fireInterval: 30, drop: noDrop})
	evs := stepN(w, 900)
	if n := len(spawnsOf(evs, wire.KindEnemyMissile)) + len(spawnsOf(evs, wire.KindBossBullet)); n != 0 {
		t.Fatalf("%d enemy shots", n)
	}
}

// A Bydos flies its sine and fires EnemyMissiles aimed at the nearest
// ship, one every fireInterval ticks, the first after half to one of them.
func TestBydosSineAndAimedShots(t *testing.T) {
	w := foesWorld(t, 2)
	place(w, 0, 100, 600)
	place(w, 1, 300, 100) // the nearest
	s := put(t, w, foeSpawn{kind: wire.KindBydosSlave, x: 1100, y: 300, vx: -40, amp: 50, period: 120, fireInterval: 60, drop: noDrop})
	if m := w.ent(s).mo; m.Model != wire.ModelSine || m.Amp != 50*wire.AmpScale || m.Period != 120 {
		t.Fatalf("motion %+v, want the sine", m)
	}
	var shots []wire.Event
	var ticks []uint32
	for range 300 {
		w.Step()
		for _, ev := range spawnsOf(w.TakeEvents(), wire.KindEnemyMissile) {
			shots = append(shots, ev)
			ticks = append(ticks, ev.Tick)
			e := w.ent(s)
			tx, ty := w.ShipPos(1)
			if !angleNear(velAngle(ev), math.Atan2(ty-e.y, tx-e.x), 0.01) {
				t.Errorf("tick %d: shot at %.3f rad, the ship is at %.3f", ev.Tick, velAngle(ev), math.Atan2(ty-e.y, tx-e.x))
			}
			if sp := math.Hypot(float64(ev.Motion.VX), float64(ev.Motion.VY)) / wire.VelScale; math.Abs(sp-300) > 0.1 {
				t.Errorf("shot speed %g, want 300", sp)
			}
		}
	}
	if len(ticks) < 4 || ticks[0] < 30 || ticks[0] > 60 {
		t.Fatalf("shots at %v, want the first in [30, 60]", ticks)
	}
	for i := 1; i < len(ticks); i++ {
		if ticks[i]-ticks[i-1] != 55 { // 60 ÷ 1.1 for two players
			t.Errorf("shots at %v, want every 55 ticks", ticks)
		}
	}
}

// A PowArmor is slow and harmless; killed, it gives its killer the score
// and drops its item where it died.
func TestPowArmorDropsItsItem(t *testing.T) {
	var drops []uint8
	var dx, dy float64
	testDrop = func(item uint8, x, y float64) { drops = append(drops, item); dx, dy = x, y }
	defer func() { testDrop = nil }()
	w := foesWorld(t, 2)
	s := put(t, w, foeSpawn{kind: wire.KindPowArmor, x: 900, y: 300, drop: wire.ItemSpeed, fireInterval: 20})
	stepN(w, 30)
	x, y := w.ent(s).x, w.ent(s).y
	if x != 900-70*30.0/60 {
		t.Errorf("x %g after 30 ticks, want 865", x)
	}
	hp := w.colds[w.at[s]].hp
	if hp != 4 { // 3 × 5/4 for two players, rounded up
		t.Fatalf("hp %d, want 4", hp)
	}
	if !w.damageFoe(s, hp-1, 1) || !w.ent(s).alive || len(drops) != 0 {
		t.Fatal("a PowArmor died before its last hit point")
	}
	if !w.damageFoe(s, 1, 1) || w.ent(s).alive {
		t.Fatal("a PowArmor survived its last hit point")
	}
	if len(drops) != 1 || drops[0] != wire.ItemSpeed || dx != x || dy != y {
		t.Errorf("drops %v at (%g, %g), want [%d] at (%g, %g)", drops, dx, dy, wire.ItemSpeed, x, y)
	}
	if w.Score(1) != 200 || w.Score(0) != 0 {
		t.Errorf("scores %d, %d", w.Score(0), w.Score(1))
	}
	evs := w.TakeEvents()
	if len(evs) != 2 || evs[0].Type != wire.EventDestroy || evs[0].Reason != wire.DestroyKilled ||
		evs[1].Type != wire.EventSpawn || evs[1].Kind != wire.KindPowerUp || evs[1].Anim.Frame0 != wire.ItemSpeed {
		t.Errorf("events %+v, want its Destroy Killed, then the Spawn of its item", evs)
	}
	if w.damageFoe(s, 1, 1) {
		t.Error("a dead foe absorbed a hit")
	}
	// A foe without a drop drops nothing; a player not in the game scores nothing.
	s = put(t, w, foeSpawn{kind: wire.KindBydosSlave, x: 900, y: 300, drop: noDrop})
	w.damageFoe(s, 5, 3)
	if len(drops) != 1 || w.ent(s).alive {
		t.Errorf("drops %v, alive %v", drops, w.ent(s).alive)
	}
}

// A Chaser turns towards the nearest ship, at most chaserTurn per aim,
// every chaserAim ticks, with a new Linear from where it is: no jump.
// After chaserHoming ticks it flies straight on.
func TestChaserTurnsTowardsTheShip(t *testing.T) {
	w := foesWorld(t, 1)
	place(w, 0, 300, 100)
	s := put(t, w, foeSpawn{kind: wire.KindChaser, x: 1100, y: 600, drop: noDrop})
	e := w.ent(s)
	if e.frame != 0 {
		t.Errorf("frame %d heading left, want 0", e.frame)
	}
	head := math.Pi
	aims := 0
	for i := 1; i <= chaserHoming+120; i++ {
		if i == 120 {
			place(w, 0, 300, 650) // it has to turn round
		}
		px, py, mo := e.x, e.y, e.mo
		w.Step()
		w.TakeEvents()
		// A new motion starts on the 1/8 px grid: up to 0.09 px more.
		if d := math.Hypot(e.x-px, e.y-py); d > 150.0/60+0.1 {
			t.Fatalf("tick %d: moved %g px", w.tick, d)
		}
		if e.mo == mo {
			continue
		}
		aims++
		if i > chaserHoming {
			t.Fatalf("tick %d: turned after its homing time", w.tick)
		}
		if e.mo.T0 != w.tick || e.mo.Model != wire.ModelLinear {
			t.Fatalf("tick %d: new motion %+v", w.tick, e.mo)
		}
		if math.Abs(float64(e.mo.X0)/wire.PosScale-e.x) > 0 {
			t.Fatalf("tick %d: the new motion starts at %d, it was at %g", w.tick, e.mo.X0, e.x)
		}
		nh := math.Atan2(float64(e.mo.VY), float64(e.mo.VX))
		sx, sy := w.ShipPos(0)
		want := math.Atan2(sy-e.y, sx-e.x)
		turn := wrapAngle(nh - head)
		if math.Abs(turn) > chaserTurn+0.01 || math.Abs(wrapAngle(want-nh)) > math.Abs(wrapAngle(want-head))+1e-3 {
			t.Fatalf("tick %d: heading %.3f → %.3f, the ship at %.3f", w.tick, head, nh, want)
		}
		if sp := math.Hypot(float64(e.mo.VX), float64(e.mo.VY)) / wire.VelScale; math.Abs(sp-150) > 0.1 {
			t.Fatalf("speed %g", sp)
		}
		if e.frame != aimFrame(nh) || e.anim.Frame0 != e.frame {
			t.Fatalf("frame %d heading %.3f", e.frame, nh)
		}
		head = nh
	}
	if aims < 6 {
		t.Fatalf("%d aims", aims)
	}
}

// A Turret sits on the floor or the ceiling, scrolls left, aims at the
// nearest ship (its frame) within its half plane and fires at it.
func TestTurretAimsAtTheNearestShip(t *testing.T) {
	w := foesWorld(t, 2)
	place(w, 0, 100, 100)
	place(w, 1, 600, 300)
	fl := put(t, w, foeSpawn{kind: wire.KindTurret, x: 700, y: 700, fireInterval: 40, drop: noDrop})
	ce := put(t, w, foeSpawn{kind: wire.KindTurret, x: 900, y: 50, drop: noDrop})
	if f, c := w.ent(fl), w.ent(ce); f.y != 720-14 || c.y != 14 || !w.cold(f).foe.floor || w.cold(c).foe.floor {
		t.Fatalf("turrets at y %g and %g", f.y, c.y)
	}
	check := func(s int32, want uint8) {
		t.Helper()
		e := w.ent(s)
		if e.frame != want || e.anim.Frame0 != want {
			t.Errorf("tick %d: turret at (%g, %g) frame %d, want %d", w.tick, e.x, e.y, e.frame, want)
		}
	}
	evs := stepN(w, turretAim)
	check(fl, 2) // the ship at (600, 300) is up from (700-, 706)
	check(ce, 7) // and down-left from (900-, 14)
	place(w, 1, 300, 660)
	stepN(w, turretAim)
	check(fl, 0) // left
	check(ce, 0) // ship 0 at (100, 100) is now the nearest: left
	place(w, 1, 1100, 690)
	stepN(w, turretAim)
	check(fl, 4) // right
	evs = append(evs, stepN(w, 200)...)
	if x := w.ent(fl).x; x != 700-60*float64(w.tick)/60 {
		t.Errorf("the turret at x %g, want it scrolling at 60 px/s", x)
	}
	shots := spawnsOf(evs, wire.KindEnemyMissile)
	if len(shots) < 4 {
		t.Fatalf("%d shots", len(shots))
	}
	for _, ev := range shots {
		if ev.Motion.VY >= 0 {
			t.Errorf("a floor turret fired down: %+v", ev.Motion)
		}
	}
	last := shots[len(shots)-1]
	tx, ty := w.ShipPos(1)
	e := w.ent(fl)
	ex := e.x + 60*float64(w.tick-last.Tick)/60
	if !angleNear(velAngle(last), math.Atan2(ty-e.y, tx-ex), 0.01) {
		t.Errorf("shot at %.3f, the ship at %.3f", velAngle(last), math.Atan2(ty-e.y, tx-ex))
	}
}

// The aim frames: k points at π + k·π/4; a floor turret keeps to 0..4, a
// ceiling turret to 4..7 and 0.
func TestAimFrames(t *testing.T) {
	for k := range 8 {
		a := math.Pi + float64(k)*math.Pi/4
		if f := aimFrame(a); f != uint8(k) {
			t.Errorf("aimFrame(%g) = %d, want %d", a, f, k)
		}
		if f := aimFrame(a + 0.3); f != uint8(k) {
			t.Errorf("aimFrame(%g+0.3) = %d, want %d", a, f, k)
		}
	}
	for _, c := range []struct {
		a      float64
		fl, ce uint8
	}{
		{math.Pi, 0, 0}, {-math.Pi / 2, 2, 0}, {-math.Pi / 4, 3, 4}, {0, 4, 4},
		{math.Pi / 4, 4, 5}, {math.Pi / 2, 0, 6}, {3 * math.Pi / 4, 0, 7}, {-3 * math.Pi / 4, 1, 0},
	} {
		if f := turretFrame(c.a, true); f != c.fl {
			t.Errorf("floor turret at %.3f: %d, want %d", c.a, f, c.fl)
		}
		if f := turretFrame(c.a, false); f != c.ce {
			t.Errorf("ceiling turret at %.3f: %d, want %d", c.a, f, c.ce)
		}
	}
}

// An Armored takes half of small hits and double of big ones, and fires
// a spread of 3 missiles 15° apart centred on the nearest ship (5 in
// loop 2).
func TestArmored(t *testing.T) {
	w := foesWorld(t, 1)
	place(w, 0, 200, 360)
	s := put(t, w, foeSpawn{kind: wire.KindArmored, x: 1000, y: 360, fireInterval: 50, drop: noDrop})
	e := w.ent(s)
	for range 3 {
		w.damageFoe(s, 1, 0)
	}
	if w.cold(e).hp != 19 {
		t.Errorf("hp %d after 3 missiles, want 19", w.cold(e).hp)
	}
	w.damageFoe(s, 1, 0)
	w.damageFoe(s, armorBreak, 0)
	if w.cold(e).hp != 12 {
		t.Errorf("hp %d after a 4th missile and a beam, want 12", w.cold(e).hp)
	}
	w.damageFoe(s, 6, 0)
	if e.alive || w.Score(0) != 500 {
		t.Errorf("alive %v after a beam of 6, score %d", e.alive, w.Score(0))
	}
	for _, loop := range []int{1, 2} {
		w := foesWorld(t, 1)
		place(w, 0, 200, 100)
		put(t, w, foeSpawn{kind: wire.KindArmored, x: 1000, y: 360, fireInterval: 50, drop: noDrop, loop: loop})
		evs := stepN(w, 50)
		shots := spawnsOf(evs, wire.KindEnemyMissile)
		n := 3 + 2*(loop-1)
		if len(shots) != n {
			t.Fatalf("loop %d: %d shots, want a spread of %d", loop, len(shots), n)
		}
		mid := math.Atan2(100-float64(shots[0].Y), 200-float64(shots[0].X))
		for i, ev := range shots {
			want := mid + spreadStep*(float64(i)-float64(n-1)/2)
			if !angleNear(velAngle(ev), want, 0.01) || ev.Tick != shots[0].Tick {
				t.Errorf("loop %d shot %d at %.3f tick %d, want %.3f", loop, i, velAngle(ev), ev.Tick, want)
			}
		}
		if sp := math.Hypot(float64(shots[0].Motion.VX), float64(shots[0].Motion.VY)) / wire.VelScale; math.Abs(sp-300*(1+0.15*float64(loop-1))) > 0.1 {
			t.Errorf("loop %d: shot speed %g", loop, sp)
		}
	}
}

// Foes coming in from far away are kept; a foe that left the area, or
// that stands still outside it, is not.
func TestFoeKeep(t *testing.T) {
	w := foesWorld(t, 1)
	var in, out []int32
	for _, f := range []foeSpawn{
		{kind: wire.KindArmored, x: 1700, y: 300},
		{kind: wire.KindArmored, x: -300, y: 300, vx: 50},
		{kind: wire.KindChaser, x: 600, y: -300, vy: 100},
		{kind: wire.KindChaser, x: 600, y: 1100, vx: -20, vy: -100},
	} {
		f.drop = noDrop
		in = append(in, put(t, w, f))
	}
	for _, f := range []foeSpawn{
		{kind: wire.KindChaser, x: 1500, y: 300, vx: 100},
		{kind: wire.KindChaser, x: 600, y: -300, vy: -100},
		{kind: wire.KindBydosSlave, x: -300, y: 300, vx: -10},
		{kind: wire.KindBydosSlave, x: 600, y: 900, vx: -100, vy: 0.01},
	} {
		f.drop = noDrop
		out = append(out, put(t, w, f))
	}
	stepN(w, 1)
	for i, s := range in {
		if !w.ent(s).alive {
			t.Errorf("incoming foe %d despawned", i)
		}
	}
	for i, s := range out {
		if w.ent(s).alive {
			t.Errorf("leaving foe %d kept", i)
		}
	}
}

// Foes from absurd waves (the loader checks stage files, but the numbers
// still reach here) neither panic nor overflow: NaN and infinite
// positions and speeds, huge or negative hit points and intervals.
func TestFoeSpawnOddNumbers(t *testing.T) {
	w := foesWorld(t, 1)
	nan, inf := math.NaN(), math.Inf(1)
	for _, k := range []uint8{wire.KindBydosSlave, wire.KindPowArmor, wire.KindChaser, wire.KindTurret, wire.KindArmored} {
		for _, f := range []foeSpawn{
			{x: nan, y: nan, vx: nan, vy: nan, amp: nan, period: 60, phase: nan},
			{x: inf, y: -inf, vx: -inf, vy: inf, amp: inf, period: -5, hp: -3, fireInterval: -1},
			{x: 600, y: 300, vx: -1e9, hp: math.MaxInt32, fireInterval: math.MaxInt32, score: math.MaxUint32, loop: math.MaxInt},
			{x: 600, y: 300, vx: 1e-9, period: math.MaxInt, amp: 1e12, fireInterval: 1, loop: -4},
		} {
			f.kind, f.drop = k, noDrop
			w.ids.ripen(w.tick)
			if s := w.spawnFoe(&f); s != 0 {
				if e := w.ent(s); w.cold(e).hp < 1 || w.cold(e).hp > math.MaxUint16 || w.cold(e).foe.every < 0 {
					t.Errorf("kind %d %+v: hp %d every %d", k, f, w.cold(e).hp, w.cold(e).foe.every)
				}
			}
		}
	}
	stepN(w, 200)
}
