package sim

import (
	"testing"

	"rtype/net/wire"
)

// TestOrderIsTheLiveSlots: after every step of a busy game whose players
// leave and join again, w.order lists exactly the live entities, by slot,
// each with its entry, and w.hi is one more than the highest live slot.
func TestOrderIsTheLiveSlots(t *testing.T) {
	r := DefaultRules() // the biggest waves from the start, lives enough
	r.Lives = 255
	r.FirstWave = 60
	r.WaveSize = r.WaveSizeMax
	r.WaveInterval = r.WaveIntervalMin
	r.WaveIntervalStep = 0
	w := New(r, 7)
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	for i := range 6000 {
		for p := range uint8(4) {
			a := []uint8{wire.ActionUp, wire.ActionDown}[(i/60+int(p))%2]
			if i/8%2 == 0 {
				a |= wire.ActionFire
			}
			w.SetInput(p, a)
		}
		w.Step()
		if i%500 == 499 {
			p := uint8(i / 500 % 4)
			w.RemovePlayer(p, wire.LeftLeft)
			w.AddPlayer(p, "P")
		}
		w.TakeEvents()
		k, hi := 0, int32(1)
		for s := int32(1); s < int32(len(w.at)); s++ {
			if !w.ent(s).alive {
				continue
			}
			if k >= len(w.order) || w.order[k] != mkRef(s, w.at[s]) {
				t.Fatalf("tick %d: order[%d] is not slot %d, entry %d: %v", w.tick, k, s, w.at[s], w.order)
			}
			k, hi = k+1, s+1
		}
		if k != len(w.order) || w.hi != hi {
			t.Fatalf("tick %d: %d live, order has %d; hi %d, want %d", w.tick, k, len(w.order), w.hi, hi)
		}
	}
	if len(w.order) < 20 {
		t.Fatalf("%d live entities: not a busy game", len(w.order))
	}
}
