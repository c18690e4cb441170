package game

import (
	"testing"

	"rtype/game/view"
)

// TestNetLinesFewSnapshots: F3 flags the snapshot rate when it is under
// 3 in 4 of what the session's protocol promises (Stats.
// MinSnapshotsPerSec): 20 a second in v1, 5 in v2 while nothing changes.
func TestNetLinesFewSnapshots(t *testing.T) {
	for _, tc := range []struct {
		min, got float64
		warn     bool
	}{{20, 20, false}, {20, 15, false}, {20, 14.9, true}, {5, 5, false}, {5, 3.8, false}, {5, 3.7, true}, {5, 0, true}} {
		n := &view.Net{}
		n.Stats.MinSnapshotsPerSec, n.Stats.SnapshotsPerSec = tc.min, tc.got
		for _, l := range netLines(n, "") {
			if l.Label == "snapshots" && l.Warn != tc.warn {
				t.Errorf("%.1f /s of at least %.0f: warn %v, want %v", tc.got, tc.min, l.Warn, tc.warn)
			}
		}
	}
}
