package netsim

import (
	"encoding/binary"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkForwardUDP measures the cost of relaying one datagram from a
// client to the server through real loopback sockets, one at a time (each
// iteration waits for the datagram to reach the server).
func BenchmarkForwardUDP(b *testing.B) {
	srv := newTestServerRaw(b)
	r := startRelay(b, Config{To: srv.LocalAddr().String()})
	c := dialUDP(b, r)
	var out, in [64]byte
	// Warm up the mapping and the buffer pool.
	for range 100 {
		_, _ = c.Write(out[:])
		_, _, _ = srv.ReadFromUDPAddrPort(in[:])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		binary.BigEndian.PutUint64(out[:], uint64(i))
		if _, err := c.Write(out[:]); err != nil {
			b.Fatal(err)
		}
		_ = srv.SetReadDeadline(time.Now().Add(time.Second))
		if _, _, err := srv.ReadFromUDPAddrPort(in[:]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImpairSchedule measures the in-process cost of one datagram
// through decision, pooled copy, heap scheduling and delivery by the
// scheduler goroutine, with loss, duplication, reordering and delay enabled.
func BenchmarkImpairSchedule(b *testing.B) {
	r := &Relay{start: time.Now()}
	var delivered atomic.Int64
	s := newScheduler(r.now, &r.pool, func(*udpClient, []byte) { delivered.Add(1) })
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go s.run(done, &wg)
	defer func() { close(done); wg.Wait() }()

	im := Impairment{Loss: 0.1, Dup: 0.1, Reorder: 0.05, Delay: 200 * time.Microsecond, Jitter: 100 * time.Microsecond}
	c := &udpClient{}
	rng := newRNG(1, dirUp, 0)
	var st counters
	payload := make([]byte, 200)
	var produced int64
	run := func(n int) {
		for range n {
			// Bound the datagrams in flight, as a real socket would: the
			// scheduler must keep up rather than let the heap grow.
			for produced-int64(st.dropped.Load())+int64(st.duplicated.Load())-delivered.Load() > 2048 {
				runtime.Gosched()
			}
			buf := r.pool.get()
			copy(buf[:], payload)
			r.impair(&st, s, c, rng, &im, buf, len(payload), r.now())
			produced++
		}
	}
	run(10000) // grow the heap and fill the pool
	b.ReportAllocs()
	b.ResetTimer()
	run(b.N)
}

// newTestServerRaw returns a bare UDP socket on 127.0.0.1 (with a TCP
// listener on the same port), for benchmarks that read it directly.
func newTestServerRaw(b *testing.B) *net.UDPConn {
	b.Helper()
	tl, ul, err := listenPair("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tl.Close(); ul.Close() })
	return ul
}
