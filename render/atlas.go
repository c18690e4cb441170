// Package render draws the game: the sprite atlas and its sprites, the
// parallax starfield, the world's entities and effects, the HUD, text and
// the menus' widgets. Every sprite comes from one *ebiten.Image (the atlas)
// through SubImage, rectangles are the atlas's white pixel scaled, and
// nothing creates an image per frame, so the draws of a frame batch.
package render

import (
	"fmt"
	"image"
	"image/color"
	"sync"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/assets"
	"rtype/render/model"
)

// The logical screen size (Layout's answer) and the play area's.
const (
	Width  = model.Width
	Height = model.Height
)

// Atlas is the sprite sheet as one image and its sprites as sub-images.
type Atlas struct {
	Image        *ebiten.Image
	Ship         [4]*ebiten.Image
	ShipAccent   [4]*ebiten.Image
	Missile      [2]*ebiten.Image
	Bydos        [8]*ebiten.Image
	EnemyMissile [2]*ebiten.Image
	Explosion    [8]*ebiten.Image
	Muzzle       [3]*ebiten.Image
	Star         [3]*ebiten.Image
	Pixel        *ebiten.Image
	Life         *ebiten.Image

	// Stage mode (see the sprites' docs in package assets).
	Glow        *ebiten.Image
	Force       [8]*ebiten.Image
	ForceAccent *ebiten.Image
	Beam        [3][3]*ebiten.Image // by level - 1, then frame
	ForceShot   [3]*ebiten.Image
	Bit         [4]*ebiten.Image
	PowerUp     [5]*ebiten.Image
	PowArmor    [4]*ebiten.Image
	Chaser      [4]*ebiten.Image
	Turret      [8]*ebiten.Image
	Armored     [4]*ebiten.Image
	BossBullet  [2]*ebiten.Image
	BossCore    [4]*ebiten.Image
	CoreSocket  *ebiten.Image
	MidBoss     *ebiten.Image
	Boss        *ebiten.Image
	// Stage 2's: the warship's hull and boss.
	Hatch       [3]*ebiten.Image
	Crawler     [4]*ebiten.Image
	Plate       [2]*ebiten.Image
	CoreShutter *ebiten.Image
	Warship     *ebiten.Image

	// The shots of the colour-blind palettes: frame f of palette p is at
	// (p-1)*2+f.
	PaletteMissile      [6]*ebiten.Image
	PaletteEnemyMissile [6]*ebiten.Image

	// stage caches the texts of the Stage HUD, hud those of the players'
	// panels, scoreW the width of a score.
	stage  stageText
	hud    [4]hudText
	scoreW struct{ size, w, h float64 }
}

var (
	atlasOnce sync.Once
	atlas     *Atlas
	atlasErr  error
)

// LoadAtlas decodes the embedded sprite sheet into one *ebiten.Image, once
// per process, and returns it with its sprites.
func LoadAtlas() (*Atlas, error) {
	atlasOnce.Do(func() {
		src, err := assets.Sprites()
		if err != nil {
			atlasErr = fmt.Errorf("sprite atlas: %w", err)
			return
		}
		img := ebiten.NewImageFromImage(src)
		sub := func(r image.Rectangle) *ebiten.Image { return img.SubImage(r).(*ebiten.Image) }
		a := &Atlas{Image: img, Pixel: sub(assets.Pixel), Life: sub(assets.LifeIcon)}
		for i, r := range assets.ShipFrames {
			a.Ship[i] = sub(r)
		}
		for i, r := range assets.ShipAccent {
			a.ShipAccent[i] = sub(r)
		}
		for i, r := range assets.MissileFrames {
			a.Missile[i] = sub(r)
		}
		for i, r := range assets.BydosFrames {
			a.Bydos[i] = sub(r)
		}
		for i, r := range assets.EnemyMissileFrames {
			a.EnemyMissile[i] = sub(r)
		}
		for i, r := range assets.ExplosionFrames {
			a.Explosion[i] = sub(r)
		}
		for i, r := range assets.MuzzleFrames {
			a.Muzzle[i] = sub(r)
		}
		for i, r := range assets.StarFrames {
			a.Star[i] = sub(r)
		}
		for i, r := range assets.PaletteMissileFrames {
			a.PaletteMissile[i] = sub(r)
		}
		for i, r := range assets.PaletteEnemyMissileFrames {
			a.PaletteEnemyMissile[i] = sub(r)
		}
		a.loadStage(sub)
		atlas = a
	})
	return atlas, atlasErr
}

// PlayerColors are the players' colours in the palette in use (SetStyle);
// the normal palette's are cyan, magenta, yellow, green.
var PlayerColors = model.Palettes[model.PaletteNormal].Players

// PlayerColor returns player p's colour (white for no player).
func PlayerColor(p uint8) color.RGBA {
	if int(p) < len(PlayerColors) {
		return PlayerColors[p]
	}
	return color.RGBA{0xff, 0xff, 0xff, 0xff}
}

// PlayerColorNames name the normal palette's colours, for people
// (PlayerColorName names those in use).
var PlayerColorNames = model.PlayerColorNames

// Palette of the interface.
var (
	ColBackground = color.RGBA{0x05, 0x06, 0x12, 0xff}
	ColText       = color.RGBA{0xea, 0xee, 0xff, 0xff}
	ColDim        = color.RGBA{0x8a, 0x93, 0xb8, 0xff}
	ColAccent     = model.Palettes[model.PaletteNormal].Accent
	ColWarn       = model.Palettes[model.PaletteNormal].Warn
	ColGold       = model.Palettes[model.PaletteNormal].Gold
	ColPanel      = color.RGBA{0x0c, 0x10, 0x26, 0xff}
	ColPanelEdge  = color.RGBA{0x2a, 0x34, 0x66, 0xff}
)

// DrawOpts are the options of DrawSprite.
type DrawOpts struct {
	// Scale multiplies the sprite's size (0 means 1).
	Scale float64
	// Tint, when its alpha is not 0, multiplies the sprite's colour.
	Tint color.RGBA
	// Alpha multiplies the opacity (0 means 1).
	Alpha float64
	// Blend is the blend mode (the zero value is normal alpha blending).
	Blend ebiten.Blend
	// FlipX mirrors the sprite left to right, FlipY top to bottom.
	FlipX, FlipY bool
	// Rotate turns the sprite about its centre by this angle, in radians,
	// clockwise on the screen (y down).
	Rotate float64
}

// DrawSprite draws img centred on (cx, cy).
func DrawSprite(dst, img *ebiten.Image, cx, cy float64, o DrawOpts) {
	b := img.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	s := o.Scale
	if s == 0 {
		s = 1
	}
	var op ebiten.DrawImageOptions
	if o.FlipX {
		op.GeoM.Scale(-1, 1)
		op.GeoM.Translate(w, 0)
	}
	if o.FlipY {
		op.GeoM.Scale(1, -1)
		op.GeoM.Translate(0, h)
	}
	op.GeoM.Translate(-w/2, -h/2)
	if o.Rotate != 0 {
		op.GeoM.Rotate(o.Rotate)
	}
	op.GeoM.Scale(s, s)
	op.GeoM.Translate(cx, cy)
	if o.Tint.A != 0 {
		scaleRGBA(&op.ColorScale, o.Tint)
	}
	if o.Alpha != 0 {
		op.ColorScale.ScaleAlpha(float32(o.Alpha))
	}
	op.Blend = o.Blend
	if o.Rotate != 0 {
		op.Filter = ebiten.FilterLinear
	} else if s != 1 && s == float64(int(s)) {
		op.Filter = ebiten.FilterNearest
	} else if s != 1 {
		op.Filter = ebiten.FilterLinear
	}
	dst.DrawImage(img, &op)
}

// FillRect fills a rectangle with clr (its alpha included) using the
// atlas's white pixel.
func (a *Atlas) FillRect(dst *ebiten.Image, x, y, w, h float64, clr color.Color) {
	if w <= 0 || h <= 0 {
		return
	}
	var op ebiten.DrawImageOptions
	op.GeoM.Scale(w, h)
	op.GeoM.Translate(x, y)
	op.ColorScale.ScaleWithColor(clr)
	dst.DrawImage(a.Pixel, &op)
}

// scaleRGBA multiplies cs by c (premultiplied), as ScaleWithColor does,
// without boxing c in an interface (an allocation per call).
func scaleRGBA(cs *ebiten.ColorScale, c color.RGBA) {
	cs.Scale(float32(c.R)/0xff, float32(c.G)/0xff, float32(c.B)/0xff, float32(c.A)/0xff)
}

// rect is FillRect for a color.RGBA: it allocates nothing.
func (a *Atlas) rect(dst *ebiten.Image, x, y, w, h float64, c color.RGBA) {
	if w <= 0 || h <= 0 {
		return
	}
	var op ebiten.DrawImageOptions
	op.GeoM.Scale(w, h)
	op.GeoM.Translate(x, y)
	scaleRGBA(&op.ColorScale, c)
	dst.DrawImage(a.Pixel, &op)
}

// stroke is StrokeRect for a color.RGBA: it allocates nothing.
func (a *Atlas) stroke(dst *ebiten.Image, x, y, w, h, t float64, c color.RGBA) {
	a.rect(dst, x, y, w, t, c)
	a.rect(dst, x, y+h-t, w, t, c)
	a.rect(dst, x, y+t, t, h-2*t, c)
	a.rect(dst, x+w-t, y+t, t, h-2*t, c)
}

// StrokeRect draws the outline of a rectangle, t pixels thick, inside it.
func (a *Atlas) StrokeRect(dst *ebiten.Image, x, y, w, h, t float64, clr color.Color) {
	a.FillRect(dst, x, y, w, t, clr)
	a.FillRect(dst, x, y+h-t, w, t, clr)
	a.FillRect(dst, x, y+t, t, h-2*t, clr)
	a.FillRect(dst, x+w-t, y+t, t, h-2*t, clr)
}

// Fade returns c with its alpha (and, premultiplied, its colour) times a.
func Fade(c color.RGBA, a float64) color.RGBA {
	a = min(max(a, 0), 1)
	return color.RGBA{uint8(float64(c.R) * a), uint8(float64(c.G) * a), uint8(float64(c.B) * a), uint8(float64(c.A) * a)}
}

// Mix returns the colour t of the way from a to b.
func Mix(a, b color.RGBA, t float64) color.RGBA {
	t = min(max(t, 0), 1)
	l := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*t) }
	return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), l(a.A, b.A)}
}
