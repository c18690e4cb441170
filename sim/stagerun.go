package sim

import "rtype/sim/stage"

// stageRun plays a stage's timeline (PROTOCOL.md 7.12).
type stageRun struct {
	st *stage.Stage
}

// newStageRun prepares the timeline of st for w, warped as opt says.
func newStageRun(w *World, st *stage.Stage, opt StageOptions) (*stageRun, error) {
	return &stageRun{st: st}, nil
}

// runStage advances the stage's timeline by one tick: waves, markers,
// music cues, bosses, the clear and the next loop.
func (w *World) runStage() {}
