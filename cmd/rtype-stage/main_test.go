package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun: the built-in stages check out with their summaries; a file
// with a mistake fails with the loader's error, naming the file and the
// line; a name that is neither fails; no argument is a usage error.
func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	if st := run([]string{"1", "2"}, &out, &errb); st != 0 || errb.Len() != 0 {
		t.Fatalf("built-ins: status %d, %s", st, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `1: ok: stage "1" "STAGE 1 - THE BYDO FRONT", 3:30.0 of timeline`) ||
		!strings.Contains(lines[1], `"STAGE 2 - THE WARSHIP"`) || !strings.Contains(lines[1], "boss at 3:30.0") ||
		!strings.Contains(lines[1], "terrain in ") {
		t.Errorf("summaries:\n%s", out.String())
	}

	bad := filepath.Join(t.TempDir(), "mine.stage")
	src := "rtype-stage 1\nname mine\ntitle MINE\nscroll 60\nlength 1:00\nat 0:10 wave enemy=slave count=0\nat 1:00 boss\n"
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if st := run([]string{"1", bad, "nosuch"}, &out, &errb); st != 1 {
		t.Errorf("a bad file: status %d, want 1", st)
	}
	if !strings.Contains(errb.String(), "mine.stage:6:") || !strings.Contains(errb.String(), "count") ||
		!strings.Contains(errb.String(), `"nosuch"`) || !strings.HasPrefix(out.String(), "1: ok") {
		t.Errorf("out %q, errors %q", out.String(), errb.String())
	}

	if st := run(nil, &out, &errb); st != 2 {
		t.Errorf("no argument: status %d, want 2", st)
	}
}
