package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Ext is the file name extension of recordings.
const Ext = ".rtreplay"

// DefaultCap is the default disk cap of a directory of recordings.
const DefaultCap = 200 << 20

// DefaultDir returns where a player's recordings are kept:
// $XDG_DATA_HOME/rtype/replays, else ~/.local/share/rtype/replays, else
// os.UserConfigDir()/rtype/replays.
func DefaultDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "rtype", "replays"), nil
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".local", "share", "rtype", "replays"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("replay: no data directory: %w", err)
	}
	return filepath.Join(d, "rtype", "replays"), nil
}

// Entry is a recording of a directory.
type Entry struct {
	Path    string
	Size    int64
	ModTime time.Time
}

// List returns the recordings of dir, newest first. A missing directory
// has none.
func List(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, de := range des {
		if de.IsDir() || !strings.HasSuffix(de.Name(), Ext) {
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue
		}
		out = append(out, Entry{Path: filepath.Join(dir, de.Name()), Size: info.Size(), ModTime: info.ModTime()})
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(b.Path, a.Path)
	})
	return out, nil
}

// Prune removes the oldest recordings of dir until they take at most
// limit bytes with room for reserve more, and returns how many it
// removed.
func Prune(dir string, limit, reserve int64) (int, error) {
	list, err := List(dir)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, e := range list {
		total += e.Size
	}
	removed := 0
	for i := len(list) - 1; i >= 0 && total+reserve > limit; i-- {
		if err := os.Remove(list[i].Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		total -= list[i].Size
		removed++
	}
	return removed, nil
}

// Create makes dir, prunes it so that a new recording of up to reserve
// bytes fits under limit, and creates the file of a new recording named
// for now and tag.
func Create(dir string, limit, reserve int64, now time.Time, tag string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if _, err := Prune(dir, limit, reserve); err != nil {
		return nil, err
	}
	name := now.UTC().Format("20060102-150405.000")
	if tag != "" {
		name += "-" + safeTag(tag)
	}
	return os.OpenFile(filepath.Join(dir, name+Ext), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
}

// safeTag keeps the letters, digits and dashes of s, at most 32.
func safeTag(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 32 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
