package sim_test

import (
	"strconv"
	"testing"

	"rtype/internal/testrules"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
	"rtype/vocab"
)

// busyWorld is a Classic world of 4 ships, moving and firing, under
// full-strength waves (rtype-bench's busy games: the biggest waves every
// 2 s at the maximum speed), with a step that plays one tick of it.
type busyWorld struct {
	w *sim.World
	i int
}

func newBusyWorld(seed uint64) *busyWorld {
	b := &busyWorld{w: sim.New(testrules.FullStrength(), seed)}
	for p := range uint8(4) {
		b.w.AddPlayer(p, "P")
	}
	for range 3000 { // past the first waves, the slots at their spread
		b.step()
	}
	return b
}

// newBusyWorlds returns n busy worlds, of seeds 1 to n.
func newBusyWorlds(n int) []*busyWorld {
	ws := make([]*busyWorld, n)
	for i := range ws {
		ws[i] = newBusyWorld(uint64(i + 1))
	}
	return ws
}

func (b *busyWorld) step() {
	for p := range uint8(4) {
		a := []uint8{wire.ActionUp, wire.ActionDown}[(b.i/60+int(p))%2]
		if b.i/8%2 == 0 {
			a |= wire.ActionFire
		}
		b.w.SetInput(p, a)
	}
	b.w.Step()
	for p := range uint8(4) {
		if b.w.Lives(p) < 10 { // a player who leaves and joins again: the game never ends
			b.w.RemovePlayer(p, wire.LeftLeft)
			b.w.AddPlayer(p, "P")
		}
	}
	b.w.TakeEvents()
	b.i++
}

// BenchmarkStepWaves steps one busy world: the server's work per game and
// tick, with the world's state warm in the cache.
func BenchmarkStepWaves(b *testing.B) {
	w := newBusyWorld(1)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuNanos()
	for b.Loop() {
		w.step()
	}
	b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(w.w.NumEntities()), "entities")
}

// BenchmarkStepManyWaves steps n busy worlds (100, 250, 1000) in turn, each once per op,
// as a server's tick steps its games: each world's state has left the
// cache by the time it steps again. ns/op divided by n is the cost of a
// game's tick in the server. snap250 is 250 worlds with the v2 snapshot a
// server takes of each world every third tick (AppendEntities and
// AppendPlayers, in v2 records), in turn with the steps.
func BenchmarkStepManyWaves(b *testing.B) {
	for _, n := range []int{100, 250, 1000, -250} {
		name, snap := strconv.Itoa(n), n < 0
		if snap {
			n = -n
			name = "snap" + strconv.Itoa(n)
		}
		b.Run(name, func(b *testing.B) {
			ws := newBusyWorlds(n)
			vpls := make([]vocab.Player, 0, 4)
			ents := make([]wire2.Entity, 0, 1024)
			pls := make([]wire2.Player, 0, 4)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuNanos()
			for b.Loop() {
				for i, w := range ws {
					w.step()
					if snap && (w.w.Tick()+uint32(i))%3 == 0 {
						vpls = w.w.AppendPlayers(vpls[:0])
						ents = ents[:0]
						w.w.EachEntity(func(e *vocab.Entity) { ents = wire2.AppendEntity(ents, e) })
						pls = wire2.AppendPlayers(pls[:0], vpls)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/world")
			b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N)/float64(n), "cpu-ns/world")
		})
	}
}
