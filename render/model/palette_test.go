package model

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"rtype/assets"
)

// The palette test simulates each kind of colour vision on each palette
// and measures how far apart the colours that must be told apart stay.
//
// Simulation: the matrices of Machado, Oliveira and Fernandes (2009), "A
// Physiologically-based Model for Simulation of Color Vision Deficiency",
// at severity 1.0 (dichromacy: the strongest form), applied in linear
// RGB to the sRGB colours, the result clamped to the gamut.
//
// Measure: CIEDE2000 (ΔE00) between the simulated colours in CIELAB (D65
// white). ΔE00 ≈ 1 to 2 is a just-noticeable difference between two large
// patches side by side; our colours are small sprites (a ship is 33x17
// px, a bolt 16x4), moving, seen apart and never side by side, and colour
// discrimination drops sharply for small fields. We ask for 20 between
// player colours (ten times a just-noticeable difference: the colours
// must be named apart at a glance, "the blue one", not merely compared),
// and 15 between friendly and enemy shots, which also differ by shape
// (an elongated bolt against a round bullet) and direction.
const (
	minPlayerDE = 20
	minShotDE   = 15
	minAccentDE = 15
)

// vision is a kind of colour vision: a matrix on linear RGB.
type vision struct {
	name string
	m    [3][3]float64
}

var visions = []vision{
	{"normal", [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
	{"deuteranopia", [3][3]float64{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}},
	{"protanopia", [3][3]float64{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}},
	{"tritanopia", [3][3]float64{{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}},
}

// visionOf is the vision a palette is made for.
var visionOf = [NumPalettes]int{0, 1, 2, 3}

// linear is an sRGB channel (0 to 1) in linear light.
func linear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

func linRGB(c color.RGBA) [3]float64 {
	return [3]float64{linear(float64(c.R) / 255), linear(float64(c.G) / 255), linear(float64(c.B) / 255)}
}

// lab is a linear RGB colour seen with v, in CIELAB.
func lab(c [3]float64, v vision) [3]float64 {
	var s [3]float64
	for i := range 3 {
		s[i] = min(max(v.m[i][0]*c[0]+v.m[i][1]*c[1]+v.m[i][2]*c[2], 0), 1)
	}
	x := 0.4124564*s[0] + 0.3575761*s[1] + 0.1804375*s[2]
	y := 0.2126729*s[0] + 0.7151522*s[1] + 0.0721750*s[2]
	z := 0.0193339*s[0] + 0.1191920*s[1] + 0.9503041*s[2]
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	fx, fy, fz := f(x/0.95047), f(y), f(z/1.08883)
	return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

// deltaE00 is the CIEDE2000 difference of two CIELAB colours (Sharma, Wu
// and Dalal 2005).
func deltaE00(p, q [3]float64) float64 {
	const rad = math.Pi / 180
	L1, a1, b1 := p[0], p[1], p[2]
	L2, a2, b2 := q[0], q[1], q[2]
	cb := (math.Hypot(a1, b1) + math.Hypot(a2, b2)) / 2
	g := 0.5 * (1 - math.Sqrt(math.Pow(cb, 7)/(math.Pow(cb, 7)+math.Pow(25, 7))))
	a1, a2 = (1+g)*a1, (1+g)*a2
	c1, c2 := math.Hypot(a1, b1), math.Hypot(a2, b2)
	hue := func(b, a float64) float64 {
		if a == 0 && b == 0 {
			return 0
		}
		return math.Mod(math.Atan2(b, a)/rad+360, 360)
	}
	h1, h2 := hue(b1, a1), hue(b2, a2)
	dh := 0.0
	if c1*c2 != 0 {
		dh = h2 - h1
		if dh > 180 {
			dh -= 360
		} else if dh < -180 {
			dh += 360
		}
	}
	dL, dC := L2-L1, c2-c1
	dH := 2 * math.Sqrt(c1*c2) * math.Sin(dh*rad/2)
	lb, cbp := (L1+L2)/2, (c1+c2)/2
	hb := h1 + h2
	if c1*c2 != 0 {
		switch {
		case math.Abs(h1-h2) <= 180:
			hb = (h1 + h2) / 2
		case h1+h2 < 360:
			hb = (h1 + h2 + 360) / 2
		default:
			hb = (h1 + h2 - 360) / 2
		}
	}
	t := 1 - 0.17*math.Cos((hb-30)*rad) + 0.24*math.Cos(2*hb*rad) + 0.32*math.Cos((3*hb+6)*rad) - 0.20*math.Cos((4*hb-63)*rad)
	dTh := 30 * math.Exp(-math.Pow((hb-275)/25, 2))
	rc := 2 * math.Sqrt(math.Pow(cbp, 7)/(math.Pow(cbp, 7)+math.Pow(25, 7)))
	sl := 1 + 0.015*(lb-50)*(lb-50)/math.Sqrt(20+(lb-50)*(lb-50))
	sc, sh := 1+0.045*cbp, 1+0.015*cbp*t
	rt := -math.Sin(2*dTh*rad) * rc
	return math.Sqrt((dL/sl)*(dL/sl) + (dC/sc)*(dC/sc) + (dH/sh)*(dH/sh) + rt*(dC/sc)*(dH/sh))
}

// TestDeltaE00 checks the formula against pairs of Sharma et al.'s test
// data.
func TestDeltaE00(t *testing.T) {
	for _, c := range []struct {
		p, q [3]float64
		want float64
	}{
		{[3]float64{50, 2.6772, -79.7751}, [3]float64{50, 0, -82.7485}, 2.0425},
		{[3]float64{50, 2.5, 0}, [3]float64{73, 25, -18}, 27.1492},
		{[3]float64{50, 2.5, 0}, [3]float64{50, 3.2592, 0.3350}, 1.0000},
		{[3]float64{60.2574, -34.0099, 36.2677}, [3]float64{60.4626, -34.1751, 39.4387}, 1.2644},
		{[3]float64{2.0776, 0.0795, -1.1350}, [3]float64{0.9033, -0.0636, -0.5514}, 0.9082},
	} {
		if got := deltaE00(c.p, c.q); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("ΔE00(%v, %v) = %.4f, want %.4f", c.p, c.q, got, c.want)
		}
	}
}

// spriteColor is the colour a sprite shows: the mean of its pixels' colours
// in linear light, weighted by their opacity, over all its frames.
func spriteColor(t *testing.T, rs ...image.Rectangle) [3]float64 {
	img, err := assets.Sprites()
	if err != nil {
		t.Fatal(err)
	}
	var sum [3]float64
	var w float64
	for _, r := range rs {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				a := float64(c.A) / 255
				l := linRGB(color.RGBA{c.R, c.G, c.B, 0xff})
				for i := range 3 {
					sum[i] += a * l[i]
				}
				w += a
			}
		}
	}
	for i := range sum {
		sum[i] /= w
	}
	return sum
}

// shotColors are the colours of a palette's friendly and enemy shots.
func shotColors(t *testing.T, p Palette) (friendly, enemy [3]float64) {
	if p == PaletteNormal {
		return spriteColor(t, assets.MissileFrames[:]...), spriteColor(t, assets.EnemyMissileFrames[:]...)
	}
	i := int(p-1) * 2
	return spriteColor(t, assets.PaletteMissileFrames[i:i+2]...), spriteColor(t, assets.PaletteEnemyMissileFrames[i:i+2]...)
}

// measures are the smallest ΔE00 of a palette seen with a vision: between
// two player colours (and which), between the shots, between the accents.
type measures struct {
	players       float64
	pair          string
	shots, accent float64
}

func measure(t *testing.T, p Palette, v vision) measures {
	pc := &Palettes[p]
	m := measures{players: math.Inf(1)}
	for i := range pc.Players {
		for j := i + 1; j < len(pc.Players); j++ {
			if d := deltaE00(lab(linRGB(pc.Players[i]), v), lab(linRGB(pc.Players[j]), v)); d < m.players {
				m.players, m.pair = d, fmt.Sprintf("%s/%s", pc.Names[i], pc.Names[j])
			}
		}
	}
	f, e := shotColors(t, p)
	m.shots = deltaE00(lab(f, v), lab(e, v))
	m.accent = deltaE00(lab(linRGB(pc.Accent), v), lab(linRGB(pc.Warn), v))
	return m
}

// TestPalettesDistinguishable simulates every vision on every palette: a
// palette must pass for normal eyes and for the deficiency it is for; the
// others are logged (go test -v -run Palettes shows the table).
func TestPalettesDistinguishable(t *testing.T) {
	for p := range NumPalettes {
		for vi, v := range visions {
			m := measure(t, p, v)
			must := vi == 0 || vi == visionOf[p]
			verdict := "pass"
			if m.players < minPlayerDE || m.shots < minShotDE || m.accent < minAccentDE {
				verdict = "FAIL"
				if !must {
					verdict = "fails (not its vision)"
				}
			}
			t.Logf("%-12s seen with %-12s: players ΔE00 min %5.1f (%s), shots %5.1f, accent/warn %5.1f: %s",
				p, v.name, m.players, m.pair, m.shots, m.accent, verdict)
			if !must {
				continue
			}
			if m.players < minPlayerDE {
				t.Errorf("%s palette seen with %s: players %s only ΔE00 %.1f apart, want ≥ %d", p, v.name, m.pair, m.players, minPlayerDE)
			}
			if m.shots < minShotDE {
				t.Errorf("%s palette seen with %s: friendly and enemy shots only ΔE00 %.1f apart, want ≥ %d", p, v.name, m.shots, minShotDE)
			}
			if m.accent < minAccentDE {
				t.Errorf("%s palette seen with %s: accent and warning only ΔE00 %.1f apart, want ≥ %d", p, v.name, m.accent, minAccentDE)
			}
		}
	}
}

func TestPaletteNames(t *testing.T) {
	for p := range NumPalettes {
		if got, ok := PaletteNamed(p.String()); !ok || got != p {
			t.Errorf("PaletteNamed(%q) = %v, %v", p.String(), got, ok)
		}
	}
	if _, ok := PaletteNamed("sepia"); ok {
		t.Error("an unknown name was taken")
	}
	if Palette(200).String() != "normal" {
		t.Error("an unknown palette should read as normal")
	}
}
