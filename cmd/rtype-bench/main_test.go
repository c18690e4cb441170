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

// TestQuick is the check CI relies on: `rtype-bench -quick` produces the
// table with every section, and exits 0. It checks no figure.
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every section for about 20 s")
	}
	var out, log strings.Builder
	if code := run([]string{"-quick"}, &out, &log); code != 0 {
		t.Fatalf("rtype-bench -quick exited with %d:\n%s\n%s", code, log.String(), out.String())
	}
	for _, s := range sections {
		if !strings.Contains(out.String(), "| "+s.title+" |") {
			t.Errorf("section %q missing from the table:\n%s", s.title, out.String())
		}
	}
}
