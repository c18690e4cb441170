package sim

import (
	"math"
	"slices"
	"testing"

	"rtype/internal/testutil"
	"rtype/net/wire"
)

// bossIn spawns a boss between steps and returns its fight and events.
func bossIn(t testing.TB, w *World, kind uint8, loop int) (*bossFight, []wire.Event) {
	t.Helper()
	w.ids.ripen(w.tick)
	w.spawnBoss(kind, loop)
	if !w.bossActive() {
		t.Fatalf("no boss after spawnBoss(%d)", kind)
	}
	f := &w.boss.fights[0]
	if kind == wire.KindBoss {
		f = &w.boss.fights[1]
	}
	return f, slices.Clone(w.TakeEvents())
}

// ofType2 returns the events of typ (and, for Stage events, what).
func ofType2(evs []wire.Event, typ wire.EventType, what uint8) []wire.Event {
	var out []wire.Event
	for _, e := range evs {
		if e.Type == typ && (typ != wire.EventStage || e.What == what) {
			out = append(out, e)
		}
	}
	return out
}

// The end boss enters from the right, kept while outside the area,
// announces itself with its core's id, then hovers on a Sine; its core
// moves with its body.
func TestBossEntersAndHovers(t *testing.T) {
	w := foesWorld(t, 1)
	f, evs := bossIn(t, w, wire.KindBoss, 1)
	body, core := w.ent(f.body), w.ent(f.core)
	if body.kind != wire.KindBoss || core.kind != wire.KindBossCore {
		t.Fatalf("kinds %d, %d", body.kind, core.kind)
	}
	if h := 2 * w.halfOf(body).h; h < 160 {
		t.Errorf("the body is %g px tall", h)
	}
	sp := spawnsOf(evs, wire.KindBoss)
	boss := ofType2(evs, wire.EventStage, wire.StageBoss)
	hl := ofType2(evs, wire.EventHealth, 0)
	if len(sp) != 1 || len(spawnsOf(evs, wire.KindBossCore)) != 1 || len(boss) != 1 || len(hl) != 1 {
		t.Fatalf("events %+v", evs)
	}
	if boss[0].Value != w.id(f.core) || boss[0].Name != "Mother Bydos" {
		t.Errorf("StageBoss %+v, want the core's id %#x", boss[0], w.id(f.core))
	}
	if hl[0].ID != w.id(f.core) || hl[0].HP != 300 || hl[0].MaxHP != 300 {
		t.Errorf("Health %+v", hl[0])
	}
	if body.x-w.halfOf(body).w <= w.r.AreaW+w.r.DespawnMargin {
		t.Errorf("the body appears at x %g: not from far enough", body.x)
	}
	hovering := uint32(0)
	for range 600 {
		w.Step()
		w.TakeEvents()
		if !body.alive || !core.alive {
			t.Fatalf("tick %d: the boss is gone", w.tick)
		}
		if core.x-body.x != f.coreDX || core.y != body.y || core.mo.T0 != body.mo.T0 || core.mo.Model != body.mo.Model {
			t.Fatalf("tick %d: core at (%g, %g), body at (%g, %g): not together", w.tick, core.x, core.y, body.x, body.y)
		}
		if hovering == 0 && body.mo.Model == wire.ModelSine {
			hovering = w.tick
			if body.mo.VX != 0 || math.Abs(body.x-(w.r.AreaW-160)) > 160.0/60 {
				t.Errorf("hovers from (%g, %g) with %+v", body.x, body.y, body.mo)
			}
		}
	}
	if hovering == 0 || hovering > 150 {
		t.Fatalf("hovers from tick %d", hovering)
	}
	if core.x+w.halfOf(core).w <= body.x-w.halfOf(body).w {
		t.Errorf("the core (%g) is not in the body's front (%g)", core.x, body.x-w.halfOf(body).w)
	}
	if core.x-w.halfOf(core).w >= body.x-w.halfOf(body).w {
		t.Errorf("the core (%g) does not stick out of the body's front (%g)", core.x, body.x-w.halfOf(body).w)
	}
}

// The body absorbs hits without damage; only the core takes them; at half
// its hit points the boss passes to phase 2 (Health at once); killing the
// core kills the whole boss, and its killer scores.
func TestBossWeakPointPhasesAndDeath(t *testing.T) {
	w := foesWorld(t, 2)
	f, _ := bossIn(t, w, wire.KindBoss, 1)
	bodyS, coreS := f.body, f.core
	body, core := w.ent(bodyS), w.ent(coreS)
	coreID := w.id(coreS)
	full := w.cold(core).maxHP
	if full != 375 { // 300 × 5/4 for two players
		t.Fatalf("core hp %d, want 375", full)
	}
	stepN(w, 200)
	if !w.damageFoe(bodyS, 50, 0) || w.cold(body).hp != 0 || w.cold(core).hp != full {
		t.Fatalf("a hit on the body: body %d, core %d", w.cold(body).hp, w.cold(core).hp)
	}
	if evs := stepN(w, 10); len(ofType2(evs, wire.EventHealth, 0)) != 0 {
		t.Fatal("Health after a hit on the body")
	}
	if !w.damageFoe(coreS, 10, 0) || w.cold(core).hp != full-10 {
		t.Fatalf("core hp %d after 10", w.cold(core).hp)
	}
	if evs := stepN(w, 1); len(ofType2(evs, wire.EventHealth, 0)) != 1 {
		t.Fatalf("no Health after a hit on the core: %+v", evs)
	}
	// Down to just above half: phase 1; at half: phase 2, Health at once.
	w.damageFoe(coreS, w.cold(core).hp-(full/2+1), 0)
	if f.phase != 1 || w.cold(core).hp*2 <= full {
		t.Fatalf("phase %d at %d/%d", f.phase, w.cold(core).hp, full)
	}
	w.TakeEvents()
	w.damageFoe(coreS, 1, 0)
	evs := w.TakeEvents()
	if f.phase != 2 {
		t.Fatalf("phase %d at %d/%d", f.phase, w.cold(core).hp, full)
	}
	if h := ofType2(evs, wire.EventHealth, 0); len(h) != 1 || int32(h[0].HP) != w.cold(core).hp || int32(h[0].MaxHP) != full {
		t.Fatalf("phase change: events %+v", evs)
	}
	if body.mo.Model == wire.ModelSine && body.mo.Period != uint16(bossKinds[1].period[1]) {
		t.Errorf("phase 2 hovers with %+v", body.mo)
	}
	// Phase 2 attacks are phase 2's.
	evs = stepN(w, 600)
	warns := ofType2(evs, wire.EventStage, wire.StageWarning)
	if len(warns) < 3 {
		t.Fatalf("%d warnings in 10 s of phase 2", len(warns))
	}
	for _, ev := range warns {
		if ev.Name != "Spiral" && ev.Name != "Crossfire" && ev.Name != "Twin sweep" {
			t.Errorf("phase 2 attack %q", ev.Name)
		}
	}
	// The core's death kills the whole boss and clears the enemy shots.
	if w.CountKind(wire.KindBossBullet)+w.CountKind(wire.KindEnemyMissile) == 0 {
		t.Fatal("no enemy shot in flight")
	}
	w.damageFoe(coreS, w.cold(core).hp, 1)
	evs = w.TakeEvents()
	if n := w.CountKind(wire.KindBossBullet) + w.CountKind(wire.KindEnemyMissile); n != 0 {
		t.Errorf("%d enemy shots after the boss's death", n)
	}
	if w.bossActive() || body.alive || core.alive {
		t.Fatalf("after the core's death: active %v, body %v, core %v", w.bossActive(), body.alive, core.alive)
	}
	var killed []uint32
	for _, ev := range ofType2(evs, wire.EventDestroy, 0) {
		if ev.Reason == wire.DestroyKilled {
			killed = append(killed, ev.ID)
		} else if ev.Reason != wire.DestroyDespawned {
			t.Errorf("Destroy %+v", ev)
		}
	}
	if len(killed) != 2 || !slices.Contains(killed, coreID) {
		t.Errorf("Destroys %+v", evs)
	}
	if h := ofType2(evs, wire.EventHealth, 0); len(h) != 1 || h[0].HP != 0 || h[0].ID != coreID {
		t.Errorf("Health at death: %+v", h)
	}
	if w.Score(1) != 10000 {
		t.Errorf("the killer scores %d", w.Score(1))
	}
	if w.damageFoe(bodyS, 1, 1) {
		t.Error("the dead body absorbs")
	}
	if evs := stepN(w, 60); len(ofType2(evs, wire.EventHealth, 0)) != 0 || len(ofType2(evs, wire.EventStage, wire.StageWarning)) != 0 {
		t.Errorf("events after the boss's death: %+v", evs)
	}
}

// Every attack is announced: a Warning whose Value is the ticks until its
// first shot, exactly, with the body's tell from the Warning to the last
// volley, and no boss shot in between.
func TestBossWarnsBeforeItStrikes(t *testing.T) {
	for _, kind := range []uint8{wire.KindMidBoss, wire.KindBoss} {
		w := foesWorld(t, 1)
		f, _ := bossIn(t, w, kind, 1)
		body := w.ent(f.body)
		seen := map[string]bool{}
		var strike uint32
		var name string
		var tell uint8
		shots := 0
		for range 60 * 60 {
			w.Step()
			evs := w.TakeEvents()
			n := len(spawnsOf(evs, wire.KindEnemyMissile)) + len(spawnsOf(evs, wire.KindBossBullet))
			if warn := ofType2(evs, wire.EventStage, wire.StageWarning); len(warn) > 0 {
				if strike != 0 {
					t.Fatalf("tick %d: Warning %q while %q is on", w.tick, warn[0].Name, name)
				}
				strike, name = w.tick+warn[0].Value, warn[0].Name
				if warn[0].Value < 45 || warn[0].Value > 90 {
					t.Errorf("Warning %d ticks ahead", warn[0].Value)
				}
				tell = body.frame
				if tell < BossFrameFan || tell > BossFrameTwin {
					t.Errorf("tell frame %d", tell)
				}
				seen[name] = true
			}
			switch {
			case strike != 0 && w.tick < strike:
				if n != 0 {
					t.Fatalf("tick %d: %d shots before %q strikes at %d", w.tick, n, name, strike)
				}
			case strike != 0 && w.tick == strike:
				if n == 0 {
					t.Fatalf("tick %d: %q does not strike", w.tick, name)
				}
			}
			shots += n
			if strike == 0 && n != 0 {
				t.Fatalf("tick %d: shots outside an attack", w.tick)
			}
			if strike != 0 && body.frame != tell && body.frame <= BossFrameAngry {
				strike = 0 // the attack is over
			} else if strike != 0 && body.frame != tell {
				t.Fatalf("tick %d: frame %d during %q (tell %d)", w.tick, body.frame, name, tell)
			}
		}
		want := 2
		if kind == wire.KindBoss {
			want = 3
		}
		if len(seen) != want || shots == 0 {
			t.Errorf("kind %d: attacks %v, %d shots", kind, seen, shots)
		}
	}
}

// Health is coalesced: at most one every healthEvery ticks per boss,
// with the latest hit points; nothing when nothing changed.
func TestHealthCoalesced(t *testing.T) {
	w := foesWorld(t, 1)
	mid, _ := bossIn(t, w, wire.KindMidBoss, 1)
	end, _ := bossIn(t, w, wire.KindBoss, 1)
	midID, endID := w.id(mid.core), w.id(end.core)
	last := map[uint32]uint32{midID: 0, endID: 0}
	count := map[uint32]int{}
	for i := range 60 {
		w.damageFoe(mid.core, 1, 0)
		if i%2 == 0 {
			w.damageFoe(end.core, 1, 0)
		}
		w.Step()
		for _, ev := range ofType2(w.TakeEvents(), wire.EventHealth, 0) {
			if ev.Tick-last[ev.ID] < healthEvery {
				t.Fatalf("Health of %#x at ticks %d and %d", ev.ID, last[ev.ID], ev.Tick)
			}
			last[ev.ID] = ev.Tick
			count[ev.ID]++
			c := mid.core
			if ev.ID == endID {
				c = end.core
			}
			if int32(ev.HP) != w.colds[w.at[c]].hp {
				t.Errorf("Health %d, hp %d", ev.HP, w.colds[w.at[c]].hp)
			}
		}
	}
	if count[midID] != 10 || count[endID] != 10 {
		t.Errorf("Health counts %v, want 10 each in 60 ticks", count)
	}
	stepN(w, 10)
	if evs := stepN(w, 60); len(ofType2(evs, wire.EventHealth, 0)) != 0 {
		t.Errorf("Health without damage: %+v", evs)
	}
}

// The mid-boss is one entity: ≥160 px tall, its own Health, it dies alone.
func TestMidBoss(t *testing.T) {
	w := foesWorld(t, 4)
	f, evs := bossIn(t, w, wire.KindMidBoss, 2)
	e := w.ent(f.body)
	if f.core != f.body || 2*w.halfOf(e).h < 160 {
		t.Fatalf("core %d body %d, %g px tall", f.core, f.body, 2*w.halfOf(e).h)
	}
	if b := ofType2(evs, wire.EventStage, wire.StageBoss); len(b) != 1 || b[0].Value != w.id(f.body) || b[0].Name != "Warden" {
		t.Fatalf("StageBoss %+v", b)
	}
	if w.cold(e).maxHP != 394 { // 150 × 7/4 × 3/2 = 393.75
		t.Errorf("hp %d for 4 players in loop 2", w.cold(e).maxHP)
	}
	w.spawnBoss(wire.KindMidBoss, 1) // already on: nothing
	if evs := w.TakeEvents(); len(evs) != 0 {
		t.Errorf("a second mid-boss: %+v", evs)
	}
	stepN(w, 600)
	w.damageFoe(f.body, 1000, 2)
	if w.bossActive() || e.alive || w.Score(2) != 6000 {
		t.Errorf("active %v alive %v score %d", w.bossActive(), e.alive, w.Score(2))
	}
}

// Loop 2 is harder: more hit points, faster and more shots.
func TestBossLoop2(t *testing.T) {
	count := func(loop int) (hp int32, shots int, speed float64) {
		w := foesWorld(t, 1)
		f, _ := bossIn(t, w, wire.KindBoss, loop)
		hp = w.colds[w.at[f.core]].maxHP
		for range 60 * 30 {
			w.Step()
			for _, ev := range w.TakeEvents() {
				if ev.Type == wire.EventSpawn && (ev.Kind == wire.KindEnemyMissile) {
					shots++
					speed = math.Hypot(float64(ev.Motion.VX), float64(ev.Motion.VY)) / wire.VelScale
				}
			}
		}
		return hp, shots, speed
	}
	hp1, n1, v1 := count(1)
	hp2, n2, v2 := count(2)
	if hp1 != 300 || hp2 != 450 || n2 <= n1 || v2 <= v1 {
		t.Errorf("loop 1: hp %d, %d missiles at %g px/s; loop 2: hp %d, %d at %g", hp1, n1, v1, hp2, n2, v2)
	}
}

// The same seed and the same hits give the same events.
func TestFoesDeterministic(t *testing.T) {
	run := func() []wire.Event {
		w := foesWorld(t, 3)
		var all []wire.Event
		w.ids.ripen(0)
		w.spawnBoss(wire.KindBoss, 1)
		w.spawnBoss(wire.KindMidBoss, 1)
		for i := range 1200 {
			if i%30 == 0 {
				fill(w, 12, 40)
			}
			if i%5 == 0 {
				hitSome(w, i)
			}
			w.Step()
			all = append(all, w.TakeEvents()...)
		}
		return all
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Fatal("two runs differ")
	}
	if len(a) < 1000 {
		t.Fatalf("only %d events", len(a))
	}
}

// fill brings the foes up to n: one of each kind in turn, firing every
// iv ticks (before the scaling).
func fill(w *World, n int, iv int32) {
	kinds := [...]uint8{wire.KindBydosSlave, wire.KindPowArmor, wire.KindChaser, wire.KindTurret, wire.KindArmored}
	have := 0
	for s := int32(1); s < w.hi; s++ {
		if e := w.ent(s); e.alive && roles[e.kind] == roleFoe && e.kind != wire.KindBoss && e.kind != wire.KindBossCore && e.kind != wire.KindMidBoss {
			have++
		}
	}
	w.ids.ripen(w.tick)
	for i := have; i < n; i++ {
		k := kinds[(int(w.tick)+i)%len(kinds)]
		f := foeSpawn{kind: k, x: 1250 + float64(i%4)*10, y: 60 + float64(i*53%600), fireInterval: iv, drop: noDrop}
		if k == wire.KindBydosSlave {
			f.amp, f.period = 40, 120
		}
		if k == wire.KindPowArmor {
			f.drop = wire.ItemBit
		}
		w.spawnFoe(&f)
	}
}

// hitSome hurts a few foes (not enough to kill the boss quickly).
func hitSome(w *World, i int) {
	for s := int32(1); s < w.hi; s++ {
		if e := w.ent(s); e.alive && roles[e.kind] == roleFoe && (int(s)+i)%3 == 0 {
			w.damageFoe(s, 1, uint8(i%3))
		}
	}
}

// busyStage is a Stage world at its busiest: 4 ships firing about, the
// end boss of loop 2 fighting, 30 foes firing every 90 ticks (69 for four
// players) and their shots.
func busyStage(t testing.TB) (*World, func()) {
	w := foesWorld(t, 4)
	for p := range uint8(4) {
		place(w, p, 200, 120+float64(p)*160)
	}
	i := 0
	tick := func() {
		if !w.bossActive() {
			w.ids.ripen(w.tick)
			w.spawnBoss(wire.KindBoss, 2)
		}
		if i%20 == 0 {
			fill(w, 30, 90)
		}
		if i%4 == 0 {
			hitSome(w, i)
		}
		if i%60 == 0 {
			for p := range uint8(4) {
				w.SetInput(p, []uint8{wire.ActionUp, wire.ActionDown}[(i/60+int(p))%2])
			}
		}
		w.Step()
		w.TakeEvents()
		i++
	}
	for range 1200 { // the boss fighting, buffers at their size
		tick()
	}
	return w, tick
}

// A Step with the boss fighting and a screen of foes allocates nothing.
func TestStageFoesNoAllocs(t *testing.T) {
	w, tick := busyStage(t)
	if !w.bossActive() || w.boss.fights[1].entering {
		t.Fatal("no boss fight on")
	}
	testutil.NoAllocs(t, 600, "Step of a Stage world with the boss", tick)
}

// BenchmarkStageBossStep is a Step of the busiest moment of the foes'
// side: 4 ships, the end boss of loop 2 attacking, 30 foes and their
// shots (the player's side is another's: its hits are stood in by
// damageFoe calls).
func BenchmarkStageBossStep(b *testing.B) {
	w, tick := busyStage(b)
	n := 0
	for s := int32(1); s < w.hi; s++ {
		if w.ent(s).alive {
			n++
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		tick()
	}
	b.ReportMetric(float64(n), "entities")
}

// A client joining during a boss fight gets the bosses' StageBoss and
// Health from AppendBosses; nothing without a boss.
func TestAppendBosses(t *testing.T) {
	w := foesWorld(t, 1)
	if evs := w.AppendBosses(nil); len(evs) != 0 {
		t.Fatalf("without a boss: %+v", evs)
	}
	m, _ := bossIn(t, w, wire.KindMidBoss, 1)
	f, _ := bossIn(t, w, wire.KindBoss, 1)
	w.damageFoe(f.core, 7, 0)
	stepN(w, 30)
	evs := w.AppendBosses(nil)
	tk := w.tick
	ws := []wire.Event{
		{Type: wire.EventStage, Tick: tk, What: wire.StageBoss, Value: w.id(m.core), Name: "Warden"},
		{Type: wire.EventHealth, Tick: tk, ID: w.id(m.core), HP: 150, MaxHP: 150},
		{Type: wire.EventStage, Tick: tk, What: wire.StageBoss, Value: w.id(f.core), Name: "Mother Bydos"},
		{Type: wire.EventHealth, Tick: tk, ID: w.id(f.core), HP: 293, MaxHP: 300},
	}
	if !slices.Equal(evs, ws) {
		t.Errorf("AppendBosses:\n%+v\nwant\n%+v", evs, ws)
	}
}

// In a busy fight every foe and shot is where its motion puts it, and a
// motion set again (a Chaser's turn, a boss's hover or phase) starts at
// the current tick from where the old one was, within the quantization: a
// client evaluating the motions sees no jump.
func TestStageFoesFollowTheirMotions(t *testing.T) {
	w, tick := busyStage(t)
	prev := make([]wire.Motion, len(w.ents))
	gen := make([]uint8, len(w.ents))
	changes := 0
	for i := range 900 {
		if f := &w.boss.fights[1]; i == 300 && f.on && f.phase == 1 {
			c := w.ent(f.core)
			w.damageFoe(f.core, w.cold(c).hp-w.cold(c).maxHP/2, 0) // phase 2: a new hover
		}
		tick()
		for s := int32(1); s < w.hi; s++ {
			e := w.ent(s)
			if !e.alive || e.kind == wire.KindPlayerShip {
				continue
			}
			x, y, _, _ := e.mo.At(float64(w.tick))
			if x != e.x || y != e.y {
				t.Fatalf("tick %d: kind %d at (%g, %g), its motion at (%g, %g)", w.tick, e.kind, e.x, e.y, x, y)
			}
			if gen[s] == w.gens[s] && prev[s] != (wire.Motion{}) && prev[s] != e.mo {
				changes++
				// Set during this step, or between the last one and this one.
				t0 := float64(e.mo.T0)
				ox, oy, _, _ := prev[s].At(t0)
				nx, ny, _, _ := e.mo.At(t0)
				if e.mo.T0+1 < w.tick || math.Abs(ox-nx) > 0.5 || math.Abs(oy-ny) > 0.5 {
					t.Fatalf("tick %d: kind %d: motion %+v → %+v, from (%g, %g) to (%g, %g)", w.tick, e.kind, prev[s], e.mo, ox, oy, nx, ny)
				}
			}
			prev[s], gen[s] = e.mo, w.gens[s]
		}
	}
	if changes < 5 {
		t.Errorf("%d motion changes", changes)
	}
}

// A whole fight, two players shooting the core: StageBoss, Health going
// down to 0 in order, attacks of both phases announced, the boss dead and
// the fight over in well under a minute.
func TestWholeBossFight(t *testing.T) {
	w := foesWorld(t, 2)
	f, evs := bossIn(t, w, wire.KindBoss, 1)
	core := f.core
	hp := uint16(math.MaxUint16)
	phase2 := false
	names := map[string]bool{}
	for i := 0; w.bossActive(); i++ {
		if i > 60*60 {
			t.Fatal("the fight lasts over a minute")
		}
		if i%6 == 0 && i > 150 { // two players hit it 20 times a second
			w.damageFoe(core, 2, uint8(i/6%2))
		}
		w.Step()
		evs = append(evs, w.TakeEvents()...)
		phase2 = phase2 || f.phase == 2
	}
	if !phase2 {
		t.Error("no phase 2")
	}
	var last wire.Event
	for _, ev := range evs {
		switch {
		case ev.Type == wire.EventHealth:
			if ev.HP > hp {
				t.Errorf("Health goes up: %d then %d", hp, ev.HP)
			}
			hp, last = ev.HP, ev
		case ev.Type == wire.EventStage && ev.What == wire.StageWarning:
			names[ev.Name] = true
		}
	}
	if hp != 0 || wire.Index(last.ID) != uint32(core) {
		t.Errorf("last Health %+v", last)
	}
	if len(names) < 4 {
		t.Errorf("attacks %v", names)
	}
	if w.Score(0)+w.Score(1) != 10000 {
		t.Errorf("scores %d + %d", w.Score(0), w.Score(1))
	}
	t.Logf("the fight lasted %d ticks, attacks %v", w.tick, names)
}
