package link

import (
	"testing"
	"time"

	"rtype/net/wire"
)

// BenchmarkSessions400 is a server's per-session work in its links at
// 400 players in 100 busy games, per player and tick, with the state of
// 400 links and histories out of the cache as in the server: each tick
// every client's Input (its header acknowledging everything the server
// sent), and every third tick every client's snapshot of its game (4
// clients to a SnapshotSender2), each against the last one it
// acknowledged. The datagrams' bytes are not sent: the kernel is apart
// (BENCHMARKS.md, players per core).
//
//	go test -run '^$' -bench '^BenchmarkSessions400$' ./net/link/
func BenchmarkSessions400(b *testing.B) {
	states := busyStates(30)
	const games, players = 100, 4
	type game struct {
		s     SnapshotSender2
		links [players]*Link
		peer  [players]uint16
		first int // its first state: the games are out of step
	}
	gs := make([]*game, games)
	now := t0
	for i := range gs {
		g := &game{first: i * 7}
		for p := range g.links {
			g.links[p] = NewV2(uint32(i*players+p+1), now)
		}
		gs[i] = g
	}
	tick := uint32(600)
	step := func() {
		now = now.Add(time.Second / 60)
		tick++
		for _, g := range gs {
			for p, l := range g.links {
				h := wire.Header2{Header: wire.Header{Type: wire.TypeInput, Seq: g.peer[p], Ack: l.next - 1,
					AckBits: 0xFFFFFFFF, Session: l.Session}}
				g.peer[p]++
				if !l.Seen(h.Seq) {
					l.Accept2(h, wire.HeaderSize2+10, now)
				}
			}
		}
		if tick%wire.SnapshotTicks != 0 {
			return
		}
		for _, g := range gs {
			st := &states[(g.first+int(tick/wire.SnapshotTicks))%len(states)]
			for _, l := range g.links {
				g.s.Datagrams(l, tick, st.p2, st.e2, now)
			}
		}
	}
	for range 3 * Snapshots * 2 { // every history slot taken, twice
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*games*players), "ns/player-tick")
}
