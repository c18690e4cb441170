// Package assets holds the game's embedded art, fonts and synthesised sounds.
//
// The sprite atlas (sprites.png) and its rectangles (atlas_gen.go) are drawn
// procedurally by GenerateAtlas (gen.go; Stage mode's sprites in
// gen_stage.go and gen_boss.go) and written by cmd/rtype-assetgen; the
// tests check that the committed files match the generator. Sounds are
// synthesised at run time (sound.go; Stage mode's in sound_stage.go, the
// charge hum as it plays). The package does not depend on Ebitengine.
//
// After a change to the drawing, `go generate ./assets` writes the atlas
// again.
package assets

//go:generate go run ../cmd/rtype-assetgen -out .

import (
	"bytes"
	_ "embed"
	"image"
	"image/png"
	"sync"

	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
)

// SpritesPNG is the PNG-encoded sprite atlas; the sprite rectangles are
// declared in atlas_gen.go.
//
//go:embed sprites.png
var SpritesPNG []byte

// FontRegular is the Go Regular TrueType font, for titles and HUD text.
var FontRegular = goregular.TTF

// FontMono is the Go Mono TrueType font, for scores and debug text.
var FontMono = gomono.TTF

var (
	spritesOnce sync.Once
	spritesImg  image.Image
	spritesErr  error
)

// Sprites decodes SpritesPNG once and returns the atlas image (non
// premultiplied RGBA). The returned image is shared and must not be modified.
func Sprites() (image.Image, error) {
	spritesOnce.Do(func() {
		spritesImg, spritesErr = png.Decode(bytes.NewReader(SpritesPNG))
	})
	return spritesImg, spritesErr
}
