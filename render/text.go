package render

import (
	"bytes"
	"fmt"
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"rtype/assets"
)

// Fonts are the faces of the interface.
type Fonts struct {
	Logo, Title, Big, Body, Small, Tiny *text.GoTextFace
	Mono, MonoSmall, MonoBig            *text.GoTextFace
}

// LoadFonts parses the embedded fonts and makes the faces.
func LoadFonts() (*Fonts, error) {
	reg, err := text.NewGoTextFaceSource(bytes.NewReader(assets.FontRegular))
	if err != nil {
		return nil, fmt.Errorf("font: %w", err)
	}
	mono, err := text.NewGoTextFaceSource(bytes.NewReader(assets.FontMono))
	if err != nil {
		return nil, fmt.Errorf("font: %w", err)
	}
	f := func(s *text.GoTextFaceSource, size float64) *text.GoTextFace {
		return &text.GoTextFace{Source: s, Size: size}
	}
	return &Fonts{
		Logo:      f(reg, 132),
		Title:     f(reg, 48),
		Big:       f(reg, 32),
		Body:      f(reg, 24),
		Small:     f(reg, 19),
		Tiny:      f(reg, 15),
		Mono:      f(mono, 18),
		MonoSmall: f(mono, 15),
		MonoBig:   f(mono, 26),
	}, nil
}

// Align is a horizontal alignment.
type Align int

// Alignments.
const (
	Left Align = iota
	Center
	Right
)

// Text draws s with its top at y and x its left edge, centre or right
// edge per align, in clr (alpha included).
func Text(dst *ebiten.Image, s string, face *text.GoTextFace, x, y float64, align Align, clr color.Color) {
	var op text.DrawOptions
	op.GeoM.Translate(x, y)
	op.ColorScale.ScaleWithColor(clr)
	op.LineSpacing = face.Size * 1.3
	switch align {
	case Center:
		op.PrimaryAlign = text.AlignCenter
	case Right:
		op.PrimaryAlign = text.AlignEnd
	}
	text.Draw(dst, s, face, &op)
}

// ShadowText draws s with a dark drop shadow under it, for text over the
// busy play area.
func ShadowText(dst *ebiten.Image, s string, face *text.GoTextFace, x, y float64, align Align, clr color.RGBA) {
	off := max(1, face.Size/14)
	Text(dst, s, face, x+off, y+off, align, Fade(color.RGBA{0, 0, 0, 0xff}, float64(clr.A)/255*0.85))
	Text(dst, s, face, x, y, align, clr)
}

// Measure returns the width and height of s in face.
func Measure(s string, face *text.GoTextFace) (w, h float64) {
	return text.Measure(s, face, face.Size*1.3)
}

// Fit returns s, or its beginning followed by "…", no wider than width.
func Fit(s string, face *text.GoTextFace, width float64) string {
	if w, _ := Measure(s, face); w <= width {
		return s
	}
	r := []rune(s)
	for n := len(r) - 1; n > 0; n-- {
		t := string(r[:n]) + "…"
		if w, _ := Measure(t, face); w <= width {
			return t
		}
	}
	return "…"
}
