package server

import (
	"testing"
	"time"
)

// BenchmarkServerTick is one tick of the server, by hand, with a v1 and a
// v2 client in a game: the step, events and snapshots written to real
// sockets, with the counters of Metrics. (Run on a tree without the
// counters, it measures what they cost the tick: BENCHMARKS.md.)
func BenchmarkServerTick(b *testing.B) { benchServerTick(b, testConfig()) }

// BenchmarkServerTickWebTransportOn is BenchmarkServerTick with the
// WebTransport binding served (no session on it): what routing by address
// costs the UDP sessions' datagrams (PROTOCOL.md 9.3).
func BenchmarkServerTickWebTransportOn(b *testing.B) {
	cfg := testConfig()
	cfg.WebTransportAddr = "127.0.0.1:0"
	benchServerTick(b, cfg)
}

func benchServerTick(b *testing.B, cfg Config) {
	cfg.Rules = noWaveRules()
	cfg.SessionTimeout = time.Hour // the clients are not pumped meanwhile
	s := startServer(b, cfg)
	c1 := join(b, s, "Dallas")
	c2 := join2(b, s, "Ripley")
	c1.waitSnaps(3)
	c2.pumpUntil(wait, func() bool { return len(c2.snaps) >= 3 })
	now := time.Now()
	for range 60 {
		now = now.Add(time.Second / 60)
		s.tick(now)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		now = now.Add(time.Second / 60)
		s.tick(now)
	}
	if m := s.Metrics(); m.Sessions[1]+m.Sessions[2] != 2 {
		b.Fatalf("the sessions ended: %+v", m)
	}
}

// BenchmarkObserveTick is the tick loop's one addition per tick: a
// duration into the histogram of Metrics.
func BenchmarkObserveTick(b *testing.B) {
	var st serverStats
	b.ReportAllocs()
	d := time.Duration(0)
	for b.Loop() {
		d += 997 * time.Nanosecond
		st.observeTick(d % (20 * time.Millisecond))
	}
}
