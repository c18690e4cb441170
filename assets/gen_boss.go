package assets

import "math"

// The two bosses: big sprites, so every part is drawn within its own
// bounds (canvas.within) to keep the generator fast.

var (
	fleshDark = rgb(0.16, 0.08, 0.18)
	fleshLit  = rgb(0.72, 0.52, 0.7)
	boneDark  = rgb(0.35, 0.3, 0.26)
	boneLit   = rgb(0.95, 0.9, 0.78)
	bioGlow   = rgb(0.55, 1, 0.4)
	bossEdge  = rgb(0.06, 0.02, 0.07)
)

// ribbed shades a body lit like a sphere at (cx, cy) with radius r, with
// ribs every period pixels along the angle a (radians) direction.
func ribbed(cx, cy, r float64, dark, lit col, period, a float64) shader {
	sp := sphere(cx, cy, r, dark, lit)
	ca, sa := math.Cos(a), math.Sin(a)
	return func(x, y float64) col {
		k := sp(x, y)
		u := (x*ca + y*sa) / period
		rib := 0.5 + 0.5*math.Cos(u*2*math.Pi)
		return k.scale(1 - 0.28*rib*rib)
	}
}

// bpart draws an outlined part of a boss inside the given bounds.
func bpart(c *canvas, x0, y0, x1, y1 float64, s sdf, ow float64, sh shader) {
	c.within(x0-ow-1, y0-ow-1, x1+ow+1, y1+ow+1, func() {
		c.fillGrow(s, ow, bossEdge)
		c.fill(s, sh)
	})
}

// dot draws a small glowing bioluminescent spot.
func dot(c *canvas, x, y, r float64, k col) {
	c.within(x-r*3, y-r*3, x+r*3, y+r*3, func() {
		radial(c, x, y, r*2.4, k, 0.7)
		c.fill(circle(x, y, r), func(px, py float64) col {
			return mix(rgb(1, 1, 0.9), k, math.Hypot(px-x, py-y)/r)
		})
	})
}

// claw draws a jointed arm from (ax, ay) through (bx, by) to a pincer at
// (cx, cy), thickness t.
func claw(c *canvas, ax, ay, bx, by, cx, cy, t float64, open float64) {
	x0 := math.Min(ax, math.Min(bx, cx)) - 3*t
	y0 := math.Min(ay, math.Min(by, cy)) - 3*t
	x1 := math.Max(ax, math.Max(bx, cx)) + 3*t
	y1 := math.Max(ay, math.Max(by, cy)) + 3*t
	arm := union(capsule(ax, ay, bx, by, t*1.2, t), capsule(bx, by, cx, cy, t, t*0.8), circle(bx, by, t*1.15))
	bpart(c, x0, y0, x1, y1, arm, 0.9, ribbed((ax+cx)/2, (ay+cy)/2, math.Hypot(ax-cx, ay-cy)/2+t, fleshDark, fleshLit, t*0.9, math.Atan2(cy-ay, cx-ax)))
	// Pincer: two curved talons from the wrist.
	dir := math.Atan2(cy-by, cx-bx)
	for _, s := range []float64{-1, 1} {
		a1 := dir + s*open
		mx, my := cx+math.Cos(a1)*t*2.2, cy+math.Sin(a1)*t*2.2
		tx, ty := mx+math.Cos(dir-s*0.5)*t*1.8, my+math.Sin(dir-s*0.5)*t*1.8
		talon := union(capsule(cx, cy, mx, my, t*0.75, t*0.5), capsule(mx, my, tx, ty, t*0.5, 0.3))
		bpart(c, x0-2*t, y0-2*t, x1+2*t, y1+2*t, talon, 0.8, vgrad(boneLit, boneDark, cy-3*t, cy+3*t))
	}
}

// eye draws a big slit-pupil eye looking left.
func eye(c *canvas, ex, ey, r float64, iris col) {
	c.within(ex-r-3, ey-r-3, ex+r+3, ey+r+3, func() {
		s := circle(ex, ey, r)
		c.fillGrow(s, 1.2, bossEdge)
		c.fill(s, func(x, y float64) col {
			return mix(rgb(1, 0.96, 0.85), rgb(0.6, 0.45, 0.4), clamp01(math.Hypot(x-ex+r*0.2, y-ey+r*0.2)/(r*1.1)))
		})
		ix, iy, ir := ex-r*0.25, ey, r*0.66
		c.fill(circle(ix, iy, ir), func(x, y float64) col {
			return mix(mix(iris, rgb(1, 1, 0.8), 0.4), iris.scale(0.4), math.Hypot(x-ix, y-iy)/ir)
		})
		c.fill(ellipse(ix-r*0.05, iy, r*0.13, ir*0.85), solid(rgb(0.03, 0.02, 0.02)))
		c.fill(circle(ex-r*0.3, ey-r*0.45, r*0.16), solid(rgb(1, 1, 1)))
		// Upper lid.
		c.fill(intersect(subtract(circle(ex, ey, r), circle(ex, ey+r*0.25, r*0.98)), halfPlane(0, 1, ey)),
			solid(fleshDark.withA(0.85)))
	})
}

func drawMidBoss(c *canvas) {
	const cx, cy = 92.0, 86.0
	// Engines at the back, glowing blue.
	for k := -1; k <= 1; k++ {
		ey := cy + float64(k)*34
		c.within(140, ey-18, 172, ey+18, func() {
			c.glow(func(x, y float64) col {
				dx, dy := (x-163)/7, (y-ey)/6
				return rgb(0.35, 0.65, 1).withA(math.Exp(-(dx*dx + dy*dy)) * 1.3)
			})
		})
		bpart(c, 128, ey-11, 160, ey+11, box(128, ey-10, 158, ey+10, 3), 1, vgrad(rgb(0.75, 0.75, 0.82), rgb(0.2, 0.2, 0.27), ey-10, ey+10))
		for i := 0; i < 3; i++ {
			x := 134 + float64(i)*7
			c.within(x, ey-10, x+3, ey+10, func() { c.fill(box(x, ey-9, x+2.5, ey+9, 0.5), solid(rgb(0.1, 0.1, 0.14))) })
		}
	}
	// Spines along the back, above and below.
	for k := 0; k < 5; k++ {
		x := 70 + float64(k)*16
		for _, s := range []float64{-1, 1} {
			by := cy + s*(56-math.Abs(float64(k)-2)*5)
			ty := by + s*(24-math.Abs(float64(k)-2)*2)
			sp := capsule(x, by, x+14, ty, 5, 0.8)
			bpart(c, x-6, math.Min(by, ty)-6, x+20, math.Max(by, ty)+6, sp, 0.9, vgrad(boneLit, boneDark, math.Min(by, ty), math.Max(by, ty)))
		}
	}
	// Claws reaching forward.
	claw(c, 70, cy-36, 42, cy-62, 22, cy-44, 7, 0.55)
	claw(c, 70, cy+36, 42, cy+62, 22, cy+44, 7, 0.55)
	// Carapace.
	body := ellipse(cx, cy, 60, 60)
	bpart(c, cx-60, cy-60, cx+60, cy+60, body, 1.2, ribbed(cx, cy, 60, fleshDark, fleshLit, 11, 0))
	// Armour bands over it.
	for _, s := range []float64{-1, 1} {
		band := intersect(body, subtract(ellipse(cx+8, cy+s*6, 54, 54), ellipse(cx+8, cy+s*6, 46, 46)))
		c.within(cx-60, cy-62, cx+62, cy+62, func() {
			c.fill(intersect(band, halfPlane(0, -s, -s*cy)), sphere(cx, cy, 60, rgb(0.25, 0.27, 0.35), rgb(0.8, 0.84, 0.95)))
		})
	}
	for k := 0; k < 6; k++ {
		a := -1.1 + float64(k)*0.44
		dot(c, cx+math.Cos(a)*42, cy+math.Sin(a)*42, 2.2, bioGlow)
	}
	// The eye.
	eye(c, 60, cy, 27, rgb(0.9, 0.75, 0.1))
}

func drawBoss(c *canvas) {
	// The model is drawn around its body's centre at (108, 124), shifted
	// so that the centre falls on BossOriginX: the front, where the core
	// juts out, has the room.
	c.ox = BossOriginX - 108
	defer func() { c.ox = 0 }()
	const bx, by = 108.0, 124.0
	sx, sy := bx+BossSocketX, by+BossSocketY // the core's seat
	// Tail, curling down and back.
	var segs []sdf
	for i := 0; i < 9; i++ {
		u := float64(i) / 8
		a := 0.3 + u*2.2
		x := 150 + math.Sin(a)*48
		y := 175 + (1-math.Cos(a))*30
		segs = append(segs, circle(x, y, 15-u*9))
	}
	bpart(c, 130, 150, 210, 245, union(segs...), 1.1, ribbed(175, 200, 40, fleshDark, fleshLit, 6, 0.8))
	// Spines down the back.
	for k := 0; k < 7; k++ {
		y := 34 + float64(k)*24
		x := 178 + math.Sin(float64(k)*0.5)*12
		sp := capsule(x, y, x+26-math.Abs(float64(k)-3)*3, y-10, 5.5, 0.8)
		bpart(c, x-7, y-18, x+32, y+8, sp, 1, vgrad(boneLit, boneDark, y-12, y+6))
	}
	// The hind limb, behind the torso.
	claw(c, 104, 200, 72, 228, 42, 224, 8, 0.5)
	// Torso.
	torso := poly(vec{62, 66}, vec{118, 24}, vec{172, 30}, vec{200, 88}, vec{198, 168}, vec{166, 214}, vec{108, 230}, vec{64, 204}, vec{46, 140})
	bpart(c, 46, 24, 200, 230, torso, 1.4, ribbed(128, 120, 100, fleshDark, fleshLit, 13, math.Pi/2))
	// Tubes along the flank.
	for k := 0; k < 3; k++ {
		x := 150 + float64(k)*13
		tube := capsule(x, 56+float64(k)*6, x-14, 200-float64(k)*10, 3.2, 3.2)
		bpart(c, x-20, 50, x+6, 205, tube, 0.8, func(px, py float64) col {
			b := 0.5 + 0.5*math.Sin(py*0.5)
			return mix(rgb(0.25, 0.35, 0.3), rgb(0.55, 0.8, 0.6), b)
		})
	}
	// Chest plate, its veins glowing.
	chest := ellipse(88, 132, 40, 50)
	bpart(c, 48, 82, 128, 182, chest, 1.2, ribbed(88, 132, 48, rgb(0.25, 0.12, 0.16), rgb(0.85, 0.55, 0.55), 8, 0))
	for k := 0; k < 4; k++ {
		dot(c, 92+float64(k%2)*14, 104+float64(k)*18, 2.2, rgb(1, 0.45, 0.3))
	}
	// The neck of the core's seat, jutting forward from the chest, and
	// its ribbed collar.
	var neckParts []sdf
	for i := 0; i <= 10; i++ {
		u := float64(i) / 10
		x := sx + 10 + u*(74-sx-10)
		y := sy + 7*math.Sin(u*math.Pi)*u
		neckParts = append(neckParts, circle(x, y, 15+9*u+3*math.Sin(u*math.Pi)))
	}
	neck := union(neckParts...)
	bpart(c, sx-10, sy-34, 100, sy+42, neck, 1.2, func(x, y float64) col {
		// A ringed cylinder lit from above.
		t := clamp01((y - (sy - 26)) / 56)
		k := mix(mix(fleshLit, rgb(1, 0.9, 1), 0.15), fleshDark, t)
		ring := 0.5 + 0.5*math.Cos((x-sx)/6.5*2*math.Pi)
		return k.scale(1 - 0.3*ring*ring)
	})
	c.within(sx-32, sy-32, sx+32, sy+32, func() {
		c.fillGrow(circle(sx, sy, 27), 1.4, bossEdge)
		c.fill(circle(sx, sy, 27), sphere(sx, sy, 27, rgb(0.2, 0.12, 0.2), rgb(0.7, 0.55, 0.65)))
		for k := 0; k < 12; k++ {
			a := float64(k) * math.Pi / 6
			c.fill(capsule(sx+math.Cos(a)*20.5, sy+math.Sin(a)*20.5, sx+math.Cos(a)*26, sy+math.Sin(a)*26, 1.1, 1.4), solid(rgb(0.12, 0.06, 0.12)))
		}
		c.fill(circle(sx, sy, 20), func(x, y float64) col {
			return mix(rgb(0.45, 0.08, 0.06), rgb(0.05, 0.01, 0.02), math.Hypot(x-sx, y-sy)/20)
		})
	})
	// Glowing spots down the torso.
	for k := 0; k < 5; k++ {
		dot(c, 140+math.Sin(float64(k))*8, 70+float64(k)*30, 2.6, bioGlow)
	}
	// The fore limb, reaching forward under the core.
	claw(c, 84, 178, 44, 196, 14, 176, 9, 0.6)
	// Horns sweeping back from the head.
	for k := 0; k < 2; k++ {
		y := 26 + float64(k)*16
		horn := capsule(70, y+8, 128, y-14+float64(k)*6, 7-float64(k), 1)
		bpart(c, 62, y-20, 132, y+18, horn, 1, vgrad(boneLit, boneDark, y-14, y+14))
	}
	// Head: a long skull with a jaw, looking left.
	skull := union(ellipse(56, 46, 38, 20), ellipse(84, 40, 20, 16))
	bpart(c, 16, 22, 106, 68, skull, 1.2, ribbed(60, 44, 40, fleshDark, fleshLit, 7, 0.2))
	jaw := poly(vec{22, 58}, vec{84, 56}, vec{90, 66}, vec{60, 84}, vec{30, 72})
	bpart(c, 20, 54, 92, 86, jaw, 1.1, sphere(58, 68, 34, fleshDark, rgb(0.55, 0.4, 0.55)))
	// Teeth.
	for k := 0; k < 6; k++ {
		x := 26 + float64(k)*8
		tooth := poly(vec{x, 58}, vec{x + 4.5, 58}, vec{x + 2.2, 65})
		bpart(c, x-1, 56, x+6, 67, tooth, 0.5, solid(boneLit))
	}
	// Eyes.
	dot(c, 44, 40, 3.6, rgb(1, 0.3, 0.2))
	dot(c, 62, 36, 3, rgb(1, 0.3, 0.2))
	// A crest of glowing vents over the skull.
	for k := 0; k < 4; k++ {
		dot(c, 78+float64(k)*7, 30+float64(k%2)*3, 1.6, bioGlow)
	}
}
