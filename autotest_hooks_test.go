//go:build !js

package main

import (
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTestHooks: the game players get (go build .) knows no -autotest-
// flag, neither parsing it nor in its usage; the tests' build (-tags
// autotest, main_test.go's) parses them into the options. This test's own
// build is checked in process (the first, as ./build.sh test runs it),
// the tests' game by its usage.
func TestTestHooks(t *testing.T) {
	needDisplay(t)
	help, _ := exec.Command(buildGame(t, t.TempDir(), raceEnabled), "-help").CombinedOutput()
	if !strings.Contains(string(help), "-autotest-quit-after") {
		t.Errorf("the tests' game has no test hooks in its usage:\n%s", help)
	}
	args := []string{"-autotest-quit-after", "2s", "-autotest-input", "fire:forever", "-autotest-screenshot", "a.png",
		"-autotest-screenshot-after", "1s", "-autotest-screenshot-players", "2", "-autotest-lobby", "host", "-autotest-quick-death"}
	var usage strings.Builder
	parseFlags([]string{"-help"}, &usage)
	if !autotestBuild {
		for i := 0; i < len(args); i++ {
			if !strings.HasPrefix(args[i], "-autotest-") {
				continue
			}
			_, _, err := parseFlags(args[i:i+1], io.Discard)
			if err == nil || !strings.Contains(err.Error(), "flag provided but not defined: "+args[i]) {
				t.Errorf("%s: error %v, want the flag undefined", args[i], err)
			}
		}
		if strings.Contains(usage.String(), "autotest") {
			t.Errorf("the usage names a test hook:\n%s", usage.String())
		}
		return
	}
	opt, _, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if opt.QuitAfter != 2*time.Second || len(opt.InputScript) != 1 || opt.Screenshot != "a.png" || opt.ScreenshotAfter != time.Second ||
		opt.ScreenshotPlayers != 2 || opt.LobbyScript != "host" || !opt.QuickDeath {
		t.Errorf("%q: %+v", args, opt)
	}
	if !strings.Contains(usage.String(), "-autotest-quit-after") {
		t.Errorf("the usage of the tests' build lacks the test hooks:\n%s", usage.String())
	}
}
