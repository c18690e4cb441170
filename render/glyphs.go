package render

import (
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"
)

// cachedText is a text laid out once: its glyphs' images and places, laid
// out again only when the text, its face's size or its alignment
// changes. Drawing it every frame allocates nothing, where text.Draw
// allocates its glyphs at each call. The images stay valid while held
// (text/v2 only forgets them from its cache).
type cachedText struct {
	s      string
	face   *text.GoTextFace
	size   float64
	align  Align
	glyphs []text.Glyph
}

// draw draws s as Text does, from the cache.
func (c *cachedText) draw(dst *ebiten.Image, s string, face *text.GoTextFace, x, y float64, align Align, clr color.RGBA) {
	if c.face != face || c.s != s || c.size != face.Size || c.align != align || (c.glyphs == nil && s != "") {
		c.s, c.face, c.size, c.align = s, face, face.Size, align
		lo := layout(face, align)
		c.glyphs = text.AppendGlyphs(c.glyphs[:0], s, face, &lo)
	}
	for i := range c.glyphs {
		g := &c.glyphs[i]
		if g.Image == nil {
			continue
		}
		var op ebiten.DrawImageOptions
		op.GeoM.Translate(x+g.X, y+g.Y)
		scaleRGBA(&op.ColorScale, clr)
		dst.DrawImage(g.Image, &op)
	}
}

// digits are the glyphs of "0123456789" in a monospaced face, laid out
// once per size, to draw numbers that change every frame (scores) without
// laying them out again.
type digits struct {
	face   *text.GoTextFace
	size   float64
	adv    float64
	glyphs []text.Glyph
}

// drawNumber draws v in decimal, with leading zeros to width digits, with
// its right edge at x, its top at y.
func (d *digits) drawNumber(dst *ebiten.Image, v uint64, width int, face *text.GoTextFace, x, y float64, clr color.RGBA) {
	var buf [20]byte
	i := len(buf)
	for v > 0 || len(buf)-i < width {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if i == 0 {
			break
		}
	}
	d.drawRight(dst, buf[i:], face, x, y, clr)
}

// drawRight draws the decimal digits of s (only digits) with its right
// edge at x, its top at y.
func (d *digits) drawRight(dst *ebiten.Image, s []byte, face *text.GoTextFace, x, y float64, clr color.RGBA) {
	if d.face != face || d.size != face.Size || len(d.glyphs) != 10 {
		d.face, d.size = face, face.Size
		lo := layout(face, Left)
		d.glyphs = text.AppendGlyphs(d.glyphs[:0], "0123456789", face, &lo)
		d.adv = text.Advance("0", face)
		if len(d.glyphs) != 10 { // not one glyph a digit: never expected
			return
		}
	}
	left := x - float64(len(s))*d.adv
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			continue
		}
		g := &d.glyphs[c-'0']
		if g.Image == nil {
			continue
		}
		var op ebiten.DrawImageOptions
		op.GeoM.Translate(left+float64(i)*d.adv+g.X-float64(c-'0')*d.adv, y+g.Y)
		scaleRGBA(&op.ColorScale, clr)
		dst.DrawImage(g.Image, &op)
	}
}
