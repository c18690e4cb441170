package sim

import (
	"testing"

	"rtype/sim/stage"
)

// quietStage is a stage whose timeline brings nothing for 29 minutes (its
// end boss comes at 29:00): the tests of the foes and of the player's side
// place what they need themselves.
func quietStage(t testing.TB) *stage.Stage {
	t.Helper()
	st, err := stage.Parse("quiet.stage", []byte("rtype-stage 1\nname quiet\ntitle Quiet\nscroll 60px/s\nlength 30:00\nat 29:00 boss\n"))
	if err != nil {
		t.Fatal(err)
	}
	return st
}
