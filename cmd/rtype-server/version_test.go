package main

import (
	"os/exec"
	"strings"
	"testing"

	"rtype/internal/version"
)

// TestVersionFlag: -version prints "rtype-server VERSION" and exits 0,
// serving nothing. The version is the build's (package version: "dev"
// for a test build; ./build.sh release stamps its own, which
// internal/release's TestRelease reads back).
func TestVersionFlag(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "-version", "-listen", "256.0.0.1:1").Output()
	if err != nil {
		t.Fatalf("-version: %v (%s)", err, out)
	}
	// go build stamps the commit when it may (dev+COMMIT), go test never:
	// the binary's version is a "dev" one, not necessarily this one's.
	got := strings.TrimSpace(string(out))
	if v, ok := strings.CutPrefix(got, "rtype-server "); !ok || !strings.HasPrefix(v, "dev") || strings.ContainsAny(v, " \n") {
		t.Fatalf("-version printed %q, want \"rtype-server dev...\" (this test binary's version: %s)", got, version.String())
	}
}
