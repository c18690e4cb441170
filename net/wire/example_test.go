package wire_test

import (
	"fmt"

	"rtype/net/wire"
)

// The full snapshot of PROTOCOL.md 4.7, then the delta of 4.8 against it.
func ExampleSnapshotEncoder_Encode() {
	players := []wire.PlayerState{{Player: 0, HasShip: true, Ship: 2, Lives: 3, Score: 100}}
	ship600 := wire.MakeEntity(2, wire.KindPlayerShip, 100, 360, 0, 0, 0)
	var enc wire.SnapshotEncoder

	// Full: no baseline.
	for _, p := range enc.Encode(600, players, nil, 0, []wire.Entity{ship600}) {
		fmt.Printf("% X\n", p)
	}

	// Against the snapshot of tick 600, once the client acknowledged it.
	ship603 := wire.MakeEntity(2, wire.KindPlayerShip, 105, 360, 300, 0, 0)
	bydos := wire.MakeEntity(5, wire.KindBydosSlave, 1300, 200, -120, 0, 1)
	for _, p := range enc.Encode(603, players, []wire.Entity{ship600}, 600, []wire.Entity{ship603, bydos}) {
		fmt.Printf("% X\n", p)
	}
	// Output:
	// 58 02 00 00 A1 C0 00 99 00 00 01 80 02 32 00 5A 00 00 00 00
	// 5B 02 00 00 A1 C0 00 D9 01 01 00 01 00 0A 69 C0 12 00 30 00 D0 40 51 40 06 C4 07 80 00
}
