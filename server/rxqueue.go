package server

import (
	"sync"
	"time"
)

// The read loop does not wait for the server's mutex while a tick holds
// it: it goes on reading, and keeps what it read in an rxQueue, which the
// first of the read loop and the next tick to hold the mutex handles
// before anything else. Without it the kernel's socket buffer filled
// during every long tick (at 1,000 busy players, 40% of the datagrams in
// were dropped: Inputs, and Acks whose loss makes the server resend
// events), and a datagram waits no longer with it: until the mutex is
// free, as before, or the next tick at most.

// rxQueueBytes bounds the bytes an rxQueue holds: about 3,500 datagrams
// of 1,200 bytes, 60,000 of an Input or an Ack (what busy players send).
// A datagram past it is dropped (DropBusy), as the kernel would.
const rxQueueBytes = 4 << 20

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

// handleQueuedLocked handles the queued datagrams, in order, with rd's
// buffers (nil: the queue's own), and empties the queue; s.mu is held.
// The answers are queued in s.rxOut: the caller flushes it.
func (s *Server) handleQueuedLocked(rd *reader) {
	q := &s.rxq
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.ds) == 0 {
		return
	}
	if rd == nil {
		rd = &q.rd
	}
	s.receiveAllLocked(rd, q.ds, q.at, time.Time{})
	clear(q.ds) // no slice of an old buffer kept
	q.buf, q.ds, q.at = q.buf[:0], q.ds[:0], q.at[:0]
}

// receiveOrQueue handles a batch at once if the mutex is free (the queue
// first), and otherwise queues it for whoever holds the mutex next.
func (s *Server) receiveOrQueue(rd *reader, ds []datagram, now time.Time) {
	if !s.mu.TryLock() {
		if n := s.rxq.add(ds, now); n > 0 {
			s.stats.dropped[DropBusy].Add(uint64(n))
		}
		return
	}
	defer s.mu.Unlock()
	s.handleQueuedLocked(rd)
	s.receiveAllLocked(rd, ds, nil, now)
	s.rxOut.flush()
}

// handleQueuedInTick is handleQueuedLocked for the tick loop, at the start
// of a tick: the Inputs that came during the last one count in this one.
func (s *Server) handleQueuedInTick() {
	s.handleQueuedLocked(nil)
	s.rxOut.flush()
}
