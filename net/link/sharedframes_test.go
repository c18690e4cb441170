package link

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rtype/net/wire"
)

// TestSnapshotSender2SharesFrames: one SnapshotSender2 serving four
// clients (whose histories then share the copies of the entities sent,
// History2.addShared) sends each client, byte for byte, what a sender of
// its own would, and every client's baseline holds the entities of its
// tick, over 400 ticks of a busy game with losses: acknowledgements
// dropped at random, a client given other entities than the rest at the
// same tick now and then, a client skipped now and then.
func TestSnapshotSender2SharesFrames(t *testing.T) {
	states := busyStates(40)
	rng := rand.New(rand.NewPCG(16, 2))
	const n = 4
	var shared SnapshotSender2
	var own [n]SnapshotSender2
	var ls, ref [n]*Link
	for i := range ls {
		ls[i], ref[i] = NewV2(testSession, t0), NewV2(testSession, t0)
	}
	sent := map[uint32][]wire.Entity2{} // what each tick's snapshots carried, by tick and client
	now := t0
	var peer [n]uint16
	deltas := 0
	for k := range 400 {
		now = now.Add(50 * time.Millisecond)
		tick := uint32(603 + 3*k)
		st := &states[k%len(states)]
		for i := range n {
			if rng.IntN(10) == 0 {
				continue // not sent this one
			}
			ents := st.e2
			if i == 3 && rng.IntN(3) == 0 {
				ents = states[(k+7)%len(states)].e2 // other entities at the same tick
			}
			if base := ls[i].History2.baselineOrNil(); base != nil {
				deltas++
				if want := sent[base.Tick*n+uint32(i)]; !slices.Equal(base.Entities, want) {
					t.Fatalf("tick %d, client %d: the baseline of tick %d no longer holds its entities", tick, i, base.Tick)
				}
			}
			got := shared.Datagrams(ls[i], tick, st.p2, ents, now)
			want := own[i].Datagrams(ref[i], tick, st.p2, ents, now)
			if len(got) != len(want) {
				t.Fatalf("tick %d, client %d: %d datagrams, want %d", tick, i, len(got), len(want))
			}
			for d := range got {
				if !bytes.Equal(got[d], want[d]) {
					t.Fatalf("tick %d, client %d: datagram %d differs from a sender of its own", tick, i, d)
				}
			}
			if len(got) > 0 {
				sent[tick*n+uint32(i)] = slices.Clone(ents)
			}
			if rng.IntN(4) == 0 {
				continue // its acknowledgement lost
			}
			for _, l := range []*Link{ls[i], ref[i]} {
				h := wire.Header2{Header: wire.Header{Type: wire.TypeAck, Seq: peer[i], Ack: l.next - 1, AckBits: 0xFFFFFFFF, Session: testSession}}
				l.Accept2(h, wire.HeaderSize2, now)
			}
			peer[i]++
		}
	}
	if deltas < 1000 {
		t.Fatalf("%d snapshots against a baseline of 1,600: the test measured little", deltas)
	}
}

// baselineOrNil is Baseline on a History2 that may be nil.
func (h *History2) baselineOrNil() *wire.Frame2 {
	if h == nil {
		return nil
	}
	return h.Baseline()
}
