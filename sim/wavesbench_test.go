package sim_test

import (
	"testing"

	"rtype/net/wire"
	"rtype/sim"
)

// BenchmarkStepWaves steps a Classic world of 4 ships, moving and firing,
// under full-strength waves (rtype-bench's busy games: the biggest waves
// every 2 s at the maximum speed): the server's work per game and tick.
func BenchmarkStepWaves(b *testing.B) {
	r := sim.DefaultRules()
	r.Lives = 255
	r.FirstWave = 60
	r.WaveSize = r.WaveSizeMax
	r.WaveInterval = r.WaveIntervalMin
	r.WaveIntervalStep = 0
	r.WaveSpeedStep = r.WaveSpeedMax
	w := sim.New(r, 1)
	for p := range uint8(4) {
		w.AddPlayer(p, "P")
	}
	i := 0
	step := func() {
		for p := range uint8(4) {
			a := []uint8{wire.ActionUp, wire.ActionDown}[(i/60+int(p))%2]
			if i/8%2 == 0 {
				a |= wire.ActionFire
			}
			w.SetInput(p, a)
		}
		w.Step()
		w.TakeEvents2()
		i++
	}
	for range 3000 { // past the first waves, the slots at their spread
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(w.NumEntities()), "entities")
}
