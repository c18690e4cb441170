package server

import (
	"net/netip"
	"sync/atomic"
	"time"

	"rtype/net/wire"
)

// batchSize is how many datagrams one batched syscall carries at most:
// recvmmsg fills up to that many, and an outbox sends them with one
// sendmmsg each time that many are queued.
const batchSize = 64

// readBuffer is the receive buffer the server asks for its UDP socket (the
// kernel caps it at net.core.rmem_max on Linux). The read loop waits for
// the server's mutex while a tick runs: at 400 busy players (30,000
// datagrams a second in) a 6 ms tick fills the default 208 kB, and the
// kernel dropped half the Inputs and Acks (BENCHMARKS.md, players per
// core), which the server then pays for in resent events.
const readBuffer = 4 << 20

// datagram is one datagram of a batch: its bytes and its peer.
type datagram struct {
	b    []byte
	addr netip.AddrPort
}

// outbox queues the datagrams a tick (or the read loop) sends, in order,
// and sends them in batches (sendmmsg where the platform has it): when
// batchSize are queued, and at flush. Its buffers are reused, so that in
// steady state queueing and sending allocate nothing. It is used by one
// goroutine at a time (under the server's mutex); every datagram it
// queued is sent by the next flush, so that the order of the datagrams,
// and of what the read loop writes, is the order they were queued.
type outbox struct {
	w   *batchWriter
	wt  *wtRoutes // the WebTransport sessions' senders, or nil (Part IV)
	d   [batchSize]datagram
	n   int
	buf [batchSize][wire.MaxDatagram]byte
	// spent is the time its sends took since it was last reset
	// (TickPart).
	spent time.Duration
	// The UDP payloads of the Event and Snapshot datagrams queued since
	// the last flush, which adds them to totals: one atomic add per
	// batch, not per datagram, on counters every shard shares.
	eventBytes, snapshotBytes uint64
	totals                    *serverStats // the server's, or nil
}

func newOutbox(u *udpSocket) (*outbox, error) {
	w, err := newBatchWriter(u)
	if err != nil {
		return nil, err
	}
	o := &outbox{w: w}
	for i := range o.d {
		o.d[i].b = o.buf[i][:0]
	}
	return o, nil
}

// next returns the empty buffer of the next datagram, to append it to
// and hand it to push.
func (o *outbox) next() []byte { return o.buf[o.n][:0] }

// push queues b, which next returned (and the appending grew within its
// capacity), for to.
func (o *outbox) push(b []byte, to netip.AddrPort) {
	if o.wt != nil && o.wt.send(b, to) {
		return // a WebTransport session's: its sender has a copy
	}
	o.d[o.n] = datagram{b: b, addr: to}
	if o.n++; o.n == batchSize {
		o.flush()
	}
}

// add queues a copy of p for to.
func (o *outbox) add(p []byte, to netip.AddrPort) {
	o.push(append(o.next(), p...), to)
}

// flush sends every queued datagram. A datagram the socket refuses is
// dropped, as a lost one would be (datagrams are not reliable).
func (o *outbox) flush() {
	if o.totals != nil && o.eventBytes|o.snapshotBytes != 0 {
		o.totals.eventBytes.Add(o.eventBytes)
		o.totals.snapshotBytes.Add(o.snapshotBytes)
		o.eventBytes, o.snapshotBytes = 0, 0
	}
	if o.n > 0 {
		t := time.Now()
		o.w.write(o.d[:o.n])
		o.spent += time.Since(t)
		o.n = 0
	}
}

// SocketStats count the server's syscalls on its UDP socket since it
// started (on Linux: recvmmsg and sendmmsg; elsewhere a call per
// datagram), for sizing and profiling: datagrams per call is the batch
// the load achieves.
type SocketStats struct {
	// Reads are the read calls that returned datagrams, Received the
	// datagrams they returned.
	Reads, Received uint64
	// ReadWaits are the times the read loop found the socket empty and
	// waited for it to be readable (on Linux, on the socket's own epoll
	// instance, armed for one datagram, in the runtime's poller).
	ReadWaits uint64
	// Writes are the send calls, Sent the datagrams they sent.
	Writes, Sent uint64
	// WriteWaits are the times a send found the socket's buffer full
	// (EAGAIN) and waited for it to be writable; ShortWrites the calls
	// that sent part of their batch; Refused the calls that failed with
	// an error (a datagram dropped).
	WriteWaits, ShortWrites, Refused uint64
}

// SocketStats returns the counts of the server's UDP syscalls so far.
func (s *Server) SocketStats() SocketStats {
	var st SocketStats
	if s.rx != nil {
		st.Reads, st.Received, st.ReadWaits = s.rx.stats.calls.Load(), s.rx.stats.datagrams.Load(), s.rx.stats.waits.Load()
	}
	add := func(o *outbox) {
		if o == nil || o.w == nil {
			return
		}
		t := &o.w.stats
		st.Writes += t.calls.Load()
		st.Sent += t.datagrams.Load()
		st.WriteWaits += t.waits.Load()
		st.ShortWrites += t.short.Load()
		st.Refused += t.refused.Load()
	}
	add(s.rxOut)
	for _, sh := range s.shards.all {
		add(sh.out)
	}
	return st
}

// rxStats are a batchReader's counts (SocketStats): atomic, added once
// per call, read by another goroutine.
type rxStats struct {
	calls, datagrams, waits atomic.Uint64
}

// txStats are a batchWriter's counts (SocketStats).
type txStats struct {
	calls, datagrams, waits, short, refused atomic.Uint64
}
