package server

import (
	"net"
	"net/netip"
	"testing"
	"time"
)

// TestSocketStatsCount: the batch reader and writer count their calls
// and datagrams (SocketStats): k datagrams queued and flushed are k sent
// in at least one call, and the reader's calls return them all.
func TestSocketStatsCount(t *testing.T) {
	r, o, to, _ := loopbackBatch(t)
	const k = 10
	for i := range k {
		o.add([]byte{byte(i)}, to)
	}
	o.flush()
	if c, d := o.w.stats.calls.Load(), o.w.stats.datagrams.Load(); c < 1 || c > k || d != k {
		t.Errorf("writer: %d calls, %d datagrams; want 1 to %d calls, %d datagrams", c, d, k, k)
	}
	got := 0
	for got < k {
		ds, err := r.read()
		if err != nil {
			t.Fatal(err)
		}
		got += len(ds)
	}
	if c, d := r.stats.calls.Load(), r.stats.datagrams.Load(); c < 1 || c > k || d != k {
		t.Errorf("reader: %d calls, %d datagrams; want 1 to %d calls, %d datagrams", c, d, k, k)
	}
}

// loopbackBatch opens two UDP sockets on 127.0.0.1, closed at the end of
// the test: a batch reader of one (at to), an outbox of the other (at
// from).
func loopbackBatch(t testing.TB) (r *batchReader, o *outbox, to, from netip.AddrPort) {
	t.Helper()
	rc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	sc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	to, from = rc.LocalAddr().(*net.UDPAddr).AddrPort(), sc.LocalAddr().(*net.UDPAddr).AddrPort()
	ru, err := newUDPSocket(rc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ru.release)
	time.AfterFunc(time.Minute, ru.close) // a read that never comes fails the test
	su, err := newUDPSocket(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(su.release)
	if r, err = newBatchReader(ru); err != nil {
		t.Fatal(err)
	}
	if o, err = newOutbox(su); err != nil {
		t.Fatal(err)
	}
	return r, o, to, from
}
