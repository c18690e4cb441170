package sim

import (
	"testing"

	"rtype/net/wire"
	"rtype/sim/stage"
)

// terrainStage has a ceiling and a floor 100 px high over the distances
// 0 to 400 px, turrets mounted on a floor 150 px high at 1000 px, and a
// marker "in" at 10 s (600 px): warped there, the ceiling and floor span
// x 680 to 1080 when the timeline starts, and scroll left 1 px a tick.
const terrainStage = "rtype-stage 1\nname ter\ntitle Terrain\nscroll 60px/s\nlength 30:00\n" +
	"at 0s terrain length=400px ceiling=100 floor=100\n" +
	"at 10s marker in\n" +
	"at 1000px terrain length=200px floor=150\n" +
	"at 1000px wave enemy=turret formation=line count=2 spacing=60 y=floor\n" +
	"at +0s wave enemy=turret y=ceiling\n" +
	"at 29:00 boss\n"

// terrainWorld returns a world on terrainStage warped to "in", with one
// player without join invulnerability, its timeline started.
func terrainWorld(t testing.TB) *World {
	t.Helper()
	st, err := stage.Parse("ter.stage", []byte(terrainStage))
	if err != nil {
		t.Fatal(err)
	}
	r := DefaultRules()
	r.JoinInvulnTicks = 0
	w, err := NewStage(r, st, 1, StageOptions{Warp: "in"})
	if err != nil {
		t.Fatal(err)
	}
	w.AddPlayer(0, "P")
	w.SetShipPos(0, 300, 360)
	w.Step()
	w.TakeEvents()
	if d := w.StageDistance(); d < 600 || d > 602 {
		t.Fatalf("distance %g, want 600 after the warp", d)
	}
	return w
}

// A ship that touches the terrain dies as on a foe; one in the passage
// lives.
func TestShipDiesOnTerrain(t *testing.T) {
	w := terrainWorld(t)
	evs := armsRun(w, 0, 0, 30)
	if n := len(armsEvents(evs, wire.EventDeath)); n != 0 {
		t.Fatalf("%d deaths in the open", n)
	}
	w.SetShipPos(0, 700, 360) // in the passage between ceiling and floor
	if evs = armsRun(w, 0, 0, 10); len(armsEvents(evs, wire.EventDeath)) != 0 {
		t.Fatal("died in the passage")
	}
	w.SetShipPos(0, 700, 95) // its top in the ceiling (0..100)
	if evs = armsRun(w, 0, 0, 1); len(armsEvents(evs, wire.EventDeath)) != 1 {
		t.Fatalf("ship in the ceiling: %v", evs)
	}
}

// Shots of both sides stop on the terrain (Consumed), the beam too;
// a shot in the passage flies on.
func TestShotsAndBeamStopOnTerrain(t *testing.T) {
	w := terrainWorld(t)
	enemy := w.id(armsShot(w, wire.KindEnemyMissile, 500, 50, 300, 0))
	mine := w.id(armsShot(w, wire.KindPlayerMissile, 500, 660, 600, 0))
	free := w.id(armsShot(w, wire.KindEnemyMissile, 500, 360, 300, 0))
	evs := armsRun(w, 0, 0, 40)
	for _, c := range []struct {
		id   uint32
		what string
	}{{enemy, "enemy shot in the ceiling"}, {mine, "player missile in the floor"}} {
		if d, ok := armsDestroy(evs, c.id); !ok || d.Reason != wire.DestroyConsumed || d.X > 700 {
			t.Errorf("%s: %+v, %v: want Consumed at the wall (x about 650)", c.what, d, ok)
		}
	}
	if _, ok := armsDestroy(evs, free); ok {
		t.Error("a shot in the passage stopped")
	}

	w.SetShipPos(0, 300, 50) // in the open, at the ceiling's height
	armsRun(w, 0, 0, 1)
	w.fireBeam(0, 3)
	b := spawnsOf(w.TakeEvents(), wire.KindWaveBeam)
	if len(b) != 1 {
		t.Fatal("no beam")
	}
	evs = armsRun(w, 0, 0, 60)
	if d, ok := armsDestroy(evs, b[0].ID); !ok || d.Reason != wire.DestroyConsumed || d.X > 700 {
		t.Errorf("the beam: %+v, %v: want Consumed at the wall", d, ok)
	}
}

// A launched Force stops against the terrain and lives on, even as the
// terrain scrolls over it.
func TestForceSurvivesTerrain(t *testing.T) {
	w := terrainWorld(t)
	w.SetShipPos(0, 300, 60)
	fe := armsGiveForce(t, w, 0)
	if w.pl[0].arms.a.ForceAt != wire.ForceBack {
		t.Fatalf("Force at %d, want the back", w.pl[0].arms.a.ForceAt)
	}
	// Through the passage to the right of the ceiling, at its height.
	for _, p := range [][2]float64{{300, 360}, {1150, 360}, {1150, 60}} {
		w.SetShipPos(0, p[0], p[1])
		armsRun(w, 0, 0, 2)
	}
	if evs := w.TakeEvents(); len(armsEvents(evs, wire.EventDeath)) != 0 || fe.x != 1150-28 {
		t.Fatalf("the ship died, or the Force is not at its back (x %g)", fe.x)
	}
	armsRun(w, 0, wire.ActionForce, 1) // launched backward, into the ceiling
	armsRun(w, 0, 0, 45)
	wall := stage.AreaW + 400 - w.StageDistance() // the ceiling's right end
	if fe.mo.Model != wire.ModelStationary || fe.x < wall || fe.x > wall+60 {
		t.Errorf("launched at the ceiling ending at x %g: at %g, model %d; want stopped right of it", wall, fe.x, fe.mo.Model)
	}
	evs := armsRun(w, 0, 0, 200) // the ceiling scrolls over it
	if !w.ent(w.pl[0].arms.force).alive || len(armsEvents(evs, wire.EventDestroy)) != 0 {
		t.Errorf("the Force died: %v", armsEvents(evs, wire.EventDestroy))
	}
}

// Turrets on the floor or ceiling sit on the terrain's where there is
// some.
func TestTurretsMountOnTerrain(t *testing.T) {
	w := terrainWorld(t)
	var ys []float64
	w.st.onSpawn = func(f *foeSpawn) { ys = append(ys, f.y) }
	armsRun(w, 0, 0, 400+90)
	hh := w.half[wire.KindTurret].h
	// The line's second member enters 1 s after the first, after the
	// ceiling's turret.
	if len(ys) != 3 || ys[0] != 720-150-hh || ys[1] != hh || ys[2] != 720-150-hh {
		t.Errorf("turrets at %v, want %g (on the floor of 150 px), %g (the ceiling), %g", ys, 720-150-hh, hh, 720-150-hh)
	}
}

// A busy tick over terrain allocates nothing.
func TestTerrainTickNoAllocs(t *testing.T) {
	w := terrainWorld(t)
	for i := range 20 {
		armsShot(w, wire.KindEnemyMissile, 500, float64(40+i*30), 300, 0)
	}
	tick := func() { w.Step(); w.TakeEvents() }
	for range 30 {
		tick()
	}
	if n := testing.AllocsPerRun(100, tick); n != 0 {
		t.Errorf("%g allocations a tick", n)
	}
}

// BenchmarkStageTerrainBusiest is BenchmarkStageBusiest in stage 1's
// terrain (its timeline held at 1:05, where floor, ceiling and a block
// fill the screen): 4 ships firing and moving, against the walls too,
// and at least 40 foes kept on screen, its events taken at each tick.
func BenchmarkStageTerrainBusiest(b *testing.B) {
	w := stageOne(b, 9, "1:05", 4)
	st := w.st.st
	tick := heldBusy(w, lastWaves(st, 6))
	if !w.terrainOn() || !st.Solid(w.StageDistance(), 0, 0, stage.AreaW, stage.AreaH) {
		b.Fatal("no terrain on screen")
	}
	b.ReportAllocs()
	for b.Loop() {
		tick()
	}
	b.ReportMetric(float64(w.NumEntities()), "entities")
}
