package wire

import (
	"encoding/binary"
	"math"
)

// This file holds the builders the tests share: raw payloads written field
// by field with the package's own BitWriter, so that a test can change
// exactly one thing of a valid payload.

// rawPlayer is a player record of a snapshot, as written on the wire.
type rawPlayer struct {
	player  uint32
	hasShip bool
	ship    uint32
	lives   uint32
	score   uint32
	// scoreGroups, when set, replaces the varint of score by these raw
	// 8-bit groups (7 value bits then the continuation bit).
	scoreGroups []uint32
}

// rawRec is an entity record of a snapshot, as written on the wire.
type rawRec struct {
	gap    uint32
	gen    uint32
	change uint32
	kind   uint32           // added records
	fields uint32           // updated records: the mask
	f      [NumFields]int32 // values of the fields
}

// rawSnap is a Snapshot payload, as written on the wire.
type rawSnap struct {
	tick        uint32
	playerCount int // written as is; set by the builders to len(players)
	players     []rawPlayer
	hasBase     bool
	age         uint32
	count       int // written as is; set by the builders to len(recs)
	recs        []rawRec
	trailer     func(w *BitWriter) // written after the records, if set
}

func (s *rawSnap) bytes() []byte {
	var w BitWriter
	w.WriteBits(s.tick, 32)
	w.WriteBits(uint32(s.playerCount), 3)
	for _, p := range s.players {
		w.WriteBits(p.player, 2)
		w.WriteBool(p.hasShip)
		if p.hasShip {
			w.WriteVarint(p.ship)
		}
		w.WriteBits(p.lives, 8)
		if p.scoreGroups != nil {
			for _, g := range p.scoreGroups {
				w.WriteBits(g, 8)
			}
		} else {
			w.WriteVarint(p.score)
		}
	}
	w.WriteBool(s.hasBase)
	if s.hasBase {
		w.WriteVarint(s.age)
	}
	w.WriteBits(uint32(s.count), 16)
	for i := range s.recs {
		r := &s.recs[i]
		w.WriteVarint(r.gap)
		w.WriteBits(r.gen, 8)
		w.WriteBits(r.change, 2)
		switch Change(r.change) {
		case Added:
			w.WriteBits(r.kind, 3)
			for f := range fields {
				w.WriteBits(uint32(r.f[f]), fields[f].bits)
			}
		case Updated:
			w.WriteBits(r.fields, 4)
			for f := range fields {
				if uint8(r.fields)&fields[f].mask != 0 {
					w.WriteBits(uint32(r.f[f]), fields[f].bits)
				}
			}
		}
	}
	if s.trailer != nil {
		s.trailer(&w)
	}
	return append([]byte(nil), w.Bytes()...)
}

// addedRec is an added record of e at the given gap.
func addedRec(gap uint32, e Entity) rawRec {
	return rawRec{gap: gap, gen: uint32(Generation(e.ID)), change: uint32(Added), kind: uint32(e.Kind), f: e.F}
}

// rawFull47 is the full snapshot of 4.7, written field by field.
func rawFull47() rawSnap {
	s := rawSnap{
		tick:    600,
		players: []rawPlayer{{player: 0, hasShip: true, ship: 2, lives: 3, score: 100}},
		recs:    []rawRec{addedRec(2, seedShip600)},
	}
	s.playerCount, s.count = len(s.players), len(s.recs)
	return s
}

// rawFull is a valid full snapshot with two players, three entities, two
// of them at one index (generations 0 and 1).
func rawFull() rawSnap {
	s := rawSnap{
		tick: 900,
		players: []rawPlayer{
			{player: 0, hasShip: false, lives: 0, score: 123456},
			{player: 2, hasShip: true, ship: 2, lives: 3, score: 100},
		},
		recs: []rawRec{
			addedRec(2, MakeEntity(2, KindPlayerShip, 100, 360, 0, 0, 0)),
			addedRec(3, MakeEntity(5, KindBydosSlave, 1300, 200, -120, 0, 1)),
			addedRec(0, MakeEntity(MakeID(5, 1), KindEnemyMissile, -10.5, 800, 300, -300, 15)),
		},
	}
	s.playerCount, s.count = len(s.players), len(s.recs)
	return s
}

// deltaBase is the baseline (tick 600) of rawDelta, sorted by Less.
func deltaBase() []Entity {
	return []Entity{
		MakeEntity(2, KindPlayerShip, 100, 360, 0, 0, 0),
		MakeEntity(5, KindBydosSlave, 1300, 200, -120, 0, 1),
		MakeEntity(7, KindEnemyMissile, 500, 500, -200, 0, 0),
	}
}

// rawDelta is a valid delta snapshot of tick 603 against deltaBase: the
// ship moves, index 5 is reused (generation 0 removed, 1 added), 7 is
// removed and 9 is added.
func rawDelta() rawSnap {
	s := rawSnap{
		tick:    603,
		players: []rawPlayer{{player: 0, hasShip: true, ship: 2, lives: 3, score: 100}},
		hasBase: true,
		age:     3,
		recs: []rawRec{
			{gap: 2, change: uint32(Updated), fields: uint32(MaskX | MaskVel), f: [NumFields]int32{840, 0, 300, 0, 0}},
			{gap: 3, change: uint32(Removed)},
			addedRec(0, MakeEntity(MakeID(5, 1), KindBydosSlave, 1280, 100, -100, 50, 2)),
			{gap: 2, change: uint32(Removed)},
			addedRec(2, MakeEntity(9, KindPlayerMissile, 120, 360, 900, 0, 0)),
		},
	}
	s.playerCount, s.count = len(s.players), len(s.recs)
	return s
}

// deltaWorld is the world rawDelta rebuilds from deltaBase.
func deltaWorld() []Entity {
	return []Entity{
		MakeEntity(2, KindPlayerShip, 105, 360, 300, 0, 0),
		MakeEntity(MakeID(5, 1), KindBydosSlave, 1280, 100, -100, 50, 2),
		MakeEntity(9, KindPlayerMissile, 120, 360, 900, 0, 0),
	}
}

// f32At is where the f32 fields of each fixed-size event type start.
var f32At = map[EventType][]int{
	EventSpawn:   {10, 14, 18, 22},
	EventDestroy: {10, 14},
	EventDeath:   {7, 11},
}

func putF32(b []byte, off int, v float32) {
	binary.LittleEndian.PutUint32(b[off:], math.Float32bits(v))
}

// datagram returns a valid datagram of type t with payload p.
func datagram(t Type, p []byte) []byte {
	h := Header{Type: t, Seq: 7, Ack: 6, AckBits: 0x55, Session: 0xDEADBEEF}
	return append(AppendHeader(nil, h), p...)
}

// validPayloads gives a valid payload of every datagram type.
func validPayloads() map[Type][]byte {
	return map[Type][]byte{
		TypeBind:     {1, 2, 3, 4, 5, 6, 7, 8},
		TypeAccept:   AppendAccept(nil, Accept{Player: 1, Tick: 600}),
		TypeInput:    {ActionRight | ActionFire},
		TypeSnapshot: func() []byte { s := rawFull47(); return s.bytes() }(),
		TypeEvent:    {1, 7, 0, 7, 5, 0x20, 0x03, 0, 0, 2, 1},
		TypeAck:      {},
	}
}

// frame returns a TCP frame: the u16 length then body.
func frame(body []byte) []byte {
	return append(binary.LittleEndian.AppendUint16(nil, uint16(len(body))), body...)
}
