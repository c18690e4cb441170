package sim_test

import (
	"testing"

	"rtype/internal/testutil"
	"rtype/vocab"
)

// The tick of a busy world allocates nothing in steady state: Step with
// its events taken, and the snapshot build (AppendEntities,
// AppendPlayers). The count is exact (testutil.AllocsPerRun): one
// allocation in a hundred ticks fails.
func TestBusyTickNoAllocs(t *testing.T) {
	w := busy(nil)
	i := 0
	tick := func() {
		if i%60 == 0 {
			for p := range uint8(4) {
				w.SetInput(p, vocab.ActionFire|[]uint8{vocab.ActionUp, vocab.ActionDown}[(i/60+int(p))%2])
			}
		}
		w.Step()
		if i%10 == 0 {
			w.TopUp(40, 100)
		}
		w.TakeEvents()
		i++
	}
	for range 1000 { // buffers at their size
		tick()
	}
	testutil.NoAllocs(t, 600, "Step of a busy world", tick)
	ents := make([]vocab.Entity, 0, 1024)
	pls := make([]vocab.Player, 0, vocab.MaxPlayers)
	testutil.NoAllocs(t, 100, "AppendEntities and AppendPlayers", func() {
		ents = w.AppendEntities(ents[:0])
		pls = w.AppendPlayers(pls[:0])
	})
}
