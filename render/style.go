package render

import (
	"rtype/render/model"
	"rtype/vocab"
)

// Style is how the game is drawn for its player: the palette, whether
// bright flashes show, and how large the sprites are drawn. The zero
// value is the normal look.
type Style struct {
	// Palette gives the players' colours, the HUD's accents and the
	// shots' colours (model.Palettes).
	Palette model.Palette
	// NoFlashes leaves out the bright flashes: the ship's and the boss's
	// explosion flashes and the muzzle flashes (dimmed), and draws the
	// attack warning as a steady edge. The red hit flash is the play
	// scene's, which reads the same setting.
	NoFlashes bool
	// SpriteScale draws the sprites of ships, foes, shots and items this
	// many times their size (0 means 1): shoot-'em-ups draw them larger
	// than their hitboxes, which do not change. Bosses, beams and
	// effects keep their size.
	SpriteScale float64
}

// style is the Style in use (SetStyle); drawing happens on the one game
// goroutine.
var style Style

// SetStyle makes s the Style of what is drawn from now on: the palette's
// colours become PlayerColors, ColAccent, ColWarn and ColGold. Call it
// from the game's Update, not while drawing.
func SetStyle(s Style) {
	if s.Palette >= model.NumPalettes {
		s.Palette = model.PaletteNormal
	}
	style = s
	c := &model.Palettes[s.Palette]
	PlayerColors = c.Players
	ColAccent, ColWarn, ColGold = c.Accent, c.Warn, c.Gold
}

// CurrentStyle returns the Style in use.
func CurrentStyle() Style { return style }

// PlayerColorName names player p's colour in the palette in use.
func PlayerColorName(p uint8) string {
	if int(p) < len(PlayerColors) {
		return model.Palettes[style.Palette].Names[p]
	}
	return "white"
}

// zoom is how much larger than its size a sprite is drawn.
type zoom float64

// of returns o with its scale times z.
func (z zoom) of(o DrawOpts) DrawOpts {
	if o.Scale == 0 {
		o.Scale = 1
	}
	o.Scale *= float64(z)
	return o
}

// zoomOf returns how much larger than its size an entity of kind k is
// drawn in style s: s.SpriteScale, except for bosses, their cores and
// the wave beams, whose sprites are the size of the play they take.
func zoomOf(s Style, k uint8) zoom {
	switch k {
	case vocab.KindBoss, vocab.KindMidBoss, vocab.KindBossCore, vocab.KindWaveBeam:
		return 1
	}
	if s.SpriteScale <= 0 {
		return 1
	}
	return zoom(s.SpriteScale)
}
