package sim_test

import (
	"fmt"

	"rtype/net/wire"
	"rtype/sim"
)

// A client predicts its own wave cannon from the ticks it has held Fire,
// and its ship's speed from its Arms, with the server's numbers.
func ExampleArmsRules() {
	ar := sim.DefaultArmsRules()
	for _, held := range []int{10, 24, 60, 96} {
		l := ar.ChargeLevel(held)
		if l == 0 {
			fmt.Printf("held %d ticks: no beam\n", held)
			continue
		}
		w, h := ar.BeamSize(l)
		fmt.Printf("held %d ticks: level %d (beam %gx%g)\n", held, l, w, h)
	}
	rules := sim.DefaultRules()
	rules.ShipSpeed = ar.ShipSpeed(wire.Arms{Speed: 2}.Speed)
	x, _ := rules.MoveShip(100, 100, wire.ActionRight)
	dx, _ := ar.ForceOffset(wire.ForceFront)
	fmt.Printf("speed 2: %g px per tick; Force in front at +%g px\n", x-100, dx)
	// Output:
	// held 10 ticks: no beam
	// held 24 ticks: level 1 (beam 64x12)
	// held 60 ticks: level 2 (beam 96x20)
	// held 96 ticks: level 3 (beam 128x32)
	// speed 2: 6.5 px per tick; Force in front at +28 px
}
