package link

import (
	"time"

	"rtype/net/wire"
)

// SnapshotSender builds the Snapshot datagrams a server sends to its
// clients (4.8): each client's snapshot is encoded against the newest one
// that client fully acknowledged, found in its Link's History, and
// recorded there. It is the sending side of what Rebuilder undoes. One
// SnapshotSender serves every client of a game in turn: its encoder and
// datagram buffers are reused by each call, so that in steady state it
// allocates nothing.
type SnapshotSender struct {
	enc  wire.SnapshotEncoder
	bufs [][]byte
}

// Datagrams encodes the state of tick (its players, and its entities
// sorted by wire.Less) for the peer of l and returns the Snapshot
// datagrams to send it, in order, valid until the next call. The
// snapshot is a delta against the baseline l.History picks, or full when
// it has none; it is then added to l.Baselines, a History, and l numbers the datagrams
// and remembers which snapshot each carried (Link.AppendSnapshot). With
// no History there every snapshot is full.
func (s *SnapshotSender) Datagrams(l *Link, tick uint32, players []wire.PlayerState, entities []wire.Entity, now time.Time) [][]byte {
	var payloads [][]byte
	if h, _ := l.Baselines.(*History); h != nil {
		baseTick, base, _ := h.Baseline() // nil: a full snapshot
		payloads = s.enc.Encode(tick, players, base, baseTick, entities)
		h.Add(tick, entities)
	} else {
		payloads = s.enc.Encode(tick, players, nil, 0, entities)
	}
	for i, p := range payloads {
		if i == len(s.bufs) {
			s.bufs = append(s.bufs, make([]byte, 0, wire.MaxDatagram))
		}
		s.bufs[i] = l.AppendSnapshot(s.bufs[i][:0], p, tick, now)
	}
	return s.bufs[:len(payloads)]
}
