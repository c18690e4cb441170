package sim

import (
	"testing"

	"rtype/internal/testutil"
	"rtype/sim/stage"
	"rtype/vocab"
)

// stageTwo is builtinStage of stage 2.
func stageTwo(tb testing.TB, seed uint64, warp string, players int) *World {
	tb.Helper()
	return builtinStage(tb, "2", seed, warp, players)
}

// Stage 2 brings its hull's foes and the warship: a Step over its whole
// timeline (its bosses falling as they come), with 4 scripted players,
// allocates nothing.
func TestStageTwoStepNoAllocs(t *testing.T) {
	w := stageTwo(t, 3, "", 4)
	w.st.holdBoss = -1
	seen := [256]bool{}
	tick := func() {
		script(w)
		w.Step()
		for _, ev := range w.TakeEvents() {
			if ev.Type == vocab.EventSpawn {
				seen[ev.Kind] = true
			}
		}
	}
	testutil.NoAllocs(t, int(w.st.st.Length)+600, "Step over stage 2", tick)
	for _, k := range []uint8{vocab.KindHatch, vocab.KindCrawler, vocab.KindMidBoss, vocab.KindWarship, vocab.KindPlate} {
		if !seen[k] {
			t.Errorf("no kind %d in stage 2", k)
		}
	}
}

// busyWarship is stage 2's busiest moment: the warship of loop 2 fighting
// over the hull, 4 ships firing about, 30 foes (hatches and crawlers
// among them) firing and their shots; the plates and core are hurt a
// little at a time.
func busyWarship(tb testing.TB) (*World, func()) {
	w := stageTwo(tb, 5, "boss", 4)
	i := 0
	kinds := [...]uint8{vocab.KindHatch, vocab.KindCrawler, vocab.KindBydosSlave, vocab.KindChaser, vocab.KindTurret}
	tick := func() {
		if !w.bossActive() {
			w.ids.ripen(w.tick)
			w.spawnBoss(vocab.KindWarship, 2)
		}
		if i%20 == 0 {
			have := len(w.foes)
			w.ids.ripen(w.tick)
			for j := have; j < 30; j++ {
				k := kinds[(i+j)%len(kinds)]
				f := foeSpawn{kind: k, x: 1250 + float64(j%4)*10, y: 60 + float64(j*53%600), fireInterval: 90, drop: noDrop}
				w.spawnFoe(&f)
			}
		}
		if i%4 == 0 {
			hitSome(w, i)
		}
		script(w)
		w.Step()
		w.TakeEvents()
		i++
	}
	for range 1200 {
		tick()
	}
	return w, tick
}

// A Step of the warship's fight at its busiest allocates nothing.
func TestWarshipNoAllocs(t *testing.T) {
	w, tick := busyWarship(t)
	if f := &w.boss.fights[1]; !f.on || f.bk != bkWarship {
		t.Fatal("no warship fighting")
	}
	testutil.NoAllocs(t, 600, "Step of stage 2 with the warship", tick)
}

// BenchmarkWarshipStep is a Step of busyWarship.
func BenchmarkWarshipStep(b *testing.B) {
	_, tick := busyWarship(b)
	b.ReportAllocs()
	for b.Loop() {
		tick()
	}
}

// BenchmarkStageTwoHullBusiest is BenchmarkStageTerrainBusiest in stage
// 2's engine decks (its timeline held at 2:08: floor, ceiling and
// crawlers on both): 4 ships firing and moving, and at least 40 foes kept
// on screen from its hatch and crawler waves, its events taken at each
// tick.
func BenchmarkStageTwoHullBusiest(b *testing.B) {
	w := stageTwo(b, 9, "2:08", 4)
	st := w.st.st
	var hull []*stage.Wave
	for i := range st.Entries {
		if e := &st.Entries[i]; e.Kind == stage.EntryWave && (e.Wave.Enemy == vocab.KindHatch || e.Wave.Enemy == vocab.KindCrawler) {
			hull = append(hull, &e.Wave)
		}
	}
	tick := heldBusy(w, hull)
	if !w.terrainOn() {
		b.Fatal("no terrain on screen")
	}
	b.ReportAllocs()
	for b.Loop() {
		tick()
	}
	b.ReportMetric(float64(w.NumEntities()), "entities")
}
