package link2

import (
	"time"

	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// SnapshotSender is SnapshotSender for v2 sessions (7.8, 7.9): it builds
// the v2 Snapshot datagrams a server sends to its clients, each client's
// encoded against the newest snapshot that client fully acknowledged
// (found in its Link's History, players and entities), and it applies the
// rate rule of 7.9: a snapshot goes out when it carries an entity record
// or a changed player record, or when KeepAliveTicks ticks passed since
// the last one. One SnapshotSender serves every client of a game in
// turn: its encoder and datagram buffers are reused by each call, so that
// in steady state it allocates nothing.
//
// The clients of a game mostly acknowledged the same snapshots: the entity
// records of a tick against one baseline are encoded once, for the first
// client with that baseline, and copied after the player records of each
// other one (wire.SnapshotEncoder.EncodeWith). What a client receives is
// byte for byte what encoding its snapshot alone gives.
type SnapshotSender struct {
	enc    wire2.SnapshotEncoder
	bufs   [][]byte
	frames framePool // the entities sent, shared by the histories
	recs   recordCache
	events int // Event datagrams before the snapshot in the last send
}

// recordCache is the entity records of one state (a copy of framePool's)
// against the baselines of the clients sent that state, encoded.
type recordCache struct {
	gen     uint64 // framePool.gen of the state
	entries [maxSharedBases]cachedRecords
	next    int // the entry to replace next
}

// cachedRecords is the records against one baseline.
type cachedRecords struct {
	used bool
	base *sharedEntities // the baseline's entities; nil: a full snapshot
	recs wire2.Records
}

// Datagrams encodes the state of tick (its players, and its entities
// sorted by wire.Less) for the peer of l, a v2 Link, and returns the
// Snapshot datagrams to send it, in order, valid until the next call; or
// none when the rate rule of 7.9 says to skip this one. The snapshot is a
// delta against the baseline l.Baselines picks, or full when it has none;
// a sent snapshot is added to l.Baselines, and l numbers the datagrams and
// remembers which snapshot each carried. Datagrams sets l.Baselines if it
// is nil.
func (s *SnapshotSender) Datagrams(l *link.Link, tick uint32, players []wire2.Player, entities []wire2.Entity, now time.Time) [][]byte {
	return s.datagrams(l, tick, players, entities, false, now)
}

// NextEntities returns empty memory of s for the entities of the next
// snapshot to be appended to (as wire2.AppendEntities does), held by
// no history: passed to Datagrams or DatagramsEvents as they are, the
// entities built there become the state the histories of s's peers share
// without being copied, and each other peer sent them at the same tick
// gets that state without their being compared. Once passed they are
// read-only: read them, never write them, until the next call of
// NextEntities, which returns other memory (or the same while they were
// not passed). Entities built elsewhere are copied, as before.
func (s *SnapshotSender) NextEntities() []wire2.Entity { return s.frames.fill() }

// DatagramsEvents is Datagrams for the peer of a v2 session (l.Tail
// set, PROTOCOL.md 7.8), which also sends the peer's due events (5.3,
// 7.7): they ride in the tail of the first Snapshot datagram, and those
// that do not fit there go, oldest first, in Event datagrams before it.
// It returns the datagrams to send, in order, valid until the next call:
// the Event datagrams, then the Snapshot datagrams, with the number of
// Event datagrams. When the rate rule of 7.9 skips the snapshot it returns
// none and the events stay due: send them with l.AppendEvents.
func (s *SnapshotSender) DatagramsEvents(l *link.Link, tick uint32, players []wire2.Player, entities []wire2.Entity, now time.Time) (ds [][]byte, events int) {
	ds = s.datagrams(l, tick, players, entities, true, now)
	return ds, s.events
}

func (s *SnapshotSender) datagrams(l *link.Link, tick uint32, players []wire2.Player, entities []wire2.Entity, events bool, now time.Time) [][]byte {
	h := history(l)
	cur := s.frames.current(tick, entities)
	base, shared := h.baseline()
	payloads := s.encodeShared(base, shared, tick, players, cur)
	return s.send(l, h, cur, players, payloads, s.enc.Changes(), events, now)
}

// history2 returns l's Baselines, a History made when it has none.
func history(l *link.Link) *History {
	h, _ := l.Baselines.(*History)
	if h == nil {
		h = new(History)
		l.Baselines = h
	}
	return h
}

// encodeShared encodes cur, the state of tick, with players against base
// (nil: a full snapshot), whose entities are shared (nil: base's own), and
// returns the payloads, valid until the next call: with the records of
// the state against that baseline encoded once per state.
func (s *SnapshotSender) encodeShared(base *wire2.Frame, shared *sharedEntities, tick uint32, players []wire2.Player, cur *sharedEntities) [][]byte {
	if base != nil && shared == nil {
		return s.encode(base, tick, players, cur.ents)
	}
	r := s.records(shared, cur)
	var ps [][]byte
	ok := false
	if base == nil {
		ps, ok = s.enc.EncodeWith(tick, players, nil, false, 0, r)
	} else {
		ps, ok = s.enc.EncodeWith(tick, players, base.Players, true, base.Tick, r)
	}
	if !ok { // in several payloads, where the header decides the split
		ps = s.encode(base, tick, players, cur.ents)
	}
	return ps
}

// records returns the records of cur against base (nil: a full
// snapshot), encoded once per state and baseline.
func (s *SnapshotSender) records(base, cur *sharedEntities) *wire2.Records {
	c := &s.recs
	if c.gen != s.frames.gen {
		c.gen, c.next = s.frames.gen, 0
		for i := range c.entries {
			c.entries[i].used = false
		}
	}
	for i := range c.entries {
		if e := &c.entries[i]; e.used && e.base == base {
			return &e.recs
		}
	}
	e := &c.entries[c.next]
	c.next = (c.next + 1) % maxSharedBases
	e.used, e.base = true, base
	var ents []wire2.Entity
	if base != nil {
		ents = base.ents
		if ents == nil {
			ents = noEntities // an empty baseline is still a baseline
		}
	}
	s.enc.EncodeRecords(&e.recs, cur.tick, ents, cur.ents)
	return &e.recs
}

// encode encodes the state of tick against base (nil: a full snapshot)
// and returns the payloads, valid until the next call.
func (s *SnapshotSender) encode(base *wire2.Frame, tick uint32, players []wire2.Player, entities []wire2.Entity) [][]byte {
	if base == nil {
		return s.enc.Encode(tick, players, nil, nil, 0, entities)
	}
	ents := base.Entities
	if ents == nil {
		ents = noEntities // an empty baseline is still a baseline
	}
	return s.enc.Encode(tick, players, base.Players, ents, base.Tick, entities)
}

// send applies the rate rule of 7.9 to payloads, an encoding of cur (the
// state of a tick) with players and changes records, and returns their
// datagrams for l (h its history), or none. With events (a v2 peer,
// 7.8) the due events ride in the tail of the first Snapshot datagram,
// and those that do not fit there go, oldest first, in Event datagrams
// before it.
func (s *SnapshotSender) send(l *link.Link, h *History, cur *sharedEntities, players []wire2.Player, payloads [][]byte, changes int, events bool, now time.Time) [][]byte {
	tick := cur.tick
	s.events = 0
	if changes == 0 && !h.Due(tick) {
		return s.bufs[:0] // nothing the client lacks, and not yet 200 ms (7.9)
	}
	k := 0 // the Event datagrams before the snapshot
	if events {
		room := wire.MaxDatagram - l.HeaderSize() - len(payloads[0]) - 1
		for {
			b, ok := l.AppendEventsBefore(s.buf(k), room, now)
			if !ok {
				break
			}
			s.bufs[k] = b
			k++
		}
	}
	s.events = k
	h.addShared(cur, tick, players)
	for i, p := range payloads {
		b := l.AppendSnapshot(s.buf(k+i), p, tick, now)
		if i == 0 && events {
			b = l.AppendTail(b, now)
		}
		s.bufs[k+i] = b
	}
	return s.bufs[:k+len(payloads)]
}

// buf returns s.bufs[i], emptied, made when missing.
func (s *SnapshotSender) buf(i int) []byte {
	for len(s.bufs) <= i {
		s.bufs = append(s.bufs, make([]byte, 0, wire.MaxDatagram))
	}
	return s.bufs[i][:0]
}

// noEntities2 is the entities of an empty baseline: not nil, as the
// encoder takes a nil baseline to mean a full snapshot.
var noEntities = []wire2.Entity{}
