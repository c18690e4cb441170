//go:build js

package assets

import (
	"testing"
	"time"
)

// maxHold is the longest TestSynthesisYields lets the synthesis hold the
// one thread of a browser: paceSlice, plus the timers' slack on a loaded
// machine and what the synthesis cannot pace, the runtime growing the
// wasm memory for its first big buffers (up to 200 ms seen here, in the
// first track only). Unpaced, each track held it for 0.6 to 1.3 s.
const maxHold = 300 * time.Millisecond

// TestSynthesisYields synthesises music in a goroutine, as the game
// does, while this goroutine wakes every millisecond, as the page's
// frames and audio do: with GOOS=js there is one thread, and the longest
// time between two wakes is how long the synthesis held it. Run with
// GOOS=js GOARCH=wasm go test -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./assets/
// (build.sh test does, with Node.js).
func TestSynthesisYields(t *testing.T) {
	for _, c := range []struct {
		name string
		gen  func() []byte
	}{{"the music", genMusic}, {"the stage music", genStageMusic}, {"the Stage effects", func() []byte {
		genBeam()
		return genBossExplosion()
	}}} {
		done := make(chan struct{})
		start := time.Now()
		go func() { c.gen(); close(done) }()
		var worst time.Duration
		wakes := 0
		last := time.Now()
	wait:
		for {
			select {
			case <-done:
				break wait
			default:
			}
			time.Sleep(time.Millisecond)
			now := time.Now()
			worst = max(worst, now.Sub(last))
			last = now
			wakes++
		}
		t.Logf("%s: synthesised in %v, the longest hold of the thread %v (%d wakes)", c.name, time.Since(start).Round(time.Millisecond), worst.Round(time.Millisecond), wakes)
		if worst > maxHold {
			t.Errorf("%s held the thread for %v: a browser's frames stall (limit %v)", c.name, worst, maxHold)
		}
	}
}
