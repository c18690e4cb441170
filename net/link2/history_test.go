package link2

import (
	"math/rand/v2"
	"testing"
)

// TestHistoryBaselineKept checks the baseline History keeps as parts
// and acknowledgements are counted against the definition (4.8, 7.8): the
// newest snapshot held whose every datagram was acknowledged, the first
// in slot order among equal ticks, found by walking every slot. Random
// adds, sendings and acknowledgements, ticks out of order and repeated
// included.
func TestHistoryBaselineKept(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 16))
	for round := range 200 {
		var h History
		var slots []int // carried's results, as a Link keeps them
		var ticks []uint32
		for step := range 400 {
			switch op := rng.IntN(10); {
			case op < 3:
				tick := uint32(100 + step + rng.IntN(5) - 2)
				if rng.IntN(8) == 0 && len(ticks) > 0 {
					tick = ticks[rng.IntN(len(ticks))] // a repeated tick
				}
				h.Add(tick, nil, nil)
			case op < 6 && h.sentAny:
				tick := h.lastTick
				if rng.IntN(4) == 0 && len(ticks) > 0 {
					tick = ticks[rng.IntN(len(ticks))]
				}
				slots = append(slots, h.Carried(tick))
				ticks = append(ticks, tick)
			case len(ticks) > 0:
				k := rng.IntN(len(ticks))
				if rng.IntN(2) == 0 {
					h.Acked(ticks[k], slots[k])
				} else {
					h.Acked(ticks[k], -1)
				}
			}
			want := h.findBase()
			if h.base != want {
				t.Fatalf("round %d, step %d: baseline slot %d, the walk finds %d", round, step, h.base-1, want-1)
			}
		}
	}
}
