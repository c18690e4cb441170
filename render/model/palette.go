package model

import "image/color"

// Palette is a set of the game's colours: the normal one, or one for a
// kind of colour vision deficiency. Its zero value is PaletteNormal.
type Palette uint8

// The palettes, in the settings screen's order.
const (
	PaletteNormal Palette = iota
	// PaletteDeuteranopia is for eyes without green cones (the most
	// common deficiency), PaletteProtanopia without red cones,
	// PaletteTritanopia without blue cones.
	PaletteDeuteranopia
	PaletteProtanopia
	PaletteTritanopia
	// NumPalettes is the number of palettes.
	NumPalettes
)

// PaletteNames are the palettes' names in the settings file, by Palette.
var PaletteNames = [NumPalettes]string{"normal", "deuteranopia", "protanopia", "tritanopia"}

// String returns the palette's name in the settings file.
func (p Palette) String() string {
	if p < NumPalettes {
		return PaletteNames[p]
	}
	return PaletteNames[PaletteNormal]
}

// PaletteNamed returns the palette of a name of PaletteNames, and false
// (and PaletteNormal) for any other.
func PaletteNamed(name string) (Palette, bool) {
	for p, n := range PaletteNames {
		if n == name {
			return Palette(p), true
		}
	}
	return PaletteNormal, false
}

// Colors are a palette's colours.
type Colors struct {
	// Players are the players' colours (ships, their Forces and bits,
	// the HUD's panels, names), Names their names for people.
	Players [4]color.RGBA
	Names   [4]string
	// Accent (menus, the highlighted rows), Warn (warnings, "OUT") and
	// Gold (the leader, the row waiting for a key) are the HUD's accents.
	Accent, Warn, Gold color.RGBA
}

// Palettes are the colours of each palette. The colour-blind ones were
// chosen so that their four player colours stay at least 20 CIEDE2000
// apart both for normal eyes and for the deficiency they are named for
// (render/model's palette test says how that is measured).
var Palettes = [NumPalettes]Colors{
	PaletteNormal: {
		Players: [4]color.RGBA{{0x22, 0xe4, 0xff, 0xff}, {0xff, 0x45, 0xd0, 0xff}, {0xff, 0xd8, 0x2a, 0xff}, {0x5c, 0xff, 0x6a, 0xff}},
		Names:   [4]string{"cyan", "magenta", "yellow", "green"},
		Accent:  color.RGBA{0x22, 0xe4, 0xff, 0xff},
		Warn:    color.RGBA{0xff, 0x6b, 0x4a, 0xff},
		Gold:    color.RGBA{0xff, 0xd2, 0x4a, 0xff},
	},
	PaletteDeuteranopia: {
		Players: [4]color.RGBA{{0x40, 0xff, 0xff, 0xff}, {0xff, 0x40, 0x80, 0xff}, {0xff, 0xff, 0x00, 0xff}, {0x40, 0x80, 0xff, 0xff}},
		Names:   [4]string{"cyan", "pink", "yellow", "blue"},
		Accent:  color.RGBA{0x40, 0xc0, 0xff, 0xff},
		Warn:    color.RGBA{0xff, 0x40, 0x80, 0xff},
		Gold:    color.RGBA{0xff, 0xe8, 0x30, 0xff},
	},
	PaletteProtanopia: {
		Players: [4]color.RGBA{{0x00, 0xff, 0xff, 0xff}, {0xe0, 0x00, 0xff, 0xff}, {0xff, 0xff, 0x40, 0xff}, {0xff, 0x40, 0x00, 0xff}},
		Names:   [4]string{"cyan", "violet", "yellow", "orange"},
		Accent:  color.RGBA{0x40, 0xc0, 0xff, 0xff},
		Warn:    color.RGBA{0xff, 0x40, 0x00, 0xff},
		Gold:    color.RGBA{0xff, 0xf0, 0x40, 0xff},
	},
	PaletteTritanopia: {
		Players: [4]color.RGBA{{0x00, 0xff, 0x80, 0xff}, {0x80, 0x80, 0xb0, 0xff}, {0xff, 0xe0, 0xb0, 0xff}, {0xff, 0x40, 0x00, 0xff}},
		Names:   [4]string{"green", "lavender", "cream", "orange"},
		Accent:  color.RGBA{0x00, 0xe0, 0xc0, 0xff},
		Warn:    color.RGBA{0xff, 0x30, 0x40, 0xff},
		Gold:    color.RGBA{0xff, 0xe0, 0xb0, 0xff},
	},
}

// PlayerColorNames name the players' colours of the normal palette, for
// people, by player number.
var PlayerColorNames = Palettes[PaletteNormal].Names
