package server

import (
	"sync"
	"time"

	"rtype/net/wire2"
)

// While a tick holds the server's mutex, the read loop either waits for
// it or goes on reading (Config.WaitForTick). Waiting needs a receive
// buffer that holds what comes during a tick: with Linux's default of
// 208 kB the kernel dropped 40% of the datagrams in at 1,000 busy players
// (Inputs, and Acks whose loss makes the server resend events). So unless
// the socket got a buffer of MinWaitBuffer, the read loop reads on and
// keeps what it read in an rxQueue, which the first of the read loop and
// the next tick to hold the mutex handles before anything else. A
// datagram waits no longer either way: until the mutex is free, or the
// next tick at most.

// rxQueueBytes bounds the bytes an rxQueue holds: about 3,500 datagrams
// of 1,200 bytes, 60,000 of an Input or an Ack (what busy players send).
// A datagram past it is dropped (DropBusy), as the kernel would.
const rxQueueBytes = 4 << 20

// MinWaitBuffer is the least receive buffer, as SO_RCVBUF reports it,
// with which the read loop waits for a running tick by default
// (Config.WaitForTick). Linux reports twice what was set, for the
// kernel's overhead: 8 MB when it grants the 4 MB the server asks for,
// 416 kB under the default net.core.rmem_max of 208 kB. Half of the
// first is room for some 70 ms of 1,000 busy players' Inputs.
const MinWaitBuffer = readBuffer

// waitsForTick decides Config.WaitForTick for a socket whose receive
// buffer reads granted bytes.
func waitsForTick(setting, granted int) bool {
	switch {
	case setting > 0:
		return true
	case setting < 0:
		return false
	}
	return granted >= MinWaitBuffer
}

// rxQueue holds, in order, datagrams received while the mutex was held.
// Its buffers grow to what the load needs and are reused: in steady state
// it allocates nothing.
type rxQueue struct {
	mu  sync.Mutex
	buf []byte // the datagrams' bytes, back to back
	ds  []datagram
	at  []time.Time // when each datagram was read
	rd  reader      // the handling's buffers, for the tick loop
}

// add keeps a copy of ds, read at now, and returns how many it dropped
// for want of room.
func (q *rxQueue) add(ds []datagram, now time.Time) (dropped int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, d := range ds {
		if len(q.buf)+len(d.b) > rxQueueBytes {
			dropped++
			continue
		}
		off := len(q.buf)
		q.buf = append(q.buf, d.b...)
		q.ds = append(q.ds, datagram{b: q.buf[off:len(q.buf):len(q.buf)], addr: d.addr})
		q.at = append(q.at, now)
	}
	return dropped
}

// udpIn is the handling of the datagrams that reach the UDP port (or a
// WebTransport session): the read loop's, and the queue of what it read
// while a tick held the mutex. Its state is guarded by Server.mu but for
// the queue (its own lock) and waitTick (set once by New).
type udpIn struct {
	srv     *Server
	rxq     rxQueue          // what the read loop read while mu was held
	cookies *wire2.CookieMAC // v2 binding (7.3); used under mu
	// waitTick: the read loop waits for a running tick rather than
	// queueing (Config.WaitForTick, set once by New).
	waitTick bool
}

// handleQueuedLocked handles the queued datagrams, in order, with rd's
// buffers (nil: the queue's own), and empties the queue; s.mu is held.
// The answers are queued in s.rxOut: the caller flushes it.
func (u *udpIn) handleQueuedLocked(rd *reader) {
	q := &u.rxq
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.ds) == 0 {
		return
	}
	if rd == nil {
		rd = &q.rd
	}
	u.receiveAllLocked(rd, q.ds, q.at, time.Time{})
	clear(q.ds) // no slice of an old buffer kept
	q.buf, q.ds, q.at = q.buf[:0], q.ds[:0], q.at[:0]
}

// receiveOrQueue handles a batch at once if the mutex is free (the queue
// first). Otherwise, with s.in.waitTick, it waits for the mutex (a tick's
// end) and handles it then; without, it queues it for whoever holds the
// mutex next.
func (u *udpIn) receiveOrQueue(rd *reader, ds []datagram, now time.Time) {
	s := u.srv
	if !s.mu.TryLock() {
		if !u.waitTick {
			if n := u.rxq.add(ds, now); n > 0 {
				s.stats.dropped[DropBusy].Add(uint64(n))
			}
			return
		}
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	u.handleQueuedLocked(rd)
	u.receiveAllLocked(rd, ds, nil, now)
	s.rxOut.flush()
}

// handleQueuedInTick is handleQueuedLocked for the tick loop, at the start
// of a tick: the Inputs that came during the last one count in this one.
func (u *udpIn) handleQueuedInTick() {
	s := u.srv
	u.handleQueuedLocked(nil)
	s.rxOut.flush()
}
