package interp

import (
	"math/rand/v2"
	"testing"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
)

// TestSlowMachineCleanLink: on a clean link, a machine that draws at an
// uneven 24 frames a second must not read its own slowness as network
// jitter. With the client's receive stamps the delay stays near its
// minimum; stamping arrivals at the first Update that sees them makes it
// grow.
func TestSlowMachineCleanLink(t *testing.T) {
	run := func(stamped bool) time.Duration {
		ip := New(Config{})
		rng := rand.New(rand.NewPCG(1, 2))
		t0 := time.Unix(1000, 0)
		var hist []client.Frame
		now := t0
		next := t0 // arrival of the next snapshot: every 50 ms exactly
		tick := uint32(300)
		for now.Sub(t0) < 10*time.Second {
			for !next.After(now) {
				f := client.Frame{Tick: tick, Entities: []client.Entity{{ID: 1, Kind: wire.KindBydosSlave,
					X: 1200 - float32(tick), Y: 300, VX: -60, Tick: tick}}}
				if stamped {
					f.Received = next
				}
				hist = append(hist, f)
				if len(hist) > client.HistoryLen {
					hist = hist[1:]
				}
				tick += 3
				next = next.Add(50 * time.Millisecond)
			}
			ip.Update(hist, now)
			// 24 frames a second, each 20 to 63 ms apart.
			now = now.Add(20*time.Millisecond + time.Duration(rng.IntN(43))*time.Millisecond)
		}
		return ip.Delay()
	}
	with, without := run(true), run(false)
	t.Logf("delay after 10 s at an uneven 24 fps: %v with receive stamps, %v without", with, without)
	if with > 70*time.Millisecond {
		t.Fatalf("delay %v on a clean link with receive stamps: the machine's frame rate was taken for jitter", with)
	}
	if without <= with {
		t.Fatalf("without stamps the delay (%v) should be larger than with them (%v)", without, with)
	}
}
