package model

import "math"

// Star is a star of the parallax starfield.
type Star struct {
	// X0, Y are its position at time 0 in the 1280 x 720 area.
	X0, Y float64
	// Bright is 0.35 to 1; Phase shifts its twinkle.
	Bright, Phase float64
}

// StarLayer is a layer of stars that scroll left at the same speed.
type StarLayer struct {
	// Speed in pixels per second, Size the star sprite (0 small, 2 big).
	Speed float64
	Size  int
	Stars []Star
}

// Starfield returns the 3 layers of the background, far to near, laid out
// the same way on every run (a fixed seed).
func Starfield(width, height float64) [3]StarLayer {
	rng := splitmix(0x5eed_57a7)
	spec := [3]struct {
		n     int
		speed float64
	}{{140, 18}, {60, 55}, {22, 150}}
	var layers [3]StarLayer
	for i, s := range spec {
		l := StarLayer{Speed: s.speed, Size: i, Stars: make([]Star, s.n)}
		for k := range l.Stars {
			l.Stars[k] = Star{
				X0:     rng() * width,
				Y:      rng() * height,
				Bright: 0.35 + 0.65*rng(),
				Phase:  rng() * 2 * math.Pi,
			}
		}
		layers[i] = l
	}
	return layers
}

// Pos returns where star s of layer l is at time t (seconds) in an area
// of the given width: it scrolls left and wraps around with a margin so
// it never pops in view.
func (l *StarLayer) Pos(s *Star, t, width float64) (x, y float64) {
	const margin = 8
	span := width + 2*margin
	x = math.Mod(s.X0-l.Speed*t+margin, span)
	if x < 0 {
		x += span
	}
	return x - margin, s.Y
}

// Twinkle returns the brightness of star s at time t.
func (s *Star) Twinkle(t float64) float64 {
	return s.Bright * (0.8 + 0.2*math.Sin(t*2.3+s.Phase))
}

// splitmix returns a deterministic generator of floats in [0, 1).
func splitmix(seed uint64) func() float64 {
	return func() float64 {
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		return float64(z>>11) / (1 << 53)
	}
}
