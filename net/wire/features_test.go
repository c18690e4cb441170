package wire

import "testing"

// TestFeatures checks the features a login negotiates: none in v1, all
// in v2 of revision 4 or later.
func TestFeatures(t *testing.T) {
	if f := NewFeatures(Version, 0); f != (Features{}) {
		t.Errorf("v1: %+v", f)
	}
	all := Features{Motions: true, Rules: true, Modes: true, Chat: true, Rooms: true, Scores: true, Spectate: true, Fleet: true,
		EventsAtSnapshots: true, EventsInSnapshot: true}
	for _, rev := range []uint8{Revision, Revision + 1, 255} {
		if f := NewFeatures(Version2, rev); f != all {
			t.Errorf("v2 revision %d: %+v", rev, f)
		}
	}
	if f := NewFeatures(Version2, Revision-1); f != (Features{}) {
		t.Errorf("v2 revision %d: %+v", Revision-1, f)
	}
}
