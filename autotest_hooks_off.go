//go:build !autotest && !js

package main

import (
	"flag"

	"rtype/game"
)

// autotestBuild says whether this build has the test hooks.
const autotestBuild = false

// testHooks defines no flag: the game players get has no test hook
// (autotest_hooks.go, built with -tags autotest).
func testHooks(*flag.FlagSet) func(*game.Options) error {
	return func(*game.Options) error { return nil }
}
