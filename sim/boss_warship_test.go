package sim

import (
	"slices"
	"testing"

	"rtype/vocab"
)

// warshipIn spawns the warship between steps and returns its fight.
func warshipIn(t testing.TB, w *World) *bossFight {
	t.Helper()
	w.ids.ripen(w.tick)
	w.spawnBoss(vocab.KindWarship, 1)
	f := &w.boss.fights[1]
	if !f.on || f.bk != bkWarship {
		t.Fatal("no warship after spawnBoss")
	}
	return f
}

// warnsOf returns the names of the Warnings in evs.
func warnsOf(evs []vocab.Event) []string {
	var out []string
	for _, ev := range ofType2(evs, vocab.EventStage, vocab.StageWarning) {
		out = append(out, ev.Name)
	}
	return out
}

// The warship's phases: its plates first (its core shut takes no damage,
// Broadside fires from each plate standing), then its core exposed, then
// its last phase at half the core's hit points; the core's death kills it
// whole.
func TestWarshipPhases(t *testing.T) {
	w := foesWorld(t, 1)
	place(w, 0, 200, 360)
	f := warshipIn(t, w)
	evs := w.TakeEvents()
	body, core := w.ent(f.body), w.ent(f.core)
	if body.kind != vocab.KindWarship || core.kind != vocab.KindBossCore || len(spawnsOf(evs, vocab.KindPlate)) != warshipPlates {
		t.Fatalf("kinds %d %d, spawns %+v", body.kind, core.kind, evs)
	}
	if b := ofType2(evs, vocab.EventStage, vocab.StageBoss); len(b) != 1 || b[0].Name != "Warship" || b[0].Value != w.id(f.core) {
		t.Fatalf("StageBoss %+v", b)
	}
	full := foeDefaults[vocab.KindWarship].hp // one player, loop 1: unscaled
	if !f.shut || core.frame != coreFrameShut || w.cold(core).hp != full {
		t.Fatalf("shut %v, core frame %d hp %d", f.shut, core.frame, w.cold(core).hp)
	}
	// The plates move with the body, in front of the core.
	evs = stepN(w, 400)
	for i, s := range f.plates {
		p := w.ent(s)
		if p.kind != vocab.KindPlate || abs(p.x-body.x-f.plateD[i][0]) > 1e-6 || abs(p.y-body.y-f.plateD[i][1]) > 1e-6 || p.x >= core.x {
			t.Fatalf("plate %d at (%g, %g), body at (%g, %g), core at x %g", i, p.x, p.y, body.x, body.y, core.x)
		}
		if w.cold(p).hp != plateHP {
			t.Fatalf("plate %d hp %d", i, w.cold(p).hp)
		}
	}
	// Phase 1: the core absorbs hits unhurt; Broadside fires one missile
	// per plate standing.
	if !w.damageFoe(f.core, 50, 0) || w.cold(core).hp != full {
		t.Fatalf("the shut core took a hit: hp %d", w.cold(core).hp)
	}
	evs = append(evs, stepN(w, 900)...)
	names := warnsOf(evs)
	if !slices.Contains(names, "Broadside") {
		t.Fatalf("phase 1 attacks %v: no Broadside", names)
	}
	for _, n := range names {
		if n != "Broadside" && n != "Ring" && n != "Fan" {
			t.Errorf("phase 1 attack %q", n)
		}
	}
	// Plates: cracked below half, and the core opens with the last one.
	p0 := w.ent(f.plates[0])
	w.damageFoe(f.plates[0], plateHP/2-1, 0)
	if p0.frame != 0 {
		t.Errorf("plate cracked above half its hit points")
	}
	w.damageFoe(f.plates[0], 1, 0)
	if p0.frame != 1 {
		t.Errorf("plate not cracked at half its hit points")
	}
	for i := range warshipPlates - 1 {
		w.damageFoe(f.plates[i], plateHP, 0)
		if !f.shut || f.phase != 1 {
			t.Fatalf("%d plates down: shut %v phase %d", i+1, f.shut, f.phase)
		}
	}
	if p0.alive || w.Score(0) != 3*plateScore {
		t.Fatalf("plates down: plate 0 alive %v, score %d", p0.alive, w.Score(0))
	}
	// Broadside from the one plate left: one missile a volley.
	w.TakeEvents()
	for f.atk != atkBroadside || f.volley != 0 || w.tick+1 != f.nextAt {
		w.Step()
		w.TakeEvents()
		if w.tick > 20000 {
			t.Fatal("no Broadside")
		}
	}
	w.Step()
	if n := len(spawnsOf(w.TakeEvents(), vocab.KindEnemyMissile)); n != 1 {
		t.Errorf("Broadside with one plate: %d missiles, want 1", n)
	}
	w.damageFoe(f.plates[warshipPlates-1], plateHP, 0)
	evs = w.TakeEvents()
	if f.shut || f.phase != 2 || core.frame != 0 {
		t.Fatalf("no plate left: shut %v phase %d core frame %d", f.shut, f.phase, core.frame)
	}
	if h := ofType2(evs, vocab.EventHealth, 0); len(h) != 1 || int32(h[0].HP) != full {
		t.Errorf("Health on the core's opening: %+v", h)
	}
	// Phase 2: hurt; phase 3 at half.
	if !w.damageFoe(f.core, full/2-1, 0) || w.cold(core).hp != full-full/2+1 || f.phase != 2 {
		t.Fatalf("phase %d, core hp %d", f.phase, w.cold(core).hp)
	}
	evs = stepN(w, 600)
	for _, n := range warnsOf(evs) {
		if n != "Fan" && n != "Sweep" && n != "Spiral" {
			t.Errorf("phase 2 attack %q", n)
		}
	}
	w.damageFoe(f.core, 1, 0)
	if f.phase != 3 || core.frame != 1 {
		t.Fatalf("at half: phase %d, core frame %d", f.phase, core.frame)
	}
	evs = stepN(w, 900)
	names = warnsOf(evs)
	if len(names) < 3 {
		t.Fatalf("%d attacks in 15 s of phase 3", len(names))
	}
	for _, n := range names {
		if n != "Crossfire" && n != "Twin sweep" && n != "Spiral" && n != "Broadside" {
			t.Errorf("phase 3 attack %q", n)
		}
	}
	coreID, bodyID := w.id(f.core), w.id(f.body)
	w.damageFoe(f.core, w.cold(core).hp, 0)
	evs = w.TakeEvents()
	if w.bossActive() || body.alive || core.alive {
		t.Fatal("the warship lives on after its core's death")
	}
	var killed []uint32
	for _, ev := range ofType2(evs, vocab.EventDestroy, 0) {
		if ev.Reason == vocab.DestroyKilled {
			killed = append(killed, ev.ID)
		}
	}
	if len(killed) != 2 || !slices.Contains(killed, coreID) || !slices.Contains(killed, bodyID) {
		t.Errorf("killed %v", killed)
	}
	if w.Score(0) != 4*plateScore+20000 {
		t.Errorf("score %d", w.Score(0))
	}
}

// A stage whose end boss is the warship spawns it, and is cleared when
// its core dies.
func TestWarshipClearsTheStage(t *testing.T) {
	w, _ := stageWorld(t, head+"at 0s music warship\nat 1s music warship-boss\nat 1s boss type=warship\n", 1, "")
	evs := stageEvents(w, 70)
	f := &w.boss.fights[1]
	if !f.on || f.bk != bkWarship || w.CountKind(vocab.KindWarship) != 1 || w.CountKind(vocab.KindPlate) != warshipPlates {
		t.Fatalf("no warship at the boss entry: %v", evs)
	}
	var music []string
	for _, ev := range evs {
		if ev.What == vocab.StageMusic {
			music = append(music, ev.Name)
		}
	}
	if !slices.Equal(music, []string{"warship", "warship-boss"}) {
		t.Errorf("music %v", music)
	}
	for _, s := range f.plates {
		w.damageFoe(s, 1000, 0)
	}
	w.damageFoe(f.core, 100000, 0)
	evs = stageEvents(w, 2)
	clear := false
	for _, ev := range evs {
		clear = clear || ev.What == vocab.StageClear
	}
	if !clear || w.CountKind(vocab.KindPlate) != 0 {
		t.Errorf("after the warship's death: %v, %d plates", evs, w.CountKind(vocab.KindPlate))
	}
}

// The warship's bar counts its plates: its first Health is the core's
// hit points and the 4 plates', and it goes down as the plates are hurt
// and fall, then with the core (the shut core itself takes nothing).
func TestWarshipBarCountsPlates(t *testing.T) {
	w := foesWorld(t, 1)
	place(w, 0, 200, 360)
	f := warshipIn(t, w)
	core := foeDefaults[vocab.KindWarship].hp
	whole := core + warshipPlates*plateHP // one player, loop 1: unscaled
	h := ofType2(w.TakeEvents(), vocab.EventHealth, 0)
	if len(h) != 1 || int32(h[0].HP) != whole || int32(h[0].MaxHP) != whole || h[0].ID != w.id(f.core) {
		t.Fatalf("the warship's first Health %+v, want %d of %d for its core", h, whole, whole)
	}
	last := func() vocab.Event {
		t.Helper()
		h := ofType2(stepN(w, healthEvery+1), vocab.EventHealth, 0)
		if len(h) == 0 {
			t.Fatal("no Health after a hit")
		}
		return h[len(h)-1]
	}
	w.damageFoe(f.plates[0], 10, 0)
	if hp := int32(last().HP); hp != whole-10 {
		t.Errorf("a plate hurt by 10: the bar at %d, want %d", hp, whole-10)
	}
	for i := range warshipPlates {
		w.damageFoe(f.plates[i], plateHP, 0)
	}
	if hp := int32(last().HP); hp != core {
		t.Errorf("every plate down: the bar at %d, want the core's %d", hp, core)
	}
	w.damageFoe(f.core, 20, 0)
	if ev := last(); int32(ev.HP) != core-20 || int32(ev.MaxHP) != whole {
		t.Errorf("the core hurt by 20: the bar at %d of %d, want %d of %d", ev.HP, ev.MaxHP, core-20, whole)
	}
}
