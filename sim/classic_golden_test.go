package sim_test

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"rtype/net/wire"
	"rtype/sim"
)

// classicGolden is the digest of classicTrace as the simulation computed
// it before Stage mode was written (commit da48a42^, the parent of Stage
// mode's skeleton): Classic, the seed's game that v1 clients play, must
// stay the same, tick for tick, byte for byte.
const classicGolden = 0xc04014872e37e691

// classicTrace plays Classic with 4 players whose inputs are drawn from a
// fixed generator (new actions every 20 ticks, bits 0 to 4: the v1
// actions) for 3 minutes or to the game over, and returns a digest of
// every event (the v1 encoding) and every snapshot's entities (v1), and
// the tick it stopped at.
func classicTrace() (uint64, uint32) {
	w := sim.New(sim.DefaultRules(), 2024)
	r := rand.New(rand.NewPCG(7, 11))
	for p := range uint8(wire.MaxPlayers) {
		w.AddPlayer(p, "golden")
	}
	h := fnv.New64a()
	var buf []byte
	var ents []wire.Entity
	for w.Tick() < 3*60*60 && !w.Over() {
		if w.Tick()%20 == 0 {
			for p := range uint8(wire.MaxPlayers) {
				w.SetInput(p, uint8(r.IntN(32)))
			}
		}
		w.Step()
		buf = buf[:0]
		for _, ev := range w.TakeEvents() {
			buf = wire.AppendEvent(buf, &ev)
		}
		ents = entities1(w, ents[:0])
		for _, e := range ents {
			buf = binary.LittleEndian.AppendUint32(buf, e.ID)
			buf = append(buf, e.Kind)
			for _, f := range e.F {
				buf = binary.LittleEndian.AppendUint32(buf, uint32(f))
			}
		}
		h.Write(buf)
	}
	return h.Sum64(), w.Tick()
}

// TestClassicUnchanged: Classic plays exactly as it did before Stage mode
// (classicGolden), so that "Classic is the seed's game, unchanged" is
// checked, not only believed.
func TestClassicUnchanged(t *testing.T) {
	got, tick := classicTrace()
	t.Logf("Classic trace: digest %#x after %d ticks", got, tick)
	if got != classicGolden {
		t.Fatalf("Classic trace digest %#x after %d ticks, want %#x (the simulation before Stage mode)", got, tick, uint64(classicGolden))
	}
}
