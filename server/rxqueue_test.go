package server

import (
	"encoding/binary"
	"net"
	"net/netip"
	"testing"
	"time"

	"rtype/net/wire"
)

// TestReceiveWhileLocked checks the read loop's path while a tick holds
// the server's mutex: the batches read meanwhile are queued, not handled;
// the next batch read once the mutex is free is handled with them: every
// datagram is accepted, the v1 session's newest Input is the last one
// sent; and in steady state none of it allocates.
func TestReceiveWhileLocked(t *testing.T) {
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c1 := join(t, s, "Dallas")
	c1.waitSnaps(3)
	a1 := c1.udp.LocalAddr().(*net.UDPAddr).AddrPort()
	a1 = netip.AddrPortFrom(a1.Addr().Unmap(), a1.Port())
	s.mu.Lock()
	ss := s.sessions[c1.acc.Session]
	s.mu.Unlock()
	if ss == nil {
		t.Fatal("no session")
	}
	const rounds, per = 60, 5
	var batches [rounds][per][]datagram
	var last [rounds]uint16
	for r := range batches {
		for k := range batches[r] {
			in := c1.datagram(wire.TypeInput, []byte{wire.ActionFire})
			last[r] = binary.LittleEndian.Uint16(in[6:]) // its seq (2.1)
			batches[r][k] = []datagram{{b: in, addr: a1}, {b: c1.datagram(wire.TypeAck, nil), addr: a1}}
		}
	}
	var rd reader
	r := 0
	round := func() {
		s.mu.Lock() // a tick
		before := ss.link.Stats().RecvDatagrams
		for k := range per - 1 {
			s.receiveOrQueue(&rd, batches[r][k], time.Now())
		}
		if got := ss.link.Stats().RecvDatagrams; got != before {
			t.Fatalf("round %d: %d datagrams handled while the mutex was held", r, got-before)
		}
		s.mu.Unlock()
		s.receiveOrQueue(&rd, batches[r][per-1], time.Now())
		s.mu.Lock()
		got, seq := ss.link.Stats().RecvDatagrams-before, ss.inputSeq
		s.mu.Unlock()
		// (at least: one the client's socket sent before may come in too)
		if got < 2*per || seq != last[r] {
			t.Fatalf("round %d: %d datagrams accepted, newest Input %d; want %d, %d", r, got, seq, 2*per, last[r])
		}
		r++
	}
	for range 10 {
		round()
	}
	if n := testing.AllocsPerRun(rounds-20, round); n != 0 {
		t.Errorf("%v allocations per round of %d queued batches", n, per-1)
	}
}

// TestRxQueueBound checks that an rxQueue keeps at most rxQueueBytes and
// drops, and counts, what comes past it.
func TestRxQueueBound(t *testing.T) {
	var q rxQueue
	b := make([]byte, wire.MaxDatagram)
	ds := []datagram{{b: b}, {b: b}}
	dropped := 0
	for range rxQueueBytes/len(b) + 10 {
		dropped += q.add(ds, time.Now())
	}
	kept := len(q.ds)
	if kept != rxQueueBytes/len(b) || len(q.buf) > rxQueueBytes {
		t.Errorf("kept %d datagrams in %d bytes, want %d in at most %d", kept, len(q.buf), rxQueueBytes/len(b), rxQueueBytes)
	}
	if kept+dropped != 2*(rxQueueBytes/len(b)+10) {
		t.Errorf("kept %d and dropped %d of %d", kept, dropped, 2*(rxQueueBytes/len(b)+10))
	}
}
