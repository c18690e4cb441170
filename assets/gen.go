package assets

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"runtime"
	"sync"
)

// NamedRect is one sprite rectangle of the generated atlas.
type NamedRect struct {
	// Name is the Go variable the rectangle belongs to, e.g. "ShipFrames".
	Name string
	// Index is the position inside the variable's array, or -1 when the
	// variable is a single image.Rectangle.
	Index int
	// Rect is the sprite's area inside the atlas image.
	Rect image.Rectangle
}

// AtlasWidth is the width in pixels of the generated sprite atlas.
const AtlasWidth = 512

// spriteGroup describes one family of equally sized sprites.
type spriteGroup struct {
	name   string
	doc    string
	w, h   int
	n      int  // number of frames
	scalar bool // emitted as a single rectangle instead of an array
	draw   func(dst *image.NRGBA, r image.Rectangle, frame int)
}

// canvasDraw adapts a canvas-based drawing function to a spriteGroup.draw.
func canvasDraw(f func(c *canvas, frame int)) func(*image.NRGBA, image.Rectangle, int) {
	return func(dst *image.NRGBA, r image.Rectangle, frame int) {
		c := newCanvas(r.Dx(), r.Dy())
		f(c, frame)
		c.blit(dst, r.Min.X, r.Min.Y)
	}
}

func spriteGroups() []spriteGroup {
	groups := []spriteGroup{
		{name: "ExplosionFrames", doc: "ExplosionFrames are the 8 frames (48x48) of an expanding fireball with debris that fades out.",
			w: 48, h: 48, n: 8, draw: canvasDraw(drawExplosion)},
		{name: "BydosFrames", doc: "BydosFrames are the 8 looping animation frames (32x32) of the Bydos slave enemy, facing left.",
			w: 32, h: 32, n: 8, draw: canvasDraw(drawBydos)},
		{name: "ShipFrames", doc: "ShipFrames are the player ship's neutral grey body (33x17, nose to the right): 0 level, 1 climbing, 2 diving, 3 blink (ghost).",
			w: 33, h: 17, n: 4, draw: canvasDraw(func(c *canvas, f int) { drawShipFrame(c, f, passBody) })},
		{name: "ShipAccent", doc: "ShipAccent are near-white accent overlays matching ShipFrames frame for frame; tint them with the player's colour and draw them on top of the body.",
			w: 33, h: 17, n: 4, draw: canvasDraw(func(c *canvas, f int) { drawShipFrame(c, f, passAccent) })},
		{name: "MuzzleFrames", doc: "MuzzleFrames are the 3 frames (12x12) of the muzzle flash, big to small; centre them on the ship's nose.",
			w: 12, h: 12, n: 3, draw: canvasDraw(drawMuzzle)},
		{name: "MissileFrames", doc: "MissileFrames are the 2 frames (16x4) of the player's bolt, flying to the right.",
			w: 16, h: 4, n: 2, draw: canvasDraw(drawMissile)},
		{name: "LifeIcon", doc: "LifeIcon is a 12x7 light-grey mini ship for the HUD lives counter; tint it with the player's colour.",
			w: 12, h: 7, n: 1, scalar: true, draw: canvasDraw(func(c *canvas, _ int) { drawLifeIcon(c) })},
		{name: "EnemyMissileFrames", doc: "EnemyMissileFrames are the 2 frames (8x8) of the glowing orange enemy bullet.",
			w: 8, h: 8, n: 2, draw: canvasDraw(drawEnemyMissile)},
		{name: "StarFrames", doc: "StarFrames are 3 starfield sprites of size 1x1, 2x2 and 3x3 (the last with a soft glow).",
			w: 3, h: 3, n: 3, draw: drawStar},
		{name: "Pixel", doc: "Pixel is a single opaque white pixel, surrounded by white in the atlas so it can be scaled with any filter; use it to draw rectangles and HUD bars.",
			w: 1, h: 1, n: 1, scalar: true, draw: drawPixel},
	}
	groups = append(groups, stageGroups()...)
	groups = append(groups, warshipGroups()...)
	return append(groups, paletteGroups()...)
}

// layout packs all sprites in shelves, each with a 1px transparent gutter.
func layout(groups []spriteGroup) (rects [][]image.Rectangle, height int) {
	x, y, rowH := 0, 0, 0
	for _, g := range groups {
		var rs []image.Rectangle
		for i := 0; i < g.n; i++ {
			w, h := g.w, g.h
			if g.name == "StarFrames" {
				w, h = i+1, i+1
			}
			cw, ch := w+2, h+2
			if x+cw > AtlasWidth {
				x, y, rowH = 0, y+rowH, 0
			}
			rs = append(rs, image.Rect(x+1, y+1, x+1+w, y+1+h))
			x += cw
			rowH = max(rowH, ch)
		}
		rects = append(rects, rs)
	}
	return rects, y + rowH
}

// GenerateAtlas deterministically draws every sprite into a new atlas image
// and returns it together with the sprite rectangles, in declaration order.
func GenerateAtlas() (*image.NRGBA, []NamedRect) {
	groups := spriteGroups()
	rects, h := layout(groups)
	img := image.NewNRGBA(image.Rect(0, 0, AtlasWidth, h))
	// The sprites are drawn side by side, each into its own rectangle
	// (and gutter), so the result does not depend on the order.
	jobs := make(chan func())
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j()
			}
		}()
	}
	// The biggest first, so that they do not finish last alone.
	for gi := len(groups) - 1; gi >= 0; gi-- {
		g := groups[gi]
		for i, r := range rects[gi] {
			jobs <- func() { g.draw(img, r, i) }
		}
	}
	close(jobs)
	wg.Wait()
	var named []NamedRect
	for gi, g := range groups {
		for i, r := range rects[gi] {
			idx := i
			if g.scalar {
				idx = -1
			}
			named = append(named, NamedRect{Name: g.name, Index: idx, Rect: r})
		}
	}
	return img, named
}

// AtlasSource returns the gofmt-formatted Go source of atlas_gen.go declaring
// the rectangles returned by GenerateAtlas.
func AtlasSource(rects []NamedRect) []byte {
	docs := map[string]string{}
	for _, g := range spriteGroups() {
		docs[g.name] = g.doc
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by rtype-assetgen; DO NOT EDIT.\n\n")
	b.WriteString("package assets\n\nimport \"image\"\n")
	for i := 0; i < len(rects); {
		name := rects[i].Name
		j := i
		for j < len(rects) && rects[j].Name == name {
			j++
		}
		fmt.Fprintf(&b, "\n// %s\n", docs[name])
		if rects[i].Index < 0 {
			r := rects[i].Rect
			fmt.Fprintf(&b, "var %s = image.Rect(%d, %d, %d, %d)\n", name, r.Min.X, r.Min.Y, r.Max.X, r.Max.Y)
		} else {
			fmt.Fprintf(&b, "var %s = [%d]image.Rectangle{\n", name, j-i)
			for _, nr := range rects[i:j] {
				r := nr.Rect
				fmt.Fprintf(&b, "\timage.Rect(%d, %d, %d, %d),\n", r.Min.X, r.Min.Y, r.Max.X, r.Max.Y)
			}
			b.WriteString("}\n")
		}
		i = j
	}
	return b.Bytes()
}

// ---------------------------------------------------------------------------
// Player ship

type shipPass int

const (
	passBody shipPass = iota
	passAccent
)

var (
	outlineCol = rgb(0.07, 0.08, 0.12)
	shipOW     = 0.55 // outline width in model pixels
)

// metal returns a vertically graded metallic shader between y0 (top) and y1.
func metal(base float64, y0, y1 float64) shader {
	return func(x, y float64) col {
		t := clamp01((y - y0) / (y1 - y0))
		v := base * (1.3 - 0.75*t)
		if t < 0.22 {
			v += 0.12 // specular rim along the top edge
		}
		return rgb(v*0.96, v*0.98, v*1.06)
	}
}

// accentShade is the near-white accent paint (to be tinted by the game).
func accentShade(y0, y1 float64) shader {
	return func(x, y float64) col {
		t := clamp01((y - y0) / (y1 - y0))
		v := 1.0 - 0.38*t
		return rgb(v, v, v)
	}
}

// shipPainter draws ship parts either as the grey body or the accent layer.
type shipPainter struct {
	c    *canvas
	pass shipPass
	ow   float64
}

// part draws an outlined body part.
func (p shipPainter) part(s sdf, sh shader) {
	if p.pass == passBody {
		p.c.fillGrow(s, p.ow, outlineCol)
		p.c.fill(s, sh)
	} else {
		p.c.erase(s, p.ow)
	}
}

// detail draws an un-outlined body detail on top of earlier parts.
func (p shipPainter) detail(s sdf, sh shader) {
	if p.pass == passBody {
		p.c.fill(s, sh)
	} else {
		p.c.erase(s, 0)
	}
}

// accent draws a tintable accent part (grey in the body layer).
func (p shipPainter) accent(s sdf, y0, y1 float64) {
	sh := accentShade(y0, y1)
	if p.pass == passBody {
		p.c.fill(s, func(x, y float64) col { return sh(x, y).scale(0.55) })
	} else {
		p.c.fill(s, sh)
	}
}

// drawShip draws the R-9 style fighter in model space (33x17, nose right),
// either its grey body or its accent overlay; ow is the outline width.
func drawShip(c *canvas, pass shipPass, ow float64) {
	p := shipPainter{c: c, pass: pass, ow: ow}

	// Engine glow behind the nozzle (body layer only).
	if pass == passBody {
		c.glow(func(x, y float64) col {
			dx, dy := (x-2.6)/2.6, (y-8.7)/1.7
			d := dx*dx + dy*dy
			if x > 4.5 {
				return col{}
			}
			i := math.Exp(-d*1.8) * 1.5
			return mix(rgb(1, 0.4, 0.08), rgb(1, 0.97, 0.8), clamp01(i-0.45)).withA(i)
		})
	}

	// Lower fin.
	lowerFin := poly(vec{7, 10.5}, vec{8.6, 15.2}, vec{11.4, 15.2}, vec{15.5, 11})
	p.part(lowerFin, metal(0.55, 10.5, 15.2))
	p.accent(intersect(lowerFin, halfPlane(0, -1, -13.3)), 13.3, 15.2)

	// Upper fin, swept back.
	upperFin := poly(vec{6.5, 7}, vec{8.2, 1.6}, vec{11.8, 1.6}, vec{16.5, 6.6})
	p.part(upperFin, metal(0.62, 1.6, 7))
	p.accent(intersect(upperFin, halfPlane(0, 1, 3.6)), 1.6, 3.6)

	// Engine pod and nozzle.
	pod := box(3.6, 5.4, 13, 12.2, 1.6)
	p.part(pod, metal(0.6, 5.4, 12.2))
	nozzle := box(2.2, 6.6, 4.6, 10.8, 0.7)
	p.part(nozzle, metal(0.42, 6.6, 10.8))

	// Main hull with a long pointed nose.
	hull := poly(vec{9, 5.9}, vec{15, 4.9}, vec{23, 5.7}, vec{32.4, 8.7},
		vec{30, 9.9}, vec{23, 11.7}, vec{15, 12.3}, vec{9, 11.9})
	p.part(hull, metal(0.68, 4.9, 12.3))

	// Underside shadow panel.
	p.detail(intersect(hull, poly(vec{10, 10.6}, vec{24, 10.4}, vec{31, 9.2}, vec{31, 13}, vec{10, 13})),
		solid(rgb(0.3, 0.31, 0.36)))

	// Accent stripe along the flank.
	stripe := poly(vec{10.5, 8.1}, vec{25.5, 8.0}, vec{29.5, 8.9}, vec{25.5, 9.7}, vec{10.5, 9.7})
	p.accent(stripe, 8.0, 9.7)

	// Engine intake details.
	p.detail(box(10, 6.6, 11, 8.0, 0.3), solid(rgb(0.2, 0.21, 0.25)))

	// Cockpit canopy.
	canopy := intersect(ellipse(19.5, 6.6, 4.6, 2.3), halfPlane(0, 1, 7.4))
	p.part(canopy, func(x, y float64) col {
		t := clamp01((y - 4.3) / 3.1)
		k := mix(rgb(0.55, 0.8, 1.0), rgb(0.08, 0.15, 0.35), t)
		hx, hy := (x-20.8)/1.6, (y-5.3)/0.7
		if hx*hx+hy*hy < 1 {
			k = rgb(0.95, 1, 1)
		}
		return k
	})
}

// drawShipFrame draws frame f (0 level, 1 climb, 2 dive, 3 ghost).
func drawShipFrame(c *canvas, f int, pass shipPass) {
	const cx = 16.5
	k := 0.0
	switch f {
	case 1:
		k = 0.14 // nose up
	case 2:
		k = -0.14 // nose down
	}
	if k != 0 {
		c.inv = func(x, y float64) (float64, float64) {
			// Shear plus slight vertical squash to suggest banking.
			my := 8.5 + (y+k*(x-cx)-8.5)/0.94
			return x, my
		}
	}
	drawShip(c, pass, shipOW)
	c.inv = nil
	if f == 3 {
		// Ghost: bleach towards white-cyan and make translucent.
		c.mapAll(func(p pm) pm {
			p.r = p.r*0.45 + p.a*0.55*0.85
			p.g = p.g*0.45 + p.a*0.55*0.95
			p.b = p.b*0.45 + p.a*0.55
			p.r, p.g, p.b, p.a = p.r*0.42, p.g*0.42, p.b*0.42, p.a*0.42
			return p
		})
	}
}

// drawLifeIcon draws a 12x7 mini ship in light grey.
func drawLifeIcon(c *canvas) {
	light := func(y0, y1 float64) shader {
		return func(x, y float64) col {
			t := clamp01((y - y0) / (y1 - y0))
			v := 1 - 0.4*t
			return rgb(v, v, v)
		}
	}
	ow := 0.45
	fin := poly(vec{0.8, 3}, vec{1.8, 0.5}, vec{3.6, 0.5}, vec{5.6, 3})
	c.fillGrow(fin, ow, outlineCol)
	c.fill(fin, light(0.5, 3))
	lfin := poly(vec{1, 4}, vec{1.9, 6.4}, vec{3.4, 6.4}, vec{5.4, 4})
	c.fillGrow(lfin, ow, outlineCol)
	c.fill(lfin, light(4, 6.4).withShade(0.7))
	hull := poly(vec{0.7, 2.3}, vec{5, 1.8}, vec{8, 2.3}, vec{11.6, 3.6}, vec{8, 4.7}, vec{5, 5.1}, vec{0.7, 4.8})
	c.fillGrow(hull, ow, outlineCol)
	c.fill(hull, light(1.8, 5.1))
	c.fill(intersect(ellipse(6.6, 2.5, 1.7, 0.95), halfPlane(0, 1, 2.9)), solid(rgb(0.25, 0.35, 0.5)))
}

// withShade darkens a shader by s.
func (sh shader) withShade(s float64) shader {
	return func(x, y float64) col { return sh(x, y).scale(s) }
}

// ---------------------------------------------------------------------------
// Bydos slave

func drawBydos(c *canvas, frame int) {
	ph := float64(frame) / 8 * 2 * math.Pi
	pulse := 1 + 0.06*math.Sin(ph)
	const cx, cy = 18.0, 16.0
	edge := rgb(0.16, 0.03, 0.1)
	ow := 0.6

	chitin := func(base col) shader {
		return func(x, y float64) col {
			t := clamp01((y - (cy - 12)) / 24)
			return base.scale(1.35 - 0.8*t)
		}
	}

	// Tentacles trailing to the right.
	for k := 0; k < 3; k++ {
		oy := float64(k-1) * 4.2
		var parts []sdf
		for s := 0; s <= 12; s++ {
			u := float64(s) / 12
			x := cx + 5 + u*8.8
			y := cy + oy*(1+u*0.5) + math.Sin(ph+float64(k)*2.1-u*4.5)*1.6*u
			parts = append(parts, circle(x, y, 1.9-1.3*u))
		}
		t := union(parts...)
		c.fillGrow(t, ow, edge)
		c.fill(t, func(x, y float64) col {
			// Banded, slightly glowing tips.
			b := 0.5 + 0.5*math.Sin((x-cx)*1.6-ph*2)
			return mix(rgb(0.45, 0.12, 0.22), rgb(0.85, 0.35, 0.45), b*0.6)
		})
	}

	// Crab legs, two per side, jointed and swinging.
	legCol := rgb(0.5, 0.17, 0.3)
	for side := -1.0; side <= 1; side += 2 {
		for k := 0; k < 2; k++ {
			dir := -1.0 + 2*float64(k) // front leg leans forward, back leg back
			hipX := cx - 0.5 + float64(k)*5
			hipY := cy + side*5
			swing := math.Sin(ph + float64(k)*math.Pi + side*0.8)
			kneeX := hipX + dir*2.8 + swing*1.3
			kneeY := hipY + side*(6.2+0.5*swing)
			footX := kneeX + dir*4.2 + swing*0.6
			footY := kneeY + side*(1.6-0.6*swing)
			seg := union(capsule(hipX, hipY, kneeX, kneeY, 1.6, 1.15), capsule(kneeX, kneeY, footX, footY, 1.15, 0.35))
			c.fillGrow(seg, ow, edge)
			c.fill(seg, chitin(legCol))
			c.fill(circle(kneeX, kneeY, 0.65), solid(rgb(0.85, 0.5, 0.6)))
		}
	}

	// Pincers reaching towards the player.
	open := 0.45 + 0.3*math.Sin(ph*2)
	for side := -1.0; side <= 1; side += 2 {
		bx, by := cx-6, cy+side*4
		ex, ey := bx-4.5, by+side*2.2
		arm := capsule(bx, by, ex, ey, 1.7, 1.6)
		// Upper and lower jaw, opening and closing.
		j1x, j1y := ex-4.6*math.Cos(open*0.6), ey-side*4.6*math.Sin(open*0.6)
		j2x, j2y := ex-3.8*math.Cos(open), ey+side*3.8*math.Sin(open)
		hook1 := capsule(j1x, j1y, j1x-0.6, j1y+side*1.6, 0.5, 0.25)
		hook2 := capsule(j2x, j2y, j2x-0.6, j2y-side*1.3, 0.45, 0.2)
		cl := union(arm, circle(ex, ey, 2.1), capsule(ex, ey, j1x, j1y, 1.5, 0.5), capsule(ex, ey, j2x, j2y, 1.2, 0.45), hook1, hook2)
		c.fillGrow(cl, ow, edge)
		c.fill(cl, chitin(rgb(0.95, 0.55, 0.32)))
	}

	// Rotating spines around the shell (6 spines, 60° per loop).
	rot := ph / 6
	for k := 0; k < 6; k++ {
		a := rot + float64(k)*math.Pi/3
		r0 := 6.5 * pulse
		sx, sy := cx+1+math.Cos(a)*r0, cy+math.Sin(a)*r0*0.9
		tx, ty := cx+1+math.Cos(a)*(r0+5.8), cy+math.Sin(a)*(r0+5.8)*0.9
		sp := capsule(sx, sy, tx, ty, 1.5, 0.35)
		c.fillGrow(sp, ow, edge)
		c.fill(sp, func(x, y float64) col {
			u := clamp01(math.Hypot(x-sx, y-sy) / 5)
			return mix(rgb(0.7, 0.45, 0.35), rgb(1, 0.92, 0.7), u)
		})
	}

	// Carapace: a pulsing, ribbed shell.
	rx, ry := 8.6*pulse, 7.8*(2-pulse)
	shell := ellipse(cx+1, cy, rx, ry)
	c.fillGrow(shell, ow, edge)
	c.fill(shell, func(x, y float64) col {
		dx, dy := (x-cx-1)/rx, (y-cy)/ry
		// Fake sphere lighting from the top left.
		z := math.Sqrt(clamp01(1 - dx*dx - dy*dy))
		l := clamp01(-dx*0.45 - dy*0.6 + z*0.65)
		base := mix(rgb(0.3, 0.07, 0.12), rgb(0.85, 0.38, 0.3), l)
		// Ribs.
		rib := 0.5 + 0.5*math.Cos(math.Atan2(dy, dx)*9)
		base = base.scale(1 - 0.22*rib*(1-z*0.4))
		if l > 0.93 {
			base = mix(base, rgb(1, 0.85, 0.7), 0.7)
		}
		return base
	})
	// Pulsing glands.
	glow := 0.5 + 0.5*math.Sin(ph)
	for k := 0; k < 3; k++ {
		a := -0.9 + float64(k)*0.9
		gx, gy := cx+1+math.Cos(a)*rx*0.68, cy+math.Sin(a)*ry*0.68
		c.fill(circle(gx, gy, 0.9+0.35*glow), solid(mix(rgb(0.55, 0.9, 0.2), rgb(0.95, 1, 0.5), glow)))
	}

	// The eye.
	ex, ey := cx-2.2, cy
	socket := circle(ex, ey, 5.0)
	c.fillGrow(socket, ow+0.2, edge)
	c.fill(socket, func(x, y float64) col {
		d := math.Hypot(x-ex+0.8, y-ey+0.8) / 5.5
		return mix(rgb(1, 0.97, 0.8), rgb(0.75, 0.6, 0.45), clamp01(d))
	})
	ir := 3.0 + 0.35*math.Sin(ph*2)
	ix, iy := ex-1.1, ey+0.4*math.Sin(ph)
	iris := circle(ix, iy, ir)
	c.fill(iris, func(x, y float64) col {
		d := math.Hypot(x-ix, y-iy) / ir
		return mix(rgb(0.85, 1, 0.35), rgb(0.1, 0.55, 0.1), d)
	})
	pupilW := 0.7 + 0.3*math.Sin(ph*2)
	c.fill(ellipse(ix-0.2, iy, pupilW, ir*0.85), solid(rgb(0.04, 0.06, 0.02)))
	c.fill(circle(ex-0.3, ey-2.4, 0.9), solid(rgb(1, 1, 1)))
	// Eyelid shadow arc.
	c.fill(intersect(subtract(circle(ex, ey, 5.0), circle(ex, ey+1.1, 4.9)), halfPlane(0, 1, ey-1)),
		solid(rgb(0.45, 0.12, 0.16).withA(0.8)))
}

// ---------------------------------------------------------------------------
// Explosion

var fireRamp = []stop{
	{0.00, col{0.22, 0.16, 0.16, 0.0}},
	{0.12, col{0.28, 0.2, 0.19, 0.75}},
	{0.30, col{0.75, 0.14, 0.05, 1}},
	{0.50, col{1.00, 0.45, 0.08, 1}},
	{0.70, col{1.00, 0.80, 0.30, 1}},
	{0.88, col{1.00, 0.98, 0.75, 1}},
	{1.00, col{1.00, 1.00, 1.00, 1}},
}

func drawExplosion(c *canvas, frame int) {
	t := float64(frame) / 7
	const cx, cy = 24.0, 24.0
	ease := 1 - math.Pow(1-t, 2.2)
	R := 4.5 + 15*ease
	const seed = 0xB00B5

	r := rng{s: seed}
	// Sub-blobs, fixed across frames so the fireball evolves coherently.
	type blob struct{ dx, dy, rr float64 }
	var blobs []blob
	for i := 0; i < 6; i++ {
		a := r.float() * 2 * math.Pi
		d := 0.35 + 0.3*r.float()
		blobs = append(blobs, blob{math.Cos(a) * d, math.Sin(a) * d, 0.45 + 0.25*r.float()})
	}
	fire := func(x, y float64) float64 {
		d := math.Hypot(x-cx, y-cy) - R*0.78
		for _, b := range blobs {
			d = math.Min(d, math.Hypot(x-cx-b.dx*R, y-cy-b.dy*R)-b.rr*R)
		}
		n := fbm(x*0.18+float64(frame)*0.37, y*0.18, seed+11)
		return d + (n-0.5)*R*0.5
	}

	// Outer glow.
	if frame < 6 {
		gi := 0.75 * (1 - t*1.2)
		c.glow(func(x, y float64) col {
			d := math.Hypot(x-cx, y-cy) / (R * 1.25)
			return rgb(1, 0.5, 0.15).withA(gi * math.Exp(-d*d*2.2))
		})
	}

	// Shockwave ring.
	if frame >= 1 && frame <= 3 {
		rr := R*1.25 + 2
		a := 0.9 - float64(frame-1)*0.3
		w := 0.3 + 0.25*float64(frame)
		c.glow(func(x, y float64) col {
			d := (math.Hypot(x-cx, y-cy) - rr) / w
			return rgb(1, 0.78, 0.42).withA(a * math.Exp(-d*d))
		})
	}

	// Fireball body with erosion into smoke late in the animation.
	erode := math.Max(0, t-0.42) * 0.95
	c.each(func(p *pm, x, y float64) {
		d := fire(x, y)
		if d > 0 {
			return
		}
		n := fbm(x*0.23, y*0.23+float64(frame)*0.5, seed+29)
		if n < erode {
			return
		}
		h := clamp01(-d / (R * 0.75))
		heat := math.Sqrt(h)*(1.25-1.15*t) + (n-0.5)*0.6 + 0.12*(1-t)
		k := ramp(fireRamp, clamp01(heat))
		if heat < 0.3 {
			// Cooled: grey-brown smoke.
			k = mix(col{0.38, 0.3, 0.29, 0.85}, k, clamp01(heat/0.3))
		}
		a := k.A * clamp01(1.55-t*1.0) * smoothstep(erode, erode+0.1, n)
		if frame == 0 {
			a = 1
		}
		p.over(k.withA(a))
	})

	// Flash star in the first frames.
	if frame <= 1 {
		s := 1.0 - float64(frame)*0.5
		c.glow(func(x, y float64) col {
			dx, dy := math.Abs(x-cx), math.Abs(y-cy)
			spike := math.Exp(-dy*1.6)*math.Exp(-dx/5.5) + math.Exp(-dx*1.6)*math.Exp(-dy/5.5)
			core := math.Exp(-(dx*dx + dy*dy) / 14)
			return rgb(1, 0.97, 0.85).withA(s * (spike*0.9 + core))
		})
	}

	// Debris sparks flying outward.
	if frame >= 1 {
		r := rng{s: seed + 99}
		for i := 0; i < 12; i++ {
			a := (float64(i) + 0.7*r.float()) / 12 * 2 * math.Pi
			sp := 0.45 + 0.55*r.float()
			sz := 0.9 + 0.5*r.float()
			dist := 5 + 25*sp*ease
			if dist > 22.5 {
				continue
			}
			dx, dy := math.Cos(a), math.Sin(a)
			px, py := cx+dx*dist, cy+dy*dist
			tl := 1 + 3.5*(1-t)*sp
			fade := clamp01(1.25 - t*1.15)
			if fade <= 0 {
				continue
			}
			spark := capsule(px-dx*tl, py-dy*tl, px, py, sz*0.3, sz*(1-0.35*t))
			k := ramp(fireRamp, clamp01(1-t*0.6-0.15*(1-sp)))
			c.fillGrow(spark, 0.5, rgb(0.6, 0.15, 0.05).withA(fade*0.6))
			c.fill(spark, solid(k.withA(fade)))
		}
	}
}

// ---------------------------------------------------------------------------
// Small sprites

func drawMissile(c *canvas, frame int) {
	f := float64(frame)
	c.glow(func(x, y float64) col {
		dy := (y - 2) / (1.3 + 0.2*f)
		u := clamp01((x - 0.5) / 15)
		i := math.Exp(-dy*dy*2) * smoothstep(0, 0.5+0.1*f, u) * smoothstep(16, 14.6, x)
		return mix(rgb(1, 0.5, 0.1), rgb(1, 0.9, 0.5), u).withA(i * 0.8)
	})
	bolt := capsule(5+f*0.6, 2, 14.4, 2, 0.45, 1.2)
	c.fill(bolt, func(x, y float64) col {
		u := clamp01((x - 5) / 9.5)
		return mix(rgb(1, 0.85, 0.4), rgb(1, 1, 0.97), u)
	})
}

func drawEnemyMissile(c *canvas, frame int) {
	f := float64(frame)
	c.glow(func(x, y float64) col {
		d := math.Hypot(x-4, y-4) / (2.6 + 0.5*f)
		return rgb(1, 0.3, 0.05).withA(math.Exp(-d*d*1.6) * 1.1)
	})
	core := circle(4, 4, 2.1-0.35*f)
	c.fill(core, func(x, y float64) col {
		d := math.Hypot(x-3.6, y-3.6) / 2.2
		return mix(rgb(1, 1, 0.85), rgb(1, 0.6, 0.15), clamp01(d))
	})
}

func drawMuzzle(c *canvas, frame int) {
	s := []float64{1, 0.75, 0.5}[frame]
	const cx, cy = 4.5, 6.0
	// Rays: forward, two diagonals and a short backward kick.
	type ray struct{ ang, length, width float64 }
	rays := []ray{{0, 7, 1.5}, {-0.6, 5, 1.1}, {0.6, 5, 1.1}, {math.Pi, 3, 1}, {-1.7, 3, 0.8}, {1.7, 3, 0.8}}
	var shapes []sdf
	for _, r := range rays {
		l := r.length * s
		shapes = append(shapes, capsule(cx, cy, cx+math.Cos(r.ang)*l, cy+math.Sin(r.ang)*l, r.width*s, 0.4))
	}
	flash := union(shapes...)
	c.glow(func(x, y float64) col {
		d := math.Hypot(x-cx, y-cy) / (3.2 * s)
		return rgb(1, 0.6, 0.2).withA(0.6 * math.Exp(-d*d))
	})
	c.fill(flash, func(x, y float64) col {
		d := math.Hypot(x-cx, y-cy) / (6 * s)
		return mix(rgb(1, 1, 0.92), rgb(1, 0.8, 0.35), clamp01(d))
	})
	c.fill(circle(cx, cy, 1.5*s), solid(rgb(1, 1, 1)))
}

func drawStar(dst *image.NRGBA, r image.Rectangle, frame int) {
	set := func(x, y int, rr, g, b, a float64) {
		o := dst.PixOffset(r.Min.X+x, r.Min.Y+y)
		dst.Pix[o], dst.Pix[o+1], dst.Pix[o+2], dst.Pix[o+3] = to8(rr), to8(g), to8(b), to8(a)
	}
	switch frame {
	case 0:
		set(0, 0, 0.85, 0.9, 1, 1)
	case 1:
		for y := 0; y < 2; y++ {
			for x := 0; x < 2; x++ {
				set(x, y, 0.82, 0.88, 1, 0.9)
			}
		}
	default:
		for y := 0; y < 3; y++ {
			for x := 0; x < 3; x++ {
				a := 0.18
				if x == 1 || y == 1 {
					a = 0.6
				}
				set(x, y, 0.75, 0.85, 1, a)
			}
		}
		set(1, 1, 1, 1, 1, 1)
	}
}

func drawPixel(dst *image.NRGBA, r image.Rectangle, _ int) {
	// White 3x3 block: the 1x1 rectangle in the middle never samples
	// transparent neighbours, even with linear filtering.
	for y := r.Min.Y - 1; y <= r.Min.Y+1; y++ {
		for x := r.Min.X - 1; x <= r.Min.X+1; x++ {
			o := dst.PixOffset(x, y)
			dst.Pix[o], dst.Pix[o+1], dst.Pix[o+2], dst.Pix[o+3] = 255, 255, 255, 255
		}
	}
}
