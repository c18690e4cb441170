package sim_test

import (
	"rtype/net/wire"
	"rtype/sim"
)

// The world's snapshot state in each version's records, for the tests
// that compare it with a codec's bytes or with a client's view.

func entities1(w *sim.World, dst []wire.Entity) []wire.Entity {
	return wire.AppendEntities(dst, w.Tick(), w.AppendEntities(nil))
}

func players1(w *sim.World, dst []wire.PlayerState) []wire.PlayerState {
	return wire.AppendPlayers(dst, w.AppendPlayers(nil))
}

func entities2(w *sim.World, dst []wire.Entity2) []wire.Entity2 {
	return wire.AppendEntities2(dst, w.AppendEntities(nil))
}

func players2(w *sim.World, dst []wire.Player2) []wire.Player2 {
	return wire.AppendPlayers2(dst, w.AppendPlayers(nil))
}
