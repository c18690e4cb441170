package link2

import (
	"slices"

	"rtype/net/link"
	"rtype/net/wire2"
)

// KeepAliveTicks is the longest a v2 server goes without sending a
// client a snapshot: 200 ms, 12 ticks (7.9).
const KeepAliveTicks = 12

// History is History for a v2 session (7.8): the server's record of the
// last Snapshots v2 snapshots it sent to one client, whole (players and
// entities, as wire.Frame), with the datagrams that carried each, so that
// it can pick the newest one the client fully acknowledged as the next
// baseline. It also remembers when it last sent one, for the rate rule of
// 7.9. A Link keeps it informed when its History is set.
type History struct {
	snaps    [link.Snapshots]sentFrame
	next     int    // slot of the next snapshot
	sentAny  bool   // a snapshot was added
	lastTick uint32 // the tick of the last one added
	// base is 1 + the slot of the newest fully acknowledged snapshot
	// (Baseline's), or 0 when none is: kept as parts and acknowledgements
	// are counted, so that neither Baseline nor an acknowledgement walks
	// the slots (each in a cache line or two of its own) in steady state.
	base int
}

type sentFrame struct {
	valid bool
	frame wire2.Frame // its Entities are own's, or shared's
	parts int         // datagrams that carried it
	acked int         // of which acknowledged
	// The storage of its entities: its own copy (Add), or the copy of
	// its tick that it shares with the other histories its
	// SnapshotSender sent the same entities to (addShared).
	own    []wire2.Entity
	shared *sharedEntities
	// passed: a newer snapshot became the baseline, and the shared
	// entities were let go (passedBy): no longer a baseline.
	passed bool
}

// complete reports whether every datagram of the snapshot was acknowledged.
func (s *sentFrame) complete() bool { return s.valid && s.parts > 0 && s.acked == s.parts }

// candidate reports whether the snapshot can be the baseline: complete,
// and its entities held.
func (s *sentFrame) candidate() bool { return s.complete() && !s.passed }

// Add records the snapshot of tick with its players and entities (copied)
// before its datagrams are sent with Link.AppendSnapshot. It evicts the
// oldest.
func (h *History) Add(tick uint32, players []wire2.Player, entities []wire2.Entity) {
	s := h.evict()
	s.frame.Entities = s.own
	s.frame.Set(tick, players, entities)
	s.own = s.frame.Entities
	h.added(tick)
}

// addShared is Add with the entities of cur, the copy of the state of tick
// its SnapshotSender made once for every history it sends them to at
// that tick (framePool.current): the players of a game get the same
// entities, and 4 copies of them, each to memory out of the cache, cost a
// server more than encoding them (and each client's baseline would be a
// copy of its own, out of the cache too).
func (h *History) addShared(cur *sharedEntities, tick uint32, players []wire2.Player) {
	s := h.evict()
	cur.refs++
	s.shared = cur
	s.frame.Tick = tick
	s.frame.Players = append(s.frame.Players[:0], players...)
	s.frame.Entities = cur.ents
	h.added(tick)
}

// evict takes the slot of the next snapshot, oldest first, and empties it.
func (h *History) evict() *sentFrame {
	s := &h.snaps[h.next]
	s.valid, s.parts, s.acked, s.passed = true, 0, 0, false
	if s.shared != nil {
		s.shared.release()
		s.shared = nil
	}
	return s
}

// added is the end of an Add: the slot of tick is taken.
func (h *History) added(tick uint32) {
	at := h.next
	h.next = (h.next + 1) % link.Snapshots
	h.sentAny, h.lastTick = true, tick
	h.changed(at)
}

// framePool is a SnapshotSender's copies of the entities of the
// snapshots it sent, shared between the histories of their peers
// (History.addShared), each held until no history does (a history lets
// go of a snapshot's once a newer one is its baseline, or its slot is
// taken), then reused, the last one let go of first: in steady state it
// allocates nothing. The copies are read-only.
type framePool struct {
	last *sharedEntities // the current state, held by the pool too
	// next is the memory fill handed out for the next state, held by
	// nothing else: current takes it (the entities built in it as they
	// are, others copied into it).
	next *sharedEntities
	gen  uint64 // states made current: last's number
	free []*sharedEntities
}

// sharedEntities is one tick's entities as sent, shared.
type sharedEntities struct {
	tick uint32
	ents []wire2.Entity
	refs int // the histories and the pool holding it
	pool *framePool
}

// fill returns the empty memory of the next state for its entities to be
// built in (SnapshotSender.NextEntities), held by nothing else: the same
// until current takes it. It has room for twice the entities of the last
// state, so that they are not built in memory of their own, then copied.
func (p *framePool) fill() []wire2.Entity {
	if p.next == nil {
		p.next = p.take()
	}
	c := p.next
	if p.last != nil && cap(c.ents) < len(p.last.ents) {
		c.ents = make([]wire2.Entity, 0, 2*len(p.last.ents)) // as current grows
	}
	return c.ents[:0]
}

// take returns a copy no one holds: the last one released, or a new one.
func (p *framePool) take() *sharedEntities {
	n := len(p.free)
	if n == 0 {
		return &sharedEntities{pool: p}
	}
	c := p.free[n-1]
	p.free[n-1] = nil
	p.free = p.free[:n-1]
	return c
}

// current returns entities, the state of tick, as a copy held by the pool
// until the next state (addShared holds it for a history): the last one
// if it has the same tick and entities (the same memory, or equal), else
// a new one: entities themselves when they were built in the memory fill
// handed out, a copy of them otherwise. A copy is only reused (a new
// state in its memory, p.gen moved on) once nothing holds it, so that
// within one p.gen a pointer to a copy names its entities.
func (p *framePool) current(tick uint32, entities []wire2.Entity) *sharedEntities {
	if c := p.last; c != nil && c.tick == tick && (sameMemory(c.ents, entities) || slices.Equal(c.ents, entities)) {
		return c
	}
	if p.last != nil {
		p.last.release() // first: when nothing else holds it, it is the copy to reuse
	}
	c := p.next
	p.next = nil
	if c == nil {
		c = p.take()
	}
	if n := len(entities); n <= cap(c.ents) && sameMemory(c.ents[:n], entities) {
		c.ents = c.ents[:n] // built in it: no copy
	} else {
		if cap(c.ents) < n {
			c.ents = make([]wire2.Entity, 0, max(16, 2*n)) // as Frame.Set grows
		}
		c.ents = append(c.ents[:0], entities...)
	}
	c.tick, c.refs = tick, 1 // the pool's (p.last)
	p.last = c
	p.gen++
	return c
}

// sameMemory reports whether a and b are the same entities in the same
// memory (none: never).
func sameMemory(a, b []wire2.Entity) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// release lets go of one hold of c: with none left, its pool reuses it.
func (c *sharedEntities) release() {
	c.refs--
	if c.refs == 0 {
		c.pool.free = append(c.pool.free, c)
	}
}

// changed keeps h.base right after the counts of slot at changed.
func (h *History) changed(at int) {
	s := &h.snaps[at]
	switch {
	case h.base == at+1 && !s.complete():
		h.base = h.findBase() // it was the baseline: another one, if any
	case s.candidate() && h.base != at+1 && h.newer(at, h.base-1):
		if h.base > 0 {
			h.snaps[h.base-1].passedBy()
		}
		h.base = at + 1
	}
}

// passedBy lets go of the shared entities of s, the baseline until a newer
// snapshot became it: the client acknowledged the newer one, against
// which the server encodes from now on, so that s's entities are of no
// more use, and its SnapshotSender reuses their memory while it is still
// in the cache, not Snapshots snapshots later (framePool). Its own
// entities (Add) stay.
func (s *sentFrame) passedBy() {
	if s.shared == nil {
		return
	}
	s.shared.release()
	s.shared, s.frame.Entities, s.passed = nil, nil, true
}

// newer reports whether the snapshot of slot at is a better baseline than
// that of slot b (b < 0: none): a later tick, or the same one in a lower
// slot (the first of a walk in slot order).
func (h *History) newer(at, b int) bool {
	if b < 0 {
		return true
	}
	t, tb := h.snaps[at].frame.Tick, h.snaps[b].frame.Tick
	return t > tb || t == tb && at < b
}

// findBase returns 1 + the slot of the newest fully acknowledged snapshot,
// or 0, walking every slot.
func (h *History) findBase() int {
	best := -1
	for i := range h.snaps {
		if h.snaps[i].candidate() && (best < 0 || h.snaps[i].frame.Tick > h.snaps[best].frame.Tick) {
			best = i
		}
	}
	return best + 1
}

func (h *History) find(tick uint32) int {
	for i := range h.snaps {
		if s := &h.snaps[i]; s.valid && s.frame.Tick == tick {
			return i
		}
	}
	return -1
}

// slotOf returns the slot of the snapshot of tick, given hint, the slot
// it was added to (Carried's result), or -1 when h no longer holds it.
func (h *History) slotOf(tick uint32, hint int) int {
	if hint >= 0 && hint < link.Snapshots {
		if s := &h.snaps[hint]; s.valid && s.frame.Tick == tick {
			return hint
		}
	}
	return h.find(tick)
}

// Carried counts one more datagram of the snapshot of tick, and returns
// its slot (or -1), the hint of Acked (Baselines).
func (h *History) Carried(tick uint32) int {
	return h.carriedAt(tick, (h.next+link.Snapshots-1)%link.Snapshots) // most often the last added
}

func (h *History) carriedAt(tick uint32, hint int) int {
	at := h.slotOf(tick, hint)
	if at >= 0 {
		h.snaps[at].parts++
		h.changed(at)
	}
	return at
}

// Acked counts one more acknowledged datagram of the snapshot of tick;
// hint is the slot Carried returned for the datagram, or -1 (Baselines).
func (h *History) Acked(tick uint32, hint int) {
	if at := h.slotOf(tick, hint); at >= 0 {
		h.snaps[at].acked++
		h.changed(at)
	}
}

// Baseline returns the newest snapshot whose every datagram the client
// acknowledged, or nil when there is none (4.8, 7.8): what
// wire.SnapshotEncoder.EncodeFrame takes as its base. It stays valid
// until the snapshot is evicted, so encode before Add; when a
// SnapshotSender sent it, its entities only until a newer snapshot
// becomes the baseline (an acknowledgement).
func (h *History) Baseline() *wire2.Frame {
	f, _ := h.baseline()
	return f
}

// baseline is Baseline with the copy of its entities it shares with the
// other histories of its SnapshotSender (nil: its own, or no baseline).
func (h *History) baseline() (*wire2.Frame, *sharedEntities) {
	if h.base == 0 {
		return nil, nil
	}
	s := &h.snaps[h.base-1]
	return &s.frame, s.shared
}

// Acknowledged reports whether the snapshot of tick is held and fully
// acknowledged.
func (h *History) Acknowledged(tick uint32) bool {
	at := h.find(tick)
	return at >= 0 && h.snaps[at].complete()
}

// Due reports whether a snapshot of tick must be sent even if it repeats
// its baseline: none was sent yet, or the last one is KeepAliveTicks or
// more ticks older (7.9).
func (h *History) Due(tick uint32) bool {
	return !h.sentAny || tick-h.lastTick >= KeepAliveTicks
}
