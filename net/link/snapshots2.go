package link

import (
	"time"

	"rtype/net/wire"
)

// SnapshotSender2 is SnapshotSender for v2 sessions (7.8, 7.9): it builds
// the v2 Snapshot datagrams a server sends to its clients, each client's
// encoded against the newest snapshot that client fully acknowledged
// (found in its Link's History2, players and entities), and it applies the
// rate rule of 7.9: a snapshot goes out when it carries an entity record
// or a changed player record, or when KeepAliveTicks2 ticks passed since
// the last one. One SnapshotSender2 serves every client of a game in
// turn: its encoder and datagram buffers are reused by each call, so that
// in steady state it allocates nothing.
type SnapshotSender2 struct {
	enc  wire.Snapshot2Encoder
	bufs [][]byte
}

// Datagrams encodes the state of tick (its players, and its entities
// sorted by wire.Less) for the peer of l, a v2 Link, and returns the
// Snapshot datagrams to send it, in order, valid until the next call; or
// none when the rate rule of 7.9 says to skip this one. The snapshot is a
// delta against the baseline l.History2 picks, or full when it has none;
// a sent snapshot is added to l.History2, and l numbers the datagrams and
// remembers which snapshot each carried. Datagrams sets l.History2 if it
// is nil.
func (s *SnapshotSender2) Datagrams(l *Link, tick uint32, players []wire.Player2, entities []wire.Entity2, now time.Time) [][]byte {
	h := l.History2
	if h == nil {
		h = new(History2)
		l.History2 = h
	}
	var payloads [][]byte
	if base := h.Baseline(); base != nil {
		ents := base.Entities
		if ents == nil {
			ents = noEntities2 // an empty baseline is still a baseline
		}
		payloads = s.enc.Encode(tick, players, base.Players, ents, base.Tick, entities)
	} else {
		payloads = s.enc.Encode(tick, players, nil, nil, 0, entities)
	}
	if s.enc.Changes() == 0 && !h.Due(tick) {
		return s.bufs[:0] // nothing the client lacks, and not yet 200 ms (7.9)
	}
	h.Add(tick, players, entities)
	for i, p := range payloads {
		if i == len(s.bufs) {
			s.bufs = append(s.bufs, make([]byte, 0, wire.MaxDatagram))
		}
		s.bufs[i] = l.AppendSnapshot(s.bufs[i][:0], p, tick, now)
	}
	return s.bufs[:len(payloads)]
}

// noEntities2 is the entities of an empty baseline: not nil, as the
// encoder takes a nil baseline to mean a full snapshot.
var noEntities2 = []wire.Entity2{}
