package link2

import "testing"

// BenchmarkSessions400 is a server's per-session work in its links at
// 400 players in 100 busy games, per player and tick, with the state of
// 400 links and histories out of the cache as in the server: each tick
// every client's Input (its header acknowledging everything the server
// sent), and every third tick every client's snapshot of its game (4
// clients to a SnapshotSender), each against the last one it
// acknowledged. The datagrams' bytes are not sent: the kernel is apart
// (BENCHMARKS.md, players per core).
//
//	go test -run '^$' -bench '^BenchmarkSessions400$' ./net/link/
func BenchmarkSessions400(b *testing.B) { benchGames(b, 100, false) }
