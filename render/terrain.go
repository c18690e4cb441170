package render

import (
	"image"
	"image/color"
	"sync"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/render/model"
	"rtype/sim/stage"
)

// The terrain's plates (model.TerrainArt), made once.
var (
	terrainOnce  sync.Once
	terrainTiles [model.TerrainVariants]*ebiten.Image
)

func terrainImages() *[model.TerrainVariants]*ebiten.Image {
	terrainOnce.Do(func() {
		img := ebiten.NewImageFromImage(model.TerrainArt())
		for v := range terrainTiles {
			x := v * stage.TileW
			terrainTiles[v] = img.SubImage(image.Rect(x, 0, x+stage.TileW, stage.TileW)).(*ebiten.Image)
		}
	})
	return &terrainTiles
}

// The rim of the terrain's surfaces: a lit edge where the plates meet the
// open, and its glow (boxed once: FillRect takes a color.Color).
var (
	terrainRim  color.Color = color.RGBA{0x7c, 0xa6, 0xe8, 0xff}
	terrainGlow color.Color = color.RGBA{0x1c, 0x34, 0x64, 0x70}
)

// DrawTerrain draws the stage's terrain tr (its floors, ceilings and
// blocks, scrolled by tr.D): plates under a lit rim. Nothing without
// tiles. It allocates nothing.
func (a *Atlas) DrawTerrain(dst *ebiten.Image, tr *model.Terrain) {
	n := len(tr.Tiles)
	if n == 0 {
		return
	}
	const w = stage.TileW
	tiles := terrainImages()
	i0 := int((tr.D - Width) / w)
	i1 := int((tr.D)/w) + 1
	i0, i1 = max(i0, 0), min(i1, n-1)
	plate := func(i, j int, x, y float64) {
		var op ebiten.DrawImageOptions
		op.GeoM.Translate(x, y)
		dst.DrawImage(tiles[model.TerrainVariant(i, j)], &op)
	}
	for i := i0; i <= i1; i++ {
		c := tr.Tiles[i]
		if c.Empty() {
			continue
		}
		x := float64(Width+i*w) - tr.D
		if c.Ceil > 0 {
			ce := float64(c.Ceil)
			for j, y := 0, ce-w; y > -w; j, y = j+1, y-w {
				plate(i, j, x, y)
			}
		}
		if c.Floor > 0 {
			top := Height - float64(c.Floor)
			for j, y := 0, top; y < Height; j, y = j+1, y+w {
				plate(i, j+1000, x, y)
			}
		}
		if c.BlockBot > 0 {
			bt, bb := float64(c.BlockTop), float64(c.BlockBot)
			for j, y := 0, bt; y < bb; j, y = j+1, y+w {
				plate(i, j+2000, x, min(y, bb-w))
			}
		}
	}
	// The rims: along each surface, and up or down the steps between two
	// columns.
	for i := i0; i <= i1; i++ {
		c := tr.Tiles[i]
		x := float64(Width+i*w) - tr.D
		var prev stage.Tile
		if i > 0 {
			prev = tr.Tiles[i-1]
		}
		if c.Ceil > 0 {
			a.FillRect(dst, x, float64(c.Ceil)-2, w, 2, terrainRim)
			a.FillRect(dst, x, float64(c.Ceil), w, 2, terrainGlow)
		}
		if c.Floor > 0 {
			a.FillRect(dst, x, Height-float64(c.Floor), w, 2, terrainRim)
			a.FillRect(dst, x, Height-float64(c.Floor)-2, w, 2, terrainGlow)
		}
		// A step's face is on the higher column's side.
		step := func(cur, pre uint16) float64 {
			if cur > pre {
				return x
			}
			return x - 2
		}
		if lo, hi := float64(min(c.Ceil, prev.Ceil)), float64(max(c.Ceil, prev.Ceil)); hi > lo {
			a.FillRect(dst, step(c.Ceil, prev.Ceil), lo, 2, hi-lo, terrainRim)
		}
		if lo, hi := float64(min(c.Floor, prev.Floor)), float64(max(c.Floor, prev.Floor)); hi > lo {
			a.FillRect(dst, step(c.Floor, prev.Floor), Height-hi, 2, hi-lo, terrainRim)
		}
		if c.BlockBot > 0 {
			bt, bb := float64(c.BlockTop), float64(c.BlockBot)
			a.FillRect(dst, x, bt, w, 2, terrainRim)
			a.FillRect(dst, x, bb-2, w, 2, terrainRim)
			if prev.BlockBot == 0 {
				a.FillRect(dst, x, bt, 2, bb-bt, terrainRim)
			}
			if i+1 >= n || tr.Tiles[i+1].BlockBot == 0 {
				a.FillRect(dst, x+w-2, bt, 2, bb-bt, terrainRim)
			}
		}
	}
}
