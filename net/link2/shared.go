package link2

import (
	"time"

	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// SharedSnapshots lets the peers of a game that receive the same records
// (a game's spectators, PROTOCOL.md 7.17: the same players, without a
// step of their own, and the same entities) share the encoding of a tick's
// snapshot: peers with the same baseline get the same payloads, encoded
// once, each in datagrams of its own Link (its sequence, its history).
// What each peer receives is byte for byte what SnapshotSender.Datagrams
// would send it. The zero value is ready; it holds at most
// maxSharedBases encodings per tick, the oldest replaced.
type SharedSnapshots struct {
	s       SnapshotSender
	tick    uint32
	valid   bool // entries are of tick
	entries [maxSharedBases]sharedEncoding
	next    int
}

// maxSharedBases bounds the baselines whose encoding a tick keeps: most
// peers acknowledge the same snapshots.
const maxSharedBases = 4

// sharedEncoding is one encoded snapshot of the tick.
type sharedEncoding struct {
	used     bool
	full     bool
	baseTick uint32
	changes  int
	payloads [][]byte
}

// Datagrams is SnapshotSender.Datagrams for a peer that receives the
// records every other peer of s does: players and entities must be the
// same for every call of the same tick.
func (s *SharedSnapshots) Datagrams(l *link.Link, tick uint32, players []wire2.Player, entities []wire2.Entity, now time.Time) [][]byte {
	h := history(l)
	if !s.valid || s.tick != tick {
		s.tick, s.valid, s.next = tick, true, 0
		for i := range s.entries {
			s.entries[i].used = false
		}
	}
	base := h.Baseline()
	cur := s.s.frames.current(tick, entities)
	var e *sharedEncoding
	for i := range s.entries {
		c := &s.entries[i]
		if c.used && c.full == (base == nil) && (base == nil || c.baseTick == base.Tick) {
			e = c
			break
		}
	}
	if e == nil {
		e = &s.entries[s.next]
		s.next = (s.next + 1) % maxSharedBases
		payloads := s.s.encode(base, tick, players, entities)
		e.used, e.full, e.changes = true, base == nil, s.s.enc.Changes()
		if base != nil {
			e.baseTick = base.Tick
		}
		for len(e.payloads) < len(payloads) {
			e.payloads = append(e.payloads, make([]byte, 0, wire.MaxDatagram))
		}
		e.payloads = e.payloads[:len(payloads)]
		for i, p := range payloads {
			e.payloads[i] = append(e.payloads[i][:0], p...)
		}
	}
	return s.s.send(l, h, cur, players, e.payloads, e.changes, false, now)
}
