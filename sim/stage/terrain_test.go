package stage_test

import (
	"strings"
	"testing"

	"rtype/sim/stage"
)

// Terrain lines place columns by scroll distance: floors, ceilings,
// ramps and blocks, a later line overriding the fields it gives; they are
// not timeline entries.
func TestTerrainColumns(t *testing.T) {
	st := mustParse(t, head+
		"at 1s terrain length=100px floor=80 ceiling=40\n"+ // columns 3..7 (60 px / 20)
		"at 120px terrain length=20px block=300..420\n"+ // column 6 gets a block
		"at +40px terrain length=60 floor=80..120\n"+ // columns 8..10: 80, 100, 120
		"at 3s boss\n")
	if len(st.Entries) != 1 || st.Entries[0].Kind != stage.EntryBoss {
		t.Fatalf("entries %+v: terrain lines are not entries", st.Entries)
	}
	if len(st.Terrain) != 11 {
		t.Fatalf("%d columns, want 11", len(st.Terrain))
	}
	want := map[int]stage.Tile{
		0: {}, 2: {},
		3:  {Ceil: 40, Floor: 80},
		6:  {Ceil: 40, Floor: 80, BlockTop: 300, BlockBot: 420},
		7:  {Ceil: 40, Floor: 80},
		8:  {Floor: 80},
		9:  {Floor: 100},
		10: {Floor: 120},
	}
	for i, c := range want {
		if st.Terrain[i] != c {
			t.Errorf("column %d = %+v, want %+v", i, st.Terrain[i], c)
		}
	}
	if !st.Terrain[0].Empty() || st.Terrain[3].Empty() {
		t.Error("Empty")
	}
}

// Solid and Edges: a box touches a column's ceiling, floor or block at
// the distance the column is under it, and nothing outside the terrain.
func TestTerrainSolid(t *testing.T) {
	st := mustParse(t, head+"at 0s terrain length=40px floor=100 ceiling=50 block=300..400\nat 1s boss\n")
	// At distance 0 the columns are at x 1280..1320; at 1000, at 280..320.
	d := 1000.0
	cases := []struct {
		x0, y0, x1, y1 float64
		want           bool
	}{
		{290, 200, 300, 210, false}, // in the passage
		{290, 40, 300, 60, true},    // the ceiling (0..50)
		{290, 615, 300, 625, true},  // the floor (620..720)
		{290, 350, 300, 360, true},  // the block
		{200, 350, 279, 360, false}, // left of the terrain
		{321, 350, 400, 360, false}, // right of it
		{321, 0, 400, 720, false},
		{250, 299, 281, 301, true}, // its corner
	}
	for _, c := range cases {
		if got := st.Solid(d, c.x0, c.y0, c.x1, c.y1); got != c.want {
			t.Errorf("Solid(%g, %g..%g x %g..%g) = %v", d, c.x0, c.x1, c.y0, c.y1, got)
		}
	}
	if st.Solid(0, 0, 0, 1279, 720) {
		t.Error("terrain on screen before it entered")
	}
	if ceil, floor := st.Edges(d, 280, 320); ceil != 50 || floor != 100 {
		t.Errorf("Edges = %g, %g", ceil, floor)
	}
	if ceil, floor := st.Edges(d, 0, 100); ceil != 0 || floor != 0 {
		t.Errorf("Edges away from it = %g, %g", ceil, floor)
	}
	var empty stage.Stage
	if empty.Solid(0, 0, 0, 1280, 720) {
		t.Error("a stage without terrain is solid")
	}
}

// A bad terrain line is refused with the file, the line and the field.
func TestTerrainErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{head + "at 1s terrain floor=80\n", "t.stage:6: terrain: no length (e.g. length=600px)"},
		{head + "at 1s terrain length=100px\n", "t.stage:6: terrain: nothing to place: floor=, ceiling= or block= expected"},
		{head + "at 1s terrain length=5px floor=10\n", "t.stage:6: terrain: length 5px: must be 20 to 20000 px"},
		{head + "at 1s terrain length=100 floor=x\n", "t.stage:6: terrain: floor x: not a height (H or H..H2, in px)"},
		{head + "at 1s terrain length=100 ceiling=10..700\n", "t.stage:6: terrain: ceiling 10..700: must be 0 to 600 px"},
		{head + "at 1s terrain length=100 floor=300 ceiling=310\n", "t.stage:6: terrain: ceiling 310: leaves 110 px between the ceiling and the floor at 60 px: at least 120"},
		{head + "at 1s terrain length=100 block=400..300\n", "t.stage:6: terrain: block 400..300: must be TOP..BOTTOM with 0 <= TOP < BOTTOM <= 720"},
		{head + "at 1s terrain length=100 block=300\n", "t.stage:6: terrain: block 300: not a range TOP..BOTTOM in px (e.g. block=300..420)"},
		{head + "at 1s terrain length=100 roof=3\n", `t.stage:6: terrain: "roof": unknown field (length, floor, ceiling, block)`},
		{head + "at 1s terrain length=100 floor=3 floor=4\n", "t.stage:6: terrain: floor given twice"},
		{head + "at 2s boss\nat 2s terrain length=100 floor=3\n", "t.stage:7: terrain: after the end boss (line 6): the end boss is the last entry"},
		{head + "at 2s marker m\nat 1s terrain length=100 floor=3\n", "t.stage:7: at 1s: 0:01.0 is before the previous entry's 0:02.0 (line 6): entries go in time order"},
		{head + "at 1:01 terrain length=100 floor=3\n", "t.stage:6: at 1:01: 1:01.0 is after the stage's length 1:00.0"},
	} {
		_, err := stage.Parse("t.stage", []byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// The Clock follows the timeline from the events: the intro at the
// warp's tick in loop 1 and 0 after, markers at their entries' ticks, a
// boss stopping it until it is gone.
func TestClock(t *testing.T) {
	st, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	var mid, cp uint32
	for _, e := range st.Entries {
		switch {
		case e.Kind == stage.EntryMidBoss:
			mid = e.Tick
		case e.Name == "checkpoint-2":
			cp = e.Tick
		}
	}
	c := stage.NewClock(st, "1:00")
	if c.Known() {
		t.Fatal("known before any event")
	}
	c.Intro(100, 1)
	if got := c.Timeline(160); got != 3600+60 {
		t.Errorf("warped intro: %g", got)
	}
	if got := c.Distance(160); got != 3660 {
		t.Errorf("distance %g, want 3660 px at 60 px/s", got)
	}
	c.Marker(1000, "checkpoint-2")
	if got := c.Timeline(1010); got != float64(cp+10) {
		t.Errorf("after the checkpoint: %g, want %d", got, cp+10)
	}
	c.Marker(5000, "midboss")
	if got := c.Timeline(6000); got != float64(mid) {
		t.Errorf("during the mid-boss: %g, want %d", got, mid)
	}
	c.BossGone(7000)
	if got := c.Timeline(7030); got != float64(mid+30) {
		t.Errorf("after it: %g, want %d", got, mid+30)
	}
	c.Intro(9000, 2)
	if got := c.Timeline(9001); got != 1 {
		t.Errorf("loop 2: %g, want 1", got)
	}
}

// Find loads a built-in stage by name and checksum, and says clearly
// when it cannot.
func TestFind(t *testing.T) {
	st, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := stage.Find("1", st.FileSum()); err != nil || got.Title != st.Title {
		t.Fatalf("Find(1, its sum) = %v, %v", got, err)
	}
	if want := uint32(st.Sum[0])<<24 | uint32(st.Sum[1])<<16 | uint32(st.Sum[2])<<8 | uint32(st.Sum[3]); st.FileSum() != want {
		t.Errorf("FileSum %08x, want the first 4 bytes of Sum, %08x", st.FileSum(), want)
	}
	if _, err := stage.Find("1", st.FileSum()^1); err == nil || !strings.Contains(err.Error(), "another version") {
		t.Errorf("Find with another sum: %v", err)
	}
	if _, err := stage.Find("nope", st.FileSum()); err == nil || !strings.Contains(err.Error(), "not built into this game") {
		t.Errorf("Find(nope): %v", err)
	}
}

// Stage 1 has terrain in its middle part: none before 0:40, all of it
// scrolled away before the mid-boss, and never a ceiling or floor over
// the lanes where ships come back (y 180 to 540, the ship 17 px high).
func TestStage1Terrain(t *testing.T) {
	st, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	var mid uint32
	for _, e := range st.Entries {
		if e.Kind == stage.EntryMidBoss {
			mid = e.Tick
		}
	}
	first, last := -1, -1
	for i, c := range st.Terrain {
		if c.Empty() {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		if c.Ceil > 180-9 || c.Floor > 720-540-9 {
			t.Errorf("column %d (%d px): ceiling %d, floor %d over the ships' lanes", i, i*stage.TileW, c.Ceil, c.Floor)
		}
	}
	if first < 0 {
		t.Fatal("stage 1 has no terrain")
	}
	if d := float64(first * stage.TileW); d < st.Distance(40*60) {
		t.Errorf("terrain from %g px, before 0:40", d)
	}
	// The last column's right edge has left the area's left edge at the
	// mid-boss: its distance plus the area's width.
	if d := float64((last+1)*stage.TileW) + stage.AreaW; d > st.Distance(mid) {
		t.Errorf("terrain still on screen at the mid-boss: it leaves at %g px, the mid-boss comes at %g px", d, st.Distance(mid))
	}
	t.Logf("stage 1's terrain: %d to %d px (%d columns)", first*stage.TileW, (last+1)*stage.TileW, last-first+1)
}
