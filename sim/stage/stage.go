// Package stage is the stage file format of Stage mode: a stage is data, a
// timeline of waves, markers and music cues that package sim plays. It
// parses and checks stage files, and holds the stages built into the
// binaries. It has no Ebitengine, sockets or clocks.
package stage

// Stage is one parsed and checked stage. (The stage-format owner fills it.)
type Stage struct {
	// Name is the stage's short name ("1"), Title what the intro shows.
	Name, Title string
}
