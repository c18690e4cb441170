package link

import "rtype/net/wire"

// Snapshots is how many snapshots each side keeps: the server's sent ones
// for baselines, the client's rebuilt ones (4.8).
const Snapshots = 32

// History is the server's record of the last Snapshots snapshots it sent
// to one client, with the datagrams that carried each, so that it can
// pick the newest one the client fully acknowledged as the next baseline
// (4.8). Link keeps it informed when History is set.
type History struct {
	snaps [Snapshots]sentSnap
	next  int // slot of the next snapshot
}

type sentSnap struct {
	valid    bool
	tick     uint32
	entities []wire.Entity
	parts    int // datagrams that carried it
	acked    int // of which acknowledged
}

// Add records the snapshot of tick with its entities (copied) before its
// datagrams are sent with Link.AppendSnapshot. It evicts the oldest.
func (h *History) Add(tick uint32, entities []wire.Entity) {
	s := &h.snaps[h.next]
	h.next = (h.next + 1) % Snapshots
	*s = sentSnap{valid: true, tick: tick, entities: append(s.entities[:0], entities...)}
}

func (h *History) find(tick uint32) *sentSnap {
	for i := range h.snaps {
		if s := &h.snaps[i]; s.valid && s.tick == tick {
			return s
		}
	}
	return nil
}

// Carried counts one more datagram of the snapshot of tick (Baselines);
// it returns 0, a History needs no hint.
func (h *History) Carried(tick uint32) int {
	if s := h.find(tick); s != nil {
		s.parts++
	}
	return 0
}

// Acked counts one more acknowledged datagram of the snapshot of tick
// (Baselines).
func (h *History) Acked(tick uint32, _ int) {
	if s := h.find(tick); s != nil {
		s.acked++
	}
}

// noEntities is the baseline of a snapshot without entities: not nil, as
// wire.SnapshotEncoder.Encode takes a nil baseline to mean a full snapshot.
var noEntities = []wire.Entity{}

// Baseline returns the newest snapshot whose every datagram the client
// acknowledged, and false when there is none (4.8). The entities are
// never nil when ok and nil otherwise, so they go to
// wire.SnapshotEncoder.Encode as they are: a delta, or a full snapshot.
// They stay valid until the snapshot is evicted, so encode before Add.
func (h *History) Baseline() (tick uint32, entities []wire.Entity, ok bool) {
	var best *sentSnap
	for i := range h.snaps {
		s := &h.snaps[i]
		if s.valid && s.parts > 0 && s.acked == s.parts && (best == nil || s.tick > best.tick) {
			best = s
		}
	}
	if best == nil {
		return 0, nil, false
	}
	if best.entities == nil {
		return best.tick, noEntities, true
	}
	return best.tick, best.entities, true
}

// Acknowledged reports whether the snapshot of tick is held and fully
// acknowledged.
func (h *History) Acknowledged(tick uint32) bool {
	s := h.find(tick)
	return s != nil && s.parts > 0 && s.acked == s.parts
}
