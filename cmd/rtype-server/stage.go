package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"

	"rtype/server"
	"rtype/sim/stage"
)

// stageFlags are the Stage mode flags as given: -mode, -stage, -warp.
type stageFlags struct {
	mode, stage, warp string
}

// resolveStage finds the stage -stage names: a built-in stage's name or a
// stage file. "" is nil: the server's default, the built-in stage "1".
func resolveStage(arg string) (*stage.Stage, error) {
	if arg == "" {
		return nil, nil
	}
	return stage.Resolve(arg)
}

// warpMarker is the form of a marker's name in -warp.
var warpMarker = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// apply checks the flags and sets the mode, the stage and the warp of cfg;
// an error names the flag. (server.New then checks that the stage starts
// with that warp: server.ErrConfig.)
func (f stageFlags) apply(cfg *server.Config) error {
	mode, err := server.ParseMode(f.mode)
	if err != nil {
		return fmt.Errorf("-mode: %w", err)
	}
	st, err := resolveStage(f.stage)
	if err != nil {
		return fmt.Errorf("-stage %q: %w", f.stage, err)
	}
	if f.warp != "" {
		if s, err := strconv.ParseFloat(f.warp, 64); err == nil {
			if s < 0 || math.IsInf(s, 0) || math.IsNaN(s) {
				return fmt.Errorf("-warp %q: seconds must be a number of 0 or more", f.warp)
			}
		} else if !warpMarker.MatchString(f.warp) {
			return fmt.Errorf("-warp %q: seconds (90) or a marker's name (boss)", f.warp)
		}
	}
	cfg.Mode, cfg.Stage, cfg.Warp = mode, st, f.warp
	return nil
}
