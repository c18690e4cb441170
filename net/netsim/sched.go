package netsim

import (
	"math/rand/v2"
	"sync"
	"time"
)

// decision is the fate of one datagram.
type decision struct {
	drop    bool             // discard the datagram
	dup     bool             // send a second copy
	reorder bool             // hold it back so later datagrams overtake it
	delay   [2]time.Duration // delay of the first copy and of the duplicate
}

// decide draws the fate of one datagram under im from rng. It always consumes
// exactly five values from rng, whatever the outcome, so that the decision
// for the n-th datagram of a flow depends only on the seed, n and im.
func decide(rng *rand.Rand, im *Impairment) decision {
	lossRoll := rng.Float64()
	dupRoll := rng.Float64()
	reorderRoll := rng.Float64()
	j0 := rng.Float64()
	j1 := rng.Float64()

	var d decision
	if lossRoll < im.Loss {
		d.drop = true
		return d
	}
	d.dup = dupRoll < im.Dup
	d.reorder = reorderRoll < im.Reorder
	var extra time.Duration
	if d.reorder {
		extra = reorderHold(im)
	}
	d.delay[0] = jittered(im, j0) + extra
	d.delay[1] = jittered(im, j1) + extra
	return d
}

// reorderHold is the extra delay applied to a datagram chosen for
// reordering.
func reorderHold(im *Impairment) time.Duration {
	return im.Delay/2 + im.Jitter + reorderMinHold
}

// jittered maps the uniform roll f in [0, 1) to Delay + uniform(-Jitter,
// +Jitter), clamped at zero.
func jittered(im *Impairment, f float64) time.Duration {
	d := im.Delay + time.Duration((2*f-1)*float64(im.Jitter))
	return max(d, 0)
}

// newRNG returns the decision generator for one direction of one client.
func newRNG(seed int64, dir dirIndex, clientIdx uint64) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix64(uint64(seed)), splitmix64(uint64(dir)<<56^clientIdx)))
}

// splitmix64 is a bijective mixing function used to derive RNG seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// buffer holds one datagram. It is one byte larger than MaxDatagram so that
// oversized datagrams can be detected on read.
type buffer [MaxDatagram + 1]byte

// maxFreeBuffers bounds the number of idle buffers a bufPool retains
// (about 6 MB); buffers released beyond it are left to the GC.
const maxFreeBuffers = 4096

// bufPool recycles datagram buffers. Unlike sync.Pool it is not emptied by
// the GC, so steady-state forwarding does not allocate.
type bufPool struct {
	mu   sync.Mutex
	free []*buffer
}

func (bp *bufPool) get() *buffer {
	bp.mu.Lock()
	if n := len(bp.free); n > 0 {
		b := bp.free[n-1]
		bp.free[n-1] = nil
		bp.free = bp.free[:n-1]
		bp.mu.Unlock()
		return b
	}
	bp.mu.Unlock()
	return new(buffer)
}

func (bp *bufPool) put(b *buffer) {
	bp.mu.Lock()
	if len(bp.free) < maxFreeBuffers {
		bp.free = append(bp.free, b)
	}
	bp.mu.Unlock()
}

// packet is one datagram copy waiting for delivery.
type packet struct {
	due time.Duration // relay clock time at which to deliver
	seq uint64        // tie-breaker: FIFO among equal due times
	buf *buffer
	n   int
	c   *udpClient
}

func (p *packet) before(q *packet) bool {
	return p.due < q.due || (p.due == q.due && p.seq < q.seq)
}

// packetHeap is a binary min-heap of packets by (due, seq), stored by value so
// that pushing and popping do not allocate once the slice has grown.
type packetHeap []packet

func (h *packetHeap) push(p packet) {
	*h = append(*h, p)
	s := *h
	i := len(s) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !s[i].before(&s[parent]) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *packetHeap) pop() packet {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s[last] = packet{} // drop references for the GC
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		m := l
		if r := l + 1; r < len(s) && s[r].before(&s[l]) {
			m = r
		}
		if !s[m].before(&s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// scheduler delivers the packets of one direction at their due times, using
// a min-heap and a single goroutine with a timer.
type scheduler struct {
	now     func() time.Duration
	pool    *bufPool
	deliver func(c *udpClient, p []byte)
	wake    chan struct{}

	mu      sync.Mutex
	heap    packetHeap
	seq     uint64
	busy    bool // the run goroutine is delivering a popped packet
	stopped bool
}

func newScheduler(now func() time.Duration, pool *bufPool, deliver func(*udpClient, []byte)) *scheduler {
	return &scheduler{now: now, pool: pool, deliver: deliver, wake: make(chan struct{}, 1)}
}

// schedule queues p for delivery at p.due, taking ownership of p.buf. If p is
// already due and nothing is pending, it is delivered at once by the caller's
// goroutine; this preserves per-flow order since each flow is fed by a single
// goroutine.
func (s *scheduler) schedule(p packet) {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		s.pool.put(p.buf)
		return
	}
	if len(s.heap) == 0 && !s.busy && p.due <= s.now() {
		s.mu.Unlock()
		s.send(&p)
		return
	}
	p.seq = s.seq
	s.seq++
	s.heap.push(p)
	first := s.heap[0].seq == p.seq
	s.mu.Unlock()
	if first {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// send delivers p and releases its buffer.
func (s *scheduler) send(p *packet) {
	s.deliver(p.c, p.buf[:p.n])
	s.pool.put(p.buf)
}

// pending returns the number of queued packets.
func (s *scheduler) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.heap)
}

// run delivers due packets until done is closed, then discards what is left.
func (s *scheduler) run(done <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	for {
		s.mu.Lock()
		for len(s.heap) > 0 && s.heap[0].due <= s.now() {
			p := s.heap.pop()
			s.busy = true
			s.mu.Unlock()
			s.send(&p)
			s.mu.Lock()
		}
		s.busy = false
		wait, armed := time.Duration(0), len(s.heap) > 0
		if armed {
			wait = max(s.heap[0].due-s.now(), 0)
		}
		s.mu.Unlock()
		if armed {
			t.Reset(wait)
		} else {
			t.Stop()
		}
		select {
		case <-done:
			s.mu.Lock()
			s.stopped = true
			for _, p := range s.heap {
				s.pool.put(p.buf)
			}
			clear(s.heap)
			s.heap = s.heap[:0]
			s.mu.Unlock()
			return
		case <-s.wake:
		case <-t.C:
		}
	}
}
