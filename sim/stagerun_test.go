package sim

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/sim/stage"
)

// The stage runner's tests: they play small stages tick by tick and look
// at the foes it asks for (stageRun.onSpawn) and the events it emits.
// The bosses are the foes helper's: holdBoss stands for a boss fight (1)
// or a beaten boss (-1), whatever the bosses do.

// head is a stage header of 5 lines at 60 px/s, 1 minute long.
const head = "rtype-stage 1\nname t\ntitle Test Stage\nscroll 60px/s\nlength 1:00\n"

// spawned is a foe the runner asked for, and when.
type spawned struct {
	tick uint32
	f    foeSpawn
}

// stageWorld is a Stage world of src with players players joined at tick
// 0, recording the foes it asks for.
func stageWorld(t testing.TB, src string, players int, warp string) (*World, *[]spawned) {
	t.Helper()
	st, err := stage.Parse("t.stage", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewStage(livelyRules(), st, 1, StageOptions{Warp: warp})
	if err != nil {
		t.Fatal(err)
	}
	var got []spawned
	w.st.onSpawn = func(f *foeSpawn) { got = append(got, spawned{w.tick, *f}) }
	for p := range players {
		w.AddPlayer(uint8(p), "p")
	}
	w.TakeEvents()
	return w, &got
}

// stageEvents steps w n times and returns the runner's Stage events
// (not the bosses' StageBoss and StageWarning, nor the StageFile before
// each StageIntro: TestStageCampaign's).
func stageEvents(w *World, n int) []wire.Event {
	var evs []wire.Event
	for range n {
		w.Step()
		for _, ev := range w.TakeEvents() {
			if ev.Type == wire.EventStage && ev.What != wire.StageBoss && ev.What != wire.StageWarning && ev.What != wire.StageFile {
				evs = append(evs, ev)
			}
		}
	}
	return evs
}

func stageEv(tick uint32, what uint8, value uint32, name string) wire.Event {
	return wire.Event{Type: wire.EventStage, Tick: tick, What: what, Value: value, Name: name}
}

// A wave comes at its time, and one placed by distance at the time the
// scroll speed gives; the timeline starts with the first player (tick 1
// is the timeline's 0).
func TestStageWaveTimeAndDistance(t *testing.T) {
	w, got := stageWorld(t, head+
		"at 2s wave enemy=slave y=300 speed=120\n"+
		"at 600px wave enemy=chaser y=400 speed=150\n"+ // 10 s at 60 px/s
		"at 50s boss\n", 1, "")
	for range 700 {
		w.Step()
	}
	if len(*got) != 2 {
		t.Fatalf("%d foes, want 2: %+v", len(*got), *got)
	}
	hw := w.half[wire.KindBydosSlave].w
	if g := (*got)[0]; g.tick != 121 || g.f.kind != wire.KindBydosSlave || g.f.x != 1280+hw || g.f.y != 300 || g.f.vx != -120 {
		t.Errorf("wave at 2s: %+v", g)
	}
	if g := (*got)[1]; g.tick != 601 || g.f.kind != wire.KindChaser || g.f.y != 400 || g.f.vx != -150 {
		t.Errorf("wave at 600px: %+v", g)
	}
	if n := w.CountKind(wire.KindBydosSlave) + w.CountKind(wire.KindChaser); n == 0 {
		t.Error("the foes asked for are not in the world")
	}

	// No player, no timeline.
	st, _ := stage.Parse("t.stage", []byte(head+"at 0s wave enemy=slave\nat 50s boss\n"))
	w2, _ := NewStage(DefaultRules(), st, 1, StageOptions{})
	for range 200 {
		w2.Step()
	}
	if evs := w2.TakeEvents(); len(evs) != 0 {
		t.Errorf("a stage without players: %d events, first %+v", len(evs), evs[0])
	}
}

// Formations place their members as STAGES.md says: ranks enter
// spacing/speed apart, heights by the formation.
func TestStageFormations(t *testing.T) {
	type m struct {
		dt uint32  // ticks after the wave's start
		y  float64 // height
	}
	const s = 60.0 // spacing; at 120 px/s a rank is 30 ticks
	for _, c := range []struct {
		wave string
		want []m
	}{
		{"enemy=slave y=300", []m{{0, 300}}},
		{"enemy=slave formation=line count=3 spacing=60 y=300", []m{{0, 300}, {30, 300}, {60, 300}}},
		{"enemy=slave formation=column count=3 spacing=60 y=300", []m{{0, 300 - s}, {0, 300}, {0, 300 + s}}},
		{"enemy=slave formation=column count=2 spacing=60 y=300", []m{{0, 300 - s/2}, {0, 300 + s/2}}},
		{"enemy=slave formation=v count=5 spacing=60 y=300", []m{{0, 300}, {30, 300 - s}, {30, 300 + s}, {60, 300 - 2*s}, {60, 300 + 2*s}}},
		{"enemy=slave formation=wedge count=5 spacing=60 y=300", []m{{0, 300 + 2*s}, {0, 300 - 2*s}, {30, 300 + s}, {30, 300 - s}, {60, 300}}},
		{"enemy=turret formation=line count=2 spacing=60 y=floor", []m{{0, 720 - 14}, {60, 720 - 14}}}, // turrets at 60 px/s: 60 ticks
		{"enemy=turret formation=column count=2 spacing=60 y=ceiling", []m{{0, 14}, {0, 14 + s}}},
		{"enemy=slave formation=column count=3 spacing=400 y=360", []m{{0, 16}, {0, 360}, {0, 720 - 16}}}, // within the area
	} {
		src := head + "at 1s wave " + c.wave + "\nat 50s boss\n"
		if !strings.Contains(c.wave, "turret") { // turrets go at the scroll's speed
			src = head + "at 1s wave speed=120 " + c.wave + "\nat 50s boss\n"
		}
		w, got := stageWorld(t, src, 1, "")
		for range 300 {
			w.Step()
		}
		if len(*got) != len(c.want) {
			t.Errorf("%s: %d members, want %d", c.wave, len(*got), len(c.want))
			continue
		}
		for i, g := range *got {
			if g.tick-61 != c.want[i].dt || g.f.y != c.want[i].y {
				t.Errorf("%s: member %d at +%d ticks, y %g; want +%d, %g", c.wave, i, g.tick-61, g.f.y, c.want[i].dt, c.want[i].y)
			}
		}
	}

	// From the left: at the left edge, flying right.
	wl, gl := stageWorld(t, head+"at 0s wave enemy=chaser from=left speed=100 y=200\nat 50s boss\n", 1, "")
	wl.Step()
	if g := (*gl)[0].f; g.x != -wl.half[wire.KindChaser].w || g.vx != 100 {
		t.Errorf("from the left: %+v", g)
	}

	// Random: each at its own height within the spread, the same for the
	// same seed.
	ys := func() []float64 {
		w, got := stageWorld(t, head+"at 0s wave enemy=slave formation=random count=6 spacing=60 speed=120 y=360 spread=100\nat 50s boss\n", 1, "")
		for range 200 {
			w.Step()
		}
		var ys []float64
		for _, g := range *got {
			ys = append(ys, g.f.y)
			if g.f.y < 260 || g.f.y > 460 {
				t.Errorf("random: y %g outside 360 +- 100", g.f.y)
			}
		}
		return ys
	}
	a, b := ys(), ys()
	if len(a) != 6 || !reflect.DeepEqual(a, b) || a[0] == a[1] {
		t.Errorf("random heights %v then %v: want 6, the same twice, not all alike", a, b)
	}
}

// The motion, fire, hit points, score and drops of a wave reach its foes.
func TestStageWaveFields(t *testing.T) {
	w, got := stageWorld(t, head+"at 0s wave enemy=powarmor formation=line count=4 speed=100 vy=5 amp=20 period=2s phase=90 "+
		"fire=1.5s hp=7 score=300 drop=laser-red@first,bit@last,speed@all\nat 50s boss\n", 1, "")
	for range 200 {
		w.Step()
	}
	if len(*got) != 4 {
		t.Fatalf("%d members", len(*got))
	}
	drops := []uint8{wire.ItemLaserRed, wire.ItemSpeed, wire.ItemSpeed, wire.ItemBit}
	for i, g := range *got {
		f := g.f
		if f.kind != wire.KindPowArmor || f.vx != -100 || f.vy != 5 || f.amp != 20 || f.period != 120 ||
			math.Abs(f.phase-math.Pi/2) > 1e-12 || f.fireInterval != 90 || f.hp != 7 || f.score != 300 || f.drop != drops[i] {
			t.Errorf("member %d: %+v", i, f)
		}
	}
	w, got = stageWorld(t, head+"at 0s wave enemy=slave\nat 50s boss\n", 1, "")
	w.Step()
	if f := (*got)[0].f; f.drop != noDrop || f.fireInterval != 0 || f.hp != stage.DefaultHP(wire.KindBydosSlave) || f.score != 0 {
		t.Errorf("defaults: %+v", f)
	}
}

// A wave grows with the players in the game: count, hit points, fire.
func TestStageScalingPlayers(t *testing.T) {
	src := head + "per-player count=+1 hp=+50% fire=-10%\n" +
		"at 0s wave enemy=slave formation=column count=3 hp=10 fire=2s\nat 50s boss\n"
	for _, c := range []struct {
		players, count int
		hp, fire       int32
	}{{1, 3, 10, 120}, {2, 4, 15, 108}, {4, 6, 25, 84}} {
		w, got := stageWorld(t, src, c.players, "")
		w.Step()
		if len(*got) != c.count {
			t.Errorf("%d players: %d members, want %d", c.players, len(*got), c.count)
			continue
		}
		if f := (*got)[0].f; f.hp != c.hp || f.fireInterval != c.fire {
			t.Errorf("%d players: hp %d fire %d, want %d %d", c.players, f.hp, f.fireInterval, c.hp, c.fire)
		}
	}
}

// Markers, checkpoints and music cues are Stage events at their ticks.
func TestStageMarkersAndMusic(t *testing.T) {
	w, _ := stageWorld(t, head+"at 0s music stage\nat 1s marker gate\nat 2s checkpoint\nat 2s music none\n"+
		"at 3s checkpoint here\nat 4s music boss\nat 5s boss\n", 1, "")
	w.st.holdBoss = -1 // beaten at once
	got := stageEvents(w, 302)
	want := []wire.Event{
		stageEv(1, wire.StageIntro, 1, "Test Stage"),
		stageEv(1, wire.StageMusic, 0, "stage"),
		stageEv(61, wire.StageMarker, MarkerPlain, "gate"),
		stageEv(121, wire.StageMarker, MarkerCheckpoint, "checkpoint-1"),
		stageEv(121, wire.StageMusic, 0, ""),
		stageEv(181, wire.StageMarker, MarkerCheckpoint, "here"),
		stageEv(241, wire.StageMusic, 0, "boss"),
		stageEv(301, wire.StageMarker, MarkerBoss, "boss"),
		stageEv(302, wire.StageClear, 1, ""),
		stageEv(302, wire.StageMusic, 0, "clear"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %v\nwant %v", got, want)
	}
}

// The timeline waits while a boss fights; the end boss beaten clears the
// loop, the results show StageResultsTicks, and loop 2 begins, harder.
func TestStageBossClearLoop(t *testing.T) {
	w, got := stageWorld(t, head+"per-loop count=+1 hp=+50% fire=-30% speed=+20%\n"+
		"at 0s music stage\nat 0s wave enemy=slave formation=line count=2 speed=100 hp=4 fire=2s\n"+
		"at 2s music boss\nat 3s midboss\nat 3s music stage\nat 4s wave enemy=chaser\nat 5s music boss\nat 6s boss\n", 1, "")
	w.st.holdBoss = 1
	evs := stageEvents(w, 181+600) // the mid-boss at tick 181, then 10 s of fight
	want := []wire.Event{
		stageEv(1, wire.StageIntro, 1, "Test Stage"),
		stageEv(1, wire.StageMusic, 0, "stage"),
		stageEv(121, wire.StageMusic, 0, "boss"),
		stageEv(181, wire.StageMarker, MarkerMidBoss, "midboss"),
	}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("to the mid-boss:\n got %v\nwant %v", evs, want)
	}
	if n := len(*got); n != 2 {
		t.Fatalf("%d foes during the mid-boss, want the 2 of the first wave", n)
	}
	// The mid-boss is beaten at tick 782: the timeline goes on from 3 s.
	w.st.holdBoss = -1
	evs = stageEvents(w, 1)
	if want := []wire.Event{stageEv(782, wire.StageMusic, 0, "stage")}; !reflect.DeepEqual(evs, want) {
		t.Fatalf("after the mid-boss: %v, want %v", evs, want)
	}
	evs = stageEvents(w, 60)
	if len(*got) != 3 || (*got)[2].tick != 842 || (*got)[2].f.kind != wire.KindChaser {
		t.Fatalf("the wave at 4 s after a mid-boss of 10 s: %+v", *got)
	}
	// The end boss at tick 962 (6 s + 10 s): it fights 5 s, then falls.
	w.st.holdBoss = 1
	evs = append(evs, stageEvents(w, 120+300)...)
	w.st.holdBoss = -1
	evs = append(evs, stageEvents(w, 1)...)
	want = []wire.Event{
		stageEv(902, wire.StageMusic, 0, "boss"),
		stageEv(962, wire.StageMarker, MarkerBoss, "boss"),
		stageEv(1263, wire.StageClear, 1, ""),
		stageEv(1263, wire.StageMusic, 0, "clear"),
	}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("the end boss:\n got %v\nwant %v", evs, want)
	}
	// Results, then loop 2 from the start: harder.
	if evs = stageEvents(w, StageResultsTicks-1); len(evs) != 0 {
		t.Fatalf("events during the results: %v", evs)
	}
	*got = (*got)[:0]
	evs = stageEvents(w, 1)
	at := uint32(1263 + StageResultsTicks)
	want = []wire.Event{stageEv(at, wire.StageIntro, 2, "Test Stage"), stageEv(at, wire.StageMusic, 0, "stage")}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("loop 2:\n got %v\nwant %v", evs, want)
	}
	stageEvents(w, 120)
	if len(*got) != 3 {
		t.Fatalf("loop 2: %d members of the first wave, want 3", len(*got))
	}
	if f := (*got)[0].f; f.hp != 6 || f.fireInterval != 84 || f.vx != -120 {
		t.Errorf("loop 2: hp %d fire %d vx %g, want 6 84 -120", f.hp, f.fireInterval, f.vx)
	}
}

// Warp starts the timeline later: by seconds, at a marker, at the boss,
// with the music in effect there; a bad warp is refused by name.
func TestStageWarp(t *testing.T) {
	src := head + "at 0s music stage\nat 1s wave enemy=slave\nat 10s marker gate\nat 10s wave enemy=chaser\n" +
		"at 20s wave enemy=armored\nat 25s music boss\nat 30s boss\n"
	w, got := stageWorld(t, src, 1, "15")
	evs := stageEvents(w, 301)
	want := []wire.Event{stageEv(1, wire.StageIntro, 1, "Test Stage"), stageEv(1, wire.StageMusic, 0, "stage")}
	if !reflect.DeepEqual(evs, want) || len(*got) != 1 || (*got)[0].f.kind != wire.KindArmored || (*got)[0].tick != 301 {
		t.Errorf("warp 15: events %v, foes %+v", evs, *got)
	}
	w, got = stageWorld(t, src, 1, "gate")
	evs = stageEvents(w, 1)
	want = []wire.Event{stageEv(1, wire.StageIntro, 1, "Test Stage"), stageEv(1, wire.StageMusic, 0, "stage"),
		stageEv(1, wire.StageMarker, MarkerPlain, "gate")}
	if !reflect.DeepEqual(evs, want) || len(*got) != 1 || (*got)[0].f.kind != wire.KindChaser {
		t.Errorf("warp gate: events %v, foes %+v", evs, *got)
	}
	w, got = stageWorld(t, src, 1, "boss")
	w.st.holdBoss = 1
	evs = stageEvents(w, 1)
	want = []wire.Event{stageEv(1, wire.StageIntro, 1, "Test Stage"), stageEv(1, wire.StageMusic, 0, "boss"),
		stageEv(1, wire.StageMarker, MarkerBoss, "boss")}
	if !reflect.DeepEqual(evs, want) || len(*got) != 0 {
		t.Errorf("warp boss: events %v, foes %+v", evs, *got)
	}
	// Loop 2 starts from the beginning.
	w.st.holdBoss = -1
	evs = stageEvents(w, 1+StageResultsTicks+60)
	if len(evs) < 4 || evs[2].What != wire.StageIntro || evs[2].Value != 2 || len(*got) != 1 || (*got)[0].f.kind != wire.KindBydosSlave {
		t.Errorf("loop 2 after a warp: events %v, foes %+v", evs, *got)
	}

	st, _ := stage.Parse("t.stage", []byte(src))
	for _, c := range []struct{ warp, want string }{
		{"bos", `warp "bos": neither a time`},
		{"31", `warp "31": 0:31.0 is past the end boss at 0:30.0`},
	} {
		if _, err := NewStage(DefaultRules(), st, 1, StageOptions{Warp: c.warp}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("warp %q: %v, want %q", c.warp, err, c.want)
		}
	}
	if _, err := NewStage(DefaultRules(), &stage.Stage{Name: "empty"}, 1, StageOptions{}); err == nil {
		t.Error("a stage without entries was accepted")
	}
}

// script is scripted inputs for the 4 players: they move and fire in a
// pattern of the tick.
func script(w *World) {
	if t := w.Tick(); t%20 == 0 {
		for p := range uint8(4) {
			a := []uint8{wire.ActionUp, wire.ActionDown, wire.ActionLeft | wire.ActionFire, wire.ActionRight, wire.ActionFire}[(int(t)/20+int(p))%5]
			if t%140 == 0 {
				a |= 0x20 // the Force's button
			}
			w.SetInput(p, a)
		}
	}
}

// livelyRules are the default rules with 255 lives: the runner's tests
// follow the timeline to its end, which idle or scripted players would
// not reach with 3 lives now that foes and bosses shoot.
func livelyRules() Rules {
	r := DefaultRules()
	r.Lives = 255
	return r
}

// builtinStage is a world playing the built-in stage name from warp with
// seed, with players players joined at tick 0 and their events taken.
func builtinStage(tb testing.TB, name string, seed uint64, warp string, players int) *World {
	tb.Helper()
	st, err := stage.Builtin(name)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := NewStage(livelyRules(), st, seed, StageOptions{Warp: warp})
	if err != nil {
		tb.Fatal(err)
	}
	for p := range players {
		w.AddPlayer(uint8(p), "bot")
	}
	w.TakeEvents()
	return w
}

// stageOne is builtinStage of stage 1.
func stageOne(tb testing.TB, seed uint64, warp string, players int) *World {
	tb.Helper()
	return builtinStage(tb, "1", seed, warp, players)
}

// stageOneRun plays stage 1 with 4 players and scripted inputs for n
// ticks, and returns every event. Its bosses fall as soon as they come
// (the scripted players could not beat them), so the run covers the
// whole timeline, the clear and loop 2.
func stageOneRun(t testing.TB, seed uint64, n int) []wire.Event {
	w := stageOne(t, seed, "", 4)
	w.st.holdBoss = -1
	var evs []wire.Event
	for range n {
		script(w)
		w.Step()
		evs = append(evs, w.TakeEvents()...)
	}
	return evs
}

// The whole of stage 1, into loop 2, twice with the same seed and inputs:
// the same events, tick for tick.
func TestStageDeterministic(t *testing.T) {
	n := int(210*wire.TickRate) + StageResultsTicks + 600
	if testing.Short() {
		n = 3000
	}
	a, b := stageOneRun(t, 7, n), stageOneRun(t, 7, n)
	if len(a) != len(b) {
		t.Fatalf("%d events then %d", len(a), len(b))
	}
	intros := 0
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Fatalf("event %d: %+v then %+v", i, a[i], b[i])
		}
		if a[i].Type == wire.EventStage && a[i].What == wire.StageIntro {
			intros++
		}
	}
	if !testing.Short() && intros != 2 {
		t.Errorf("%d StageIntros, want 2 (loop 1 and 2)", intros)
	}
	t.Logf("%d events over %d ticks", len(a), n)
}

// A Step of a Stage world allocates nothing over the whole of stage 1's
// timeline, its events taken at each tick (4 players, scripted inputs).
func TestStageStepNoAllocs(t *testing.T) {
	w := stageOne(t, 3, "", 4)
	w.st.holdBoss = -1
	st := w.st.st
	tick := func() {
		script(w)
		w.Step()
		w.TakeEvents()
	}
	// The whole timeline, the clear, the results and the start of loop 2
	// (a second round if the first allocated).
	testutil.NoAllocs(t, int(st.Length)+StageResultsTicks+600, "Step over stage 1", tick)
	if w.st.loop < 2 {
		t.Errorf("at tick %d, loop %d: the timeline was not covered", w.Tick(), w.st.loop)
	}
}

// BenchmarkStageStep is the average Step of a Stage world over the whole
// of stage 1 (and its later loops), with 4 players and scripted inputs,
// its events taken at each tick; its bosses fall as soon as they come.
func BenchmarkStageStep(b *testing.B) {
	w := stageOne(b, 5, "", 4)
	w.st.holdBoss = -1
	b.ReportAllocs()
	for b.Loop() {
		if w.Over() {
			b.StopTimer()
			w = stageOne(b, 5, "", 4)
			w.st.holdBoss = -1
			b.StartTimer()
		}
		script(w)
		w.Step()
		w.TakeEvents()
	}
}

// The first 30 s of stage 1 teach: with 4 players, no foe fires, and no
// foe's path crosses the height where a ship appears, so a ship that does
// not move lives through them.
func TestStageOneLessonSpares(t *testing.T) {
	w := stageOne(t, 1, "", 0)
	var got []spawned
	w.st.onSpawn = func(f *foeSpawn) { got = append(got, spawned{w.tick, *f}) }
	for p := range uint8(4) {
		w.AddPlayer(p, "idle")
	}
	for range 30 * wire.TickRate {
		w.Step()
	}
	if len(got) < 10 {
		t.Fatalf("%d foes in the first 30 s", len(got))
	}
	r := w.Rules()
	for _, g := range got {
		f := g.f
		if f.fireInterval != 0 || f.vy != 0 || -f.vx > 100 {
			t.Errorf("tick %d: a foe that fires, climbs or hurries in the lesson: %+v", g.tick, f)
		}
		for p := range uint8(4) {
			_, sy := w.spawnPoint(p)
			if d := math.Abs(f.y-sy) - f.amp; d < w.half[f.kind].h+r.ShipH/2 {
				t.Errorf("tick %d: a foe at y %g (amplitude %g) flies into player %d's ship at y %g", g.tick, f.y, f.amp, p, sy)
			}
		}
	}
}

// BenchmarkStageBusiest is a tick of the busiest moment of stage 1: 4
// ships firing and moving, the end boss fighting, and a stage's worth of
// foes kept on screen (the last waves of the stage started again
// whenever fewer than 40 foes are left), its events taken at each tick.
func BenchmarkStageBusiest(b *testing.B) {
	w := stageOne(b, 9, "boss", 4)
	w.st.holdBoss = 1 // the boss stays, even beaten
	tick := heldBusy(w, lastWaves(w.st.st, 6))
	b.ReportAllocs()
	for b.Loop() {
		tick()
	}
	b.ReportMetric(float64(w.NumEntities()), "entities")
}

// lastWaves returns the last n waves of st, the last first.
func lastWaves(st *stage.Stage, n int) []*stage.Wave {
	var last []*stage.Wave
	for i := len(st.Entries) - 1; i >= 0 && len(last) < n; i-- {
		if e := &st.Entries[i]; e.Kind == stage.EntryWave {
			last = append(last, &e.Wave)
		}
	}
	return last
}

// heldBusy steps w once and returns a tick that keeps it busy, after 600
// of them: its timeline held where it is, the ships firing and moving
// (script) and never out of lives, and at least 40 foes on screen from
// waves started in turn, its events taken.
func heldBusy(w *World, waves []*stage.Wave) func() {
	w.Step()
	t0 := w.st.t
	k := 0
	tick := func() {
		if w.Tick()%30 == 0 {
			for p := range w.pl {
				if w.pl[p].in && w.pl[p].lives < 100 {
					w.pl[p].lives = 200
				}
			}
			if len(w.foes) < 40 {
				w.st.startWave(w, waves[k%len(waves)])
				k++
			}
		}
		w.st.t = t0
		script(w)
		w.Step()
		w.TakeEvents()
	}
	for range 600 {
		tick()
	}
	return tick
}

// Games share a stage (the server parses it once): they only read it.
func TestStageShared(t *testing.T) {
	st, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	for g := range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			w, err := NewStage(DefaultRules(), st, uint64(g), StageOptions{Warp: "1:00"})
			if err != nil {
				t.Error(err)
				return
			}
			w.AddPlayer(0, "a")
			for range 3000 {
				w.Step()
				w.TakeEvents()
			}
		}()
	}
	<-done
	<-done
}

// FuzzStageRun: whatever stage file the parser accepts, with any warp and
// 0 to 4 players, the runner plays a minute of it without panicking, its
// bosses beaten at once or never.
func FuzzStageRun(f *testing.F) {
	f.Add([]byte(head+"at 0s music stage\nat 1s wave enemy=slave formation=v count=32 spacing=0 speed=1000\nat 2s midboss\nat 3s boss\n"), "", uint8(4), true)
	f.Add([]byte(head+"per-loop count=+8 hp=+500% fire=-90% speed=-50%\nat 0s wave enemy=turret formation=column count=32 y=floor spacing=640 fire=0.2s\nat 0s boss\n"), "boss", uint8(1), true)
	f.Fuzz(func(t *testing.T, src []byte, warp string, players uint8, beaten bool) {
		st, err := stage.Parse("f.stage", src)
		if err != nil {
			return
		}
		w, err := NewStage(livelyRules(), st, 1, StageOptions{Warp: warp})
		if err != nil {
			return
		}
		w.st.holdBoss = 1
		if beaten {
			w.st.holdBoss = -1
		}
		for p := range players % 5 {
			w.AddPlayer(p, "f")
		}
		for range 3600 {
			w.Step()
			w.TakeEvents()
		}
	})
}

// TestStageIdleShipSurvivesTheLesson: the first 30 s teach, not kill. In
// Classic an idle ship is out in about 12 s; in stage 1, one idle ship
// alone, or four idle ships, lose no life in the first 30 s (the default
// rules, 3 lives), and the game goes on well past that.
func TestStageIdleShipSurvivesTheLesson(t *testing.T) {
	st, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 4} {
		for seed := uint64(1); seed <= 3; seed++ {
			w, err := NewStage(DefaultRules(), st, seed, StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for p := range uint8(n) {
				w.AddPlayer(p, "idle")
			}
			firstDeath := uint32(0)
			for !w.Over() && w.Tick() < 5*60*wire.TickRate {
				w.Step()
				for _, ev := range w.TakeEvents() {
					if ev.Type == wire.EventDeath && firstDeath == 0 {
						firstDeath = ev.Tick
					}
				}
				if w.Tick() == 30*wire.TickRate {
					for p := range uint8(n) {
						if l := w.Lives(p); l != DefaultRules().Lives {
							t.Errorf("%d idle ships, seed %d: player %d has %d lives after 30 s, want %d", n, seed, p, l, DefaultRules().Lives)
						}
					}
				}
			}
			if w.Tick() < 30*wire.TickRate {
				t.Errorf("%d idle ships, seed %d: game over at %.1f s", n, seed, float64(w.Tick())/wire.TickRate)
			}
			t.Logf("%d idle ships, seed %d: first death at %.1f s, game over at %.1f s (or still playing: %v)",
				n, seed, float64(firstDeath)/wire.TickRate, float64(w.Tick())/wire.TickRate, !w.Over())
		}
	}
}

// A campaign plays its stages in order, each announced by its title in
// loop 1, then loop 2 from the first; it starts at the stage given; a
// stage not in it is played alone, loop after loop.
func TestStageCampaign(t *testing.T) {
	parse := func(name, title, boss string) *stage.Stage {
		st, err := stage.Parse(name+".stage", []byte("rtype-stage 1\nname "+name+"\ntitle "+title+
			"\nscroll 60px/s\nlength 1:00\nat 0s wave enemy=slave\nat "+boss+" boss\n"))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	a, b, c := parse("a", "Stage A", "2s"), parse("b", "Stage B", "1s"), parse("c", "Stage C", "1s")
	camp := []*stage.Stage{a, b}
	for _, tc := range []struct {
		first *stage.Stage
		want  []string
	}{
		{a, []string{"intro 1 Stage A", "clear 1", "intro 1 Stage B", "clear 1", "intro 2 Stage A", "clear 2", "intro 2 Stage B"}},
		{b, []string{"intro 1 Stage B", "clear 1", "intro 2 Stage A", "clear 2", "intro 2 Stage B", "clear 2", "intro 3 Stage A"}},
		{c, []string{"intro 1 Stage C", "clear 1", "intro 2 Stage C", "clear 2", "intro 3 Stage C", "clear 3", "intro 4 Stage C"}},
	} {
		w, err := NewStage(livelyRules(), tc.first, 1, StageOptions{Campaign: camp})
		if err != nil {
			t.Fatal(err)
		}
		w.AddPlayer(0, "p")
		w.st.holdBoss = -1 // every boss beaten at once
		var got []string
		for len(got) < len(tc.want) {
			w.Step()
			var file *wire.Event
			for _, ev := range w.TakeEvents() {
				if ev.Type != wire.EventStage {
					continue
				}
				switch ev.What {
				case wire.StageFile:
					file = &ev
				case wire.StageIntro:
					st := map[string]*stage.Stage{a.Title: a, b.Title: b, c.Title: c}[ev.Name]
					if file == nil || file.Name != st.Name || file.Value != st.FileSum() || file.Tick != ev.Tick {
						t.Fatalf("the Intro of %s after the File %+v, want its name and checksum", ev.Name, file)
					}
					got = append(got, fmt.Sprintf("intro %d %s", ev.Value, ev.Name))
				case wire.StageClear:
					got = append(got, fmt.Sprintf("clear %d", ev.Value))
				}
			}
			if w.Tick() > 10000 {
				t.Fatalf("from %s: only %v by tick %d", tc.first.Title, got, w.Tick())
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("from %s:\n got %v\nwant %v", tc.first.Title, got, tc.want)
		}
	}
}
