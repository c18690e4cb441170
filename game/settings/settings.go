// Package settings is what the game client remembers between runs, and
// its file: the player's name, the volumes, the display, the recent
// servers, and the bindings of the keyboard and the standard gamepad to
// the actions of the play and of the menus. It never imports Ebitengine,
// so its tests run without a display; the names of the keys it stores are
// Ebitengine's, checked by the caller (Checks).
package settings

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"rtype/net/wire"
)

// Settings are what the game remembers between runs.
type Settings struct {
	// Name is the player's name; empty until the first-run name entry.
	Name string `json:"name"`
	// MusicVolume and EffectsVolume are 0 to 1.
	MusicVolume   float64 `json:"music_volume"`
	EffectsVolume float64 `json:"effects_volume"`
	// Mute keeps the game silent: no audio device is ever opened.
	Mute bool `json:"mute"`
	// Fullscreen starts the game fullscreen.
	Fullscreen bool `json:"fullscreen"`
	// Keys are the keyboard bindings of the actions.
	Keys Keymap `json:"keys"`
	// Pad are the standard gamepad bindings of the actions. A file
	// written before they existed gets the defaults.
	Pad Padmap `json:"pad"`
	// Recent are the servers joined last, newest first (at most MaxRecent).
	Recent []string `json:"recent_servers"`
	// ShowNetStats shows the network overlay (F3).
	ShowNetStats bool `json:"show_net_stats,omitempty"`
	// JoinMode is the game mode asked for when joining a server: one of
	// the JoinModes (ModeStage, the default; ModeClassic; ModeServer).
	JoinMode string `json:"join_mode"`

	// Palette is the colours: one of Palettes ("normal", the default;
	// "deuteranopia", "protanopia", "tritanopia").
	Palette string `json:"palette"`
	// ScreenShake shakes the screen when the own ship or a boss blows up
	// (default on).
	ScreenShake bool `json:"screen_shake"`
	// Flashes shows the bright flashes: the red hit flash, the flashing
	// attack warning, the explosions' and the muzzles' flashes (default
	// on).
	Flashes bool `json:"flashes"`
	// UIScale is the size of the HUD's and the menus' text, in percent:
	// one of UIScales (default 100).
	UIScale int `json:"ui_scale"`
	// SpriteScale is the size the sprites are drawn at, in percent of
	// their hitboxes: one of SpriteScales (default 100). The hitboxes do
	// not change.
	SpriteScale int `json:"sprite_scale"`
	// ReplayCapMB is the most the recordings of the games played may take
	// on disk, in MiB (default 200): the oldest go first. 0 records
	// nothing.
	ReplayCapMB int `json:"replay_cap_mb"`
	// Rendezvous is where a hosted game registers its room codes and
	// where the join screen looks a code up, so that friends anywhere
	// join by code (PROTOCOL.md Part V): host:port; "" the build's default
	// (rendezvous.Default, which may be none); RendezvousOff none.
	Rendezvous string `json:"rendezvous,omitempty"`
}

// Palettes are the values of Settings.Palette, in the settings screen's
// order (those of render/model.PaletteNames).
var Palettes = []string{"normal", "deuteranopia", "protanopia", "tritanopia"}

// Settings.ReplayCapMB: the default, and the most (100 GiB).
const (
	DefaultReplayCapMB = 200
	MaxReplayCapMB     = 100 << 10
)

// UIScales and SpriteScales are the values of Settings.UIScale and
// Settings.SpriteScale, in percent.
var (
	UIScales     = []int{100, 125, 150}
	SpriteScales = []int{100, 125, 150}
)

// Next returns the value d steps after v in values, wrapping around; a v
// not in values counts as the first.
func Next[T comparable](values []T, v T, d int) T {
	n := len(values)
	i := max(slices.Index(values, v), 0)
	return values[((i+d)%n+n)%n]
}

// The game modes a player can ask for when joining (Settings.JoinMode).
const (
	// ModeStage asks for Stage mode (wire.ModeStage).
	ModeStage = "stage"
	// ModeClassic asks for the Classic game (wire.ModeClassic).
	ModeClassic = "classic"
	// ModeServer lets the server choose (wire.ModeAny).
	ModeServer = "server"
)

// JoinModes are the values of Settings.JoinMode, in the settings screen's
// order.
var JoinModes = []string{ModeStage, ModeClassic, ModeServer}

// WireMode returns the login's mode (wire.ModeStage, ModeClassic or
// ModeAny) of a JoinMode; an unknown one asks for Stage.
func WireMode(mode string) uint8 {
	switch mode {
	case ModeClassic:
		return wire.ModeClassic
	case ModeServer:
		return wire.ModeAny
	}
	return wire.ModeStage
}

// ModeLabel is how a JoinMode shows in the settings screen.
func ModeLabel(mode string) string {
	switch mode {
	case ModeClassic:
		return "Classic"
	case ModeServer:
		return "Server's choice"
	}
	return "Stage"
}

// Default returns the settings of a first run.
func Default() Settings {
	return Settings{
		MusicVolume:   0.6,
		EffectsVolume: 0.8,
		Keys:          DefaultKeymap(),
		Pad:           DefaultPadmap(),
		JoinMode:      ModeStage,
		Palette:       "normal",
		ScreenShake:   true,
		Flashes:       true,
		UIScale:       100,
		SpriteScale:   100,
		ReplayCapMB:   DefaultReplayCapMB,
	}
}

// Checks are the rules of the names a settings file holds that this
// package does not own. A nil check accepts every non-empty name.
type Checks struct {
	// Key reports whether a key name is a key of the keyboard.
	Key func(name string) bool
	// Addr normalizes a server address ("host" to "host:port"), or says
	// why it is not one.
	Addr func(addr string) (string, error)
}

// Sanitize brings loaded values back into range: volumes within 0 to 1,
// every action bound (unknown, reserved or missing bindings replaced by
// the defaults), at most MaxRecent valid recent servers, a known palette
// and join mode, scales among those offered (the nearest), a rendezvous
// that is an address (else the default).
func (s *Settings) Sanitize(c Checks) {
	clamp := func(v float64) float64 {
		if math.IsNaN(v) {
			return 0
		}
		return min(max(v, 0), 1)
	}
	s.MusicVolume = clamp(s.MusicVolume)
	s.EffectsVolume = clamp(s.EffectsVolume)
	s.Keys = s.Keys.Sanitized(c.Key)
	s.Pad = s.Pad.Sanitized()
	s.Recent = sanitizeRecent(s.Recent, c.Addr)
	if !slices.Contains(JoinModes, s.JoinMode) {
		s.JoinMode = ModeStage
	}
	if !slices.Contains(Palettes, s.Palette) {
		s.Palette = "normal"
	}
	s.UIScale = nearest(UIScales, s.UIScale)
	s.SpriteScale = nearest(SpriteScales, s.SpriteScale)
	s.ReplayCapMB = min(max(s.ReplayCapMB, 0), MaxReplayCapMB)
	if r, err := ParseRendezvous(s.Rendezvous); err != nil {
		s.Rendezvous = ""
	} else {
		s.Rendezvous = r
	}
}

// nearest returns the value of values closest to v.
func nearest(values []int, v int) int {
	best := values[0]
	for _, x := range values {
		if abs(x-v) < abs(best-v) {
			best = x
		}
	}
	return best
}

func abs(v int) int { return max(v, -v) }

// sanitizeRecent normalizes the addresses of list and drops the invalid
// ones, the copies (ignoring case) and those beyond MaxRecent.
func sanitizeRecent(list []string, norm func(string) (string, error)) []string {
	if norm == nil {
		norm = func(a string) (string, error) { return strings.TrimSpace(a), nil }
	}
	var out []string
	for _, r := range list {
		a, err := norm(r)
		if err != nil || a == "" || len(out) >= MaxRecent || slices.ContainsFunc(out, func(b string) bool { return strings.EqualFold(a, b) }) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// decode parses b, the settings stored at where, over the defaults: the
// defaults and an error saying why when it does not parse.
func decode(b []byte, where string, c Checks) (Settings, error) {
	loaded := Default()
	if err := json.Unmarshal(b, &loaded); err != nil {
		return Default(), fmt.Errorf("settings %s are corrupt, using the defaults: %w", where, err)
	}
	loaded.Sanitize(c)
	return loaded, nil
}
