package stage

import (
	"fmt"
	"math"
	"strings"

	"rtype/vocab"
)

// Terrain is the static geometry of a stage (STAGES.md, "Terrain"): a
// tile map of columns TileW pixels wide, each with a ceiling, a floor and
// a block, that scrolls with the timeline. Column i covers the scroll
// distances [i·TileW, (i+1)·TileW): it enters the area at its right edge
// when the timeline has scrolled i·TileW pixels (Distance), like a wave
// entering then; at distance d its left edge is at x = AreaW + i·TileW − d.
//
// The geometry never changes while a game plays: a client that has the
// stage file has it whole, and nothing of it goes in a snapshot.
const (
	// TileW is the width of a terrain column, in pixels.
	TileW = 20
	// MaxColumns is the most columns of a stage's terrain: its farthest
	// column ends at most MaxColumns·TileW pixels (1 310 720 px) into the
	// timeline.
	MaxColumns = 1 << 16
	// MaxTerrain is the most terrain lines of a stage.
	MaxTerrain = 2000
	// MaxSegment is the longest terrain line, in pixels.
	MaxSegment = 20000
	// MinPassage is the least room, in pixels, a column leaves between its
	// ceiling and its floor (a block may narrow it: it is the stage's
	// author's to leave a way around it).
	MinPassage = 120
)

// Tile is one column of terrain. Heights are whole pixels; 0 is none.
type Tile struct {
	// Ceil is the ceiling's height, from the area's top edge down; Floor
	// the floor's, from the bottom edge up.
	Ceil, Floor uint16
	// BlockTop and BlockBot are a block's top and bottom, from the top
	// edge: solid for BlockTop <= y < BlockBot; none when BlockBot is 0.
	BlockTop, BlockBot uint16
}

// Empty reports whether the column holds no terrain.
func (c Tile) Empty() bool { return c.Ceil == 0 && c.Floor == 0 && c.BlockBot == 0 }

// Distance returns how far the timeline has scrolled at its tick t, in
// pixels: the distance of a terrain column at the area's right edge.
func (s *Stage) Distance(t uint32) float64 { return float64(t) * s.Scroll / vocab.TickRate }

// columns returns the indices of the first and last columns under the
// area's x0..x1 at distance d, and false when none is.
func (s *Stage) columns(d, x0, x1 float64) (i0, i1 int, ok bool) {
	n := len(s.Terrain)
	if n == 0 {
		return 0, 0, false
	}
	a := (x0 - AreaW + d) / TileW
	b := (x1 - AreaW + d) / TileW
	if b < 0 || a >= float64(n) || a != a || b != b {
		return 0, 0, false
	}
	i0, i1 = 0, n-1
	if a > 0 {
		i0 = int(a)
	}
	if b < float64(n-1) {
		i1 = int(b)
	}
	return i0, i1, true
}

// Solid reports whether the box x0..x1 × y0..y1 (area pixels, x0 <= x1,
// y0 <= y1) touches the terrain at scroll distance d. It allocates
// nothing, and answers the same on every machine.
func (s *Stage) Solid(d, x0, y0, x1, y1 float64) bool {
	i0, i1, ok := s.columns(d, x0, x1)
	if !ok {
		return false
	}
	for _, c := range s.Terrain[i0 : i1+1] {
		if c.Ceil != 0 && y0 < float64(c.Ceil) ||
			c.Floor != 0 && y1 > AreaH-float64(c.Floor) ||
			c.BlockBot != 0 && y1 > float64(c.BlockTop) && y0 < float64(c.BlockBot) {
			return true
		}
	}
	return false
}

// Edges returns the lowest ceiling and the highest floor (their heights,
// as in Tile) over the area's x0..x1 at distance d: where a turret
// hanging from the ceiling or sitting on the floor there is mounted.
func (s *Stage) Edges(d, x0, x1 float64) (ceil, floor float64) {
	i0, i1, ok := s.columns(d, x0, x1)
	if !ok {
		return 0, 0
	}
	for _, c := range s.Terrain[i0 : i1+1] {
		ceil = max(ceil, float64(c.Ceil))
		floor = max(floor, float64(c.Floor))
	}
	return ceil, floor
}

// terrainFields are the fields of a terrain line.
var terrainFields = []string{"length", "floor", "ceiling", "block"}

// terrain reads a terrain line at tick (without "at TIME terrain"): the
// columns from the timeline's distance at tick on, length pixels long,
// get the floor, ceiling and block it gives (a later line overrides the
// fields it gives of the columns it covers).
func (p *parser) terrain(tick uint32, args []string) {
	s := p.s
	if p.terrainLines++; p.terrainLines > MaxTerrain {
		p.errf("terrain: more than %d terrain lines", MaxTerrain)
	}
	vals := p.fields("terrain", "floor=80", terrainFields, args)
	bad := func(k, format string, args ...any) {
		p.errf("terrain: %s %s: %s", k, vals[k], fmt.Sprintf(format, args...))
	}
	lv, ok := vals["length"]
	if !ok {
		p.errf("terrain: no length (e.g. length=600px)")
	}
	ln, msg := number(lv, "px", false)
	if msg == "" && (ln < TileW || ln > MaxSegment) {
		msg = fmt.Sprintf("must be %d to %d px", TileW, MaxSegment)
	}
	if msg != "" {
		bad("length", "%s", msg)
	}
	if len(vals) == 1 {
		p.errf("terrain: nothing to place: floor=, ceiling= or block= expected")
	}
	// A height or a ramp: H, or H..H2 from the first column to the last.
	ramp := func(k string, hi float64) (a, b float64, given bool) {
		v, ok := vals[k]
		if !ok {
			return 0, 0, false
		}
		l, r, isRamp := strings.Cut(v, "..")
		x, m1 := number(l, "px", false)
		y, m2 := x, ""
		if isRamp {
			y, m2 = number(r, "px", false)
		}
		if m1 != "" || m2 != "" {
			bad(k, "not a height (H or H..H2, in px)")
		}
		if x < 0 || x > hi || y < 0 || y > hi {
			bad(k, "must be 0 to %g px", hi)
		}
		return x, y, true
	}
	f0, f1, hasF := ramp("floor", AreaH-MinPassage)
	c0, c1, hasC := ramp("ceiling", AreaH-MinPassage)
	var bt, bb float64
	hasB := false
	if v, ok := vals["block"]; ok {
		l, r, isRange := strings.Cut(v, "..")
		x, m1 := number(l, "px", false)
		y, m2 := number(r, "px", false)
		switch {
		case !isRange || m1 != "" || m2 != "":
			bad("block", "not a range TOP..BOTTOM in px (e.g. block=300..420)")
		case x < 0 || y > AreaH || x >= y:
			bad("block", "must be TOP..BOTTOM with 0 <= TOP < BOTTOM <= %d", AreaH)
		}
		bt, bb, hasB = x, y, true
	}
	first := int(math.Round(s.Distance(tick) / TileW))
	n := max(int(math.Round(ln/TileW)), 1)
	if first+n > MaxColumns {
		p.errf("terrain: ends %d px into the timeline: beyond the limit of %d px", (first+n)*TileW, MaxColumns*TileW)
	}
	if len(s.Terrain) < first+n {
		s.Terrain = append(s.Terrain, make([]Tile, first+n-len(s.Terrain))...)
	}
	lerp := func(a, b float64, i int) uint16 {
		if n == 1 {
			return uint16(math.Round(a))
		}
		return uint16(math.Round(a + (b-a)*float64(i)/float64(n-1)))
	}
	for i := range n {
		c := &s.Terrain[first+i]
		if hasF {
			c.Floor = lerp(f0, f1, i)
		}
		if hasC {
			c.Ceil = lerp(c0, c1, i)
		}
		if hasB {
			c.BlockTop, c.BlockBot = uint16(math.Round(bt)), uint16(math.Round(bb))
		}
		if room := AreaH - int(c.Ceil) - int(c.Floor); room < MinPassage {
			k := "floor"
			if hasC {
				k = "ceiling"
			}
			bad(k, "leaves %d px between the ceiling and the floor at %d px: at least %d", max(room, 0), (first+i)*TileW, MinPassage)
		}
	}
}
