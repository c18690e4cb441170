package link

import "rtype/net/wire"

// KeepAliveTicks2 is the longest a v2 server goes without sending a
// client a snapshot: 200 ms, 12 ticks (7.9).
const KeepAliveTicks2 = 12

// History2 is History for a v2 session (7.8): the server's record of the
// last Snapshots v2 snapshots it sent to one client, whole (players and
// entities, as wire.Frame2), with the datagrams that carried each, so that
// it can pick the newest one the client fully acknowledged as the next
// baseline. It also remembers when it last sent one, for the rate rule of
// 7.9. A Link keeps it informed when its History2 is set.
type History2 struct {
	snaps    [Snapshots]sentFrame
	next     int    // slot of the next snapshot
	sentAny  bool   // a snapshot was added
	lastTick uint32 // the tick of the last one added
}

type sentFrame struct {
	valid bool
	frame wire.Frame2
	parts int // datagrams that carried it
	acked int // of which acknowledged
}

// Add records the snapshot of tick with its players and entities (copied)
// before its datagrams are sent with Link.AppendSnapshot. It evicts the
// oldest.
func (h *History2) Add(tick uint32, players []wire.Player2, entities []wire.Entity2) {
	s := &h.snaps[h.next]
	h.next = (h.next + 1) % Snapshots
	s.valid, s.parts, s.acked = true, 0, 0
	s.frame.Set(tick, players, entities)
	h.sentAny, h.lastTick = true, tick
}

func (h *History2) find(tick uint32) *sentFrame {
	for i := range h.snaps {
		if s := &h.snaps[i]; s.valid && s.frame.Tick == tick {
			return s
		}
	}
	return nil
}

// carried counts one more datagram of the snapshot of tick.
func (h *History2) carried(tick uint32) {
	if s := h.find(tick); s != nil {
		s.parts++
	}
}

// acked counts one more acknowledged datagram of the snapshot of tick.
func (h *History2) acked(tick uint32) {
	if s := h.find(tick); s != nil {
		s.acked++
	}
}

// Baseline returns the newest snapshot whose every datagram the client
// acknowledged, or nil when there is none (4.8, 7.8): what
// wire.Snapshot2Encoder.EncodeFrame takes as its base. It stays valid
// until the snapshot is evicted, so encode before Add.
func (h *History2) Baseline() *wire.Frame2 {
	var best *sentFrame
	for i := range h.snaps {
		s := &h.snaps[i]
		if s.valid && s.parts > 0 && s.acked == s.parts && (best == nil || s.frame.Tick > best.frame.Tick) {
			best = s
		}
	}
	if best == nil {
		return nil
	}
	return &best.frame
}

// Acknowledged reports whether the snapshot of tick is held and fully
// acknowledged.
func (h *History2) Acknowledged(tick uint32) bool {
	s := h.find(tick)
	return s != nil && s.parts > 0 && s.acked == s.parts
}

// Due reports whether a snapshot of tick must be sent even if it repeats
// its baseline: none was sent yet, or the last one is KeepAliveTicks2 or
// more ticks older (7.9).
func (h *History2) Due(tick uint32) bool {
	return !h.sentAny || tick-h.lastTick >= KeepAliveTicks2
}
