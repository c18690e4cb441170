package stage_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rtype/net/wire"
	"rtype/sim/stage"
)

// head is a valid header of 5 lines: a test's first entry is at line 6.
const head = "rtype-stage 1\nname t\ntitle Test\nscroll 60px/s\nlength 1:00\n"

func mustParse(t *testing.T, src string) *stage.Stage {
	t.Helper()
	st, err := stage.Parse("t.stage", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return st
}

// Every built-in stage loads, is named after its file, ends with its boss,
// and Resolve finds it by name.
func TestBuiltinStages(t *testing.T) {
	names := stage.Names()
	if len(names) == 0 {
		t.Fatal("no built-in stage")
	}
	for _, n := range names {
		st, err := stage.Builtin(n)
		if err != nil {
			t.Fatalf("Builtin(%q): %v", n, err)
		}
		if st.Name != n || st.File != n+".stage" {
			t.Errorf("stage %q: Name %q, File %q", n, st.Name, st.File)
		}
		if last := st.Entries[len(st.Entries)-1]; last.Kind != stage.EntryBoss || last.Tick > st.Length {
			t.Errorf("stage %q: last entry %v at %d, length %d", n, last.Kind, last.Tick, st.Length)
		}
		if r, err := stage.Resolve(n); err != nil || r.Name != n {
			t.Errorf("Resolve(%q) = %v, %v", n, r, err)
		}
		t.Logf("stage %s %q: %d entries, timeline %.1f s", n, st.Title, len(st.Entries), st.Seconds())
	}
	if _, err := stage.Builtin("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "1") {
		t.Errorf("Builtin(nope) = %v, want an error naming it and the built-in stages", err)
	}
}

// Stage 1 is what the issue asks: 3 to 5 minutes with its bosses, a
// first 30 s that teach (no fire, a laser item), the 5 enemies, items,
// checkpoints, a mid-boss near 1:45 and the end boss near 3:30.
func TestStage1(t *testing.T) {
	st, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	if s := st.Seconds(); s < 180 || s > 240 {
		t.Errorf("timeline %.1f s, want 3 to 4 min (the bosses take the rest)", s)
	}
	kinds := map[uint8]int{}
	itemsSeen := map[uint8]bool{}
	var mid, boss uint32
	checkpoints, teachLaser := 0, false
	for _, e := range st.Entries {
		switch e.Kind {
		case stage.EntryWave:
			kinds[e.Wave.Enemy]++
			if e.Tick < 30*wire.TickRate {
				if e.Wave.Fire != 0 {
					t.Errorf("line %d: a wave that fires in the first 30 s", e.Line)
				}
				if e.Wave.Speed > 100 {
					t.Errorf("line %d: a wave at %g px/s in the first 30 s", e.Line, e.Wave.Speed)
				}
			}
			for _, d := range e.Wave.Drops {
				itemsSeen[d.Item] = true
				if e.Tick < 30*wire.TickRate && e.Wave.Enemy == wire.KindPowArmor && d.Item <= wire.ItemLaserYellow {
					teachLaser = true
				}
			}
		case stage.EntryCheckpoint:
			checkpoints++
		case stage.EntryMidBoss:
			mid = e.Tick
		case stage.EntryBoss:
			boss = e.Tick
		}
	}
	for _, k := range []uint8{wire.KindBydosSlave, wire.KindPowArmor, wire.KindChaser, wire.KindTurret, wire.KindArmored} {
		if kinds[k] < 2 {
			t.Errorf("enemy kind %d: %d waves, want at least 2", k, kinds[k])
		}
	}
	for it := range uint8(5) {
		if !itemsSeen[it] {
			t.Errorf("item %d never dropped", it)
		}
	}
	if !teachLaser {
		t.Error("no POW armour with a laser in the first 30 s")
	}
	if checkpoints < 3 {
		t.Errorf("%d checkpoints, want at least 3", checkpoints)
	}
	if d := int(mid) - 105*wire.TickRate; d < -10*wire.TickRate || d > 10*wire.TickRate {
		t.Errorf("mid-boss at tick %d, want about 1:45", mid)
	}
	if d := int(boss) - 210*wire.TickRate; d < -15*wire.TickRate || d > 15*wire.TickRate {
		t.Errorf("end boss at tick %d, want about 3:30", boss)
	}
}

// Every field of the format lands where STAGES.md says.
func TestParseFields(t *testing.T) {
	st := mustParse(t, `rtype-stage 1
# a comment

name  t-1   # trailing comment
title A Title, with words
scroll 50
length 60s
per-player count=+1 hp=+25% fire=-10%
per-loop count=+2 hp=+50% fire=-30% speed=+20%
at 0s music stage
at 1.5s wave enemy=slave formation=line count=5 spacing=60px y=200 speed=100px/s amp=30 period=2.5s phase=90 fire=1.5s hp=3 score=250 drop=speed@first,bit@last
at 500px wave enemy=turret formation=line count=2 y=floor fire=none
at +1s wave enemy=chaser formation=column count=3 spacing=100 y=ceiling from=left per-player.count=+0 per-loop.hp=+100% drop=laser-blue@all
at 0:20.5 marker gate
at 0:21 checkpoint
at 0:22 checkpoint
at 0:23 midboss
at 0:23 music none
at 0:30 wave enemy=armored formation=random count=4 spread=100 vy=-20 drop=laser-yellow@2
at 1:00 boss
`)
	if st.Name != "t-1" || st.Title != "A Title, with words" || st.Scroll != 50 || st.Length != 3600 {
		t.Errorf("header: %q %q %g %d", st.Name, st.Title, st.Scroll, st.Length)
	}
	want := stage.Scaling{Count: 1, HP: 0.25, Fire: -0.10}
	if st.PerPlayer != want {
		t.Errorf("per-player %+v, want %+v", st.PerPlayer, want)
	}
	type ent struct {
		tick uint32
		kind stage.EntryKind
		name string
	}
	wantE := []ent{{0, stage.EntryMusic, "stage"}, {90, stage.EntryWave, ""}, {600, stage.EntryWave, ""},
		{660, stage.EntryWave, ""}, {1230, stage.EntryMarker, "gate"}, {1260, stage.EntryCheckpoint, "checkpoint-1"},
		{1320, stage.EntryCheckpoint, "checkpoint-2"}, {1380, stage.EntryMidBoss, "midboss"}, {1380, stage.EntryMusic, ""},
		{1800, stage.EntryWave, ""}, {3600, stage.EntryBoss, "boss"}}
	if len(st.Entries) != len(wantE) {
		t.Fatalf("%d entries, want %d", len(st.Entries), len(wantE))
	}
	for i, w := range wantE {
		e := st.Entries[i]
		if e.Tick != w.tick || e.Kind != w.kind || e.Name != w.name || e.Line != i+10 && i < 4 {
			t.Errorf("entry %d: %d %v %q line %d, want %+v", i, e.Tick, e.Kind, e.Name, e.Line, w)
		}
	}
	w := st.Entries[1].Wave
	if w.Enemy != wire.KindBydosSlave || w.Formation != stage.Line || w.Count != 5 || w.Spacing != 60 || w.Y != 200 ||
		w.Speed != 100 || w.Amp != 30 || w.Period != 150 || math.Abs(w.Phase-math.Pi/2) > 1e-12 || w.Fire != 90 ||
		w.HP != 3 || w.Score != 250 || w.Edge != stage.EdgeNone || w.From != stage.FromRight {
		t.Errorf("wave 1: %+v", w)
	}
	if len(w.Drops) != 2 || w.Drops[0] != (stage.Drop{Item: wire.ItemSpeed, Member: 0}) || w.Drops[1] != (stage.Drop{Item: wire.ItemBit, Member: stage.MemberLast}) {
		t.Errorf("wave 1 drops %+v", w.Drops)
	}
	if w.PerLoop != (stage.Scaling{Count: 2, HP: 0.5, Fire: -0.3, Speed: 0.2}) {
		t.Errorf("wave 1 per-loop %+v", w.PerLoop)
	}
	w = st.Entries[2].Wave
	if w.Enemy != wire.KindTurret || w.Edge != stage.EdgeFloor || w.Speed != 50 || w.Fire != 0 || w.HP != stage.DefaultHP(wire.KindTurret) || w.Period != 0 {
		t.Errorf("wave 2 (turrets at the scroll's speed, default hp): %+v", w)
	}
	w = st.Entries[3].Wave
	if w.Edge != stage.EdgeCeiling || w.From != stage.FromLeft || w.PerPlayer.Count != 0 || w.PerPlayer.HP != 0.25 || w.PerLoop.HP != 1 ||
		len(w.Drops) != 1 || w.Drops[0].Member != stage.MemberAll || w.Drops[0].Item != wire.ItemLaserBlue {
		t.Errorf("wave 3: %+v", w)
	}
	w = st.Entries[9].Wave
	if w.Formation != stage.Random || w.Spread != 100 || w.VY != -20 || w.Drops[0] != (stage.Drop{Item: wire.ItemLaserYellow, Member: 1}) {
		t.Errorf("wave 4: %+v", w)
	}
}

// Scale grows a wave by players and loops, within its bounds.
func TestScale(t *testing.T) {
	w := stage.Wave{Formation: stage.Line, Count: 4, Speed: 100, HP: 10, Fire: 120,
		PerPlayer: stage.Scaling{Count: 1, HP: 0.25, Fire: -0.1},
		PerLoop:   stage.Scaling{Count: 2, HP: 0.5, Fire: -0.3, Speed: 0.2}}
	loops := 39.0 // a run-time product, as Scale's
	for _, c := range []struct {
		players, loop int
		want          stage.Scaled
	}{
		{1, 1, stage.Scaled{Count: 4, Speed: 100, HP: 10, Fire: 120}},
		{4, 1, stage.Scaled{Count: 7, Speed: 100, HP: 18, Fire: 84}}, // 10*1.75=17.5 -> 18
		{1, 2, stage.Scaled{Count: 6, Speed: 120, HP: 15, Fire: 84}},
		{4, 2, stage.Scaled{Count: 9, Speed: 120, HP: 26, Fire: 59}}, // 17.5*1.5=26.25; 120*0.7*0.7=58.8
		{4, 40, stage.Scaled{Count: stage.MaxCount, Speed: 100 * (1 + loops*0.2), HP: 359, Fire: stage.MinFire}},
	} {
		if got := w.Scale(c.players, c.loop); got != c.want {
			t.Errorf("Scale(%d, %d) = %+v, want %+v", c.players, c.loop, got, c.want)
		}
	}
	single := stage.Wave{Formation: stage.Single, Count: 1, HP: 1, PerPlayer: stage.Scaling{Count: 3}}
	if got := single.Scale(4, 3); got.Count != 1 {
		t.Errorf("a single scaled to %d members", got.Count)
	}
	slower := stage.Wave{Formation: stage.Line, Count: 2, Speed: 100, HP: 10, Fire: 100,
		PerPlayer: stage.Scaling{HP: -0.5, Fire: -0.9}, PerLoop: stage.Scaling{Speed: -0.5, Fire: 2}}
	if got, want := slower.Scale(4, 4), (stage.Scaled{Count: 2, Speed: 10, HP: 1, Fire: 70}); got != want {
		t.Errorf("negative scaling: %+v, want %+v (each factor at least 0.1)", got, want)
	}
	none := stage.Wave{Formation: stage.Line, Count: 1, HP: 1, PerPlayer: stage.Scaling{Fire: -0.5}}
	if got := none.Scale(4, 1); got.Fire != 0 {
		t.Errorf("a wave that does not fire fires every %d ticks when scaled", got.Fire)
	}
}

// Every problem is refused with the file, the line, the entry and field
// and what is wrong.
func TestParseErrors(t *testing.T) {
	wv := func(f string) string { return head + "at 1s wave " + f + "\nat 50s boss\n" }
	for _, c := range []struct{ src, want string }{
		{"", "t.stage:1: not a stage file: the first line must be \"rtype-stage 1\""},
		{"rtype-stage 2\n", `t.stage:1: rtype-stage 2: version 2, this build reads version 1`},
		{"# comment\nrtype-stage 1\n", `t.stage:1: not a stage file: the first line must be "rtype-stage 1"`},
		{"rtype-stage 1\nname t\n", "t.stage: no title: the header needs name, title, scroll and length before the timeline"},
		{"rtype-stage 1\nname t\ntitle T\nscroll 60\nat 1s boss\n", "t.stage:5: no length: the header needs name, title, scroll and length before the timeline"},
		{head, "t.stage: no end boss: the timeline must end with a boss entry (at TIME boss)"},
		{head + "at 1s midboss\n", "t.stage: no end boss: the timeline must end with a boss entry (at TIME boss)"},
		{"rtype-stage 1\nname T!\n", `t.stage:2: name "T!": only a-z, 0-9, - and _`},
		{"rtype-stage 1\nname t\nname u\n", "t.stage:3: name: given twice (first at line 2)"},
		{"rtype-stage 1\nspeed 60\n", `t.stage:2: "speed": unknown header line (name, title, scroll, length, per-player, per-loop; the timeline's lines start with "at")`},
		{"rtype-stage 1\ntitle " + strings.Repeat("x", 65) + "\n", "t.stage:2: title: 65 bytes: longer than 64"},
		{"rtype-stage 1\nscroll 0\n", "t.stage:2: scroll 0: must be 1 to 2000 px/s"},
		{"rtype-stage 1\nscroll fast\n", "t.stage:2: scroll fast: not a number of px/s"},
		{"rtype-stage 1\nname t\ntitle T\nscroll 60\nlength 90\nat 1s boss\n", "t.stage:5: length 90: not a time: needs a unit: 12.5s, 1:45 or 3400px"},
		{"rtype-stage 1\nper-loop hp=50\n", "t.stage:2: per-loop: hp 50: needs a unit: a percentage, e.g. +50%"},
		{"rtype-stage 1\nper-player speed=+10%\n", "t.stage:2: per-player: speed +10%: unknown: per player, count, hp and fire scale"},
		{"rtype-stage 1\nper-loop count=+9\n", "t.stage:2: per-loop: count +9: must be +0 to +8 members"},
		{"rtype-stage 1\n\xff\n", "t.stage:2: not valid UTF-8"},
		{"rtype-stage 1\n" + strings.Repeat("#", stage.MaxLine+1), "t.stage:2: line of 1025 bytes: longer than 1024"},
		{head + "at 1s boss\nwave x\n", `t.stage:7: "wave": not an entry: a timeline line starts with "at TIME"`},
		{head + "at 1s music stage\nname x\n", "t.stage:7: name: a header line after the timeline began (line 6)"},
		{head + "at\n", "t.stage:6: at: a time expected (at 12.5s, at 1:30, at 3400px, at +2s)"},
		{head + "at 12\n", "t.stage:6: at 12: not a time: needs a unit: 12.5s, 1:45 or 3400px"},
		{head + "at 1:75 boss\n", "t.stage:6: at 1:75: not a time: m:ss, e.g. 1:45 or 1:45.5"},
		{head + "at -1s boss\n", "t.stage:6: at -1s: must not be negative"},
		{head + "at 2s\n", "t.stage:6: at 2s: an entry expected (wave, marker, checkpoint, midboss, boss, music, terrain)"},
		{head + "at 2s dance\n", `t.stage:6: "dance": unknown entry (wave, marker, checkpoint, midboss, boss, music, terrain)`},
		{head + "at 5s music stage\nat 4s boss\n", "t.stage:7: at 4s: 0:04.0 is before the previous entry's 0:05.0 (line 6): entries go in time order"},
		{head + "at 61s boss\n", "t.stage:6: at 61s: 1:01.0 is after the stage's length 1:00.0"},
		{head + "at 3601px boss\n", "t.stage:6: at 3601px: 1:00.0 is after the stage's length 1:00.0"},
		{head + "at 59s boss\nat 60s music none\n", "t.stage:7: music: after the end boss (line 6): the end boss is the last entry"},
		{head + "at 1s boss\nat 2s boss\n", "t.stage:7: boss: after the end boss (line 6): the end boss is the last entry"},
		{head + "at 1s marker gate\nat 2s marker gate\nat 3s boss\n", "t.stage:7: marker gate: a marker of that name is at line 6 already"},
		{head + "at 1s checkpoint boss\nat 3s boss\n", "t.stage:7: boss boss: a marker of that name is at line 6 already"},
		{head + "at 1s marker\n", "t.stage:6: marker: a name expected (at TIME marker NAME)"},
		{head + "at 1s marker 9lives\n", `t.stage:6: marker "9lives": must start with a letter a-z`},
		{head + "at 1s music disco\n", "t.stage:6: music disco: unknown cue (stage, boss, clear, warship, warship-boss, none)"},
		{wv("enemy=slave formation=line count=0"), "t.stage:6: wave: count 0: must be 1 to 32"},
		{wv("enemy=slave formation=line count=33"), "t.stage:6: wave: count 33: must be 1 to 32"},
		{wv("enemy=slave formation=line count=2.5"), "t.stage:6: wave: count 2.5: not an integer"},
		{wv("enemy=slave count=3"), "t.stage:6: wave: count 3: a single has 1 member (formation=line, column, v, wedge or random for more)"},
		{wv("enemy=slave per-player.count=+1"), "t.stage:6: wave: per-player.count +1: a single has 1 member: it does not scale its count"},
		{wv("count=3"), "t.stage:6: wave: no enemy (enemy=slave, powarmor, chaser, turret, armored, hatch or crawler)"},
		{wv("enemy=dragon"), "t.stage:6: wave: enemy dragon: unknown (slave, powarmor, chaser, turret, armored, hatch, crawler)"},
		{wv("enemy=slave formation=circle"), "t.stage:6: wave: formation circle: unknown (single, line, column, v, wedge, random)"},
		{wv("enemy=slave colour=red"), `t.stage:6: wave: "colour": unknown field (enemy, formation, count, spacing, y, spread, from, speed, vy, amp, period, phase, fire, hp, score, drop, per-player.count, per-player.hp, per-player.fire, per-loop.count, per-loop.hp, per-loop.fire, per-loop.speed)`},
		{wv("enemy=slave speed"), `t.stage:6: wave: "speed": a field is key=value (e.g. count=5)`},
		{wv("enemy=slave speed=1 speed=2"), "t.stage:6: wave: speed given twice"},
		{wv("enemy=slave hp="), "t.stage:6: wave: hp: no value"},
		{wv("enemy=slave y=800"), "t.stage:6: wave: y 800: must be 0 to 720 px"},
		{wv("enemy=slave y=100m"), "t.stage:6: wave: y 100m: not a number of px"},
		{wv("enemy=slave speed=-5"), "t.stage:6: wave: speed -5: must be 0 to 1000 px/s"},
		{wv("enemy=slave formation=line count=3 speed=0"), "t.stage:6: wave: speed 0: a line's members enter spacing/speed apart: its speed must be above 0"},
		{wv("enemy=slave formation=v count=3 y=floor"), "t.stage:6: wave: y floor: on the floor or ceiling, only a single, a line or a column"},
		{wv("enemy=slave spread=10"), "t.stage:6: wave: spread 10: only a random formation has a spread"},
		{wv("enemy=slave from=above"), "t.stage:6: wave: from above: unknown (right, left)"},
		{wv("enemy=slave period=2"), "t.stage:6: wave: period 2: needs a unit: 2s"},
		{wv("enemy=slave amp=20 period=0s"), "t.stage:6: wave: period 0s: must be 0.1 to 60 s"},
		{wv("enemy=slave phase=400"), "t.stage:6: wave: phase 400: must be 0 to 360 deg"},
		{wv("enemy=slave fire=0.1s"), "t.stage:6: wave: fire 0.1s: must be 0.2 to 60 s"},
		{wv("enemy=slave fire=often"), "t.stage:6: wave: fire often: needs a unit: oftens"},
		{wv("enemy=slave fire=NaNs"), "t.stage:6: wave: fire NaNs: not a number of s"},
		{wv("enemy=slave hp=0"), "t.stage:6: wave: hp 0: must be 1 to 100000 "},
		{wv("enemy=slave hp=1.5"), "t.stage:6: wave: hp 1.5: not an integer"},
		{wv("enemy=slave score=-1"), "t.stage:6: wave: score -1: must be 0 to 1000000"},
		{wv("enemy=slave drop=shield"), `t.stage:6: wave: drop shield: item "shield": unknown (laser-red, laser-blue, laser-yellow, speed, bit)`},
		{wv("enemy=slave formation=line count=3 drop=bit@4"), `t.stage:6: wave: drop bit@4: member "4": must be 1 to the count 3 (or first, last, all)`},
		{wv("enemy=slave drop=bit@middle"), `t.stage:6: wave: drop bit@middle: member "middle": not an integer`},
		{wv("enemy=slave drop=bit,bit,bit,bit,bit,bit,bit,bit,bit"), "t.stage:6: wave: drop bit,bit,bit,bit,bit,bit,bit,bit,bit: more than 8 drops"},
		{wv("enemy=slave per-loop.fire=-95%"), "t.stage:6: wave: per-loop.fire -95%: must be -90% to +200%"},
		{wv("enemy=slave per-player.hp=lots%"), "t.stage:6: wave: per-player.hp lots%: not a number"},
		{head + "at 10:00 boss\n", "t.stage:6: at 10:00: 10:00.0 is after the stage's length 1:00.0"},
		{head + "at 50s boss type=dreadnought\n", "t.stage:6: boss: type dreadnought: unknown boss (mother-bydos, warship)"},
		{head + "at 50s boss kind=warship\n", `t.stage:6: boss: "kind": unknown field (type)`},
		{head + "at 50s boss type=warship type=warship\n", "t.stage:6: boss: type given twice"},
		{head + "at 40s midboss type=warship\nat 50s boss\n", `t.stage:6: midboss: "type=warship": the mid-boss takes no field`},
		{head + "at 40s checkpoint type=warship\nat 50s boss\n", `t.stage:6: checkpoint: "type=warship": a checkpoint takes no field`},
		{"rtype-stage 1\nname t\ntitle T\nscroll 60\nlength 31:00\nat 1s boss\n", "t.stage:5: length 31:00: later than the limit 30:00.0"},
		{head + "at 1s music stage\nat ++2s boss\n", "t.stage:7: at ++2s: not a time: 12.5s, 1:45 or 3400px"},
		{head + "at 1s music stage\nat +-2s boss\n", "t.stage:7: at +-2s: must not be negative"},
		{head + "at 59s music stage\nat +2s boss\n", "t.stage:7: at +2s: 1:01.0 is after the stage's length 1:00.0"},
	} {
		_, err := stage.Parse("t.stage", []byte(c.src))
		if err == nil {
			t.Errorf("%q: no error, want %q", c.src, c.want)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.src, err.Error(), c.want)
		}
		if _, ok := err.(*stage.Error); !ok {
			t.Errorf("%q: error of type %T, want *stage.Error", c.src, err)
		}
	}
}

// Too many entries and too large a file are refused.
func TestParseLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("rtype-stage 1\nname t\ntitle T\nscroll 60\nlength 30:00\n")
	for range stage.MaxEntries {
		b.WriteString("at 1s music stage\n")
	}
	b.WriteString("at 2s boss\n")
	_, err := stage.Parse("t.stage", []byte(b.String()))
	if want := "t.stage:2006: boss: more than 2000 entries"; err == nil || err.Error() != want {
		t.Errorf("%d entries: %v, want %q", stage.MaxEntries+1, err, want)
	}
	big := make([]byte, stage.MaxSize+1)
	_, err = stage.Parse("big.stage", big)
	if want := "big.stage: 1048577 bytes: larger than the limit of 1048576 (1 MiB)"; err == nil || err.Error() != want {
		t.Errorf("a big file: %v, want %q", err, want)
	}
}

// Load reads files, refuses large ones before reading them whole, and
// Resolve takes a built-in name or a path.
func TestLoadResolve(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.stage")
	if err := os.WriteFile(good, []byte(head+"at 30s boss\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := stage.Load(good)
	if err != nil || st.File != good || st.Name != "t" {
		t.Fatalf("Load: %v, %v", st, err)
	}
	if st, err := stage.Resolve(good); err != nil || st.Name != "t" {
		t.Errorf("Resolve(file): %v, %v", st, err)
	}
	bad := filepath.Join(dir, "bad.stage")
	os.WriteFile(bad, []byte(head+"at 1s wave enemy=slave formation=line count=0\nat 30s boss\n"), 0o644)
	if _, err := stage.Resolve(bad); err == nil || err.Error() != bad+":6: wave: count 0: must be 1 to 32" {
		t.Errorf("Resolve(bad file) = %v", err)
	}
	big := filepath.Join(dir, "big.stage")
	os.WriteFile(big, make([]byte, stage.MaxSize+10), 0o644)
	if _, err := stage.Load(big); err == nil || !strings.Contains(err.Error(), "larger than the limit") {
		t.Errorf("Load(big) = %v", err)
	}
	if _, err := stage.Load(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load(dir) = %v", err)
	}
	missing := filepath.Join(dir, "nope.stage")
	if _, err := stage.Resolve(missing); err == nil || !strings.Contains(err.Error(), "neither a built-in stage (1") {
		t.Errorf("Resolve(missing) = %v", err)
	}
}

// Warp finds the entry and tick to start at, or names what is wrong.
func TestWarp(t *testing.T) {
	st, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	idx := func(name string) int {
		for i, e := range st.Entries {
			if e.Name == name && e.Kind != stage.EntryMusic {
				return i
			}
		}
		t.Fatalf("no marker %q", name)
		return 0
	}
	for _, c := range []struct {
		spec  string
		entry int
		tick  uint32
	}{
		{"", 0, 0},
		{"0", 0, 0},
		{"30", idx("checkpoint-1"), 1800},
		{"30s", idx("checkpoint-1"), 1800},
		{"0:30", idx("checkpoint-1"), 1800},
		{"1800px", idx("checkpoint-1"), 1800},
		{"29.9", idx("checkpoint-1"), 1794},
		{"midboss", idx("midboss") - 0, 6300},
		{"boss", len(st.Entries) - 1, 12600},
		{"3:30", len(st.Entries) - 1, 12600},
		{"checkpoint-2", idx("checkpoint-2"), 4500},
	} {
		e, tk, err := st.Warp(c.spec)
		if err != nil || e != c.entry || tk != c.tick {
			t.Errorf("Warp(%q) = %d, %d, %v; want %d, %d", c.spec, e, tk, err, c.entry, c.tick)
		}
	}
	for _, c := range []struct{ spec, want string }{
		{"bos", `stage 1: warp "bos": neither a time (90, 90s, 1:30, 5400px) nor a marker (markers: checkpoint-1 checkpoint-2 midboss checkpoint-3 checkpoint-4 checkpoint-5 boss)`},
		{"211", `stage 1: warp "211": 3:31.0 is past the end boss at 3:30.0`},
		{"+5", `stage 1: warp "+5": neither a time (90, 90s, 1:30, 5400px) nor a marker (markers: checkpoint-1 checkpoint-2 midboss checkpoint-3 checkpoint-4 checkpoint-5 boss)`},
		{"-5", `stage 1: warp "-5": neither a time (90, 90s, 1:30, 5400px) nor a marker (markers: checkpoint-1 checkpoint-2 midboss checkpoint-3 checkpoint-4 checkpoint-5 boss)`},
	} {
		if _, _, err := st.Warp(c.spec); err == nil || err.Error() != c.want {
			t.Errorf("Warp(%q) = %v, want %q", c.spec, err, c.want)
		}
	}
}

// The example of STAGES.md is a valid stage.
func TestStagesDocExample(t *testing.T) {
	doc, err := os.ReadFile("../../STAGES.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "## A complete example\n\n```\n")
	src, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("STAGES.md: no example")
	}
	st, err := stage.Parse("STAGES.md example", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "demo" || len(st.Entries) != 12 || st.Entries[4].Tick != 1200 || st.Entries[5].Tick != 1440 {
		t.Errorf("the example: %s, %d entries", st.Name, len(st.Entries))
	}
}

func TestFormatTicks(t *testing.T) {
	for _, c := range []struct {
		ticks uint32
		want  string
	}{
		{0, "0:00.0"}, {3, "0:00.1"}, {2, "0:00.0"}, {60, "0:01.0"}, {600, "0:10.0"},
		{3596, "0:59.9"}, {3597, "1:00.0"}, {3599, "1:00.0"}, {3600, "1:00.0"},
		{5400, "1:30.0"}, {36000, "10:00.0"}, {0xFFFFFFFF, "1193046:28.3"},
	} {
		if got := stage.FormatTicks(c.ticks); got != c.want {
			t.Errorf("FormatTicks(%d) = %q, want %q", c.ticks, got, c.want)
		}
	}
}
