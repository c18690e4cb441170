package server

import (
	"net"
	"testing"
	"time"
)

// TestReadPauseGathers: while datagrams keep coming, the read loop reads
// at most once per Config.ReadPause (a full batch aside), so that those
// that came meanwhile are handled together. 100 datagrams (not valid ones:
// the reads count all the same) sent over ~100 ms with a 25 ms pause are at
// most 100/25 + 2 reads; without the pause, that many sends spread out
// would be read in far more.
func TestReadPauseGathers(t *testing.T) {
	cfg := testConfig()
	cfg.ReadPause = 25 * time.Millisecond
	s := startServer(t, cfg)
	c, err := net.Dial("udp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := s.SocketStats()
	start := time.Now()
	for range 100 {
		c.Write(make([]byte, 20))
		time.Sleep(time.Millisecond)
	}
	deadline := time.Now().Add(wait)
	for s.SocketStats().Received-before.Received < 100 {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 100 datagrams received", s.SocketStats().Received-before.Received)
		}
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	reads := s.SocketStats().Reads - before.Reads
	if most := uint64(elapsed/cfg.ReadPause) + 2; reads > most {
		t.Errorf("%d reads in %v, want at most %d (one per %v)", reads, elapsed, most, cfg.ReadPause)
	}
	t.Logf("%d reads for 100 datagrams over %v", reads, elapsed)
}
