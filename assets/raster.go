package assets

import (
	"image"
	"math"
)

// This file holds a tiny deterministic software rasteriser used by the atlas
// generator: shapes are described by signed distance functions (negative
// inside), evaluated on a 4x supersampled grid and box-filtered down.

// superSample is the number of sub-samples per pixel along each axis.
const superSample = 4

// col is a straight (non-premultiplied) floating point colour.
type col struct{ R, G, B, A float64 }

// rgb returns an opaque colour.
func rgb(r, g, b float64) col { return col{r, g, b, 1} }

// withA returns k with its alpha multiplied by a.
func (k col) withA(a float64) col { k.A *= a; return k }

// scale multiplies the colour channels by s (alpha unchanged).
func (k col) scale(s float64) col { return col{k.R * s, k.G * s, k.B * s, k.A} }

// mix linearly interpolates between a and b.
func mix(a, b col, t float64) col {
	return col{
		a.R + (b.R-a.R)*t,
		a.G + (b.G-a.G)*t,
		a.B + (b.B-a.B)*t,
		a.A + (b.A-a.A)*t,
	}
}

// stop is one entry of a colour ramp.
type stop struct {
	t float64
	c col
}

// ramp samples a piecewise-linear colour gradient at t.
func ramp(stops []stop, t float64) col {
	if t <= stops[0].t {
		return stops[0].c
	}
	for i := 1; i < len(stops); i++ {
		if t <= stops[i].t {
			a, b := stops[i-1], stops[i]
			return mix(a.c, b.c, (t-a.t)/(b.t-a.t))
		}
	}
	return stops[len(stops)-1].c
}

// pm is a premultiplied accumulation sample.
type pm struct{ r, g, b, a float64 }

// over composites k (straight alpha) over p.
func (p *pm) over(k col) {
	a := clamp01(k.A)
	p.r = k.R*a + p.r*(1-a)
	p.g = k.G*a + p.g*(1-a)
	p.b = k.B*a + p.b*(1-a)
	p.a = a + p.a*(1-a)
}

// add adds light k (straight alpha, used as intensity) to p.
func (p *pm) add(k col) {
	a := math.Max(0, k.A)
	p.r += k.R * a
	p.g += k.G * a
	p.b += k.B * a
	p.a += a
}

// sdf is a signed distance function: negative inside the shape.
type sdf func(x, y float64) float64

// shader returns a colour for a point in model space.
type shader func(x, y float64) col

// solid returns a shader painting a constant colour.
func solid(k col) shader { return func(float64, float64) col { return k } }

// canvas is a supersampled drawing surface of w x h logical pixels.
type canvas struct {
	w, h int
	pix  []pm
	// inv optionally maps device coordinates to model coordinates.
	inv func(x, y float64) (float64, float64)
	// clip, when clipped, limits drawing to these pixels (a speed-up
	// for small parts of big sprites; see within).
	clip    image.Rectangle
	clipped bool
	// ox shifts the model to the right by ox pixels (a sprite whose
	// origin is not its centre); within takes model coordinates too.
	ox float64
}

// within runs f with drawing limited to the pixels of [x0,x1)x[y0,y1):
// the parts f draws must lie inside, or they are cut.
func (c *canvas) within(x0, y0, x1, y1 float64, f func()) {
	old, was := c.clip, c.clipped
	c.clip = image.Rect(int(math.Floor(x0+c.ox)), int(math.Floor(y0)), int(math.Ceil(x1+c.ox)), int(math.Ceil(y1))).Intersect(image.Rect(0, 0, c.w, c.h))
	c.clipped = true
	f()
	c.clip, c.clipped = old, was
}

func newCanvas(w, h int) *canvas {
	return &canvas{w: w, h: h, pix: make([]pm, w*h*superSample*superSample)}
}

// each calls f for every sub-sample with its model-space coordinates.
func (c *canvas) each(f func(p *pm, x, y float64)) {
	sw := c.w * superSample
	j0, j1, i0, i1 := 0, c.h*superSample, 0, sw
	if c.clipped {
		j0, j1 = c.clip.Min.Y*superSample, c.clip.Max.Y*superSample
		i0, i1 = c.clip.Min.X*superSample, c.clip.Max.X*superSample
	}
	for j := j0; j < j1; j++ {
		for i := i0; i < i1; i++ {
			x := (float64(i)+0.5)/superSample - c.ox
			y := (float64(j) + 0.5) / superSample
			if c.inv != nil {
				x, y = c.inv(x, y)
			}
			f(&c.pix[j*sw+i], x, y)
		}
	}
}

// fill paints the inside of s with sh.
func (c *canvas) fill(s sdf, sh shader) {
	c.each(func(p *pm, x, y float64) {
		if s(x, y) <= 0 {
			p.over(sh(x, y))
		}
	})
}

// fillGrow paints the region where s <= grow with colour k (used for outlines).
func (c *canvas) fillGrow(s sdf, grow float64, k col) {
	c.each(func(p *pm, x, y float64) {
		if s(x, y) <= grow {
			p.over(k)
		}
	})
}

// erase clears the region where s <= grow.
func (c *canvas) erase(s sdf, grow float64) {
	c.each(func(p *pm, x, y float64) {
		if s(x, y) <= grow {
			*p = pm{}
		}
	})
}

// glow adds light from sh over the whole canvas.
func (c *canvas) glow(sh shader) {
	c.each(func(p *pm, x, y float64) { p.add(sh(x, y)) })
}

// mapAll transforms every accumulated sample (premultiplied) with f.
func (c *canvas) mapAll(f func(p pm) pm) {
	for i := range c.pix {
		c.pix[i] = f(c.pix[i])
	}
}

// blit box-filters the canvas into dst with its top-left corner at (ox, oy).
func (c *canvas) blit(dst *image.NRGBA, ox, oy int) {
	sw := c.w * superSample
	n := float64(superSample * superSample)
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			var s pm
			for j := 0; j < superSample; j++ {
				row := (y*superSample + j) * sw
				for i := 0; i < superSample; i++ {
					q := c.pix[row+x*superSample+i]
					s.r += q.r
					s.g += q.g
					s.b += q.b
					s.a += q.a
				}
			}
			r, g, b, a := s.r/n, s.g/n, s.b/n, s.a/n
			// Additive light may exceed the coverage; treat it as emissive.
			a = math.Min(1, math.Max(a, math.Max(r, math.Max(g, b))))
			o := dst.PixOffset(ox+x, oy+y)
			if a <= 0 {
				dst.Pix[o], dst.Pix[o+1], dst.Pix[o+2], dst.Pix[o+3] = 0, 0, 0, 0
				continue
			}
			dst.Pix[o] = to8(r / a)
			dst.Pix[o+1] = to8(g / a)
			dst.Pix[o+2] = to8(b / a)
			dst.Pix[o+3] = to8(a)
		}
	}
}

func to8(v float64) uint8 { return uint8(math.Floor(clamp01(v)*255 + 0.5)) }

func clamp01(v float64) float64 {
	if v < 0 {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

func smoothstep(e0, e1, x float64) float64 {
	t := clamp01((x - e0) / (e1 - e0))
	return t * t * (3 - 2*t)
}

// ---- signed distance primitives ----

// vec is a 2D point.
type vec struct{ x, y float64 }

func circle(cx, cy, r float64) sdf {
	return func(x, y float64) float64 { return math.Hypot(x-cx, y-cy) - r }
}

// ellipse is an approximate ellipse distance (good enough for sprites).
func ellipse(cx, cy, rx, ry float64) sdf {
	return func(x, y float64) float64 {
		px, py := (x-cx)/rx, (y-cy)/ry
		k0 := math.Hypot(px, py)
		k1 := math.Hypot(px/rx, py/ry)
		if k1 == 0 {
			return -math.Min(rx, ry)
		}
		return k0 * (k0 - 1) / k1
	}
}

// box is a rounded rectangle spanning [x0,x1]x[y0,y1] with corner radius r.
func box(x0, y0, x1, y1, r float64) sdf {
	cx, cy := (x0+x1)/2, (y0+y1)/2
	hx, hy := (x1-x0)/2-r, (y1-y0)/2-r
	return func(x, y float64) float64 {
		dx := math.Abs(x-cx) - hx
		dy := math.Abs(y-cy) - hy
		out := math.Hypot(math.Max(dx, 0), math.Max(dy, 0))
		in := math.Min(math.Max(dx, dy), 0)
		return out + in - r
	}
}

// capsule is a segment from a to b with radius ra at a and rb at b.
func capsule(ax, ay, bx, by, ra, rb float64) sdf {
	return func(x, y float64) float64 {
		px, py := x-ax, y-ay
		ex, ey := bx-ax, by-ay
		ee := ex*ex + ey*ey
		h := 0.0
		if ee > 0 {
			h = clamp01((px*ex + py*ey) / ee)
		}
		dx, dy := px-ex*h, py-ey*h
		return math.Hypot(dx, dy) - (ra + (rb-ra)*h)
	}
}

// poly is a closed polygon.
func poly(pts ...vec) sdf {
	return func(x, y float64) float64 {
		d := (x-pts[0].x)*(x-pts[0].x) + (y-pts[0].y)*(y-pts[0].y)
		s := 1.0
		n := len(pts)
		for i, j := 0, n-1; i < n; j, i = i, i+1 {
			ex, ey := pts[j].x-pts[i].x, pts[j].y-pts[i].y
			wx, wy := x-pts[i].x, y-pts[i].y
			h := clamp01((wx*ex + wy*ey) / (ex*ex + ey*ey))
			bx, by := wx-ex*h, wy-ey*h
			d = math.Min(d, bx*bx+by*by)
			c1 := y >= pts[i].y
			c2 := y < pts[j].y
			c3 := ex*wy > ey*wx
			if (c1 && c2 && c3) || (!c1 && !c2 && !c3) {
				s = -s
			}
		}
		return s * math.Sqrt(d)
	}
}

func union(fs ...sdf) sdf {
	return func(x, y float64) float64 {
		d := math.Inf(1)
		for _, f := range fs {
			d = math.Min(d, f(x, y))
		}
		return d
	}
}

func intersect(a, b sdf) sdf {
	return func(x, y float64) float64 { return math.Max(a(x, y), b(x, y)) }
}

func subtract(a, b sdf) sdf {
	return func(x, y float64) float64 { return math.Max(a(x, y), -b(x, y)) }
}

// halfPlane is the region a*x + b*y <= c (a, b normalised by the caller).
func halfPlane(a, b, c float64) sdf {
	return func(x, y float64) float64 { return a*x + b*y - c }
}

// ---- deterministic randomness ----

// rng is a SplitMix64 generator: tiny, fast and fully deterministic.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a uniform value in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// hash2 returns a pseudo-random value in [0,1) for a lattice point.
func hash2(ix, iy int, seed uint64) float64 {
	r := rng{s: seed ^ uint64(int64(ix))*0x632be59bd9b4e019 ^ uint64(int64(iy))*0x85157af5}
	return r.float()
}

// vnoise is smooth 2D value noise in [0,1).
func vnoise(x, y float64, seed uint64) float64 {
	ix, iy := math.Floor(x), math.Floor(y)
	fx, fy := x-ix, y-iy
	ux, uy := fx*fx*(3-2*fx), fy*fy*(3-2*fy)
	i, j := int(ix), int(iy)
	a := hash2(i, j, seed)
	b := hash2(i+1, j, seed)
	c := hash2(i, j+1, seed)
	d := hash2(i+1, j+1, seed)
	return a + (b-a)*ux + (c-a)*uy + (a-b-c+d)*ux*uy
}

// fbm sums three octaves of value noise, normalised to [0,1).
func fbm(x, y float64, seed uint64) float64 {
	return (vnoise(x, y, seed)*4 + vnoise(x*2.03, y*2.03, seed+1)*2 + vnoise(x*4.1, y*4.1, seed+2)) / 7
}
