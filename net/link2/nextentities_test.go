package link2

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// TestNextEntitiesHeldFramesKept: entities built in the memory
// SnapshotSender.NextEntities hands out become, without a copy, the
// entities every history sent them holds, and no later tick's entities,
// built in the memory handed out next, overwrite any of them while a
// history holds them: over 400 ticks of a busy game with four clients,
// each sent the very bytes a sender of its own sends it, clients skipped
// now and then, acknowledgements lost at random and one client
// acknowledging nothing for a while (so that its history holds all of its
// Snapshots slots), every slot of every history holds the entities its
// tick's snapshot carried, unless a newer one became the baseline (the
// entities let go of), and every client's baseline is that of a history
// of its own entities (History.Add) sent and acknowledged the same
// datagrams.
func TestNextEntitiesHeldFramesKept(t *testing.T) {
	states := busyStates(40)
	rng := rand.New(rand.NewPCG(23, 1))
	const n = 4
	r := newSharedRig(n, 0)
	plain := make([]*link.Link, n) // each client's twin, its History of its own copies
	for i := range plain {
		plain[i] = link.NewV2(testSession+uint32(i), t0)
		plain[i].Baselines = new(History)
	}
	sent := map[uint32][]wire2.Entity{} // by tick and client
	held, shared := 0, 0
	eachState(states, 400, func(k int, tick uint32, st *busyState, now time.Time) {
		ents := r.shared.NextEntities()
		for i := range st.e2 { // one record at a time, as wire2.AppendEntities
			ents = append(ents, st.e2[i])
		}
		for i := range n {
			if rng.IntN(10) == 0 {
				continue // not sent this one
			}
			if got := r.send(t, i, tick, st.p2, ents, now); len(got) > 0 {
				sent[tick*n+uint32(i)] = slices.Clone(st.e2)
				baselines(plain[i]).Add(tick, st.p2, st.e2)
				for _, d := range got {
					plain[i].AppendSnapshot(nil, d[wire2.HeaderSize:], tick, now)
				}
				if last := baselines(r.ls[i]).newest(); len(ents) > 0 && &last.Entities[0] == &ents[0] {
					shared++
				}
			}
			if (i == 2 && k%100 < 50) || rng.IntN(4) == 0 {
				continue // its acknowledgement lost
			}
			h := wire.Header{Type: wire.TypeAck, Seq: r.peer[i], Ack: plain[i].Next() - 1, AckBits: 0xFFFFFFFF, Session: plain[i].Session}
			plain[i].Accept(h, wire2.HeaderSize, now)
			r.ack(i, now)
		}
		for i := range n {
			h := baselines(r.ls[i])
			if h == nil {
				continue
			}
			if b, want := baseTick(h), baseTick(baselines(plain[i])); b != want {
				t.Fatalf("tick %d, client %d: the baseline of tick %d, want that of tick %d", tick, i, b, want)
			}
			if b := h.Baseline(); b != nil && !slices.Equal(b.Entities, sent[b.Tick*n+uint32(i)]) {
				t.Fatalf("tick %d, client %d: the baseline of tick %d no longer holds its entities", tick, i, b.Tick)
			}
			for s := range h.snaps {
				f := &h.snaps[s]
				if !f.valid || f.passed {
					continue // or let go of, a newer one its baseline
				}
				held++
				if want := sent[f.frame.Tick*n+uint32(i)]; !slices.Equal(f.frame.Entities, want) {
					t.Fatalf("tick %d, client %d: the snapshot of tick %d its history holds no longer holds its entities", tick, i, f.frame.Tick)
				}
			}
		}
	})
	if shared < 1000 || held < 400*n*link.Snapshots/4 {
		t.Fatalf("%d snapshots sharing the memory they were built in, %d history slots checked: the test measured little", shared, held)
	}
}

// baseTick returns the tick of h's baseline, or 0 when none.
func baseTick(h *History) uint32 {
	if b := h.Baseline(); b != nil {
		return b.Tick
	}
	return 0
}

// newest returns the snapshot h added last.
func (h *History) newest() *wire2.Frame {
	return &h.snaps[(h.next+link.Snapshots-1)%link.Snapshots].frame
}

// TestNextEntitiesNoAllocs: a game's snapshots with its entities built in
// NextEntities' memory allocate nothing once its histories are full.
func TestNextEntitiesNoAllocs(t *testing.T) {
	states := busyStates(30)
	var g benchGame
	for p := range g.links {
		g.links[p] = link.NewV2(uint32(p+1), t0)
	}
	k := 0
	now := t0
	step := func() {
		st := &states[k%len(states)]
		tick := uint32(603 + 3*k)
		k++
		now = now.Add(50 * time.Millisecond)
		ents := g.entities(st.e2)
		for p, l := range g.links {
			g.s.Datagrams(l, tick, st.p2, ents, now)
			h := wire.Header{Type: wire.TypeAck, Seq: g.peer[p], Ack: l.Next() - 1, AckBits: 0xFFFFFFFF, Session: l.Session}
			g.peer[p]++
			l.Accept(h, wire2.HeaderSize, now)
		}
	}
	for range 4 * link.Snapshots {
		step()
	}
	if a := testing.AllocsPerRun(100, step); a != 0 {
		t.Fatalf("%.1f allocations a snapshot tick, want 0", a)
	}
}
