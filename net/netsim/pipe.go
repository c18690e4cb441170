package netsim

import (
	"math/rand/v2"
	"time"
)

// Pipe is one direction of an impaired network in memory, on a clock the
// caller drives: the relay's impairment model (loss, duplication,
// reordering, delay and jitter, decided as the relay decides them) without
// sockets or goroutines, for tests that run both ends of a protocol on
// simulated time. Send puts a datagram in at a time; Receive takes out the
// datagrams due by a time, in the order of their due times. Its decisions
// depend only on its seed and the sequence of datagrams, so a run is
// reproducible exactly. A Pipe is not safe for concurrent use.
type Pipe struct {
	im    Impairment
	rng   *rand.Rand
	epoch time.Time // the time of the first Send: due times count from it
	began bool
	heap  packetHeap
	seq   uint64
	pool  bufPool
	stats Stats
	sent  uint64
}

// NewPipe returns an empty pipe that applies im (clamped into range, as
// SetImpairment does) with decisions drawn from seed.
func NewPipe(im Impairment, seed int64) *Pipe {
	return &Pipe{im: im.clamped(), rng: newRNG(seed, dirPipe, 0)}
}

// dirPipe seeds the decisions of a Pipe apart from the relay's directions.
const dirPipe dirIndex = 3

// SetImpairment replaces the impairment for the datagrams sent from then
// on; those in the pipe keep their due times.
func (p *Pipe) SetImpairment(im Impairment) { p.im = im.clamped() }

// Send puts a copy of b into the pipe at now: it is lost, or due after
// its delay (a duplicate after its own). A datagram larger than
// MaxDatagram is dropped, as the relay drops it.
func (p *Pipe) Send(b []byte, now time.Time) {
	if !p.began {
		p.epoch, p.began = now, true
	}
	p.sent++
	if len(b) > MaxDatagram {
		p.stats.Dropped++
		return
	}
	d := decide(p.rng, &p.im)
	if d.drop {
		p.stats.Dropped++
		return
	}
	if d.reorder {
		p.stats.Reordered++
	}
	at := now.Sub(p.epoch)
	copies := 1
	if d.dup {
		p.stats.Duplicated++
		copies = 2
	}
	for k := range copies {
		buf := p.pool.get()
		n := copy(buf[:], b)
		p.heap.push(packet{due: at + d.delay[k], seq: p.seq, buf: buf, n: n})
		p.seq++
	}
}

// Receive appends to dst the next datagram due at or before now and
// reports whether there was one; datagrams due at the same time come out
// in the order they were sent.
func (p *Pipe) Receive(dst []byte, now time.Time) ([]byte, bool) {
	if len(p.heap) == 0 || p.heap[0].due > now.Sub(p.epoch) {
		return dst, false
	}
	pk := p.heap.pop()
	dst = append(dst, pk.buf[:pk.n]...)
	p.pool.put(pk.buf)
	p.stats.Forwarded++
	return dst, true
}

// Len returns the number of datagram copies in the pipe.
func (p *Pipe) Len() int { return len(p.heap) }

// Stats returns what the pipe did so far: Forwarded counts the copies
// received out of it.
func (p *Pipe) Stats() Stats { return p.stats }

// Sent returns the number of datagrams sent into the pipe.
func (p *Pipe) Sent() uint64 { return p.sent }
