package assets

import (
	"image"
	"image/color"
	"image/draw"
)

// IconSizes are the sizes of the window's icons (WindowIcons).
var IconSizes = []int{16, 32, 48, 64, 128}

// WindowIcons draws the window's icon at each of IconSizes from the
// atlas: the ship (body and accents, the accents in the first player's
// cyan) on a dark rounded square. The window system picks the size it
// needs.
func WindowIcons() ([]image.Image, error) {
	src, err := Sprites()
	if err != nil {
		return nil, err
	}
	ship := shipIcon(src)
	icons := make([]image.Image, len(IconSizes))
	for i, n := range IconSizes {
		icons[i] = iconAt(ship, n)
	}
	return icons, nil
}

// shipIcon is the level ship's body with its accents tinted cyan.
func shipIcon(src image.Image) *image.NRGBA {
	body, accent := ShipFrames[0], ShipAccent[0]
	out := image.NewNRGBA(image.Rect(0, 0, body.Dx(), body.Dy()))
	draw.Draw(out, out.Bounds(), src, body.Min, draw.Src)
	tint := color.NRGBA{0x22, 0xe4, 0xff, 0xff}
	for y := range body.Dy() {
		for x := range body.Dx() {
			a := color.NRGBAModel.Convert(src.At(accent.Min.X+x, accent.Min.Y+y)).(color.NRGBA)
			if a.A == 0 {
				continue
			}
			k := float64(a.A) / 255
			b := out.NRGBAAt(x, y)
			mixc := func(dst, s, t uint8) uint8 {
				return uint8(float64(dst)*(1-k) + float64(s)*float64(t)/255*k)
			}
			out.SetNRGBA(x, y, color.NRGBA{mixc(b.R, a.R, tint.R), mixc(b.G, a.G, tint.G), mixc(b.B, a.B, tint.B), max(b.A, a.A)})
		}
	}
	return out
}

// iconAt is the n x n icon: a dark rounded square, the ship scaled to fit
// across it (box-filtered samples, nearest when enlarging).
func iconAt(ship *image.NRGBA, n int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	r := float64(n) * 0.18 // corner radius
	bg := color.NRGBA{0x0c, 0x10, 0x26, 0xff}
	for y := range n {
		for x := range n {
			cx := min(max(float64(x)+0.5, r), float64(n)-r)
			cy := min(max(float64(y)+0.5, r), float64(n)-r)
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			if dx*dx+dy*dy <= r*r {
				img.SetNRGBA(x, y, bg)
			}
		}
	}
	sw, sh := ship.Bounds().Dx(), ship.Bounds().Dy()
	w := float64(n) * 0.86
	s := w / float64(sw)
	h := float64(sh) * s
	x0, y0 := (float64(n)-w)/2, (float64(n)-h)/2
	for y := range n {
		for x := range n {
			u, v := (float64(x)+0.5-x0)/s, (float64(y)+0.5-y0)/s
			if u < 0 || v < 0 || u >= float64(sw) || v >= float64(sh) {
				continue
			}
			c := ship.NRGBAAt(int(u), int(v))
			if c.A == 0 {
				continue
			}
			b := img.NRGBAAt(x, y)
			k := float64(c.A) / 255
			l := func(d, s uint8) uint8 { return uint8(float64(d)*(1-k) + float64(s)*k) }
			img.SetNRGBA(x, y, color.NRGBA{l(b.R, c.R), l(b.G, c.G), l(b.B, c.B), max(b.A, c.A)})
		}
	}
	return img
}
