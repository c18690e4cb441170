package render

import (
	"image"
	"image/color"
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"
)

// Item is a row of a menu: a button, or a setting with its value.
type Item struct {
	X, Y, W, H float64
	Label      string
	// Value is shown on the right (a setting's value), "" for a button.
	Value string
	// Slider, from 0 to 1, draws a bar for the value; below 0, none.
	Slider float64
	// Selected is the row under the cursor; Active a row waiting for
	// input (a key to bind); Disabled a greyed row.
	Selected, Active, Disabled bool
	// Face is the label's face (nil: Body).
	Face *text.GoTextFace
	// Align of the label when there is no value: Center or Left.
	Align Align
}

// DrawItem draws a menu row; t animates the selection.
func (a *Atlas) DrawItem(dst *ebiten.Image, f *Fonts, it Item, t float64) {
	face := it.Face
	if face == nil {
		face = f.Body
	}
	labelCol := Fade(ColText, 0.78)
	if it.Disabled {
		labelCol = Fade(ColDim, 0.6)
	}
	if it.Selected || it.Active {
		pulse := 0.5 + 0.5*math.Sin(t*5)
		hi := ColAccent
		if it.Active {
			hi = ColGold
		}
		a.FillRect(dst, it.X, it.Y, it.W, it.H, Fade(hi, 0.16+0.06*pulse))
		a.FillRect(dst, it.X, it.Y, 4, it.H, hi)
		a.StrokeRect(dst, it.X, it.Y, it.W, it.H, 1, Fade(hi, 0.55))
		labelCol = ColText
	}
	_, th := Measure("Ag", face)
	ty := it.Y + (it.H-th)/2
	if it.Value == "" && it.Slider < 0 {
		if it.Align == Left {
			Text(dst, it.Label, face, it.X+20, ty, Left, labelCol)
		} else {
			Text(dst, it.Label, face, it.X+it.W/2, ty, Center, labelCol)
		}
		return
	}
	Text(dst, it.Label, face, it.X+20, ty, Left, labelCol)
	valCol := ColAccent
	if it.Active {
		valCol = ColGold
	}
	if it.Disabled {
		valCol = Fade(ColDim, 0.6)
	}
	right := it.X + it.W - 20
	if it.Slider >= 0 {
		bw, bh := 180.0, 8.0
		bx, by := right-bw, it.Y+it.H/2-bh/2
		a.FillRect(dst, bx, by, bw, bh, Fade(ColPanelEdge, 0.9))
		a.FillRect(dst, bx, by, bw*min(max(it.Slider, 0), 1), bh, valCol)
		a.FillRect(dst, bx+bw*min(max(it.Slider, 0), 1)-3, by-5, 6, bh+10, ColText)
		right = bx - 16
	}
	Text(dst, it.Value, face, right, ty, Right, valCol)
}

// Panel draws a framed translucent panel.
func (a *Atlas) Panel(dst *ebiten.Image, x, y, w, h float64) {
	a.FillRect(dst, x, y, w, h, Fade(ColPanel, 0.88))
	a.StrokeRect(dst, x, y, w, h, 1, ColPanelEdge)
	a.FillRect(dst, x, y, w, 3, Fade(ColAccent, 0.7))
}

// Dim darkens the whole screen by alpha.
func (a *Atlas) Dim(dst *ebiten.Image, alpha float64) {
	a.FillRect(dst, 0, 0, Width, Height, Fade(color.RGBA{0, 0, 0, 0xff}, alpha))
}

// Field draws a text field with its text and, when focused, a blinking
// caret; placeholder shows (dimmed) when the text is empty.
func (a *Atlas) Field(dst *ebiten.Image, f *Fonts, x, y, w, h float64, s, placeholder string, focused bool, t float64) {
	a.FillRect(dst, x, y, w, h, Fade(color.RGBA{0, 0, 0, 0xff}, 0.6))
	edge := ColPanelEdge
	if focused {
		edge = ColAccent
	}
	a.StrokeRect(dst, x, y, w, h, 2, edge)
	_, th := Measure("Ag", f.Big)
	ty := y + (h-th)/2
	if s == "" {
		Text(dst, placeholder, f.Big, x+18, ty, Left, Fade(ColDim, 0.55))
	} else {
		Text(dst, s, f.Big, x+18, ty, Left, ColText)
	}
	if focused && int(t*2.5)%2 == 0 {
		tw := 0.0
		if s != "" {
			tw, _ = Measure(s, f.Big)
		}
		a.FillRect(dst, x+18+tw+2, y+12, 3, h-24, ColAccent)
	}
}

// Hint draws a line of key hints at the bottom of the screen.
func Hint(dst *ebiten.Image, f *Fonts, s string) {
	Text(dst, s, f.Small, Width/2, Height-44, Center, Fade(ColDim, 0.9))
}

// Logo draws the game's title, centred at x with its top at y.
func (a *Atlas) Logo(dst *ebiten.Image, f *Fonts, x, y, t float64) {
	glow := Mix(ColAccent, PlayerColors[1], 0.5+0.5*math.Sin(t*0.8))
	a.Banner(dst, f.Logo, "R-TYPE", x, y, glow)
}

// Banner draws a big heading centred at x with its top at y: heavy
// two-tone letters (the lower half tinted with glow) in a neon glow, and
// an underline.
func (a *Atlas) Banner(dst *ebiten.Image, face *text.GoTextFace, s string, x, y float64, glow color.RGBA) {
	g := Fade(glow, 0.10)
	for _, r := range []float64{12, 8, 5} {
		for k := range 12 {
			an := float64(k) / 12 * 2 * math.Pi
			Text(dst, s, face, x+r*math.Cos(an), y+r*math.Sin(an), Center, g)
		}
	}
	// Heavy letters: the face drawn at small offsets.
	bold := func(img *ebiten.Image, c color.RGBA) {
		for dx := -2.0; dx <= 2; dx++ {
			for dy := -1.0; dy <= 1; dy++ {
				Text(img, s, face, x+dx, y+dy, Center, c)
			}
		}
	}
	bold(dst, ColText)
	w, h := Measure(s, face)
	mid := int(y + h*0.52)
	lower := dst.SubImage(image.Rect(0, mid, Width, int(y+h+20))).(*ebiten.Image)
	bold(lower, Mix(ColText, glow, 0.55))
	a.FillRect(dst, x-w/2, y+h*0.98, w, 4, glow)
}

// Wrap splits s into lines no wider than width in face, at spaces.
func Wrap(s string, face *text.GoTextFace, width float64) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			try := w
			if line != "" {
				try = line + " " + w
			}
			if tw, _ := Measure(try, face); tw > width && line != "" {
				lines = append(lines, line)
				line = w
			} else {
				line = try
			}
		}
		lines = append(lines, line)
	}
	return lines
}

// Backdrop fills the screen with the deep-space gradient the starfield
// goes over.
func (a *Atlas) Backdrop(dst *ebiten.Image) {
	const bands = 24
	top := color.RGBA{0x03, 0x04, 0x10, 0xff}
	bottom := color.RGBA{0x10, 0x08, 0x24, 0xff}
	h := float64(Height) / bands
	for i := range bands {
		a.FillRect(dst, 0, float64(i)*h, Width, h+1, Mix(top, bottom, float64(i)/(bands-1)))
	}
}
