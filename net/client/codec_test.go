package client

import (
	"testing"

	"rtype/net/wire"
)

// TestMinSnapshots: the fewest snapshots a second each protocol promises,
// which Stats reports: a snapshot every 3 ticks in v1 (4.3), one every
// 12 while nothing changes in v2 (7.9).
func TestMinSnapshots(t *testing.T) {
	if got := codecOf(wire.Version).minSnapshots(); got != 20 {
		t.Errorf("v1: %v a second, want 20", got)
	}
	if got := codecOf(wire.Version2).minSnapshots(); got != 5 {
		t.Errorf("v2: %v a second, want 5", got)
	}
}
