package link2

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// TestSnapshotSenderSharesFrames: one SnapshotSender serving four
// clients (whose histories then share the copies of the entities sent,
// History.addShared) sends each client, byte for byte, what a sender of
// its own would, and every client's baseline holds the entities of its
// tick, over 400 ticks of a busy game with losses: acknowledgements
// dropped at random, a client given other entities than the rest at the
// same tick now and then, a client skipped now and then.
func TestSnapshotSenderSharesFrames(t *testing.T) {
	states := busyStates(40)
	rng := rand.New(rand.NewPCG(16, 2))
	const n = 4
	r := newSharedRig(n, 0)
	sent := map[uint32][]wire2.Entity{} // what each tick's snapshots carried, by tick and client
	deltas := 0
	eachState(states, 400, func(k int, tick uint32, st *busyState, now time.Time) {
		for i := range n {
			if rng.IntN(10) == 0 {
				continue // not sent this one
			}
			ents := st.e2
			if i == 3 && rng.IntN(3) == 0 {
				ents = states[(k+7)%len(states)].e2 // other entities at the same tick
			}
			if base := baselines(r.ls[i]).baselineOrNil(); base != nil {
				deltas++
				if want := sent[base.Tick*n+uint32(i)]; !slices.Equal(base.Entities, want) {
					t.Fatalf("tick %d, client %d: the baseline of tick %d no longer holds its entities", tick, i, base.Tick)
				}
			}
			if got := r.send(t, i, tick, st.p2, ents, now); len(got) > 0 {
				sent[tick*n+uint32(i)] = slices.Clone(ents)
			}
			if rng.IntN(4) == 0 {
				continue // its acknowledgement lost
			}
			r.ack(i, now)
		}
	})
	if deltas < 1000 {
		t.Fatalf("%d snapshots against a baseline of 1,600: the test measured little", deltas)
	}
}

// eachState calls f with n states of a busy game, in turn, at ticks 603,
// 606 and on, 50 ms apart.
func eachState(states []busyState, n int, f func(k int, tick uint32, st *busyState, now time.Time)) {
	now := t0
	for k := range n {
		now = now.Add(50 * time.Millisecond)
		f(k, uint32(603+3*k), &states[k%len(states)], now)
	}
}

// sharedRig is clients served by one SnapshotSender (ls) and, beside
// each, a twin link served by a sender of its own (ref): what each client
// gets is to be what its twin gets.
type sharedRig struct {
	shared  SnapshotSender
	own     []SnapshotSender
	ls, ref []*link.Link
	peer    []uint16
}

// newSharedRig returns a rig of n clients, its encoders' MaxPayload set
// to maxPayload.
func newSharedRig(n, maxPayload int) *sharedRig {
	r := &sharedRig{own: make([]SnapshotSender, n), ls: make([]*link.Link, n), ref: make([]*link.Link, n), peer: make([]uint16, n)}
	r.shared.enc.MaxPayload = maxPayload
	for i := range n {
		r.ls[i], r.ref[i] = link.NewV2(testSession+uint32(i), t0), link.NewV2(testSession+uint32(i), t0)
		r.own[i].enc.MaxPayload = maxPayload
	}
	return r
}

// send sends client i the state of tick, and fails unless it gets byte
// for byte what its twin gets; it returns the datagrams.
func (r *sharedRig) send(t *testing.T, i int, tick uint32, players []wire2.Player, ents []wire2.Entity, now time.Time) [][]byte {
	t.Helper()
	got := r.shared.Datagrams(r.ls[i], tick, players, ents, now)
	want := r.own[i].Datagrams(r.ref[i], tick, players, ents, now)
	if len(got) != len(want) {
		t.Fatalf("tick %d, client %d: %d datagrams, want %d", tick, i, len(got), len(want))
	}
	for d := range got {
		if !bytes.Equal(got[d], want[d]) {
			t.Fatalf("tick %d, client %d: datagram %d differs from a sender of its own:\n got % X\nwant % X", tick, i, d, got[d], want[d])
		}
	}
	return got
}

// ack has client i and its twin acknowledge everything they were sent.
func (r *sharedRig) ack(i int, now time.Time) {
	for _, l := range []*link.Link{r.ls[i], r.ref[i]} {
		h := wire.Header{Type: wire.TypeAck, Seq: r.peer[i], Ack: l.Next() - 1, AckBits: 0xFFFFFFFF, Session: l.Session}
		l.Accept(h, wire2.HeaderSize, now)
	}
	r.peer[i]++
}

// TestSnapshotSenderSharedRecordsOwnFields: the clients of a game each
// get their own last_step (7.8: in their own record only) while the
// entity records of a tick against one baseline are encoded once for
// them all (recordCache). Each client receives, byte for byte, what a
// sender of its own sends it, and decodes its own step and no other
// client's, over 300 ticks of a busy game in which the clients' steps
// take 0 to 3 varint groups (so that the records start at every bit
// offset), acknowledgements are lost at random (so that baselines
// differ), and payloads are small enough that some snapshots split
// (where the header decides the split, and nothing is shared).
func TestSnapshotSenderSharedRecordsOwnFields(t *testing.T) {
	states := busyStates(40)
	rng := rand.New(rand.NewPCG(22, 16))
	const n = 4
	r := newSharedRig(n, 700)
	steps := []uint32{0, 5, 200, 70000, 1 << 22}
	var mine [n][]wire2.Player
	var snap wire2.Snapshot
	split, sameBase := 0, 0
	eachState(states, 300, func(k int, tick uint32, st *busyState, now time.Time) {
		bases := map[uint32]int{}
		for i := range n {
			mine[i] = slices.Clone(st.p2)
			for p := range mine[i] {
				mine[i][p].HasStep, mine[i][p].LastStep = false, 0
				if int(mine[i][p].Player) == i && (i+k)%5 != 0 {
					mine[i][p].HasStep, mine[i][p].LastStep = true, steps[(i+k)%len(steps)]+uint32(k)
				}
			}
			if b := baselines(r.ls[i]).baselineOrNil(); b != nil {
				bases[b.Tick]++
			}
		}
		for _, c := range bases {
			sameBase += c - 1
		}
		for i := range n {
			got := r.send(t, i, tick, mine[i], st.e2, now)
			if len(got) > 1 {
				split++
			}
			for d := range got {
				if err := snap.Decode(got[d][wire2.HeaderSize:]); err != nil {
					t.Fatalf("tick %d, client %d: datagram %d: %v", tick, i, d, err)
				}
				for _, pr := range snap.PlayerRecords() {
					w := mine[i][slices.IndexFunc(mine[i], func(p wire2.Player) bool { return p.Player == pr.Player.Player })]
					if pr.HasStep != w.HasStep || pr.LastStep != w.LastStep {
						t.Fatalf("tick %d, client %d: player %d's step %v %d, want %v %d", tick, i, pr.Player.Player, pr.HasStep, pr.LastStep, w.HasStep, w.LastStep)
					}
				}
			}
			if rng.IntN(5) != 0 { // else its acknowledgement lost
				r.ack(i, now)
			}
		}
	})
	if split == 0 || sameBase < 300 {
		t.Fatalf("%d snapshots split, %d clients sharing a baseline with another: the test measured little", split, sameBase)
	}
}

// baselineOrNil is Baseline on a History that may be nil.
func (h *History) baselineOrNil() *wire2.Frame {
	if h == nil {
		return nil
	}
	return h.Baseline()
}
