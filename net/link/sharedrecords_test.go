package link

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rtype/net/wire"
)

// TestSnapshotSender2SharedRecordsOwnFields: the clients of a game each
// get their own last_step (7.8: in their own record only) while the
// entity records of a tick against one baseline are encoded once for
// them all (recordCache). Each client receives, byte for byte, what a
// sender of its own sends it, and decodes its own step and no other
// client's, over 300 ticks of a busy game in which the clients' steps
// take 0 to 3 varint groups (so that the records start at every bit
// offset), acknowledgements are lost at random (so that baselines
// differ), and payloads are small enough that some snapshots split
// (where the header decides the split, and nothing is shared).
func TestSnapshotSender2SharedRecordsOwnFields(t *testing.T) {
	states := busyStates(40)
	rng := rand.New(rand.NewPCG(22, 16))
	const n = 4
	var shared SnapshotSender2
	var own [n]SnapshotSender2
	shared.enc.MaxPayload = 700
	var ls, ref [n]*Link
	for i := range ls {
		ls[i], ref[i] = NewV2(testSession+uint32(i), t0), NewV2(testSession+uint32(i), t0)
		own[i].enc.MaxPayload = 700
	}
	steps := []uint32{0, 5, 200, 70000, 1 << 22}
	var mine [n][]wire.Player2
	var peer [n]uint16
	var snap wire.Snapshot2
	now := t0
	split, sameBase := 0, 0
	for k := range 300 {
		now = now.Add(50 * time.Millisecond)
		tick := uint32(603 + 3*k)
		st := &states[k%len(states)]
		bases := map[uint32]int{}
		for i := range n {
			mine[i] = slices.Clone(st.p2)
			for p := range mine[i] {
				mine[i][p].HasStep, mine[i][p].LastStep = false, 0
				if int(mine[i][p].Player) == i && (i+k)%5 != 0 {
					mine[i][p].HasStep, mine[i][p].LastStep = true, steps[(i+k)%len(steps)]+uint32(k)
				}
			}
			if b := ls[i].History2.baselineOrNil(); b != nil {
				bases[b.Tick]++
			}
		}
		for _, c := range bases {
			sameBase += c - 1
		}
		for i := range n {
			got := shared.Datagrams(ls[i], tick, mine[i], st.e2, now)
			want := own[i].Datagrams(ref[i], tick, mine[i], st.e2, now)
			if len(got) != len(want) {
				t.Fatalf("tick %d, client %d: %d datagrams, want %d", tick, i, len(got), len(want))
			}
			if len(got) > 1 {
				split++
			}
			for d := range got {
				if !bytes.Equal(got[d], want[d]) {
					t.Fatalf("tick %d, client %d: datagram %d differs from a sender of its own:\n got % X\nwant % X", tick, i, d, got[d], want[d])
				}
				if err := snap.Decode(got[d][wire.HeaderSize2:]); err != nil {
					t.Fatalf("tick %d, client %d: datagram %d: %v", tick, i, d, err)
				}
				for _, r := range snap.PlayerRecords() {
					w := mine[i][slices.IndexFunc(mine[i], func(p wire.Player2) bool { return p.Player == r.Player })]
					if r.HasStep != w.HasStep || r.LastStep != w.LastStep {
						t.Fatalf("tick %d, client %d: player %d's step %v %d, want %v %d", tick, i, r.Player, r.HasStep, r.LastStep, w.HasStep, w.LastStep)
					}
				}
			}
			if rng.IntN(5) == 0 {
				continue // its acknowledgement lost
			}
			for _, l := range []*Link{ls[i], ref[i]} {
				h := wire.Header2{Header: wire.Header{Type: wire.TypeAck, Seq: peer[i], Ack: l.next - 1, AckBits: 0xFFFFFFFF, Session: l.Session}}
				l.Accept2(h, wire.HeaderSize2, now)
			}
			peer[i]++
		}
	}
	if split == 0 || sameBase < 300 {
		t.Fatalf("%d snapshots split, %d clients sharing a baseline with another: the test measured little", split, sameBase)
	}
}
