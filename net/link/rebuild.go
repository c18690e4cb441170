package link

import (
	"errors"

	"rtype/net/wire"
)

// Kept is how many rebuilt snapshots a Rebuilder keeps as baselines: more
// than the server's Snapshots, so that any baseline the server may pick is
// still here.
const Kept = 2 * Snapshots

// Errors of Rebuild. The datagram is dropped and not acknowledged (4.8).
var (
	ErrNoBaseline    = errors.New("link: snapshot baseline not held (4.8 step 1)")
	ErrOtherBaseline = errors.New("link: snapshot datagram of a known tick against another baseline (4.8 step 4)")
)

// Errors of Rebuild for a server that sends more than the protocol allows
// (Appendix A, client limits). The datagram is dropped, and the snapshot
// of its tick keeps what it had; the client ends the session.
var (
	ErrTooManyParts    = errors.New("link: more Snapshot datagrams of one tick than a client accepts (wire.MaxSnapshotParts)")
	ErrTooManyEntities = errors.New("link: a snapshot with more entities than a client accepts (wire.MaxSnapshotEntities)")
)

// Rebuilt is a snapshot the client rebuilt from its datagrams (4.8).
type Rebuilt struct {
	Tick        uint32
	HasBaseline bool
	BaseTick    uint32
	NumPlayers  int
	Players     [wire.MaxPlayers]wire.PlayerState
	Entities    []wire.Entity // sorted by wire.Less
	Parts       int           // datagrams applied
	valid       bool
}

// PlayerStates returns the player records.
func (r *Rebuilt) PlayerStates() []wire.PlayerState { return r.Players[:r.NumPlayers] }

// Rebuilder is the client's side of 4.8: it keeps the last Kept snapshots
// it rebuilt and rebuilds each new Snapshot datagram against its baseline.
// In steady state it allocates nothing.
type Rebuilder struct {
	snaps   [Kept]Rebuilt
	scratch []wire.Entity
	late    Rebuilt // a snapshot older than every kept one
}

// find returns the kept snapshot of tick, or nil.
func (b *Rebuilder) find(tick uint32) *Rebuilt { return FindKept(b.snaps[:], tick) }

// Get returns the kept snapshot of tick, or nil.
func (b *Rebuilder) Get(tick uint32) *Rebuilt { return b.find(tick) }

// slot returns where to keep a new snapshot of tick (SlotKept).
func (b *Rebuilder) slot(tick uint32) *Rebuilt { return SlotKept(b.snaps[:], &b.late, tick) }

// Kept returns the snapshot's tick and whether it is kept (KeptSnapshot).
func (r *Rebuilt) Kept() (uint32, bool) { return r.Tick, r.valid }

// KeptSnapshot is a snapshot a Rebuilder (here or in package link2) keeps:
// its tick, and whether it is kept.
type KeptSnapshot[S any] interface {
	*S
	Kept() (tick uint32, valid bool)
}

// FindKept returns the kept snapshot of tick in snaps, or nil.
func FindKept[S any, P KeptSnapshot[S]](snaps []S, tick uint32) *S {
	for i := range snaps {
		if t, ok := P(&snaps[i]).Kept(); ok && t == tick {
			return &snaps[i]
		}
	}
	return nil
}

// SlotKept returns where to keep a new snapshot of tick: a free slot of
// snaps, else the oldest one when tick is newer, else late, a slot that is
// not kept.
func SlotKept[S any, P KeptSnapshot[S]](snaps []S, late *S, tick uint32) *S {
	var oldest *S
	var oldestTick uint32
	for i := range snaps {
		t, ok := P(&snaps[i]).Kept()
		if !ok {
			return &snaps[i]
		}
		if oldest == nil || t < oldestTick {
			oldest, oldestTick = &snaps[i], t
		}
	}
	if tick > oldestTick {
		return oldest
	}
	return late
}

// Rebuild applies one decoded Snapshot datagram (4.8 steps 1 to 5) and
// returns the snapshot of its tick as rebuilt so far, kept as a baseline
// for later ones. An error means the datagram must be dropped and not
// acknowledged; ErrTooManyParts and ErrTooManyEntities mean the server
// sent more than a client accepts. The result is valid until the next
// call. Its work and memory are bounded by the client limits: each kept
// snapshot holds at most wire.MaxSnapshotEntities entities.
func (b *Rebuilder) Rebuild(s *wire.Snapshot) (*Rebuilt, error) {
	baseTick := s.Tick - s.BaselineAge
	var base []wire.Entity
	cur := b.find(s.Tick)
	switch {
	case cur != nil:
		// Another datagram of a tick already rebuilt in part (step 4).
		if cur.HasBaseline != s.HasBaseline || (s.HasBaseline && cur.BaseTick != baseTick) {
			return nil, ErrOtherBaseline
		}
		if cur.Parts >= wire.MaxSnapshotParts {
			return nil, ErrTooManyParts
		}
		base = cur.Entities
	case s.HasBaseline:
		bs := b.find(baseTick)
		if bs == nil {
			return nil, ErrNoBaseline
		}
		base = bs.Entities
	}
	// The work is bounded: base holds at most MaxSnapshotEntities, a
	// datagram at most a few hundred records.
	out, err := wire.ApplyRecords(b.scratch[:0], base, s.Records)
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
		*cur = Rebuilt{valid: cur != &b.late, Tick: s.Tick, HasBaseline: s.HasBaseline,
			BaseTick: baseTick, Entities: cur.Entities}
		if !s.HasBaseline {
			cur.BaseTick = 0
		}
	}
	// Swap buffers: the old entities become the next scratch.
	b.scratch, cur.Entities = cur.Entities[:0], out
	cur.NumPlayers = s.NumPlayers
	cur.Players = s.Players
	cur.Parts++
	return cur, nil
}

// Reset forgets every snapshot, as at the start of a game.
func (b *Rebuilder) Reset() {
	for i := range b.snaps {
		b.snaps[i].valid = false
	}
}
