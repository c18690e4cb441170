package render

import (
	"image/color"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/render/model"
	"rtype/sim/stage"
)

// The terrain is drawn where the stage's columns are at its distance:
// plates in the ceiling, the floor and the block, nothing in the
// passage or beyond the terrain's end, a lit rim on the surfaces.
func TestTerrainDraws(t *testing.T) {
	a, err := LoadAtlas()
	if err != nil {
		t.Fatal(err)
	}
	st, err := stage.Parse("t.stage", []byte("rtype-stage 1\nname t\ntitle T\nscroll 60\nlength 1:00\n"+
		"at 0s terrain length=400px ceiling=100 floor=120 block=300..400\nat 2s boss\n"))
	if err != nil {
		t.Fatal(err)
	}
	// At distance 1000 the 20 columns span x 280 to 680.
	tr := model.Terrain{Tiles: st.Terrain, D: 1000}
	img := ebiten.NewImage(Width, Height)
	a.DrawTerrain(img, &tr)
	p := read(img)
	solid := func(c color.RGBA) bool { return c.A == 0xff }
	empty := func(c color.RGBA) bool { return c.A == 0 }
	for _, c := range []struct {
		what           string
		x0, y0, x1, y1 int
		f              func(color.RGBA) bool
	}{
		{"ceiling", 290, 0, 670, 96, solid},
		{"floor", 290, 604, 670, 720, solid},
		{"block", 290, 304, 670, 396, solid},
		{"passage above the block", 290, 104, 670, 296, empty},
		{"passage below it", 290, 404, 670, 596, empty},
		{"left of the terrain", 0, 0, 277, 720, empty},
		{"right of it", 683, 0, 1280, 720, empty},
	} {
		n := (c.x1 - c.x0) * (c.y1 - c.y0)
		if got := p.count(c.x0, c.y0, c.x1, c.y1, c.f); got != n {
			t.Errorf("%s: %d of %d pixels as expected", c.what, got, n)
		}
	}
	rim := p.count(290, 98, 670, 100, func(c color.RGBA) bool { return luma(c) > 120 })
	if rim < 380 {
		t.Errorf("the ceiling's rim: %d bright pixels of 760", rim)
	}
	// Nothing at all before the terrain enters.
	img.Clear()
	a.DrawTerrain(img, &model.Terrain{Tiles: st.Terrain, D: 0})
	if n := read(img).count(0, 0, Width, Height, solid); n != 0 {
		t.Errorf("%d pixels drawn before the terrain entered", n)
	}
}
