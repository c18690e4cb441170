package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// Recent are the servers joined last, newest first (at most MaxRecent).
	Recent []string `json:"recent_servers"`
	// ShowNetStats shows the network overlay (F3).
	ShowNetStats bool `json:"show_net_stats,omitempty"`
}

// DefaultSettings returns the settings of a first run.
func DefaultSettings() Settings {
	return Settings{
		MusicVolume:   0.6,
		EffectsVolume: 0.8,
		Keys:          DefaultKeymap(),
	}
}

// Sanitize brings loaded values back into range: volumes within 0 to 1,
// every action bound (missing or unknown keys replaced by the defaults),
// at most MaxRecent valid recent servers. validKey tells whether a key name
// is known; nil accepts every non-empty name.
func (s *Settings) Sanitize(validKey func(string) bool) {
	clamp := func(v float64) float64 {
		if math.IsNaN(v) {
			return 0
		}
		return min(max(v, 0), 1)
	}
	s.MusicVolume = clamp(s.MusicVolume)
	s.EffectsVolume = clamp(s.EffectsVolume)
	s.Keys = s.Keys.Sanitized(validKey)
	var recent []string
	for _, r := range s.Recent {
		a, err := NormalizeAddr(r)
		if err != nil || len(recent) >= MaxRecent || slices.ContainsFunc(recent, func(b string) bool { return strings.EqualFold(a, b) }) {
			continue
		}
		recent = append(recent, a)
	}
	s.Recent = recent
}

// DefaultSettingsPath is os.UserConfigDir()/rtype/settings.json.
func DefaultSettingsPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "rtype", "settings.json"), nil
}

// LoadSettings reads the settings file at path. A missing file gives the
// defaults and no error. A file that cannot be read or parsed gives the
// defaults and an error saying why (the caller logs it and goes on).
func LoadSettings(path string, validKey func(string) bool) (Settings, error) {
	s := DefaultSettings()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("settings %s: %w", path, err)
	}
	loaded := DefaultSettings()
	if err := json.Unmarshal(b, &loaded); err != nil {
		return s, fmt.Errorf("settings %s are corrupt, using the defaults: %w", path, err)
	}
	loaded.Sanitize(validKey)
	return loaded, nil
}

// SaveSettings writes s to path as indented JSON, creating the directories,
// through a temporary file renamed over the old one.
func SaveSettings(path string, s Settings) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(path), ".settings-*.json")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("settings: %w", werr)
	}
	return nil
}
