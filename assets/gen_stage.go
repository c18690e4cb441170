package assets

import (
	"image"
	"math"
)

// The sprites of Stage mode (the kinds 5 to 17 of net/wire/stage.go), in
// the style of the Classic ones: outlined shapes, fake sphere lighting and
// additive glows. Each is a little larger than its kind's box
// (sim/kinds.go), except the bosses, which are drawn larger than their
// boxes so that they read as bosses.

// Sprite sizes of Stage mode.
const (
	forceSize     = 34
	bitSize       = 18
	powerUpSize   = 26
	coreSize      = 44
	socketSize    = 60
	bossBulletSz  = 24
	glowSize      = 32
	midBossSize   = 172
	bossW, bossH  = 256, 248
	forceShotW    = 28
	forceShotH    = 10
	powArmorW     = 46
	powArmorH     = 38
	chaserSize    = 32
	turretW       = 36
	turretH       = 32
	armoredW      = 50
	armoredH      = 42
	beamFrames    = 3
	forceFrameCnt = 8
)

// beamSizes are the wave beam's sprite sizes by level (1 to 3): wider and
// taller with the level.
var beamSizes = [3][2]int{{72, 16}, {104, 24}, {136, 34}}

func stageGroups() []spriteGroup {
	return []spriteGroup{
		{name: "Glow", doc: "Glow is a 32x32 white radial glow (a soft disc fading out); draw it additively, tinted, to light things up.",
			w: glowSize, h: glowSize, n: 1, scalar: true, draw: canvasDraw(func(c *canvas, _ int) { drawGlow(c) })},
		{name: "ForceFrames", doc: "ForceFrames are the 8 looping frames (34x34) of the Force: an orange plasma orb in a ring with four turning claws.",
			w: forceSize, h: forceSize, n: forceFrameCnt, draw: faded(drawForce)},
		{name: "ForceAccent", doc: "ForceAccent is a near-white ring (34x34) that lines up with ForceFrames; tint it with the owner's colour and draw it on top.",
			w: forceSize, h: forceSize, n: 1, scalar: true, draw: canvasDraw(func(c *canvas, _ int) { drawForceAccent(c) })},
		{name: "Beam1Frames", doc: "Beam1Frames are the 3 frames (72x16) of a level 1 wave beam, flying to the right.",
			w: beamSizes[0][0], h: beamSizes[0][1], n: beamFrames, draw: faded(drawBeam(1))},
		{name: "Beam2Frames", doc: "Beam2Frames are the 3 frames (104x24) of a level 2 wave beam, flying to the right.",
			w: beamSizes[1][0], h: beamSizes[1][1], n: beamFrames, draw: faded(drawBeam(2))},
		{name: "Beam3Frames", doc: "Beam3Frames are the 3 frames (136x34) of a level 3 wave beam, flying to the right.",
			w: beamSizes[2][0], h: beamSizes[2][1], n: beamFrames, draw: faded(drawBeam(3))},
		{name: "ForceShotFrames", doc: "ForceShotFrames are the Force's laser shots (28x10), flying to the right: 0 red, 1 blue, 2 yellow.",
			w: forceShotW, h: forceShotH, n: 3, draw: faded(drawForceShot)},
		{name: "BitFrames", doc: "BitFrames are the 4 looping frames (18x18) of a bit: a small silver orb with a glowing core.",
			w: bitSize, h: bitSize, n: 4, draw: faded(drawBit)},
		{name: "PowerUpFrames", doc: "PowerUpFrames are the items (26x26) by wire.Item*: 0 red, 1 blue, 2 yellow laser crystals, 3 speed capsule (S), 4 bit capsule (B).",
			w: powerUpSize, h: powerUpSize, n: 5, draw: faded(drawPowerUp)},
		{name: "PowArmorFrames", doc: "PowArmorFrames are the 4 looping frames (46x38) of the POW armour, a hovering cargo pod, facing left.",
			w: powArmorW, h: powArmorH, n: 4, draw: canvasDraw(drawPowArmor)},
		{name: "ChaserFrames", doc: "ChaserFrames are the 4 looping frames (32x32) of the chaser, a spiked green mine with one eye looking left; turn it to its heading.",
			w: chaserSize, h: chaserSize, n: 4, draw: canvasDraw(drawChaser)},
		{name: "TurretFrames", doc: "TurretFrames are the floor turret (36x32) by aim frame k: the barrel points at the angle pi + k*pi/4 on the screen, y down (0 left, 2 up, 4 right, 6 down); flip it vertically for the ceiling, with frame (8-k)%8.",
			w: turretW, h: turretH, n: 8, draw: canvasDraw(drawTurret)},
		{name: "ArmoredFrames", doc: "ArmoredFrames are the 4 looping frames (50x42) of the armoured foe, a plated beetle with a glowing slit, facing left.",
			w: armoredW, h: armoredH, n: 4, draw: canvasDraw(drawArmored)},
		{name: "BossBulletFrames", doc: "BossBulletFrames are the 2 frames (24x24) of the boss's big violet plasma ball.",
			w: bossBulletSz, h: bossBulletSz, n: 2, draw: faded(drawBossBullet)},
		{name: "BossCoreFrames", doc: "BossCoreFrames are the 4 looping frames (44x44) of the end boss's glowing core, its weak point.",
			w: coreSize, h: coreSize, n: 4, draw: faded(drawBossCore)},
		{name: "CoreSocket", doc: "CoreSocket is the 60x60 ribbed socket the boss's core sits in; draw it under the core.",
			w: socketSize, h: socketSize, n: 1, scalar: true, draw: canvasDraw(func(c *canvas, _ int) { drawSocket(c) })},
		{name: "MidBoss", doc: "MidBoss is the 172x172 mid-boss, an armoured eye-pod with claws, facing left.",
			w: midBossSize, h: midBossSize, n: 1, scalar: true, draw: canvasDraw(func(c *canvas, _ int) { drawMidBoss(c) })},
		{name: "Boss", doc: "Boss is the 256x248 end boss's body, a biomechanical giant facing left; its centre is BossOriginX from its left edge, and its core's seat juts out of its front (BossSocketX, BossSocketY).",
			w: bossW, h: bossH, n: 1, scalar: true, draw: canvasDraw(func(c *canvas, _ int) { drawBoss(c) })},
	}
}

// The end boss's sprite: the body's centre is BossOriginX pixels from the
// sprite's left edge (and at its middle height; the sprite reaches
// further forward than back), and the seat of its core is at BossSocketX,
// BossSocketY from that centre: where the simulation puts the core (sim's
// boss.go, its coreDX with the kinds' boxes), sticking out of the front.
const (
	BossOriginX = 148
	BossSocketX = -104
	BossSocketY = 0
)

// ---------------------------------------------------------------------------
// Helpers

// faded is canvasDraw of f followed by a fade of the last 2.5 pixels
// along the sprite's edges, so that the tails of its glows do not show the
// sprite's rectangle when it is drawn additively.
func faded(f func(c *canvas, frame int)) func(*image.NRGBA, image.Rectangle, int) {
	return canvasDraw(func(c *canvas, frame int) {
		f(c, frame)
		const m = 2.5
		w, h := float64(c.w), float64(c.h)
		c.each(func(p *pm, x, y float64) {
			k := smoothstep(0, m, min(x, y, w-x, h-y))
			p.r, p.g, p.b, p.a = p.r*k, p.g*k, p.b*k, p.a*k
		})
	})
}

// sphere returns a shader lighting a disc at (cx, cy) of radius r like a
// sphere lit from the top left, from dark to lit.
func sphere(cx, cy, r float64, dark, lit col) shader {
	return func(x, y float64) col {
		dx, dy := (x-cx)/r, (y-cy)/r
		z := math.Sqrt(clamp01(1 - dx*dx - dy*dy))
		l := clamp01(-dx*0.45 - dy*0.6 + z*0.7)
		k := mix(dark, lit, l)
		if l > 0.94 {
			k = mix(k, rgb(1, 1, 1), 0.6)
		}
		return k
	}
}

// radial adds a round glow of colour k and strength a, of radius r.
func radial(c *canvas, cx, cy, r float64, k col, a float64) {
	c.glow(func(x, y float64) col {
		d := math.Hypot(x-cx, y-cy) / r
		return k.withA(a * math.Exp(-d*d*2))
	})
}

// part fills an outlined shape.
func part(c *canvas, s sdf, ow float64, sh shader) {
	c.fillGrow(s, ow, outlineCol)
	c.fill(s, sh)
}

// vgrad is a vertical gradient from top colour a at y0 to b at y1.
func vgrad(a, b col, y0, y1 float64) shader {
	return func(x, y float64) col { return mix(a, b, clamp01((y-y0)/(y1-y0))) }
}

// glyph draws a 5x7 bitmap letter with its top-left at (x, y), each cell
// s pixels.
func glyph(c *canvas, rows [7]string, x, y, s float64, k col) {
	var cells []sdf
	for j, row := range rows {
		for i, ch := range row {
			if ch == '#' {
				cx, cy := x+float64(i)*s, y+float64(j)*s
				cells = append(cells, box(cx, cy, cx+s, cy+s, 0.2))
			}
		}
	}
	g := union(cells...)
	c.fillGrow(g, 0.5, outlineCol.withA(0.8))
	c.fill(g, solid(k))
}

var (
	glyphS = [7]string{" ### ", "#   #", "#    ", " ### ", "    #", "#   #", " ### "}
	glyphB = [7]string{"#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "}
)

// ---------------------------------------------------------------------------
// Small sprites

func drawGlow(c *canvas) {
	c.glow(func(x, y float64) col {
		d := math.Hypot(x-16, y-16) / 15.5
		if d >= 1 {
			return col{}
		}
		return rgb(1, 1, 1).withA(math.Exp(-d*d*3.2) * (1 - d*d))
	})
}

var plasmaRamp = []stop{
	{0.0, rgb(0.55, 0.12, 0.02)},
	{0.4, rgb(1, 0.45, 0.08)},
	{0.75, rgb(1, 0.8, 0.3)},
	{1.0, rgb(1, 1, 0.9)},
}

func drawForce(c *canvas, frame int) {
	const cx, cy = 17.0, 17.0
	ph := float64(frame) / forceFrameCnt
	radial(c, cx, cy, 15, rgb(1, 0.5, 0.12), 0.55)
	rot := ph * math.Pi / 2 // four claws: a quarter turn loops
	for k := 0; k < 4; k++ {
		a := rot + float64(k)*math.Pi/2
		ax, ay := cx+math.Cos(a)*8, cy+math.Sin(a)*8
		bx, by := cx+math.Cos(a+0.42)*15, cy+math.Sin(a+0.42)*15
		claw := capsule(ax, ay, bx, by, 2.6, 0.9)
		part(c, claw, 0.6, func(x, y float64) col {
			u := clamp01((math.Hypot(x-cx, y-cy) - 8) / 7)
			return mix(rgb(0.75, 0.74, 0.8), rgb(0.35, 0.34, 0.42), u)
		})
	}
	ring := subtract(circle(cx, cy, 10.6), circle(cx, cy, 8.0))
	part(c, ring, 0.6, sphere(cx, cy, 10.6, rgb(0.25, 0.24, 0.3), rgb(0.85, 0.86, 0.92)))
	core := circle(cx, cy, 8.0)
	a0 := ph * 2 * math.Pi
	c.fill(core, func(x, y float64) col {
		dx, dy := x-cx, y-cy
		r := math.Hypot(dx, dy) / 8
		// Swirling plasma: noise in coordinates turning with the frame.
		s, co := math.Sin(a0+r*2), math.Cos(a0+r*2)
		n := fbm((dx*co-dy*s)*0.35+5, (dx*s+dy*co)*0.35+5, 0xF0CE)
		return ramp(plasmaRamp, clamp01(1.05-r*0.75+(n-0.5)*0.7))
	})
	c.fill(circle(cx-2.6, cy-2.8, 1.6), solid(rgb(1, 1, 0.95).withA(0.85)))
}

func drawForceAccent(c *canvas) {
	const cx, cy = 17.0, 17.0
	c.fill(subtract(circle(cx, cy, 10.8), circle(cx, cy, 9.4)), solid(rgb(1, 1, 1).withA(0.95)))
	for k := 0; k < 4; k++ {
		a := math.Pi/4 + float64(k)*math.Pi/2
		c.fill(circle(cx+math.Cos(a)*10.1, cy+math.Sin(a)*10.1, 1.3), solid(rgb(1, 1, 1)))
	}
}

// beamColours are the wave beam's colours by level: glow and strands.
var beamColours = [3][2]col{
	{rgb(0.2, 0.6, 1), rgb(0.55, 0.9, 1)},
	{rgb(0.35, 0.45, 1), rgb(0.75, 0.8, 1)},
	{rgb(0.75, 0.35, 1), rgb(1, 0.85, 1)},
}

func drawBeam(level int) func(c *canvas, frame int) {
	return func(c *canvas, frame int) {
		w, h := float64(c.w), float64(c.h)
		cy := h / 2
		L := float64(level)
		ph := float64(frame) / beamFrames * 2 * math.Pi
		glowCol, strand := beamColours[level-1][0], beamColours[level-1][1]
		body := func(x float64) float64 {
			return smoothstep(0, w*0.4, x) * smoothstep(w-1, w-6, x)
		}
		c.glow(func(x, y float64) col {
			dy := (y - cy) / (h * 0.4)
			return glowCol.withA(math.Exp(-dy*dy*2.2) * body(x) * (0.6 + 0.15*L))
		})
		waves := 2 + L
		for s := 0; s < 2; s++ {
			off := float64(s) * math.Pi
			c.glow(func(x, y float64) col {
				yy := cy + h*0.3*math.Sin(x/w*waves*2*math.Pi-ph+off)*body(x)
				d := (y - yy) / (0.7 + 0.35*L)
				return strand.withA(math.Exp(-d*d) * body(x) * 0.9)
			})
		}
		core := capsule(w*0.3, cy, w-5, cy, 0.5, h*0.13)
		c.fill(core, func(x, y float64) col { return mix(strand, rgb(1, 1, 1), clamp01((x-w*0.3)/(w*0.5))) })
		radial(c, w-6, cy, h*0.45, rgb(1, 1, 1), 0.8)
	}
}

// laserColours are the Force's lasers: glow and core.
var laserColours = [3][2]col{
	{rgb(1, 0.15, 0.08), rgb(1, 0.75, 0.6)},
	{rgb(0.15, 0.45, 1), rgb(0.7, 0.95, 1)},
	{rgb(1, 0.8, 0.1), rgb(1, 1, 0.75)},
}

func drawForceShot(c *canvas, frame int) {
	const cy = 5.0
	g, k := laserColours[frame][0], laserColours[frame][1]
	switch frame {
	case 0: // red: a straight piercing bar
		c.glow(func(x, y float64) col {
			dy := (y - cy) / 2.6
			return g.withA(math.Exp(-dy*dy*1.5) * smoothstep(0, 6, x) * smoothstep(28, 25, x))
		})
		c.fill(capsule(4, cy, 25.5, cy, 0.8, 1.7), solid(k))
	case 1: // blue: rings along a thin line
		c.glow(func(x, y float64) col {
			dy := (y - cy) / 2.2
			return g.withA(math.Exp(-dy*dy*1.5) * 0.7 * smoothstep(0, 8, x) * smoothstep(28, 24, x))
		})
		c.fill(capsule(3, cy, 25, cy, 0.4, 0.9), solid(k))
		for i := 0; i < 3; i++ {
			x := 10 + float64(i)*6.5
			c.fill(subtract(ellipse(x, cy, 1.9, 3.9), ellipse(x, cy, 0.9, 2.8)), solid(k))
		}
	default: // yellow: a zigzag bolt
		var segs []sdf
		px, py := 3.0, cy
		for i := 1; i <= 6; i++ {
			x := 3 + float64(i)*3.8
			y := cy + 2.6*float64(1-2*(i%2))
			if i == 6 {
				y = cy
			}
			segs = append(segs, capsule(px, py, x, y, 0.8, 0.8))
			px, py = x, y
		}
		bolt := union(segs...)
		c.glow(func(x, y float64) col {
			dy := (y - cy) / 3.2
			return g.withA(math.Exp(-dy*dy*1.4) * 0.75 * smoothstep(0, 6, x) * smoothstep(28, 25, x))
		})
		c.fill(bolt, solid(k))
	}
}

func drawBit(c *canvas, frame int) {
	const cx, cy = 9.0, 9.0
	ph := float64(frame) / 4 * 2 * math.Pi
	radial(c, cx, cy, 8.5, rgb(0.4, 0.7, 1), 0.35)
	orb := circle(cx, cy, 6.3)
	part(c, orb, 0.6, sphere(cx, cy, 6.3, rgb(0.2, 0.25, 0.4), rgb(0.8, 0.88, 1)))
	c.fill(subtract(circle(cx, cy, 6.3), circle(cx, cy, 5.1)), solid(rgb(0.35, 0.45, 0.7).withA(0.6)))
	pulse := 0.5 + 0.5*math.Sin(ph)
	c.fill(circle(cx, cy, 2.4+0.5*pulse), func(x, y float64) col {
		d := math.Hypot(x-cx, y-cy) / 2.9
		return mix(rgb(1, 1, 0.9), rgb(1, 0.55, 0.15), d)
	})
	hx, hy := cx+math.Cos(ph)*4.2, cy+math.Sin(ph)*4.2
	c.fill(circle(hx, hy, 0.9), solid(rgb(0.85, 0.95, 1)))
}

// itemColours are the laser crystals' colours: dark, lit.
var itemColours = [3][2]col{
	{rgb(0.55, 0.05, 0.05), rgb(1, 0.45, 0.35)},
	{rgb(0.05, 0.15, 0.55), rgb(0.45, 0.75, 1)},
	{rgb(0.55, 0.42, 0.02), rgb(1, 0.95, 0.4)},
}

func drawPowerUp(c *canvas, frame int) {
	const cx, cy = 13.0, 13.0
	if frame < 3 {
		dark, lit := itemColours[frame][0], itemColours[frame][1]
		radial(c, cx, cy, 12, lit, 0.5)
		gem := poly(vec{cx, 2.5}, vec{cx + 8.5, cy}, vec{cx, 23.5}, vec{cx - 8.5, cy})
		c.fillGrow(gem, 0.7, outlineCol)
		// Facets: the four quarters lit differently.
		c.fill(gem, func(x, y float64) col {
			t := 0.55
			switch {
			case x < cx && y < cy:
				t = 1
			case x >= cx && y < cy:
				t = 0.7
			case x < cx:
				t = 0.45
			default:
				t = 0.2
			}
			return mix(dark, lit, t)
		})
		c.fill(poly(vec{cx, 6}, vec{cx + 3.5, cy}, vec{cx, 20}, vec{cx - 3.5, cy}), solid(mix(lit, rgb(1, 1, 1), 0.45).withA(0.8)))
		c.fill(circle(cx-3, cy-4, 1.1), solid(rgb(1, 1, 1)))
		return
	}
	radial(c, cx, cy, 12, rgb(0.5, 1, 0.6), 0.4)
	capsuleBody := box(3, 5, 23, 21, 5)
	part(c, capsuleBody, 0.7, vgrad(rgb(0.55, 0.95, 0.6), rgb(0.1, 0.4, 0.2), 5, 21))
	c.fill(box(5, 6.5, 21, 10, 2), solid(rgb(1, 1, 1).withA(0.35)))
	g := glyphS
	if frame == 4 {
		g = glyphB
	}
	glyph(c, g, cx-4.25, cy-6, 1.7, rgb(1, 1, 1))
}

func drawPowArmor(c *canvas, frame int) {
	ph := float64(frame) / 4 * 2 * math.Pi
	bob := math.Sin(ph) * 0.8
	const cx = 22.0
	cy := 17.0 + bob
	// Thruster flame at the back (right).
	c.glow(func(x, y float64) col {
		dx, dy := (x-41)/(4+math.Sin(ph*2)), (y-cy)/2.4
		if x < 37 {
			return col{}
		}
		return rgb(1, 0.6, 0.2).withA(math.Exp(-(dx*dx + dy*dy)) * 1.2)
	})
	// Legs, swinging.
	for k := 0; k < 2; k++ {
		hx := cx - 7 + float64(k)*12
		sw := math.Sin(ph+float64(k)*math.Pi) * 2.2
		leg := union(capsule(hx, cy+7, hx+sw-1.5, cy+13, 1.6, 1.3), capsule(hx+sw-1.5, cy+13, hx+sw-4, cy+17.5, 1.3, 1.1))
		part(c, leg, 0.6, solid(rgb(0.45, 0.42, 0.4)))
	}
	// Nozzle.
	part(c, box(34, cy-4, 40, cy+4, 1), 0.6, vgrad(rgb(0.6, 0.6, 0.65), rgb(0.25, 0.25, 0.3), cy-4, cy+4))
	// Body: a yellow-striped armoured pod.
	body := ellipse(cx, cy, 16, 11)
	c.fillGrow(body, 0.7, outlineCol)
	c.fill(body, func(x, y float64) col {
		base := sphere(cx, cy, 16, rgb(0.4, 0.28, 0.05), rgb(1, 0.82, 0.35))(x, y)
		if math.Mod(x-y*0.6+40, 8) < 3 && y > cy+2 {
			base = base.scale(0.35)
		}
		return base
	})
	// Armour band and dome window with the cargo glowing.
	c.fill(intersect(body, box(cx-16, cy-1.2, cx+16, cy+1.5, 0)), solid(rgb(0.3, 0.22, 0.12)))
	dome := intersect(circle(cx-3, cy-4, 7), halfPlane(0, 1, cy-1.5))
	part(c, dome, 0.6, sphere(cx-3, cy-4, 7, rgb(0.05, 0.2, 0.3), rgb(0.55, 0.95, 1)))
	glowK := 0.6 + 0.4*math.Sin(ph)
	c.fill(circle(cx-3, cy-5, 2.6), solid(mix(rgb(1, 0.3, 0.2), rgb(1, 0.9, 0.5), glowK)))
	// Front sensor.
	c.fill(circle(cx-14, cy+1, 1.4), solid(rgb(1, 0.25, 0.2)))
}

func drawChaser(c *canvas, frame int) {
	const cx, cy = 16.0, 16.0
	ph := float64(frame) / 4
	rot := ph * math.Pi / 3 // six spikes: a sixth of a turn loops
	edge := rgb(0.02, 0.12, 0.08)
	for k := 0; k < 6; k++ {
		a := rot + float64(k)*math.Pi/3
		sp := capsule(cx+math.Cos(a)*7, cy+math.Sin(a)*7, cx+math.Cos(a)*14.5, cy+math.Sin(a)*14.5, 2.2, 0.3)
		c.fillGrow(sp, 0.6, edge)
		c.fill(sp, func(x, y float64) col {
			u := clamp01((math.Hypot(x-cx, y-cy) - 7) / 7)
			return mix(rgb(0.2, 0.6, 0.35), rgb(0.85, 1, 0.7), u)
		})
	}
	body := circle(cx, cy, 9)
	c.fillGrow(body, 0.7, edge)
	c.fill(body, sphere(cx, cy, 9, rgb(0.03, 0.22, 0.12), rgb(0.4, 0.95, 0.55)))
	// The eye looks left (towards the ships) and pulses.
	pulse := 0.5 + 0.5*math.Sin(ph*2*math.Pi)
	eye := circle(cx-2.5, cy, 4.2)
	c.fillGrow(eye, 0.5, edge)
	c.fill(eye, solid(rgb(1, 0.95, 0.85)))
	c.fill(circle(cx-3.4, cy, 2.5), func(x, y float64) col {
		return mix(rgb(1, 0.2+0.3*pulse, 0.1), rgb(0.5, 0, 0), math.Hypot(x-cx+3.4, y-cy)/2.5)
	})
	c.fill(ellipse(cx-3.6, cy, 0.7, 1.8), solid(rgb(0.05, 0, 0)))
}

func drawTurret(c *canvas, aim int) {
	const cx, cy = 18.0, 22.0
	a := math.Pi + float64(aim)*math.Pi/4 // the aim frames of sim's foes.go
	dx, dy := math.Cos(a), math.Sin(a)
	barrel := capsule(cx+dx*3, cy+dy*3, cx+dx*15, cy+dy*15, 2.6, 2.2)
	part(c, barrel, 0.6, solid(rgb(0.55, 0.56, 0.62)))
	c.fill(capsule(cx+dx*5, cy+dy*5, cx+dx*14, cy+dy*14, 0.9, 0.8), solid(rgb(0.8, 0.82, 0.9)))
	c.fill(circle(cx+dx*15, cy+dy*15, 1.3), solid(rgb(1, 0.5, 0.2)))
	dome := intersect(circle(cx, cy, 9), halfPlane(0, 1, cy+1))
	part(c, dome, 0.6, sphere(cx, cy, 9, rgb(0.25, 0.22, 0.3), rgb(0.8, 0.7, 0.9)))
	c.fill(circle(cx, cy-3, 2.2), solid(rgb(1, 0.3, 0.25)))
	base := poly(vec{3, 32}, vec{7, 23}, vec{29, 23}, vec{33, 32})
	part(c, base, 0.6, vgrad(rgb(0.5, 0.45, 0.55), rgb(0.2, 0.18, 0.25), 23, 32))
	for i := 0; i < 3; i++ {
		c.fill(box(10+float64(i)*6, 26, 13+float64(i)*6, 29, 0.5), solid(rgb(0.1, 0.1, 0.14)))
	}
}

func drawArmored(c *canvas, frame int) {
	ph := float64(frame) / 4 * 2 * math.Pi
	const cx, cy = 26.0, 21.0
	// Exhaust behind (right).
	c.glow(func(x, y float64) col {
		if x < 42 {
			return col{}
		}
		dx, dy := (x-46)/3.5, (y-cy)/5
		return rgb(0.4, 0.7, 1).withA(math.Exp(-(dx*dx + dy*dy)) * (0.9 + 0.3*math.Sin(ph*2)))
	})
	steel := func(y0, y1 float64) shader {
		return func(x, y float64) col {
			t := clamp01((y - y0) / (y1 - y0))
			return mix(rgb(0.62, 0.68, 0.8), rgb(0.16, 0.19, 0.28), t)
		}
	}
	// Rear block and stacked plates, front wedge last.
	part(c, box(30, cy-12, 45, cy+12, 3), 0.6, steel(cy-12, cy+12))
	for k := 0; k < 3; k++ {
		x0 := 24 - float64(k)*6
		plate := poly(vec{x0, cy - 17 + float64(k)}, vec{x0 + 14, cy - 15 + float64(k)}, vec{x0 + 14, cy + 15 - float64(k)}, vec{x0, cy + 17 - float64(k)})
		part(c, plate, 0.6, steel(cy-17, cy+17))
		c.fill(box(x0+1, cy-15, x0+2.5, cy+15, 0.5), solid(rgb(0.85, 0.9, 1).withA(0.5)))
	}
	wedge := poly(vec{2, cy}, vec{12, cy - 12}, vec{17, cy - 12}, vec{17, cy + 12}, vec{12, cy + 12})
	part(c, wedge, 0.7, steel(cy-12, cy+12))
	// Rivets.
	for k := -1; k <= 1; k++ {
		c.fill(circle(14, cy+float64(k)*8, 0.9), solid(rgb(0.9, 0.92, 1)))
	}
	// The glowing slit.
	pulse := 0.5 + 0.5*math.Sin(ph)
	slit := box(6, cy-1.4, 16, cy+1.4, 1.2)
	c.glow(func(x, y float64) col {
		dx, dy := (x-11)/7, (y-cy)/3
		return rgb(1, 0.2, 0.1).withA(math.Exp(-(dx*dx+dy*dy)*1.5) * (0.5 + 0.5*pulse))
	})
	c.fill(slit, solid(mix(rgb(1, 0.25, 0.1), rgb(1, 0.9, 0.6), pulse)))
}

func drawBossBullet(c *canvas, frame int) {
	const cx, cy = 12.0, 12.0
	f := float64(frame)
	radial(c, cx, cy, 11.5, rgb(0.8, 0.2, 1), 0.9)
	ring := subtract(circle(cx, cy, 9.2-f*0.6), circle(cx, cy, 7.8-f*0.6))
	c.fill(ring, solid(rgb(1, 0.6, 1).withA(0.8)))
	c.fill(circle(cx, cy, 6.2+f*0.4), func(x, y float64) col {
		d := math.Hypot(x-cx+1, y-cy+1) / 6.6
		return mix(rgb(1, 1, 1), rgb(0.95, 0.35, 1), clamp01(d))
	})
}

func drawBossCore(c *canvas, frame int) {
	const cx, cy = 22.0, 22.0
	ph := float64(frame) / 4 * 2 * math.Pi
	pulse := 0.5 + 0.5*math.Sin(ph)
	radial(c, cx, cy, 21, rgb(1, 0.35, 0.2), 0.6+0.3*pulse)
	r := 15 + 1.2*pulse
	orb := circle(cx, cy, r)
	c.fillGrow(orb, 0.8, rgb(0.2, 0.02, 0.05))
	c.fill(orb, func(x, y float64) col {
		d := math.Hypot(x-cx, y-cy) / r
		n := fbm(x*0.25+float64(frame)*0.7, y*0.25, 0xC0DE)
		heat := clamp01(1.1 - d*0.9 + (n-0.5)*0.5 + 0.15*pulse)
		return ramp(fireRamp[2:], heat)
	})
	// Slit pupil, a cat's eye in the fire.
	c.fill(ellipse(cx, cy, 2.2-0.6*pulse, 9), solid(rgb(0.2, 0.02, 0.02).withA(0.85)))
	c.fill(circle(cx-5, cy-6, 2), solid(rgb(1, 1, 1).withA(0.8)))
}

func drawSocket(c *canvas) {
	const cx, cy = 30.0, 30.0
	c.fill(circle(cx, cy, 28.5), solid(rgb(0.05, 0.02, 0.06)))
	ring := subtract(circle(cx, cy, 28), circle(cx, cy, 21))
	c.fill(ring, sphere(cx, cy, 28, rgb(0.2, 0.12, 0.2), rgb(0.65, 0.5, 0.6)))
	for k := 0; k < 12; k++ {
		a := float64(k) * math.Pi / 6
		rib := capsule(cx+math.Cos(a)*21.5, cy+math.Sin(a)*21.5, cx+math.Cos(a)*27, cy+math.Sin(a)*27, 1.1, 1.4)
		c.fill(rib, solid(rgb(0.12, 0.06, 0.12)))
	}
	c.fill(circle(cx, cy, 21), func(x, y float64) col {
		d := math.Hypot(x-cx, y-cy) / 21
		return mix(rgb(0.3, 0.05, 0.05), rgb(0.05, 0.01, 0.02), d)
	})
}
