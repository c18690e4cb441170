package game

import (
	"fmt"
	"os"

	"rtype/sim/stage"
)

// resolveStage returns the stage of a -stage NAME|FILE: a built-in stage
// of that name, else the stage file at that path. It is the one place that
// asks package sim/stage (stage.Resolve once its parser lands; until then
// a name is taken as is and a file must be readable).
func resolveStage(nameOrFile string) (*stage.Stage, error) {
	if nameOrFile == "1" {
		return &stage.Stage{Name: "1"}, nil
	}
	if _, err := os.Stat(nameOrFile); err != nil {
		return nil, fmt.Errorf("stage %q: neither a built-in stage (1) nor a file: %w", nameOrFile, err)
	}
	return &stage.Stage{Name: nameOrFile}, nil
}
