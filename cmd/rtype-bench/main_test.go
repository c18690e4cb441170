package main

import (
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary be the bot process of section 2, as the
// command is (startBots runs the current executable).
func TestMain(m *testing.M) {
	if spec := os.Getenv(botsEnv); spec != "" {
		os.Exit(botChild(spec))
	}
	if spec := os.Getenv(serverEnv); spec != "" {
		os.Exit(serverChild(spec))
	}
	os.Exit(m.Run())
}

// TestQuick is the check that the suite relies on: each section of
// `rtype-bench -quick` runs and gives its rows of the table. It checks no
// figure. The browser section, which measures a real Chromium's frame
// rate, is left to `./build.sh bench -quick`; the suite plays the game in
// Chromium in e2e (TestBrowserPlays).
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every section for a few seconds")
	}
	for _, s := range sections {
		if s.name == "browser" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			var out, log strings.Builder
			if code := run([]string{"-quick", "-only", s.name}, &out, &log); code != 0 {
				t.Fatalf("rtype-bench -quick -only %s exited with %d:\n%s\n%s", s.name, code, log.String(), out.String())
			}
			if !strings.Contains(out.String(), "| "+s.title+" |") {
				t.Errorf("section %q missing from the table:\n%s", s.title, out.String())
			}
		})
	}
}

// TestOnly: -only takes a list of sections, and refuses a name that is
// none.
func TestOnly(t *testing.T) {
	var out, log strings.Builder
	if code := run([]string{"-quick", "-only", "bandwidth,nope"}, &out, &log); code != 2 || !strings.Contains(log.String(), `no section "nope"`) {
		t.Errorf("-only bandwidth,nope: exit %d, log %q; want 2 and the name refused", code, log.String())
	}
	if out.Len() != 0 {
		t.Errorf("-only with a wrong name printed a table:\n%s", out.String())
	}
}
