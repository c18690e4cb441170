package model

import (
	"image"
	"image/color"
	"math"

	"rtype/sim/stage"
)

// Terrain is the stage's terrain as a frame shows it: its columns
// (stage.Tile, stage.TileW wide) and how far they have scrolled, in
// pixels: column i's left edge is at x = 1280 + i·TileW − D.
type Terrain struct {
	Tiles []stage.Tile
	D     float64
}

// TerrainVariants is how many tiles TerrainArt draws, side by side.
const TerrainVariants = 4

// TerrainArt draws the terrain's tiles: TerrainVariants squares of
// stage.TileW pixels side by side, the plates of a Bydo base in stage
// 1's colours (dark slate blue, lit from the top left), each with its own
// seams, rivets and wear. The same pixels on every run.
func TerrainArt() *image.RGBA {
	const n = stage.TileW
	img := image.NewRGBA(image.Rect(0, 0, n*TerrainVariants, n))
	rnd := splitmix(0x7e88a1)
	for v := range TerrainVariants {
		seam := 6 + int(rnd()*8) // a horizontal seam's row
		for y := range n {
			for x := range n {
				// A plate, darker to the bottom right, with noise.
				l := 0.78 - 0.18*float64(x+y)/float64(2*n) + 0.10*(rnd()-0.5)
				switch {
				case x == 0 || y == 0: // lit edges
					l += 0.35
				case x == n-1 || y == n-1: // shadowed edges
					l -= 0.35
				case y == seam && (v%2 == 0): // a seam
					l -= 0.28
				case y == seam+1 && (v%2 == 0):
					l += 0.18
				}
				// Rivets in the corners.
				if (x == 3 || x == n-4) && (y == 3 || y == n-4) {
					l += 0.45
				}
				// A vent of three slots on variant 3.
				if v == 3 && y >= 7 && y <= 12 && (x == 6 || x == 10 || x == 14) {
					l = 0.15
				}
				l = math.Max(0, math.Min(1.4, l))
				img.SetRGBA(v*n+x, y, color.RGBA{
					R: uint8(math.Min(255, 0x2e*l)),
					G: uint8(math.Min(255, 0x3a*l)),
					B: uint8(math.Min(255, 0x6c*l)),
					A: 0xff,
				})
			}
		}
	}
	return img
}

// TerrainVariant returns the tile drawn at column i, row j: a hash, so
// that the plates do not repeat in a visible pattern.
func TerrainVariant(i, j int) int {
	h := uint32(i)*0x9e3779b1 ^ uint32(j)*0x85ebca6b
	h ^= h >> 15
	h *= 0x2c1b3c6d
	h ^= h >> 12
	return int(h % TerrainVariants)
}
