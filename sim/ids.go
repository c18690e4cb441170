package sim

// idAlloc hands out entity slots (the index of a network id, 4.1). A slot
// freed at tick t waits in a FIFO until tick t+delay; it is then "ripe" and
// goes to a min-heap, so the lowest ripe index is reused first, which keeps
// the indices of the live entities close (small snapshot gaps, 4.3). Slots
// never used yet come after the ripe ones, in increasing order. Nothing
// allocates after newIDAlloc.
type idAlloc struct {
	delay uint32
	max   int32 // highest index; index 0 is never handed out
	next  int32 // lowest index never handed out

	ripe []int32 // min-heap of reusable slots

	// qSlot and qTick form a ring of the slots waiting out the delay, in
	// the order they were freed (thus by tick).
	qSlot     []int32
	qTick     []uint32
	qHead, qN int
	headTick  uint32 // qTick[qHead] when qN > 0: ripen reads no line of the ring when none is due
}

func newIDAlloc(maxIndex int, delay int) idAlloc {
	return idAlloc{
		delay: uint32(delay),
		max:   int32(maxIndex),
		next:  1,
		ripe:  make([]int32, 0, maxIndex),
		qSlot: make([]int32, maxIndex),
		qTick: make([]uint32, maxIndex),
	}
}

// ripen moves the slots whose delay has passed at tick now to the heap.
func (a *idAlloc) ripen(now uint32) {
	for a.qN > 0 && now-a.headTick >= a.delay {
		a.push(a.qSlot[a.qHead])
		a.pop1()
	}
}

// pop1 takes the head of the ring out.
func (a *idAlloc) pop1() {
	a.qHead++
	if a.qHead == len(a.qSlot) {
		a.qHead = 0
	}
	if a.qN--; a.qN > 0 {
		a.headTick = a.qTick[a.qHead]
	}
}

// free returns the number of slots that can be handed out at once.
func (a *idAlloc) free() int {
	return len(a.ripe) + int(a.max-a.next+1)
}

// alloc returns a free slot, the lowest ripe one first, or 0 when none is.
// The caller calls ripen first.
func (a *idAlloc) alloc() int32 {
	if len(a.ripe) > 0 {
		return a.pop()
	}
	if a.next <= a.max {
		a.next++
		return a.next - 1
	}
	return 0
}

// allocUnripe returns the slot that has waited longest, before its delay is
// over, or 0 when none waits. It is the last resort for a ship: its new
// generation still makes a new network id.
func (a *idAlloc) allocUnripe() int32 {
	if a.qN == 0 {
		return 0
	}
	s := a.qSlot[a.qHead]
	a.pop1()
	return s
}

// release queues slot s, freed at tick now.
func (a *idAlloc) release(s int32, now uint32) {
	i := a.qHead + a.qN
	if i >= len(a.qSlot) {
		i -= len(a.qSlot)
	}
	a.qSlot[i] = s
	a.qTick[i] = now
	if a.qN == 0 {
		a.headTick = now
	}
	a.qN++
}

func (a *idAlloc) push(s int32) {
	h := append(a.ripe, s)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	a.ripe = h
}

func (a *idAlloc) pop() int32 {
	h := a.ripe
	s := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h[r] < h[l] {
			c = r
		}
		if h[i] <= h[c] {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	a.ripe = h
	return s
}
