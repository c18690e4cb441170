package render

import (
	"image/color"
	"strings"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/internal/ebitentest"
	"rtype/net/wire"
)

// The tests run inside Ebitengine's game loop (pixels can only be read
// there), in a game's first Update (internal/ebitentest).
func TestMain(m *testing.M) { ebitentest.Main(m, Width, Height) }

// pixels reads img.
type pixels struct {
	w, h int
	pix  []byte
}

func read(img *ebiten.Image) pixels {
	b := img.Bounds()
	p := pixels{w: b.Dx(), h: b.Dy(), pix: make([]byte, 4*b.Dx()*b.Dy())}
	img.ReadPixels(p.pix)
	return p
}

func (p pixels) at(x, y int) color.RGBA {
	i := 4 * (y*p.w + x)
	return color.RGBA{p.pix[i], p.pix[i+1], p.pix[i+2], p.pix[i+3]}
}

// count returns how many pixels of the rectangle satisfy f.
func (p pixels) count(x0, y0, x1, y1 int, f func(c color.RGBA) bool) int {
	n := 0
	for y := max(y0, 0); y < min(y1, p.h); y++ {
		for x := max(x0, 0); x < min(x1, p.w); x++ {
			if f(p.at(x, y)) {
				n++
			}
		}
	}
	return n
}

func luma(c color.RGBA) int { return (299*int(c.R) + 587*int(c.G) + 114*int(c.B)) / 1000 }

// near reports whether c is within d of want on each channel.
func near(want color.RGBA, d int) func(c color.RGBA) bool {
	abs := func(v int) int { return max(v, -v) }
	return func(c color.RGBA) bool {
		return abs(int(c.R)-int(want.R)) <= d && abs(int(c.G)-int(want.G)) <= d && abs(int(c.B)-int(want.B)) <= d
	}
}

func TestAtlasLoads(t *testing.T) {
	a, err := LoadAtlas()
	if err != nil {
		t.Fatal(err)
	}
	b, err2 := LoadAtlas()
	if err2 != nil || a != b {
		t.Fatal("LoadAtlas must return the one atlas")
	}
	// Every sprite is a sub-image of the one atlas image.
	for _, img := range append(append(a.Ship[:], a.Bydos[:]...), a.Pixel, a.Life, a.Star[2], a.Explosion[7]) {
		if img.Bounds().Empty() || !img.Bounds().In(a.Image.Bounds()) {
			t.Fatalf("sprite %v outside the atlas %v", img.Bounds(), a.Image.Bounds())
		}
	}
	if got := a.Ship[0].Bounds().Size(); got.X != 33 || got.Y != 17 {
		t.Errorf("ship is %v, want 33x17", got)
	}
}

func TestFrame(t *testing.T) {
	a, err := LoadAtlas()
	if err != nil {
		t.Fatal(err)
	}
	f, err := LoadFonts()
	if err != nil {
		t.Fatal(err)
	}
	screen := ebiten.NewImage(Width, Height)
	defer screen.Deallocate()
	screen.Fill(ColBackground)
	sf := NewStarfield()
	sf.Draw(screen, a, 12.5)
	sprites := []Sprite{
		{ID: 1, Kind: wire.KindPlayerShip, Owner: 0, Frame: 0, X: 300, Y: 400},
		{ID: 2, Kind: wire.KindPlayerShip, Owner: 1, Frame: 0, X: 300, Y: 550},
		{ID: 3, Kind: wire.KindBydosSlave, Owner: wire.NoPlayer, Frame: 2, X: 900, Y: 300},
		{ID: 4, Kind: wire.KindPlayerMissile, Owner: 0, X: 500, Y: 400},
		{ID: 5, Kind: wire.KindEnemyMissile, Owner: wire.NoPlayer, X: 700, Y: 600},
	}
	a.DrawWorld(screen, sprites, 1)
	var hud [4]HUDPlayer
	hud[0] = HUDPlayer{Present: true, Name: "Ripley", Score: 1200, Lives: 3, HasShip: true, Local: true}
	hud[1] = HUDPlayer{Present: true, Name: "Hicks", Score: 300, Lives: 1, HasShip: true}
	a.DrawHUD(screen, f, hud)
	p := read(screen)

	// Each ship shows its player's colour around its position.
	for _, s := range sprites[:2] {
		col := PlayerColor(s.Owner)
		n := p.count(int(s.X)-20, int(s.Y)-12, int(s.X)+20, int(s.Y)+12, near(col, 70))
		if n < 8 {
			t.Errorf("ship of player %d: %d pixels of its colour %v near (%v, %v)", s.Owner, n, col, s.X, s.Y)
		}
		// And not elsewhere in the play area, far from it.
		if far := p.count(int(s.X)+200, int(s.Y)-12, int(s.X)+240, int(s.Y)+12, near(col, 40)); far > 0 {
			t.Errorf("player %d's colour found away from the ship (%d pixels)", s.Owner, far)
		}
	}
	// The Bydos is drawn: many coloured pixels around it.
	if n := p.count(884, 284, 916, 316, func(c color.RGBA) bool { return luma(c) > 60 }); n < 100 {
		t.Errorf("Bydos: %d lit pixels, want a sprite", n)
	}
	// The missiles are drawn.
	if n := p.count(490, 397, 510, 403, func(c color.RGBA) bool { return luma(c) > 120 }); n < 10 {
		t.Errorf("player missile: %d lit pixels", n)
	}
	if n := p.count(694, 594, 706, 606, func(c color.RGBA) bool { return c.R > 150 }); n < 6 {
		t.Errorf("enemy missile: %d orange pixels", n)
	}
	// HUD: text pixels in the panels, the local one outlined in cyan.
	x0 := int(HUDSlotX(0))
	if n := p.count(x0+10, HUDTop+4, x0+HUDWidth-10, HUDTop+34, func(c color.RGBA) bool { return luma(c) > 150 }); n < 80 {
		t.Errorf("HUD panel 0: %d text pixels", n)
	}
	if n := p.count(x0, HUDTop, x0+HUDWidth, HUDTop+2, near(PlayerColors[0], 30)); n < HUDWidth/2 {
		t.Errorf("local HUD panel not outlined in its colour (%d pixels)", n)
	}
	x1 := int(HUDSlotX(1))
	if n := p.count(x1+10, HUDTop+4, x1+HUDWidth-10, HUDTop+34, func(c color.RGBA) bool { return luma(c) > 150 }); n < 50 {
		t.Errorf("HUD panel 1: %d text pixels", n)
	}
	// Lives: three cyan icons under the local name.
	if n := p.count(x0+10, HUDTop+38, x0+90, HUDTop+52, near(PlayerColors[0], 90)); n < 20 {
		t.Errorf("lives icons: %d pixels", n)
	}
	// Stars: many small bright dots on the dark background, where nothing
	// else is drawn.
	stars := p.count(0, 100, Width, Height, func(c color.RGBA) bool { return luma(c) > 90 })
	dark := p.count(0, 100, Width, Height, func(c color.RGBA) bool { return luma(c) < 30 })
	if stars < 150 {
		t.Errorf("starfield: %d bright pixels", stars)
	}
	if dark < (Width*(Height-100))*9/10 {
		t.Errorf("background not dark: %d dark pixels", dark)
	}
}

func TestInvulnerableShipBlinks(t *testing.T) {
	a, _ := LoadAtlas()
	screen := ebiten.NewImage(200, 100)
	defer screen.Deallocate()
	lit := func(t float64) int {
		screen.Clear()
		a.DrawShip(screen, 100, 50, Invulnerable, 2, t)
		return read(screen).count(70, 35, 130, 65, func(c color.RGBA) bool { return luma(c) > 100 })
	}
	ghost, solid := lit(0), lit(1.0/16)
	if ghost >= solid || solid == 0 {
		t.Errorf("an invulnerable ship must blink: %d then %d lit pixels", ghost, solid)
	}
}

func TestStarfieldScrolls(t *testing.T) {
	a, _ := LoadAtlas()
	sf := NewStarfield()
	img := ebiten.NewImage(Width, Height)
	defer img.Deallocate()
	img.Fill(color.Black)
	sf.Draw(img, a, 0)
	p0 := read(img)
	img.Fill(color.Black)
	sf.Draw(img, a, 1)
	p1 := read(img)
	same := 0
	for i := 0; i < len(p0.pix); i += 4 {
		if p0.pix[i] > 90 && p0.pix[i] == p1.pix[i] {
			same++
		}
	}
	if total := p0.count(0, 0, Width, Height, func(c color.RGBA) bool { return c.R > 90 }); same > total/2 {
		t.Errorf("%d of %d star pixels did not move in 1 s", same, total)
	}
}

func TestWrap(t *testing.T) {
	f, _ := LoadFonts()
	lines := Wrap("cannot reach server 10.0.0.1:4242: connection refused: no server is listening on that port", f.Body, 300)
	if len(lines) < 3 {
		t.Fatalf("got %q", lines)
	}
	for _, l := range lines {
		if w, _ := Measure(l, f.Body); w > 300 {
			t.Errorf("line %q is %v wide", l, w)
		}
	}
}

func TestFit(t *testing.T) {
	f, _ := LoadFonts()
	if got := Fit("Ripley", f.Small, 500); got != "Ripley" {
		t.Errorf("Fit = %q", got)
	}
	long := "Wwwwwwwwwwwwwwwwwwww"
	got := Fit(long, f.Small, 120)
	if w, _ := Measure(got, f.Small); w > 120 || got == long || !strings.HasSuffix(got, "…") {
		t.Errorf("Fit(%q) = %q (%v wide)", long, got, w)
	}
}
