package game

import (
	"testing"

	"rtype/internal/version"
)

// TestTitleVersion: the title screen's corner line is the version the
// build stamped (./build.sh release: -X rtype/internal/version.Version),
// not Go's pseudo-version of the commit.
func TestTitleVersion(t *testing.T) {
	defer func(v string) { version.Version = v }(version.Version)
	version.Version = "v7.7.7-title"
	g := newTestGame(t, Options{})
	if g.version != "version v7.7.7-title" {
		t.Fatalf("the title screen shows %q", g.version)
	}
}
