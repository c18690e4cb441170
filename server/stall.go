package server

import (
	"time"

	"rtype/net/link"
)

// stallGap is the lateness of a tick that makes it the end of a stall of
// the server (stallWatch): the tick loop runs at most a quarter second of
// missed ticks.
const stallGap = 250 * time.Millisecond

// stallWatch notices the server's own stalls: a tick later than stallGap
// after the one before, as when the process was stopped or its machine
// paused. The server read nothing meanwhile, so a session's silence then
// says nothing of the session: silences and bind times count from the
// end of the last stall at most (5.5), and nobody times out for the
// server's own pause. Only the tick writes it, under s.mu, before its
// shards read it.
type stallWatch struct {
	last    time.Time // the newest tick's time
	resumed time.Time // the end of the last stall
}

// tick records a tick at now and returns how long the server stalled
// before it (0 for a tick on time). A tick older than the newest one seen
// is none: only the newest counts.
func (w *stallWatch) tick(now time.Time) (stalled time.Duration) {
	if !w.last.IsZero() && now.Sub(w.last) > stallGap {
		stalled = now.Sub(w.last)
		w.resumed = now
	}
	if now.After(w.last) {
		w.last = now
	}
	return stalled
}

// silence is the link's silence at now, counted from the end of the
// last stall at most.
func (w *stallWatch) silence(l *link.Link, now time.Time) time.Duration {
	return min(l.Silence(now), now.Sub(w.resumed))
}

// since is the time from t to now, counted from the end of the last
// stall at most.
func (w *stallWatch) since(t, now time.Time) time.Duration {
	if w.resumed.After(t) {
		t = w.resumed
	}
	return now.Sub(t)
}
