package assets

import "math"

// ShotColors are the colours of the shots' variants for the colour-blind
// palettes (render's palettes 1 to NumShotPalettes, in order: deuteranopia,
// protanopia, tritanopia): the players' bolts and the enemies' bullets are
// drawn again in these hues, so that they stay apart for those eyes (the
// test of package render/model measures them).
var ShotColors = [NumShotPalettes]struct{ Friendly, Enemy [3]float64 }{
	// Deuteranopia and protanopia keep the blue-yellow axis: sky-blue
	// bolts against amber bullets.
	{Friendly: [3]float64{0.25, 0.6, 1}, Enemy: [3]float64{1, 0.75, 0.05}},
	{Friendly: [3]float64{0.25, 0.6, 1}, Enemy: [3]float64{1, 0.75, 0.05}},
	// Tritanopia keeps the red-green axis: teal bolts against red bullets.
	{Friendly: [3]float64{0.1, 0.95, 0.75}, Enemy: [3]float64{1, 0.15, 0.3}},
}

// NumShotPalettes is the number of colour-blind palettes with their own
// shots.
const NumShotPalettes = 3

// paletteGroups are the shots' variants, appended after every other
// sprite so that the older rectangles do not move.
func paletteGroups() []spriteGroup {
	return []spriteGroup{
		{name: "PaletteMissileFrames", doc: "PaletteMissileFrames are MissileFrames drawn in ShotColors[p].Friendly: frame f of palette p (1 to 3) is at (p-1)*2+f.",
			w: 16, h: 4, n: 2 * NumShotPalettes, draw: canvasDraw(func(c *canvas, i int) {
				k := ShotColors[i/2].Friendly
				drawMissileIn(c, i%2, rgb(k[0], k[1], k[2]))
			})},
		{name: "PaletteEnemyMissileFrames", doc: "PaletteEnemyMissileFrames are EnemyMissileFrames drawn in ShotColors[p].Enemy: frame f of palette p (1 to 3) is at (p-1)*2+f.",
			w: 8, h: 8, n: 2 * NumShotPalettes, draw: canvasDraw(func(c *canvas, i int) {
				k := ShotColors[i/2].Enemy
				drawEnemyMissileIn(c, i%2, rgb(k[0], k[1], k[2]))
			})},
	}
}

// drawMissileIn is drawMissile in hue k: a glow of k and a bolt from a
// light k to white.
func drawMissileIn(c *canvas, frame int, k col) {
	f := float64(frame)
	light := mix(k, rgb(1, 1, 1), 0.55)
	c.glow(func(x, y float64) col {
		dy := (y - 2) / (1.3 + 0.2*f)
		u := clamp01((x - 0.5) / 15)
		i := math.Exp(-dy*dy*2) * smoothstep(0, 0.5+0.1*f, u) * smoothstep(16, 14.6, x)
		return mix(k, light, u).withA(i * 0.8)
	})
	bolt := capsule(5+f*0.6, 2, 14.4, 2, 0.45, 1.2)
	c.fill(bolt, func(x, y float64) col {
		u := clamp01((x - 5) / 9.5)
		return mix(light, rgb(0.97, 0.98, 1), u)
	})
}

// drawEnemyMissileIn is drawEnemyMissile in hue k: a glow of k around a
// light core.
func drawEnemyMissileIn(c *canvas, frame int, k col) {
	f := float64(frame)
	c.glow(func(x, y float64) col {
		d := math.Hypot(x-4, y-4) / (2.6 + 0.5*f)
		return k.withA(math.Exp(-d*d*1.6) * 1.1)
	})
	core := circle(4, 4, 2.1-0.35*f)
	c.fill(core, func(x, y float64) col {
		d := math.Hypot(x-3.6, y-3.6) / 2.2
		return mix(mix(k, rgb(1, 1, 1), 0.8), k, clamp01(d))
	})
}
