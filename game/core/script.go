package core

import (
	"fmt"
	"strings"
	"time"

	"rtype/net/wire"
)

// InputStep is a step of a test input script: actions held for a while.
type InputStep struct {
	Actions uint8
	// For is how long the step lasts; 0 is for ever.
	For time.Duration
}

// DefaultHold is how long a step without a duration holds its actions.
const DefaultHold = 3 * time.Second

// ParseInputScript parses a test input script: steps separated by commas,
// each actions joined by '+' (up, down, left, right, fire, force, or none), then
// optionally ':' and a duration ("forever" never ends). A step without a
// duration lasts DefaultHold. Example: "right+fire" holds Right and Fire
// for 3 s; "right+fire:1s,up:500ms,fire:forever".
func ParseInputScript(spec string) ([]InputStep, error) {
	var steps []InputStep
	for part := range strings.SplitSeq(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		acts, dur, hasDur := strings.Cut(part, ":")
		st := InputStep{For: DefaultHold}
		if hasDur {
			switch d := strings.TrimSpace(dur); d {
			case "forever", "0":
				st.For = 0
			default:
				v, err := time.ParseDuration(d)
				if err != nil || v <= 0 {
					return nil, fmt.Errorf("input script step %q: bad duration %q", part, d)
				}
				st.For = v
			}
		}
		for a := range strings.SplitSeq(acts, "+") {
			switch strings.ToLower(strings.TrimSpace(a)) {
			case "up":
				st.Actions |= wire.ActionUp
			case "down":
				st.Actions |= wire.ActionDown
			case "left":
				st.Actions |= wire.ActionLeft
			case "right":
				st.Actions |= wire.ActionRight
			case "fire":
				st.Actions |= wire.ActionFire
			case "force":
				st.Actions |= wire.ActionForce
			case "none", "":
			default:
				return nil, fmt.Errorf("input script step %q: unknown action %q (up, down, left, right, fire, force, none)", part, a)
			}
		}
		steps = append(steps, st)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("input script %q has no step", spec)
	}
	return steps, nil
}

// ScriptActions returns the actions a script holds at elapsed time into
// it; 0 once it is over.
func ScriptActions(steps []InputStep, elapsed time.Duration) uint8 {
	for _, st := range steps {
		if st.For == 0 || elapsed < st.For {
			return st.Actions
		}
		elapsed -= st.For
	}
	return 0
}
