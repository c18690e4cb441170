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
	cfg.WaitForTick = -1 // the queue's path
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
			s.in.receiveOrQueue(&rd, batches[r][k], time.Now())
		}
		if got := ss.link.Stats().RecvDatagrams; got != before {
			t.Fatalf("round %d: %d datagrams handled while the mutex was held", r, got-before)
		}
		s.mu.Unlock()
		s.in.receiveOrQueue(&rd, batches[r][per-1], time.Now())
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

// TestWaitsForTick checks Config.WaitForTick's decision: 1 waits, -1
// queues, and 0 waits when the socket's receive buffer reads at least
// MinWaitBuffer (Linux's default 208 kB reads 416 kB: it queues).
func TestWaitsForTick(t *testing.T) {
	for _, c := range []struct {
		setting, granted int
		want             bool
	}{
		{0, 0, false}, {0, 2 * 212992, false}, {0, MinWaitBuffer - 1, false},
		{0, MinWaitBuffer, true}, {0, 2 * readBuffer, true},
		{1, 0, true}, {1, 2 * readBuffer, true},
		{-1, 0, false}, {-1, 2 * readBuffer, false},
	} {
		if got := waitsForTick(c.setting, c.granted); got != c.want {
			t.Errorf("waitsForTick(%d, %d) = %v, want %v", c.setting, c.granted, got, c.want)
		}
	}
}

// TestReadLoopDuringTick sends Inputs over a real socket while a tick
// holds the server's mutex. With WaitForTick 1 the read loop waits: none
// is queued, none handled, until the mutex is free; with -1 it reads on
// and queues them. Either way every one is accepted once the mutex is
// free, the newest Input the last one sent.
func TestReadLoopDuringTick(t *testing.T) {
	for _, setting := range []int{1, -1} {
		t.Run(map[int]string{1: "wait", -1: "queue"}[setting], func(t *testing.T) {
			cfg := testConfig()
			cfg.Rules = noWaveRules()
			cfg.SessionTimeout = time.Hour
			cfg.WaitForTick = setting
			s := startServer(t, cfg)
			if s.in.waitTick != (setting > 0) {
				t.Fatalf("waitTick %v with WaitForTick %d", s.in.waitTick, setting)
			}
			c := join(t, s, "Dallas")
			c.keepAlive = false
			c.waitSnaps(3)
			s.mu.Lock() // a tick
			ss := s.sessions[c.acc.Session]
			before := ss.link.Stats().RecvDatagrams
			const n = 20
			var last uint16
			for range n {
				in := c.datagram(wire.TypeInput, []byte{wire.ActionFire})
				last = binary.LittleEndian.Uint16(in[6:])
				c.udp.Write(in)
			}
			queued := func() int {
				s.in.rxq.mu.Lock()
				defer s.in.rxq.mu.Unlock()
				return len(s.in.rxq.ds)
			}
			deadline := time.Now().Add(wait)
			if setting < 0 {
				for queued() < n && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				if q := queued(); q < n {
					s.mu.Unlock()
					t.Fatalf("%d of %d datagrams queued while the mutex was held", q, n)
				}
			} else {
				time.Sleep(100 * time.Millisecond) // the read loop has had its chance
				if q := queued(); q != 0 {
					s.mu.Unlock()
					t.Fatalf("%d datagrams queued while the read loop should wait", q)
				}
			}
			if got := ss.link.Stats().RecvDatagrams; got != before {
				s.mu.Unlock()
				t.Fatalf("%d datagrams handled while the mutex was held", got-before)
			}
			s.mu.Unlock()
			for {
				s.mu.Lock()
				got, seq := ss.link.Stats().RecvDatagrams-before, ss.inputSeq
				s.mu.Unlock()
				if got >= n && seq == last {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d datagrams accepted after the tick, newest Input %d; want %d, %d", got, seq, n, last)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}
