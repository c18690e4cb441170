//go:build js

package assets

import "time"

// In a browser the game has one thread, which a goroutine holds until it
// blocks: synthesising a track at once (seconds of work) would freeze the
// page. So the synthesis, which runs in goroutines, paces itself: every
// paceEvery samples it looks at the clock, and once it has held the
// thread for paceSlice it sleeps, which hands the thread to the page (its
// frames, its audio). The samples are the same, only later.
const (
	paceEvery = 1024
	paceSlice = 8 * time.Millisecond
	paceRest  = time.Millisecond
)

var (
	paceCount int       // samples since the clock was last read
	paceFrom  time.Time // when the synthesis last took the thread

	// paceNow is the clock pace reads: time.Now, or a test's.
	paceNow = time.Now
	// paceCalls and paceRests count the samples paced and the rests
	// taken, for the tests.
	paceCalls, paceRests int
)

// pace is called for each sample synthesised. Only synthesis that runs in
// a goroutine of its own may call it: it sleeps.
func pace() {
	paceCalls++
	paceCount++
	if paceCount < paceEvery {
		return
	}
	paceCount = 0
	now := paceNow()
	if now.Sub(paceFrom) < paceSlice {
		return
	}
	paceRests++
	time.Sleep(paceRest)
	paceFrom = paceNow()
}
