package sim

// The player's side of Stage mode (PROTOCOL.md 7.12, README "How to play"):
// the wave cannon, the Force, power-ups, bits, deaths, continues.

// armState is what an entity of the player's side keeps (a Force, a beam,
// a bit).
type armState struct{}

// playerArms is what a player carries and charges in Stage mode.
type playerArms struct{}

// moveArms moves every Force and bit: attached ones with their ship,
// launched ones on their way.
func (w *World) moveArms() {}

// hitFoes: player shots, beams, Forces and bits hurt the foes they touch
// (w.damageFoe).
func (w *World) hitFoes() {}

// hitShipsStage: ships hit by foes or enemy shots lose a life; a Force
// blocks small enemy shots first.
func (w *World) hitShipsStage() {}

// pickups: a ship that touches an item takes it.
func (w *World) pickups() {}

// fireArms: ships charge, release beams, shoot; Forces and bits shoot with
// them.
func (w *World) fireArms() {}

// checkOverStage emits GameOver when the game is over in Stage mode.
func (w *World) checkOverStage() {}

// onCheckpoint is called by the stage runner at each checkpoint marker.
func (w *World) onCheckpoint() {}

// dropItem puts an item (wire.Item*) at (x, y).
func (w *World) dropItem(item uint8, x, y float64) {}
