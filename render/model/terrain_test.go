package model

import (
	"bytes"
	"testing"

	"rtype/sim/stage"
)

// The terrain's art is the same on every run, opaque, and its variants
// differ; TerrainVariant spreads them.
func TestTerrainArt(t *testing.T) {
	a, b := TerrainArt(), TerrainArt()
	if !bytes.Equal(a.Pix, b.Pix) {
		t.Fatal("TerrainArt differs between two runs")
	}
	if a.Bounds().Dx() != stage.TileW*TerrainVariants || a.Bounds().Dy() != stage.TileW {
		t.Fatalf("size %v", a.Bounds())
	}
	for i := 3; i < len(a.Pix); i += 4 {
		if a.Pix[i] != 0xff {
			t.Fatalf("pixel %d not opaque", i/4)
		}
	}
	// Each variant's pixels differ from the first's.
	n := stage.TileW
	tile := func(v int) []byte {
		var px []byte
		for y := range n {
			o := a.PixOffset(v*n, y)
			px = append(px, a.Pix[o:o+4*n]...)
		}
		return px
	}
	for v := 1; v < TerrainVariants; v++ {
		if bytes.Equal(tile(0), tile(v)) {
			t.Errorf("variant %d is variant 0", v)
		}
	}
	seen := map[int]int{}
	for i := range 100 {
		for j := range 10 {
			seen[TerrainVariant(i, j)]++
		}
	}
	if len(seen) != TerrainVariants {
		t.Errorf("variants used: %v", seen)
	}
}
