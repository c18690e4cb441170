package sim_test

import (
	"rtype/net/wire"
	"rtype/net/wire2"
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

func entities2(w *sim.World, dst []wire2.Entity) []wire2.Entity {
	return wire2.AppendEntities(dst, w.AppendEntities(nil))
}

func players2(w *sim.World, dst []wire2.Player) []wire2.Player {
	return wire2.AppendPlayers(dst, w.AppendPlayers(nil))
}
