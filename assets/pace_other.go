//go:build !js

package assets

// pace is called for each sample synthesised; it does nothing where the
// synthesis has threads of its own (pace_js.go).
func pace() {}
