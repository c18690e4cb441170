package link2

import (
	"runtime"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// BenchmarkGames250 is BenchmarkSessions400 at 1,000 players in 250 busy
// games, with each game's entities built at every snapshot tick, one
// record at a time as wire2.AppendEntities builds them (here copied
// from a recorded state), in the memory its SnapshotSender hands out
// (NextEntities), as the server does: what a server's tick does with the
// entities from the world to the histories' shared frames (framePool).
//
//	go test -run '^$' -bench '^BenchmarkGames250$' ./net/link/
func BenchmarkGames250(b *testing.B) { benchGames(b, 250, true) }

// benchGames runs BenchmarkSessions400's ticks for games of 4 players,
// each game's entities passed as recorded, or, with build, built
// (benchGame.entities).
func benchGames(b *testing.B, games int, build bool) {
	states := busyStates(30)
	const players = 4
	gs := make([]*benchGame, games)
	now := t0
	for i := range gs {
		g := &benchGame{first: i * 7}
		for p := range g.links {
			g.links[p] = link.NewV2(uint32(i*players+p+1), now)
		}
		gs[i] = g
	}
	tick := uint32(600)
	step := func() {
		now = now.Add(time.Second / 60)
		tick++
		for _, g := range gs {
			for p, l := range g.links {
				h := wire.Header{Type: wire.TypeInput, Seq: g.peer[p], Ack: l.Next() - 1,
					AckBits: 0xFFFFFFFF, Session: l.Session}
				g.peer[p]++
				if !l.Seen(h.Seq) {
					l.Accept(h, wire2.HeaderSize+10, now)
				}
			}
		}
		if tick%wire.SnapshotTicks != 0 {
			return
		}
		for _, g := range gs {
			st := &states[(g.first+int(tick/wire.SnapshotTicks))%len(states)]
			ents := st.e2
			if build {
				ents = g.entities(st.e2)
			}
			for _, l := range g.links {
				g.s.Datagrams(l, tick, st.p2, ents, now)
			}
		}
	}
	for range 3 * link.Snapshots * 2 { // every history slot taken, twice
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := testutil.ThreadCPU()
	for b.Loop() {
		step()
	}
	cpu = testutil.ThreadCPU() - cpu
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*games*players), "ns/player-tick")
	// The CPU time of the loop's thread, less swayed by the other work
	// of a busy machine than the time the loop took.
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*games*players), "cpu-ns/player-tick")
}

// benchGame is a game of benchGames.
type benchGame struct {
	s     SnapshotSender
	links [4]*link.Link
	peer  [4]uint16
	first int // its first state: the games are out of step
	ents  []wire2.Entity
}

// entities builds the game's entities of a snapshot tick, those of st,
// one record at a time, in the memory of its SnapshotSender (as the
// server does), and returns them.
func (g *benchGame) entities(st []wire2.Entity) []wire2.Entity {
	g.ents = g.s.NextEntities()
	for i := range st {
		g.ents = append(g.ents, st[i])
	}
	return g.ents
}
