package assets

import "math"

// The sprites of stage 2, the warship (the kinds 18 to 21 of vocab): the
// hull's hatch and crawler, the warship boss's bridge and its armour
// plates, and the shutter over its core while they stand. Steel in the
// style of the armoured foe, lit from the top left, with glowing slits.

// Sprite sizes of stage 2.
const (
	hatchW, hatchH     = 44, 28
	crawlerW, crawlerH = 40, 26
	plateW, plateH     = 32, 64
	warshipW, warshipH = 300, 336
	shutterSize        = 44
)

// WarshipOriginX is how far from the Warship sprite's left edge the
// bridge's centre (its entity's position) is; its core sits on the
// sprite's front at the height of its centre.
const WarshipOriginX = 164

func warshipGroups() []spriteGroup {
	return []spriteGroup{
		{name: "HatchFrames", doc: "HatchFrames are a floor hatch (44x28) by its frame: 0 shut, 1 opening (its seam glowing), 2 open (its cannon out); flip it vertically for the ceiling.",
			w: hatchW, h: hatchH, n: 3, draw: canvasDraw(drawHatch)},
		{name: "CrawlerFrames", doc: "CrawlerFrames are the 4 looping frames (40x26) of the crawler, a tracked gun-crab on the floor facing left; flip it vertically for the ceiling.",
			w: crawlerW, h: crawlerH, n: 4, draw: canvasDraw(drawCrawler)},
		{name: "PlateFrames", doc: "PlateFrames are the warship's armour plate (32x64): 0 whole, 1 cracked.",
			w: plateW, h: plateH, n: 2, draw: canvasDraw(drawPlate)},
		{name: "CoreShutter", doc: "CoreShutter is the 44x44 iris of steel blades that closes over the warship's core while its plates stand.",
			w: shutterSize, h: shutterSize, n: 1, scalar: true, draw: canvasDraw(func(c *canvas, _ int) { drawShutter(c) })},
		{name: "Warship", doc: "Warship is the 300x336 bridge of the warship boss, steel decks facing left; its centre is WarshipOriginX from its left edge, its core's seat on its front.",
			w: warshipW, h: warshipH, n: 1, scalar: true, draw: canvasDraw(func(c *canvas, _ int) { drawWarship(c) })},
	}
}

// steel is a vertical steel gradient from y0 (lit) to y1, cool blue-grey.
func steel(y0, y1 float64) shader {
	return steelShade(y0, y1, rgb(0.66, 0.7, 0.78), rgb(0.17, 0.19, 0.25), 0.12, rgb(0.95, 0.97, 1), 0.3)
}

// hullSteel is the warship's darker, warmer steel.
func hullSteel(y0, y1 float64) shader {
	return steelShade(y0, y1, rgb(0.56, 0.55, 0.6), rgb(0.14, 0.13, 0.17), 0.06, rgb(1, 0.97, 0.9), 0.25)
}

// steelShade is a vertical gradient from lit at y0 to dark at y1, with
// glint mixed in by amount along its top rim (the first rim of it).
func steelShade(y0, y1 float64, lit, dark col, rim float64, glint col, amount float64) shader {
	return func(x, y float64) col {
		t := clamp01((y - y0) / (y1 - y0))
		k := mix(lit, dark, t)
		if t < rim {
			k = mix(k, glint, amount)
		}
		return k
	}
}

func drawHatch(c *canvas, frame int) {
	const cx = 22.0
	open := [3]float64{0, 3, 8}[frame]
	// The frame in the hull.
	part(c, poly(vec{1, 27}, vec{5, 17}, vec{39, 17}, vec{43, 27}), 0.6, steel(17, 27))
	for k := 0; k < 4; k++ {
		c.fill(circle(8+float64(k)*9.3, 23.5, 0.9), solid(rgb(0.85, 0.88, 0.95)))
	}
	if frame == 2 {
		// The cannon, raised out of the open hatch.
		barrel := box(cx-3.2, 1, cx+3.2, 14, 1.2)
		part(c, barrel, 0.6, func(x, y float64) col {
			return mix(rgb(0.75, 0.78, 0.85), rgb(0.25, 0.27, 0.33), clamp01(math.Abs(x-cx)/3.5))
		})
		radial(c, cx, 2, 5, rgb(1, 0.45, 0.15), 0.9)
		c.fill(circle(cx, 2, 1.8), solid(rgb(1, 0.85, 0.5)))
	}
	// The two doors, sliding apart.
	for _, s := range []float64{-1, 1} {
		x0 := cx + s*open
		x1 := cx + s*(open+15)
		lo, hi := math.Min(x0, x1), math.Max(x0, x1)
		door := poly(vec{lo, 18}, vec{lo + 1, 10}, vec{hi - 1, 10}, vec{hi, 18})
		if s > 0 {
			door = poly(vec{lo, 18}, vec{lo + 1, 10}, vec{hi - 1, 10}, vec{hi, 18})
		}
		part(c, door, 0.6, steel(10, 18))
		c.fill(box(lo+2, 13, hi-2, 14.2, 0.4), solid(rgb(0.1, 0.1, 0.14)))
	}
	if frame == 1 {
		// The seam glows: it is about to open.
		radial(c, cx, 13, 6, rgb(1, 0.35, 0.15), 0.9)
		c.fill(box(cx-open+0.5, 10, cx+open-0.5, 18, 0.3), solid(rgb(1, 0.55, 0.25)))
	}
}

func drawCrawler(c *canvas, frame int) {
	ph := float64(frame) / 4
	// Treads: a rounded belt with moving cleats.
	belt := box(4, 17, 36, 25, 4)
	part(c, belt, 0.6, solid(rgb(0.16, 0.16, 0.2)))
	for k := 0; k < 8; k++ {
		x := 5 + math.Mod(float64(k)*4+ph*4, 32)
		c.fill(box(x, 23.2, x+1.6, 24.6, 0.3), solid(rgb(0.55, 0.56, 0.62)))
	}
	for k := 0; k < 4; k++ {
		x := 9 + float64(k)*7.3
		c.fill(circle(x, 21, 2.4), sphere(x, 21, 2.4, rgb(0.25, 0.25, 0.3), rgb(0.8, 0.82, 0.9)))
	}
	// Body: a low wedge facing left.
	body := poly(vec{3, 17}, vec{9, 8}, vec{33, 7}, vec{38, 12}, vec{37, 18})
	part(c, body, 0.6, func(x, y float64) col {
		return mix(rgb(0.62, 0.5, 0.32), rgb(0.22, 0.16, 0.12), clamp01((y-7)/11))
	})
	// Eye slit and gun.
	c.fill(box(8, 11, 17, 13, 0.6), solid(rgb(1, 0.4+0.2*math.Sin(ph*2*math.Pi), 0.2)))
	radial(c, 12, 12, 5, rgb(1, 0.4, 0.2), 0.5)
	gun := capsule(22, 7, 15, 1.8, 1.7, 1.3)
	part(c, gun, 0.5, solid(rgb(0.5, 0.5, 0.56)))
	c.fill(circle(25, 8, 4), sphere(25, 8, 4, rgb(0.3, 0.25, 0.2), rgb(0.85, 0.75, 0.55)))
}

func drawPlate(c *canvas, frame int) {
	slab := poly(vec{4, 3}, vec{28, 1}, vec{31, 6}, vec{31, 58}, vec{28, 63}, vec{4, 61}, vec{1, 56}, vec{1, 8})
	part(c, slab, 0.8, func(x, y float64) col {
		k := steel(1, 63)(x, y)
		// Bevelled: lit on the left edge, dark on the right.
		return k.scale(1.15 - 0.35*clamp01((x-2)/28))
	})
	// Bands and rivets.
	for _, y := range []float64{14, 32, 50} {
		c.fill(box(4, y-1.2, 28, y+1.2, 0.5), solid(rgb(0.12, 0.13, 0.18)))
		for _, x := range []float64{7, 25} {
			c.fill(circle(x, y-5, 1.1), solid(rgb(0.9, 0.92, 1)))
		}
	}
	// A red warning stripe.
	c.fill(box(3, 38, 6, 46, 0.4), solid(rgb(0.9, 0.25, 0.2)))
	if frame == 1 {
		// Cracks, glowing from inside.
		crack := union(capsule(10, 6, 18, 22, 0.9, 0.6), capsule(18, 22, 13, 36, 0.8, 0.5),
			capsule(18, 22, 27, 30, 0.7, 0.4), capsule(13, 36, 20, 54, 0.7, 0.4))
		radial(c, 17, 26, 12, rgb(1, 0.45, 0.15), 0.55)
		c.fill(crack, solid(rgb(1, 0.7, 0.3)))
	}
}

func drawShutter(c *canvas) {
	const cx, cy, r = 22.0, 22.0, 19.0
	c.fillGrow(circle(cx, cy, r), 1.2, outlineCol)
	for k := 0; k < 6; k++ {
		a0 := float64(k) * math.Pi / 3
		a1 := a0 + math.Pi/3
		blade := poly(vec{cx, cy}, vec{cx + r*math.Cos(a0), cy + r*math.Sin(a0)},
			vec{cx + r*math.Cos((a0+a1)/2)*1.02, cy + r*math.Sin((a0+a1)/2)*1.02}, vec{cx + r*math.Cos(a1), cy + r*math.Sin(a1)})
		shade := 0.75 + 0.25*math.Cos(a0+0.5-math.Pi*1.25)
		c.fill(intersect(blade, circle(cx, cy, r)), func(x, y float64) col {
			return steel(cy-r, cy+r)(x, y).scale(shade)
		})
		ex, ey := cx+r*math.Cos(a0), cy+r*math.Sin(a0)
		c.fill(capsule(cx, cy, ex, ey, 0.5, 0.7), solid(rgb(0.08, 0.08, 0.12)))
	}
	c.fill(circle(cx, cy, 3), solid(rgb(0.9, 0.2, 0.15)))
}

func drawWarship(c *canvas) {
	// The model is drawn around the bridge's centre at (136, 168), shifted
	// so that the centre falls on WarshipOriginX: the core's seat, at the
	// front (x 12, as sim's coreDX puts the core), has the room.
	c.ox = WarshipOriginX - 136
	defer func() { c.ox = 0 }()
	const bx, by = 136.0, 168.0
	const front = 12.0
	// Engines behind (right): exhaust glows.
	for _, y := range []float64{70, 168, 266} {
		c.within(240, y-40, 272, y+40, func() {
			c.glow(func(x, yy float64) col {
				dx, dy := (x-262)/8, (yy-y)/18
				return rgb(0.4, 0.7, 1).withA(0.9 * math.Exp(-(dx*dx + dy*dy)))
			})
		})
		bpart(c, 222, y-26, 256, y+26, box(222, y-24, 254, y+24, 5), 1, hullSteel(y-24, y+24))
		c.within(244, y-20, 258, y+20, func() {
			c.fill(box(246, y-18, 254, y+18, 2), solid(rgb(0.55, 0.8, 1)))
		})
	}
	// The upper and lower decks, stepped back from the front.
	decks := []struct{ x0, y0, x1, y1 float64 }{
		{60, 8, 232, 64}, {40, 272, 232, 328}, {28, 58, 236, 122}, {28, 214, 236, 278}, {front, 116, 240, 220},
	}
	for _, d := range decks {
		bpart(c, d.x0, d.y0, d.x1, d.y1, poly(vec{d.x0 + 10, d.y0}, vec{d.x1, d.y0}, vec{d.x1, d.y1}, vec{d.x0 + 10, d.y1}, vec{d.x0, (d.y0 + d.y1) / 2}), 1.2, hullSteel(d.y0, d.y1))
		// Panel lines.
		c.within(d.x0, d.y0, d.x1, d.y1, func() {
			for x := d.x0 + 30; x < d.x1-6; x += 26 {
				c.fill(box(x, d.y0+3, x+1.2, d.y1-3, 0.3), solid(rgb(0.08, 0.08, 0.11).withA(0.8)))
			}
		})
	}
	// Rows of windows, glowing.
	for _, row := range []struct{ x0, x1, y float64 }{{76, 220, 26}, {48, 224, 84}, {48, 224, 100}, {48, 224, 236}, {48, 224, 252}, {60, 220, 306}} {
		c.within(row.x0-4, row.y-6, row.x1+4, row.y+6, func() {
			for x := row.x0; x < row.x1; x += 11 {
				c.fill(box(x, row.y-2, x+6, row.y+2, 0.6), solid(rgb(1, 0.82, 0.45)))
			}
			c.glow(func(x, y float64) col {
				d := (y - row.y) / 4
				return rgb(1, 0.6, 0.25).withA(0.25 * math.Exp(-d*d))
			})
		})
	}
	// Gun turrets on the decks' edges.
	for _, g := range []struct{ x, y, s float64 }{{92, 8, -1}, {170, 8, -1}, {84, 328, 1}, {162, 328, 1}} {
		dome := circle(g.x, g.y, 11)
		bpart(c, g.x-26, g.y-14, g.x+14, g.y+14, union(dome, capsule(g.x, g.y, g.x-24, g.y-g.s*6, 3, 2.4)), 0.9, sphere(g.x, g.y, 11, rgb(0.2, 0.2, 0.26), rgb(0.8, 0.8, 0.9)))
	}
	// Antenna masts over the top.
	for _, m := range []float64{120, 146, 200} {
		c.within(m-3, 0, m+3, 12, func() {
			c.fill(box(m-1, 0, m+1, 10, 0.3), solid(rgb(0.5, 0.52, 0.6)))
		})
	}
	// The prow: a heavy armoured collar around the core's seat.
	collar := union(ellipse(front+24, by, 34, 54), box(front+18, by-40, front+70, by+40, 8))
	bpart(c, front-12, by-58, front+72, by+58, collar, 1.4, func(x, y float64) col {
		k := hullSteel(by-54, by+54)(x, y)
		ring := 0.5 + 0.5*math.Cos((y-by)/9*2*math.Pi)
		return k.scale(1 - 0.25*ring*ring)
	})
	c.within(front-30, by-30, front+30, by+30, func() {
		c.fillGrow(circle(front, by, 26), 1.4, bossEdge)
		c.fill(circle(front, by, 26), sphere(front, by, 26, rgb(0.12, 0.12, 0.16), rgb(0.6, 0.62, 0.7)))
		for k := 0; k < 12; k++ {
			a := float64(k) * math.Pi / 6
			c.fill(capsule(front+math.Cos(a)*19.5, by+math.Sin(a)*19.5, front+math.Cos(a)*25, by+math.Sin(a)*25, 1.1, 1.4), solid(rgb(0.06, 0.06, 0.09)))
		}
		c.fill(circle(front, by, 19), func(x, y float64) col {
			return mix(rgb(0.4, 0.12, 0.05), rgb(0.04, 0.01, 0.02), math.Hypot(x-front, y-by)/19)
		})
	})
	// Warning lights down the prow.
	for k := -2; k <= 2; k++ {
		if k != 0 {
			dot(c, front+46, by+float64(k)*30, 2.4, rgb(1, 0.3, 0.2))
		}
	}
	_ = bx
}
