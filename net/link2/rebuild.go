package link2

import (
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// Rebuilt is a v2 snapshot the client rebuilt from its datagrams (7.8):
// its tick, players and entities (sorted by wire.Less), and what it was
// rebuilt from.
type Rebuilt struct {
	wire2.Frame
	HasBaseline bool
	BaseTick    uint32 // 0 without a baseline
	Parts       int    // datagrams applied
	valid       bool
}

// Rebuilder is Rebuilder for v2 sessions (7.8): it keeps the last Kept
// snapshots it rebuilt, players and entities, and rebuilds each new v2
// Snapshot datagram against its baseline, with the client limits of
// Rebuilder. In steady state it allocates nothing.
type Rebuilder struct {
	snaps    [link.Kept]Rebuilt
	scratch  []wire2.Entity
	pscratch []wire2.Player
	late     Rebuilt // a snapshot older than every kept one
}

// Kept returns the snapshot's tick and whether it is kept (KeptSnapshot).
func (r *Rebuilt) Kept() (uint32, bool) { return r.Tick, r.valid }

// find returns the kept snapshot of tick, or nil.
func (b *Rebuilder) find(tick uint32) *Rebuilt { return link.FindKept(b.snaps[:], tick) }

// Get returns the kept snapshot of tick, or nil.
func (b *Rebuilder) Get(tick uint32) *Rebuilt { return b.find(tick) }

// slot returns where to keep a new snapshot of tick (SlotKept).
func (b *Rebuilder) slot(tick uint32) *Rebuilt { return link.SlotKept(b.snaps[:], &b.late, tick) }

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
func (b *Rebuilder) Rebuild(s *wire2.Snapshot) (*Rebuilt, error) {
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
			return nil, link.ErrOtherBaseline
		}
		if cur.Parts >= wire.MaxSnapshotParts {
			return nil, link.ErrTooManyParts
		}
		base, basePlayers = cur.Entities, cur.Players
	case s.HasBaseline:
		bs := b.find(baseTick)
		if bs == nil {
			return nil, link.ErrNoBaseline
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
		return nil, link.ErrTooManyEntities
	}
	if cur == nil {
		cur = b.slot(s.Tick)
		*cur = Rebuilt{valid: cur != &b.late, HasBaseline: s.HasBaseline, BaseTick: baseTick,
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
func (b *Rebuilder) Reset() {
	for i := range b.snaps {
		b.snaps[i].valid = false
	}
}
