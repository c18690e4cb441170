package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultPath returns where the leaderboard lives when no path is given:
// rtype/scores.db in the user's data directory, which is $XDG_DATA_HOME
// (default ~/.local/share) on Unix, ~/Library/Application Support on
// macOS and %LocalAppData% on Windows. It fails when that directory
// cannot be known (no home directory). The directory may not exist yet.
func DefaultPath() (string, error) {
	var dir string
	switch runtime.GOOS {
	case "windows":
		dir = os.Getenv("LocalAppData")
		if dir == "" {
			return "", errors.New("store: no data directory: %LocalAppData% is not set")
		}
	case "darwin", "ios":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("store: no data directory: " + err.Error())
		}
		dir = filepath.Join(home, "Library", "Application Support")
	default:
		dir = os.Getenv("XDG_DATA_HOME")
		if !filepath.IsAbs(dir) { // the XDG rule: a relative one is ignored
			home, err := os.UserHomeDir()
			if err != nil {
				return "", errors.New("store: no data directory: " + err.Error())
			}
			dir = filepath.Join(home, ".local", "share")
		}
	}
	return filepath.Join(dir, "rtype", "scores.db"), nil
}
