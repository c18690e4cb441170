package interp

import (
	"math"
	"slices"
	"testing"

	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wire"
)

// at returns an Interpolator that places frames at render tick r.
func at(frames []client.Frame, r float64) *Interpolator {
	ip := New(Config{})
	ip.frames = frames
	ip.sortFrames()
	ip.render = r
	return ip
}

// ent returns an entity of id at (x, y) with velocity (vx, 0), of tick.
func ent(id uint32, tick uint32, x, y, vx float32) client.Entity {
	return client.Entity{ID: id, Kind: wire.KindBydosSlave, Owner: wire.NoPlayer, X: x, Y: y, VX: vx, Tick: tick}
}

// frame returns a frame of tick whose entities all have that tick.
func frame(tick uint32, es ...client.Entity) client.Frame {
	for i := range es {
		if es[i].Tick == 0 {
			es[i].Tick = tick
		}
	}
	return client.Frame{Tick: tick, Entities: es}
}

type pos struct {
	id   uint32
	x, y float32
}

func positions(ds []Drawn) []pos {
	var ps []pos
	for _, d := range ds {
		ps = append(ps, pos{d.ID, d.DrawX, d.DrawY})
	}
	return ps
}

func near(a, b []pos) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].id != b[i].id || math.Abs(float64(a[i].x-b[i].x)) > 1e-4 || math.Abs(float64(a[i].y-b[i].y)) > 1e-4 {
			return false
		}
	}
	return true
}

// TestEntities places the entities of hand-made histories at chosen render
// ticks.
func TestEntities(t *testing.T) {
	ship := func(tick uint32, x, y float32, respawned uint32) client.Entity {
		return client.Entity{ID: 9, Kind: wire.KindPlayerShip, X: x, Y: y, VX: 60, Tick: tick, Respawned: respawned}
	}
	tests := []struct {
		name   string
		frames []client.Frame
		render float64
		want   []pos
	}{
		{
			name:   "interpolated",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 10, 60)), frame(303, ent(1, 0, 3, 13, 60))},
			render: 301, want: []pos{{1, 1, 11}},
		},
		{
			name:   "at the newer frame's tick",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 10, 60)), frame(303, ent(1, 0, 3, 13, 60))},
			render: 303, want: []pos{{1, 3, 13}},
		},
		{
			name:   "before the oldest frame: held",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 10, 60)), frame(303, ent(1, 0, 3, 13, 60))},
			render: 250, want: []pos{{1, 0, 10}},
		},
		{
			name:   "lost snapshot: interpolated over the longer interval",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 0, 0)), frame(306, ent(1, 0, 60, 30, 0))},
			render: 303, want: []pos{{1, 30, 15}},
		},
		{
			name:   "lost snapshot, later",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 0, 0)), frame(306, ent(1, 0, 60, 30, 0))},
			render: 304.5, want: []pos{{1, 45, 22.5}},
		},
		{
			name:   "extrapolated past the newest frame",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 0, 60)), frame(303, ent(1, 0, 3, 0, 60))},
			render: 309, want: []pos{{1, 9, 0}},
		},
		{
			name:   "frozen after MaxExtrapolation",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 0, 60)), frame(303, ent(1, 0, 3, 0, 60))},
			render: 400, want: []pos{{1, 18, 0}},
		},
		{
			name:   "just spawned: at its spawn position",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 0, 60)), frame(303, ent(1, 0, 3, 0, 60), ent(4, 302, 500, 200, -60))},
			render: 301, want: []pos{{1, 1, 0}, {4, 500, 200}},
		},
		{
			name:   "just spawned, render past its spawn tick",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 0, 60)), frame(303, ent(1, 0, 3, 0, 60), ent(4, 302, 500, 200, -60))},
			render: 302.5, want: []pos{{1, 2.5, 0}, {4, 499.5, 200}},
		},
		{
			name:   "removed: not drawn once the render time is past its last frame",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 0, 60), ent(5, 0, 50, 50, 0)), frame(303, ent(1, 0, 3, 0, 60))},
			render: 301, want: []pos{{1, 1, 0}},
		},
		{
			name: "removed: still drawn before",
			frames: []client.Frame{frame(297, ent(1, 0, -3, 0, 60), ent(5, 0, 50, 50, 0)),
				frame(300, ent(1, 0, 0, 0, 60), ent(5, 0, 50, 50, 0)), frame(303, ent(1, 0, 3, 0, 60))},
			render: 298, want: []pos{{1, -2, 0}, {5, 50, 50}},
		},
		{
			name:   "spawned and destroyed between frames, or Destroy before Spawn: never shown",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 0, 60)), frame(303, ent(1, 0, 3, 0, 60)), frame(306, ent(1, 0, 6, 0, 60))},
			render: 304, want: []pos{{1, 4, 0}},
		},
		{
			name:   "stale record in the newer frame (a part not arrived): extrapolated from its own tick",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 0, 60)), frame(303, ent(1, 300, 0, 0, 60))},
			render: 302, want: []pos{{1, 2, 0}},
		},
		{
			name:   "respawn between the frames, before its tick: on the old path",
			frames: []client.Frame{frame(300, ship(300, 100, 100, 0)), frame(303, ship(303, 50, 600, 302))},
			render: 301.5, want: []pos{{9, 101.5, 100}},
		},
		{
			name:   "respawn between the frames, at its tick: at the new position",
			frames: []client.Frame{frame(300, ship(300, 100, 100, 0)), frame(303, ship(303, 50, 600, 302))},
			render: 302, want: []pos{{9, 50, 600}},
		},
		{
			name: "respawn known only from a newer frame (late Death): no slide",
			frames: []client.Frame{frame(300, ship(300, 100, 100, 0)), frame(303, ship(303, 50, 600, 0)),
				frame(306, ship(306, 53, 600, 301))},
			render: 302, want: []pos{{9, 50, 600}},
		},
		{
			name: "respawn known from a newer frame, before its tick",
			frames: []client.Frame{frame(300, ship(300, 100, 100, 0)), frame(303, ship(303, 50, 600, 0)),
				frame(306, ship(306, 53, 600, 301))},
			render: 300.5, want: []pos{{9, 100.5, 100}},
		},
		{
			name:   "an older respawn does not stop the interpolation",
			frames: []client.Frame{frame(300, ship(300, 100, 100, 250)), frame(303, ship(303, 103, 100, 250))},
			render: 301, want: []pos{{9, 101, 100}},
		},
		{
			name:   "extrapolation stops at a Death not yet in any position",
			frames: []client.Frame{frame(300, ship(300, 100, 100, 0)), frame(303, ship(303, 103, 100, 305))},
			render: 310, want: []pos{{9, 105, 100}},
		},
		{
			name: "unsorted entities are still matched",
			frames: []client.Frame{frame(300, ent(2, 0, 10, 0, 0), ent(1, 0, 0, 0, 0)),
				frame(303, ent(1, 0, 3, 0, 0), ent(2, 0, 13, 0, 0))},
			render: 301, want: []pos{{1, 1, 0}, {2, 11, 0}},
		},
		{
			name:   "kind changed under the same id: not interpolated",
			frames: []client.Frame{frame(300, ent(1, 0, 0, 0, 0)), frame(303, client.Entity{ID: 1, Kind: wire.KindEnemyMissile, X: 90, Tick: 303})},
			render: 301, want: []pos{{1, 90, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, rev := range []bool{false, true} {
				fs := slices.Clone(tt.frames)
				if rev {
					slices.Reverse(fs)
				}
				got := positions(at(fs, tt.render).Entities(nil))
				if !near(got, tt.want) {
					t.Errorf("reversed %v: drawn %v, want %v", rev, got, tt.want)
				}
			}
		})
	}
}

// TestSpriteFrame checks that the sprite frame is that of the nearest
// state, and the rest of the entity that of the newer frame.
func TestSpriteFrame(t *testing.T) {
	a, b := ent(1, 0, 0, 0, 0), ent(1, 0, 3, 0, 0)
	a.Frame, b.Frame = 4, 5
	b.Owner = 2
	fs := []client.Frame{frame(300, a), frame(303, b)}
	for _, tt := range []struct {
		render float64
		want   uint8
	}{{300, 4}, {301, 4}, {301.4, 4}, {301.6, 5}, {302, 5}, {303, 5}, {310, 5}} {
		d := at(fs, tt.render).Entities(nil)
		if d[0].Frame != tt.want {
			t.Errorf("render %v: sprite frame %d, want %d", tt.render, d[0].Frame, tt.want)
		}
		if tt.render > 300 && (d[0].Owner != 2 || d[0].X != 3 || d[0].Tick != 303) {
			t.Errorf("render %v: entity %+v, want the newer frame's", tt.render, d[0].Entity)
		}
	}
}

// TestDuplicateTick gives a history holding a frame twice: nothing
// changes, and of two frames of a tick the fuller one is used.
func TestDuplicateTick(t *testing.T) {
	f300 := frame(300, ent(1, 0, 0, 0, 0), ent(2, 0, 100, 0, 0))
	f303 := frame(303, ent(1, 0, 3, 0, 0), ent(2, 0, 103, 0, 0))
	f306 := frame(306, ent(1, 0, 6, 0, 0), ent(2, 0, 106, 0, 0))
	partial := frame(303, ent(1, 0, 3, 0, 0)) // one datagram of two
	ref := []client.Frame{f300, f303, f306}
	for _, fs := range [][]client.Frame{
		{f300, f303, f303, f306},
		{f306, f303, f300, f303},
		{f300, partial, f303, f306},
		{f300, f303, partial, f306},
	} {
		for _, r := range []float64{299, 300, 301, 302.5, 303, 304, 306, 307} {
			want := positions(at(ref, r).Entities(nil))
			if got := positions(at(fs, r).Entities(nil)); !near(got, want) {
				t.Errorf("ticks %v at %v: drawn %v, want %v", ticks(fs), r, got, want)
			}
		}
	}
}

func ticks(fs []client.Frame) []uint32 {
	var ts []uint32
	for _, f := range fs {
		ts = append(ts, f.Tick)
	}
	return ts
}

// TestEntitiesReusesDst checks that Entities reuses dst's storage.
func TestEntitiesReusesDst(t *testing.T) {
	fs := []client.Frame{frame(300, ent(1, 0, 0, 0, 0), ent(2, 0, 1, 0, 0)), frame(303, ent(1, 0, 3, 0, 0), ent(2, 0, 4, 0, 0))}
	ip := at(fs, 301)
	dst := make([]Drawn, 5, 8)
	got := ip.Entities(dst)
	if len(got) != 2 || &got[0] != &dst[0] {
		t.Fatalf("Entities did not reuse dst: len %d", len(got))
	}
	testutil.NoAllocs(t, 100, "Entities", func() { got = ip.Entities(got) })
}

func TestLerp(t *testing.T) {
	a, b := client.Entity{X: 10, Y: -4}, client.Entity{X: 20, Y: 4}
	for _, tt := range []struct{ t, x, y float32 }{{0, 10, -4}, {0.5, 15, 0}, {1, 20, 4}, {1.5, 25, 8}} {
		if x, y := Lerp(a, b, tt.t); x != tt.x || y != tt.y {
			t.Errorf("Lerp(%v) = %v, %v, want %v, %v", tt.t, x, y, tt.x, tt.y)
		}
	}
}

func TestSmoothness(t *testing.T) {
	tests := []struct {
		name          string
		path          []float32
		v             float32
		dev           float32
		stalls, backs int
	}{
		{"empty", nil, 60, 0, 0, 0},
		{"one point", []float32{3}, 60, 0, 0, 0},
		{"straight", []float32{0, 1, 2, 3}, 60, 0, 0, 0},
		{"straight backwards", []float32{3, 2, 1}, -60, 0, 0, 0},
		{"stall", []float32{0, 1, 1, 2}, 60, 1, 1, 0},
		{"jump back", []float32{0, 1, 0.5, 1.5}, 60, 1.5, 0, 1},
		{"jump ahead", []float32{0, 1, 3, 4}, 60, 1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dev, stalls, backs := Smoothness(tt.path, 1.0/60, tt.v)
			if math.Abs(float64(dev-tt.dev)) > 1e-5 || stalls != tt.stalls || backs != tt.backs {
				t.Errorf("Smoothness = %v, %d, %d, want %v, %d, %d", dev, stalls, backs, tt.dev, tt.stalls, tt.backs)
			}
		})
	}
}
