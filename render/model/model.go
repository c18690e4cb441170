// Package model is what package render draws, as plain data: the sprites
// of the world, the effects (explosions, muzzle flashes) and notices with
// their timing, the HUD's lines and geometry, and the parallax starfield's
// layout. It imports no Ebitengine and nothing of the game, so the
// headless client view (rtype/game/view) builds these values, and tests
// check them, without a display; render only turns them into pixels.
package model

// The logical screen size (the game's Layout) and the play area's.
const (
	Width  = 1280
	Height = 720
)

// Sprite is an entity to draw: what it is and where, in logical pixels.
type Sprite struct {
	// ID is the entity's network id (it desynchronises the animations).
	ID uint32
	// Kind is a wire.Kind*, Owner a player or wire.NoPlayer, Frame the
	// sprite frame the server sent.
	Kind, Owner, Frame uint8
	// X and Y are the center of the sprite.
	X, Y float64
}

// HUDPlayer is a player's line of the HUD.
type HUDPlayer struct {
	Present bool
	Name    string
	Score   uint32
	Lives   int
	// HasShip is false while the player has no ship.
	HasShip bool
	// Local marks this client's player; Leader the best score.
	Local, Leader bool
	// Behind is set when something of the play area is under the panel:
	// it is then drawn see-through.
	Behind bool
}

// HUD geometry: four panels along the top edge, one per player number.
const (
	HUDMargin = 16
	HUDGap    = 12
	HUDTop    = 10
	HUDHeight = 60
	HUDWidth  = (Width - 2*HUDMargin - 3*HUDGap) / 4
)

// HUDSlotX returns the left edge of player p's HUD panel.
func HUDSlotX(p int) float64 { return float64(HUDMargin + p*(HUDWidth+HUDGap)) }

// HUDSlotAt returns the HUD panel a point of the play area is under (with
// a margin of m pixels), or -1.
func HUDSlotAt(x, y, m float64) int { return HUDSlotAtHeight(x, y, m, HUDHeight) }

// HUDSlotAtHeight is HUDSlotAt for panels h pixels high (a UI scale
// above 100 % makes them higher).
func HUDSlotAtHeight(x, y, m, h float64) int {
	if y < HUDTop-m || y >= HUDTop+h+m {
		return -1
	}
	for p := range 4 {
		if l := HUDSlotX(p); x >= l-m && x < l+HUDWidth+m {
			return p
		}
	}
	return -1
}
