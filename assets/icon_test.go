package assets

import (
	"image/color"
	"testing"
)

// TestWindowIcons: one icon a size, square, with the dark square, the
// ship's cyan accents at the middle and transparent corners.
func TestWindowIcons(t *testing.T) {
	icons, err := WindowIcons()
	if err != nil {
		t.Fatal(err)
	}
	if len(icons) != len(IconSizes) {
		t.Fatalf("%d icons, want %d", len(icons), len(IconSizes))
	}
	for i, img := range icons {
		n := IconSizes[i]
		if b := img.Bounds(); b.Dx() != n || b.Dy() != n {
			t.Errorf("icon %d is %v", n, b)
		}
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("icon %d: the corner is not transparent", n)
		}
		cyan := 0
		for y := range n {
			for x := range n {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				if c.B > 0xa0 && c.G > 0x90 && c.R < 0x90 {
					cyan++
				}
			}
		}
		if n >= 32 && cyan < n/8 {
			t.Errorf("icon %d: %d cyan pixels, the ship's accents do not show", n, cyan)
		}
	}
}
