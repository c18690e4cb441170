package render

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"rtype/assets"
)

// Fonts are the faces of the interface.
type Fonts struct {
	Logo, Banner, Title, Big, Body, Small, Tiny *text.GoTextFace
	Mono, MonoSmall, MonoBig                    *text.GoTextFace

	// scale is the UI scale (SetScale), 1 at first.
	scale float64
}

// fontSizes are the faces' sizes at scale 1; scaled is true for those
// of the HUD's and the menus' text, which the UI scale changes (not the
// titles).
var fontSizes = [...]struct {
	size   float64
	mono   bool
	scaled bool
}{
	{132, false, false}, {84, false, false}, {48, false, false}, {32, false, true},
	{24, false, true}, {19, false, true}, {15, false, true},
	{18, true, true}, {15, true, true}, {26, true, true},
}

// faces lists the faces in fontSizes' order.
func (f *Fonts) faces() [len(fontSizes)]**text.GoTextFace {
	return [...]**text.GoTextFace{&f.Logo, &f.Banner, &f.Title, &f.Big, &f.Body, &f.Small, &f.Tiny, &f.Mono, &f.MonoSmall, &f.MonoBig}
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
	f := &Fonts{scale: 1}
	for i, p := range f.faces() {
		src := reg
		if fontSizes[i].mono {
			src = mono
		}
		*p = &text.GoTextFace{Source: src, Size: fontSizes[i].size}
	}
	return f, nil
}

// SetScale sets the UI scale: the faces of the HUD's and the menus' text
// (all but Logo, Banner and Title) become scale times their size. The
// faces stay the same values, so what holds one sees the change. Call it
// from the game's Update, not while drawing.
func (f *Fonts) SetScale(scale float64) {
	if scale <= 0 {
		scale = 1
	}
	f.scale = scale
	for i, p := range f.faces() {
		if fontSizes[i].scaled {
			(*p).Size = fontSizes[i].size * scale
		}
	}
}

// Scale returns the UI scale (1 when never set).
func (f *Fonts) Scale() float64 {
	if f.scale <= 0 {
		return 1
	}
	return f.scale
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
func Text(dst *ebiten.Image, s string, face *text.GoTextFace, x, y float64, align Align, clr color.RGBA) {
	var op text.DrawOptions
	op.GeoM.Translate(x, y)
	scaleRGBA(&op.ColorScale, clr) // not boxed in an interface: no allocation
	op.LayoutOptions = layout(face, align)
	text.Draw(dst, s, face, &op)
}

// layout is how Text lays out a text in face with align.
func layout(face *text.GoTextFace, align Align) text.LayoutOptions {
	lo := text.LayoutOptions{LineSpacing: face.Size * 1.3}
	switch align {
	case Center:
		lo.PrimaryAlign = text.AlignCenter
	case Right:
		lo.PrimaryAlign = text.AlignEnd
	}
	return lo
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

// OneLine returns s as one line: every line break, tab or other control
// character becomes a space, and the format characters (bidi overrides,
// zero-width characters) are dropped, so that a text from elsewhere
// cannot run over the lines around it or reverse the text after it.
func OneLine(s string) string {
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError || (unicode.IsSpace(r) && r != ' ') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Cf, r), r == utf8.RuneError:
			return -1
		case unicode.IsControl(r), unicode.IsSpace(r):
			return ' '
		}
		return r
	}, s)
}

// Fit returns s on one line (OneLine), or its beginning followed by "…",
// no wider than width. It measures O(log n) prefixes of s.
func Fit(s string, face *text.GoTextFace, width float64) string {
	s = OneLine(s)
	if w, _ := Measure(s, face); w <= width {
		return s
	}
	r := []rune(s)
	// The longest prefix that fits with the ellipsis: widths grow with
	// the prefix, so a binary search finds it.
	lo, hi := 0, len(r)-1 // lo fits (or is 0), hi+1 does not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if w, _ := Measure(string(r[:mid])+"…", face); w <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return "…"
	}
	return strings.TrimRight(string(r[:lo]), " ") + "…"
}

// WrapText cuts s into lines no wider than width: at spaces where it can,
// and inside a word that is wider than width by itself, at any character.
// Each paragraph (s split at "\n") starts a new line; every line is made
// one line as OneLine says. A word of n characters takes O(log n)
// measures per line it fills.
func WrapText(s string, face *text.GoTextFace, width float64) []string {
	var lines []string
	fits := func(t string) bool { w, _ := Measure(t, face); return w <= width }
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(OneLine(para)) {
			try := word
			if line != "" {
				try = line + " " + word
			}
			if fits(try) {
				line = try
				continue
			}
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			// The word alone: cut it while it is too wide.
			for !fits(word) && utf8.RuneCountInString(word) > 1 {
				r := []rune(word)
				lo, hi := 1, len(r)-1 // at least one character per line
				for lo < hi {
					mid := (lo + hi + 1) / 2
					if fits(string(r[:mid])) {
						lo = mid
					} else {
						hi = mid - 1
					}
				}
				lines = append(lines, string(r[:lo]))
				word = string(r[lo:])
			}
			line = word
		}
		lines = append(lines, line)
	}
	return lines
}
