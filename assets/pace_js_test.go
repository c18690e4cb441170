//go:build js

package assets

import (
	"testing"
	"time"
)

// TestSynthesisYields synthesises music in a goroutine, as the game
// does, while this goroutine wakes every millisecond, as the page's
// frames and audio do: with GOOS=js there is one thread. The synthesis
// reads a clock that moves an eighth of a pace slice at each read, as if
// each 1024 samples took that long: so it must rest once per 8 reads,
// 8192 samples, which hands the thread over, and this goroutine must get
// it while the synthesis runs. How long the synthesis really held the
// thread is logged: it depends on the machine, and the tests never
// assert a time. Run with
// GOOS=js GOARCH=wasm go test -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./assets/
// (build.sh test does, with Node.js).
func TestSynthesisYields(t *testing.T) {
	const step = paceSlice / 8
	var fake time.Time
	paceNow = func() time.Time { fake = fake.Add(step); return fake }
	defer func() { paceNow = time.Now }()
	for _, c := range []struct {
		name string
		gen  func() []byte
	}{{"the music", genMusic}, {"the stage music", genStageMusic}, {"the Stage effects", func() []byte {
		genBeam()
		return genBossExplosion()
	}}} {
		paceCalls, paceRests, paceCount, paceFrom, fake = 0, 0, 0, time.Time{}, time.Time{}
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
		t.Logf("%s: %d samples paced, %d rests, %d wakes of the page's goroutine; synthesised in %v, the longest hold of the thread %v",
			c.name, paceCalls, paceRests, wakes, time.Since(start).Round(time.Millisecond), worst.Round(time.Millisecond))
		if paceCalls < 1000*paceEvery/100 {
			t.Errorf("%s: %d samples paced: the synthesis does not call pace for each sample", c.name, paceCalls)
		}
		reads := paceCalls / paceEvery
		if want := reads / int(paceSlice/step); paceRests < want-1 || paceRests > want+1 {
			t.Errorf("%s: %d rests for %d samples (%d reads of the clock), want one per %d reads (%d)", c.name, paceRests, paceCalls, reads, paceSlice/step, want)
		}
		if wakes < paceRests/2 {
			t.Errorf("%s: the page's goroutine woke %d times during %d rests of the synthesis: the rests do not hand over the thread", c.name, wakes, paceRests)
		}
	}
}
