package server

import (
	"net"
	"net/netip"

	"rtype/net/wire"
)

// batchSize is how many datagrams one batched syscall carries at most:
// recvmmsg fills up to that many, and an outbox sends them with one
// sendmmsg each time that many are queued.
const batchSize = 64

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
}

func newOutbox(c *net.UDPConn) (*outbox, error) {
	w, err := newBatchWriter(c)
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
	if o.n > 0 {
		o.w.write(o.d[:o.n])
		o.n = 0
	}
}
