package link

import (
	"rtype/net/wire"
	"rtype/net/wire2"
)

// Rebuilt2 is a v2 snapshot the client rebuilt from its datagrams (7.8):
// its tick, players and entities (sorted by wire.Less), and what it was
// rebuilt from.
type Rebuilt2 struct {
	wire2.Frame
	HasBaseline bool
	BaseTick    uint32 // 0 without a baseline
	Parts       int    // datagrams applied
	valid       bool
}

// Rebuilder2 is Rebuilder for v2 sessions (7.8): it keeps the last Kept
// snapshots it rebuilt, players and entities, and rebuilds each new v2
// Snapshot datagram against its baseline, with the client limits of
// Rebuilder. In steady state it allocates nothing.
type Rebuilder2 struct {
	snaps    [Kept]Rebuilt2
	scratch  []wire2.Entity
	pscratch []wire2.Player
	late     Rebuilt2 // a snapshot older than every kept one
}

func (r *Rebuilt2) kept() (uint32, bool) { return r.Tick, r.valid }

// find returns the kept snapshot of tick, or nil.
func (b *Rebuilder2) find(tick uint32) *Rebuilt2 { return findKept(b.snaps[:], tick) }

// Get returns the kept snapshot of tick, or nil.
func (b *Rebuilder2) Get(tick uint32) *Rebuilt2 { return b.find(tick) }

// slot returns where to keep a new snapshot of tick (slotKept).
func (b *Rebuilder2) slot(tick uint32) *Rebuilt2 { return slotKept(b.snaps[:], &b.late, tick) }

// Rebuild applies one decoded v2 Snapshot datagram (4.8 steps 1 to 5 with
// 7.8's records) and returns the snapshot of its tick as rebuilt so far,
// kept as a baseline for later ones. An error means the datagram must be
// dropped and not acknowledged: ErrNoBaseline, ErrOtherBaseline,
// wire2.ErrMissingBase (a record or an unchanged player its baseline
// lacks), and ErrTooManyParts and ErrTooManyEntities for a server that
// sends more than a client accepts (the snapshot of its tick then keeps
// what it had). The result is valid until the next call. Its work and
// memory are bounded by the client limits: each kept snapshot holds at
// most wire.MaxSnapshotEntities entities.
func (b *Rebuilder2) Rebuild(s *wire2.Snapshot) (*Rebuilt2, error) {
	baseTick := s.Tick - s.BaselineAge
	var base []wire2.Entity
	var basePlayers []wire2.Player
	cur := b.find(s.Tick)
	switch {
	case cur != nil:
		// Another datagram of a tick already rebuilt in part (step 4):
		// its entities so far, and its players, which are the
		// baseline's where a record says "same".
		if cur.HasBaseline != s.HasBaseline || (s.HasBaseline && cur.BaseTick != baseTick) {
			return nil, ErrOtherBaseline
		}
		if cur.Parts >= wire.MaxSnapshotParts {
			return nil, ErrTooManyParts
		}
		base, basePlayers = cur.Entities, cur.Players
	case s.HasBaseline:
		bs := b.find(baseTick)
		if bs == nil {
			return nil, ErrNoBaseline
		}
		base, basePlayers = bs.Entities, bs.Players
	}
	players, err := wire2.ApplyPlayers(b.pscratch[:0], basePlayers, s.PlayerRecords())
	b.pscratch = players[:0]
	if err != nil {
		return nil, err
	}
	// The work is bounded: base holds at most MaxSnapshotEntities, a
	// datagram at most a few hundred records.
	out, err := wire2.ApplyRecords(b.scratch[:0], base, s.Records)
	if err != nil {
		b.scratch = out[:0]
		return nil, err
	}
	if len(out) > wire.MaxSnapshotEntities {
		b.scratch = out[:0]
		return nil, ErrTooManyEntities
	}
	if cur == nil {
		cur = b.slot(s.Tick)
		*cur = Rebuilt2{valid: cur != &b.late, HasBaseline: s.HasBaseline, BaseTick: baseTick,
			Frame: wire2.Frame{Tick: s.Tick, Players: cur.Players, Entities: cur.Entities}}
		if !s.HasBaseline {
			cur.BaseTick = 0
		}
	}
	// Swap buffers: the old ones become the next scratch.
	b.scratch, cur.Entities = cur.Entities[:0], out
	b.pscratch, cur.Players = cur.Players[:0], players
	cur.Parts++
	return cur, nil
}

// Reset forgets every snapshot, as at the start of a game.
func (b *Rebuilder2) Reset() {
	for i := range b.snaps {
		b.snaps[i].valid = false
	}
}
