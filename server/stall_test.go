package server

import (
	"testing"
	"time"

	"rtype/net/link"
)

// TestStallWatch: a tick later than stallGap ends a stall; silences and
// bind times then count from it at most; a tick older than the newest
// (a test's hand-run tick ahead of the loop) is no stall.
func TestStallWatch(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	var w stallWatch
	l := link.New(1, t0) // heard at t0
	for i, tc := range []struct {
		at      time.Duration
		stalled time.Duration
	}{{0, 0}, {16 * time.Millisecond, 0}, {stallGap, 0}, {3 * time.Second, 3*time.Second - stallGap}, {2 * time.Second, 0}, {3*time.Second + 16*time.Millisecond, 0}} {
		if got := w.tick(t0.Add(tc.at)); got != tc.stalled {
			t.Errorf("tick %d at %v: stalled %v, want %v", i, tc.at, got, tc.stalled)
		}
	}
	now := t0.Add(3500 * time.Millisecond)
	if got := w.silence(l, now); got != 500*time.Millisecond {
		t.Errorf("silence %v after the stall, want 500ms (the link's own: %v)", got, l.Silence(now))
	}
	if got := w.since(t0.Add(time.Second), now); got != 500*time.Millisecond {
		t.Errorf("since a start in the stall: %v, want 500ms", got)
	}
	if got := w.since(t0.Add(3200*time.Millisecond), now); got != 300*time.Millisecond {
		t.Errorf("since a start after the stall: %v, want 300ms", got)
	}
	l2 := link.New(2, t0.Add(3400*time.Millisecond))
	if got := w.silence(l2, now); got != 100*time.Millisecond {
		t.Errorf("a link heard after the stall: silence %v, want 100ms", got)
	}
}
