package wire2

import (
	"math/rand/v2"
	"rtype/net/wire"
	"rtype/vocab/vocabtest"
	"slices"
)

// Builders of raw v2 payloads, written field by field, so that a test can
// change exactly one thing of a valid payload (7.8).

type rawPlayer struct {
	player  uint32
	same    bool
	hasShip bool
	ship    uint32
	lives   uint32
	score   uint32
	invuln  bool
	age     uint32 // tick − invuln start
	ticks   uint32
	hasStep bool
	step    uint32 // last_step
}

type rawRec struct {
	gap, gen, change uint32
	nf               uint32 // field count as written
	mask             uint32 // change bits as written (nf of them)
	f                [NumFields]uint32
	t0age            uint32 // written for field t0
}

type rawSnap struct {
	tick        uint32
	playerCount int
	players     []rawPlayer
	hasBase     bool
	age         uint32
	count       int
	recs        []rawRec
	trailer     func(w *wire.BitWriter)
}

func (s *rawSnap) bytes() []byte {
	var w wire.BitWriter
	w.WriteBits(s.tick, 32)
	w.WriteBits(uint32(s.playerCount), 3)
	for _, p := range s.players {
		w.WriteBits(p.player, 2)
		w.WriteBool(!p.same)
		if !p.same {
			w.WriteBool(p.hasShip)
			if p.hasShip {
				w.WriteVarint(p.ship)
			}
			w.WriteBits(p.lives, 8)
			w.WriteVarint(p.score)
			w.WriteBool(p.invuln)
			if p.invuln {
				w.WriteVarint(p.age)
				w.WriteVarint(p.ticks)
			}
		}
		w.WriteBool(p.hasStep)
		if p.hasStep {
			w.WriteVarint(p.step)
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
		if wire.Change(r.change) == wire.Removed {
			continue
		}
		w.WriteBits(r.nf, 4)
		w.WriteBits(r.mask, int(r.nf))
		for f := 0; f < int(min(r.nf, NumFields)); f++ {
			if r.mask&(1<<f) == 0 {
				continue
			}
			if f == FieldT0 {
				w.WriteVarint(r.t0age)
			} else {
				w.WriteBits(r.f[f], fieldsV[f].bits)
			}
		}
	}
	if s.trailer != nil {
		s.trailer(&w)
	}
	return append([]byte(nil), w.Bytes()...)
}

// rawAdded2 is the added record of e at gap in a snapshot of tick.
func rawAdded(gap uint32, e Entity, tick uint32) rawRec {
	var zero Entity
	m := Diff(&zero, &e)
	return rawRec{gap: gap, gen: uint32(wire.Generation(e.ID)), change: uint32(wire.Added),
		nf: uint32(maskLen(m)), mask: uint32(m), f: e.F, t0age: tick - e.F[FieldT0]}
}

// Entities of the v2 examples.
func exBydos(id uint32, t0 uint32) Entity {
	m := wire.Sine(t0, 1300, 200, -120, 40, 120, 0.25*2*3.141592653589793)
	return MakeEntity(id, wire.KindBydosSlave, &m, wire.Anim{Ticks: 6, Count: 8})
}

func exShip(id uint32, t0 uint32, x, y, vx float64) Entity {
	m := wire.Linear(t0, x, y, vx, 0)
	return MakeEntity(id, wire.KindPlayerShip, &m, wire.Anim{})
}

// rawFull2 is a valid full v2 snapshot: two players, a ship, a Bydos and
// a missile at a reused index.
func rawFull() rawSnap {
	s := rawSnap{
		tick: 900,
		players: []rawPlayer{
			{player: 0, lives: 0, score: 123456},
			{player: 2, hasShip: true, ship: 2, lives: 3, score: 100, invuln: true, age: 10, ticks: 120, hasStep: true, step: 300},
		},
		recs: []rawRec{
			rawAdded(2, exShip(2, 880, 100, 360, 0), 900),
			rawAdded(3, exBydos(5, 850), 900),
			rawAdded(0, func() Entity {
				m := wire.Linear(899, 500, 400, -300, 10)
				return MakeEntity(wire.MakeID(5, 1), wire.KindEnemyMissile, &m, wire.Anim{})
			}(), 900),
		},
	}
	s.playerCount, s.count = len(s.players), len(s.recs)
	return s
}

// deltaBase2 is the baseline (tick 600) of rawDelta2.
func deltaBase() ([]Player, []Entity) {
	return []Player{{PlayerState: wire.PlayerState{Player: 0, HasShip: true, Ship: 2, Lives: 3, Score: 100}}},
		[]Entity{exShip(2, 550, 100, 360, 0), exBydos(5, 590), exShip(7, 500, 500, 500, -200)}
}

// rawDelta2 is a valid delta of tick 603 against deltaBase2: the player is
// unchanged, the ship turns right, index 5 is reused, 7 is removed.
func rawDelta() rawSnap {
	s := rawSnap{
		tick:    603,
		players: []rawPlayer{{player: 0, same: true, hasStep: true, step: 20000}},
		hasBase: true,
		age:     3,
		recs: []rawRec{
			{gap: 2, change: uint32(wire.Updated), nf: 4, mask: 0b1011,
				f: [NumFields]uint32{FieldX0: 800, FieldVX: 5760}, t0age: 1},
			{gap: 3, change: uint32(wire.Removed)},
			rawAdded(0, exBydos(wire.MakeID(5, 1), 601), 603),
			{gap: 2, change: uint32(wire.Removed)},
		},
	}
	s.playerCount, s.count = len(s.players), len(s.recs)
	return s
}

// randMotion returns a motion of any model, any field at its extremes at
// times.
func randMotion(r *rand.Rand, tick uint32) wire.Motion {
	i16 := func() int16 {
		switch r.IntN(4) {
		case 0:
			return []int16{-32768, 32767, 0, -1}[r.IntN(4)]
		}
		return int16(r.IntN(20000) - 10000)
	}
	u16 := func() uint16 {
		if r.IntN(4) == 0 {
			return []uint16{0, 65535, 1}[r.IntN(3)]
		}
		return uint16(r.IntN(65536))
	}
	m := wire.Motion{Model: wire.Model(r.IntN(3)), T0: tick - r.Uint32N(min(tick, 100000)+1)}
	if r.IntN(8) == 0 {
		m.T0 = tick - r.Uint32N(tick/2+1)*2
	}
	m.X0, m.Y0 = i16(), i16()
	if m.Model != wire.ModelStationary {
		m.VX, m.VY = i16(), i16()
	}
	if m.Model == wire.ModelSine || r.IntN(10) == 0 {
		m.Amp, m.Period, m.Phase = u16(), u16(), u16()
	}
	if r.IntN(20) == 0 {
		m.Model = wire.Model(3 + r.IntN(13))
	}
	return m
}

func randEntity(r *rand.Rand, id uint32, tick uint32) Entity {
	m := randMotion(r, tick)
	a := wire.Anim{}
	if r.IntN(3) == 0 {
		a = wire.Anim{Frame0: uint8(r.IntN(256)), Ticks: uint8(r.IntN(256)), Count: uint8(r.IntN(256))}
	}
	return MakeEntity(id, uint8(r.IntN(256)), &m, a)
}

func cmpID(a, b Entity) int {
	switch {
	case wire.Less(a.ID, b.ID):
		return -1
	case wire.Less(b.ID, a.ID):
		return 1
	}
	return 0
}

func randWorld(r *rand.Rand, n int, tick uint32) []Entity {
	seen := make(map[uint32]bool, n)
	w := make([]Entity, 0, n)
	for len(w) < n {
		id := wire.MakeID(vocabtest.RandIndex(r, n), uint8(r.IntN(4)*r.IntN(64)))
		if seen[id] {
			continue
		}
		seen[id] = true
		w = append(w, randEntity(r, id, tick))
	}
	slices.SortFunc(w, cmpID)
	return w
}

// mutate2 returns the world some ticks after base: new motions (one or
// several fields), removals, additions, reused indices, kind changes.
func mutate(r *rand.Rand, base []Entity, tick uint32) []Entity {
	cur := make([]Entity, 0, len(base)+16)
	seen := make(map[uint32]bool, len(base)+16)
	for _, e := range base {
		switch r.IntN(10) {
		case 0: // removed
			continue
		case 1: // a new motion
			m := randMotion(r, tick)
			e2 := MakeEntity(e.ID, e.Kind(), &m, e.Anim())
			e = e2
		case 2: // one field
			f := r.IntN(NumFields)
			e.F[f] = randEntity(r, e.ID, tick).F[f]
		case 3: // index reused
			if g := wire.Generation(e.ID) + 1; !seen[wire.MakeID(wire.Index(e.ID), g)] {
				e = randEntity(r, wire.MakeID(wire.Index(e.ID), g), tick)
			}
		}
		if !seen[e.ID] {
			seen[e.ID] = true
			cur = append(cur, e)
		}
	}
	for k := r.IntN(8); k > 0; k-- {
		id := wire.MakeID(vocabtest.RandIndex(r, len(base)+8), uint8(r.IntN(3)))
		if !seen[id] {
			seen[id] = true
			cur = append(cur, randEntity(r, id, tick))
		}
	}
	slices.SortFunc(cur, cmpID)
	return cur
}

func randPlayers(r *rand.Rand, tick uint32) []Player {
	ps := vocabtest.RandStates(r, wire.MaxPlayers)
	out := make([]Player, len(ps))
	for i, p := range ps {
		out[i].PlayerState = p
		if r.IntN(2) == 0 {
			out[i].InvulnStart = tick - r.Uint32N(min(tick, 1000)+1)
			out[i].InvulnTicks = 1 + r.Uint32N(1000)
		}
		if r.IntN(3) == 0 {
			out[i].HasStep, out[i].LastStep = true, r.Uint32()>>r.UintN(32)
		}
	}
	return out
}
