package server

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
)

// BenchmarkSessionCost measures what one more session costs the server,
// a player or a spectator (PROTOCOL.md 7.17), in a Stage game with one
// player already in it, warped to the mid-boss: each op is one tick of the server, with the
// datagrams the clients sent during it (a player's Input every tick, a
// spectator's Ack after each Snapshot) received as the read loop does.
// The clients read what the server sent and acknowledge it, outside the
// time measured. It reports the server's time per tick (server-µs/tick)
// and the CPU time of its thread meanwhile (cpu-µs/tick: the tick runs on
// the benchmark's thread, TickShards 1, which other load on the machine
// does not inflate),
// the bytes of the Snapshot and Event datagrams it sent per tick (B/tick)
// and of the datagrams it received (B-in/tick); a session's cost
// is its case's figures less the base's, divided by the sessions added
// (BENCHMARKS.md, "Spectators").
func BenchmarkSessionCost(b *testing.B) {
	for _, c := range []struct {
		players, spectators int
	}{{0, 0}, {3, 0}, {0, 3}, {0, 8}} {
		b.Run(fmt.Sprintf("players=%d/spectators=%d", c.players, c.spectators), func(b *testing.B) {
			benchSessions(b, c.players, c.spectators)
		})
	}
}

func benchSessions(b *testing.B, players, spectators int) {
	cfg := testConfig()
	cfg.SessionTimeout = time.Hour
	cfg.TickShards = 1 // the tick on the benchmark's thread only (testutil.ThreadCPU)
	cfg.Seed = 5
	cfg.Warp = "midboss" // a busy screen: the mid-boss and its shots
	r := sim.DefaultRules()
	r.JoinInvulnTicks = 1 << 30 // nobody dies: every case plays the same game
	cfg.Rules = &r
	s := startServer(b, cfg)
	anchor := player2(b, s, "Ripley", wire.ModeStage)
	var cs []*tclient2
	for i := range players {
		cs = append(cs, player2(b, s, fmt.Sprintf("Player %d", i+2), wire.ModeStage))
	}
	for i := range spectators {
		cs = append(cs, spectate(b, s, fmt.Sprintf("Watcher %d", i+1), wire.ModeStage, wire.RoomCode{}))
	}
	all := append([]*tclient2{anchor}, cs...)
	addrs := make([]netip.AddrPort, len(all))
	for i, c := range all {
		c.keepAlive = false
		addrs[i] = c.udp.LocalAddr().(interface{ AddrPort() netip.AddrPort }).AddrPort()
	}
	var rd reader
	now := time.Now()
	var in []datagram
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var serverTime, serverCPU time.Duration
	var received int
	sent0 := s.stats.snapshotBytes.Load() + s.stats.eventBytes.Load()
	tick := 0
	step := func() {
		tick++
		in = in[:0]
		for i, c := range all {
			for c.readOne(200 * time.Microsecond) {
			}
			var d []byte
			switch {
			case c.spectator && c.types[wire.TypeSnapshot] > 0:
				c.types[wire.TypeSnapshot] = 0
				d = c.datagram(wire.TypeAck, nil)
			case !c.spectator:
				c.actions = wire.ActionFire
				if tick/60%2 == 0 {
					c.actions |= wire.ActionUp
				} else {
					c.actions |= wire.ActionDown
				}
				c.hist = append(c.hist, c.actions)
				in2 := wire2.Input{Step: c.step, Count: 1}
				in2.Actions[0] = c.actions
				c.step++
				d = c.datagram(wire.TypeInput, wire2.AppendInput(nil, &in2))
			}
			if d != nil {
				in = append(in, datagram{b: d, addr: addrs[i]})
				received += len(d)
			}
		}
		start, cpu := time.Now(), testutil.ThreadCPU()
		s.in.receive(&rd, in, now)
		now = now.Add(time.Second / 60)
		s.tick(now)
		serverTime += time.Since(start)
		serverCPU += testutil.ThreadCPU() - cpu
	}
	for range 120 {
		step()
	}
	serverTime, serverCPU, tick, received = 0, 0, 0, 0
	sent0 = s.stats.snapshotBytes.Load() + s.stats.eventBytes.Load()
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	sent := s.stats.snapshotBytes.Load() + s.stats.eventBytes.Load() - sent0
	b.ReportMetric(float64(serverTime.Microseconds())/float64(tick), "server-µs/tick")
	b.ReportMetric(float64(serverCPU.Microseconds())/float64(tick), "cpu-µs/tick")
	b.ReportMetric(float64(sent)/float64(tick), "B/tick")
	b.ReportMetric(float64(received)/float64(tick), "B-in/tick")
	if p, sp := spectatorCount(s); p != 1+players || sp != spectators {
		b.Fatalf("%d players, %d spectators at the end", p, sp)
	}
}
