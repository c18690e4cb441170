package game

import "rtype/sim/stage"

// resolveStage returns the stage of a -stage NAME|FILE: a built-in stage
// of that name, else the stage file at that path (stage.Resolve).
func resolveStage(nameOrFile string) (*stage.Stage, error) {
	return stage.Resolve(nameOrFile)
}
