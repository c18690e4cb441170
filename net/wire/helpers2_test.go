package wire

import (
	"math/rand/v2"
	"slices"
)

// Builders of raw v2 payloads, written field by field, so that a test can
// change exactly one thing of a valid payload (7.8).

type rawPlayer2 struct {
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

type rawRec2 struct {
	gap, gen, change uint32
	nf               uint32 // field count as written
	mask             uint32 // change bits as written (nf of them)
	f                [NumFields2]uint32
	t0age            uint32 // written for field t0
}

type rawSnap2 struct {
	tick        uint32
	playerCount int
	players     []rawPlayer2
	hasBase     bool
	age         uint32
	count       int
	recs        []rawRec2
	trailer     func(w *BitWriter)
}

func (s *rawSnap2) bytes() []byte {
	var w BitWriter
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
		if Change(r.change) == Removed {
			continue
		}
		w.WriteBits(r.nf, 4)
		w.WriteBits(r.mask, int(r.nf))
		for f := 0; f < int(min(r.nf, NumFields2)); f++ {
			if r.mask&(1<<f) == 0 {
				continue
			}
			if f == F2T0 {
				w.WriteVarint(r.t0age)
			} else {
				w.WriteBits(r.f[f], fieldsV2[f].bits)
			}
		}
	}
	if s.trailer != nil {
		s.trailer(&w)
	}
	return append([]byte(nil), w.Bytes()...)
}

// rawAdded2 is the added record of e at gap in a snapshot of tick.
func rawAdded2(gap uint32, e Entity2, tick uint32) rawRec2 {
	var zero Entity2
	m := Diff2(&zero, &e)
	return rawRec2{gap: gap, gen: uint32(Generation(e.ID)), change: uint32(Added),
		nf: uint32(maskLen(m)), mask: uint32(m), f: e.F, t0age: tick - e.F[F2T0]}
}

// Entities of the v2 examples.
func exBydos2(id uint32, t0 uint32) Entity2 {
	m := Sine(t0, 1300, 200, -120, 40, 120, 0.25*2*3.141592653589793)
	return MakeEntity2(id, KindBydosSlave, &m, Anim{Ticks: 6, Count: 8})
}

func exShip2(id uint32, t0 uint32, x, y, vx float64) Entity2 {
	m := Linear(t0, x, y, vx, 0)
	return MakeEntity2(id, KindPlayerShip, &m, Anim{})
}

// rawFull2 is a valid full v2 snapshot: two players, a ship, a Bydos and
// a missile at a reused index.
func rawFull2() rawSnap2 {
	s := rawSnap2{
		tick: 900,
		players: []rawPlayer2{
			{player: 0, lives: 0, score: 123456},
			{player: 2, hasShip: true, ship: 2, lives: 3, score: 100, invuln: true, age: 10, ticks: 120, hasStep: true, step: 300},
		},
		recs: []rawRec2{
			rawAdded2(2, exShip2(2, 880, 100, 360, 0), 900),
			rawAdded2(3, exBydos2(5, 850), 900),
			rawAdded2(0, func() Entity2 {
				m := Linear(899, 500, 400, -300, 10)
				return MakeEntity2(MakeID(5, 1), KindEnemyMissile, &m, Anim{})
			}(), 900),
		},
	}
	s.playerCount, s.count = len(s.players), len(s.recs)
	return s
}

// deltaBase2 is the baseline (tick 600) of rawDelta2.
func deltaBase2() ([]Player2, []Entity2) {
	return []Player2{{PlayerState: PlayerState{Player: 0, HasShip: true, Ship: 2, Lives: 3, Score: 100}}},
		[]Entity2{exShip2(2, 550, 100, 360, 0), exBydos2(5, 590), exShip2(7, 500, 500, 500, -200)}
}

// rawDelta2 is a valid delta of tick 603 against deltaBase2: the player is
// unchanged, the ship turns right, index 5 is reused, 7 is removed.
func rawDelta2() rawSnap2 {
	s := rawSnap2{
		tick:    603,
		players: []rawPlayer2{{player: 0, same: true, hasStep: true, step: 20000}},
		hasBase: true,
		age:     3,
		recs: []rawRec2{
			{gap: 2, change: uint32(Updated), nf: 4, mask: 0b1011,
				f: [NumFields2]uint32{F2X0: 800, F2VX: 5760}, t0age: 1},
			{gap: 3, change: uint32(Removed)},
			rawAdded2(0, exBydos2(MakeID(5, 1), 601), 603),
			{gap: 2, change: uint32(Removed)},
		},
	}
	s.playerCount, s.count = len(s.players), len(s.recs)
	return s
}

// randMotion returns a motion of any model, any field at its extremes at
// times.
func randMotion(r *rand.Rand, tick uint32) Motion {
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
	m := Motion{Model: Model(r.IntN(3)), T0: tick - r.Uint32N(min(tick, 100000)+1)}
	if r.IntN(8) == 0 {
		m.T0 = tick - r.Uint32N(tick/2+1)*2
	}
	m.X0, m.Y0 = i16(), i16()
	if m.Model != ModelStationary {
		m.VX, m.VY = i16(), i16()
	}
	if m.Model == ModelSine || r.IntN(10) == 0 {
		m.Amp, m.Period, m.Phase = u16(), u16(), u16()
	}
	if r.IntN(20) == 0 {
		m.Model = Model(3 + r.IntN(13))
	}
	return m
}

func randEntity2(r *rand.Rand, id uint32, tick uint32) Entity2 {
	m := randMotion(r, tick)
	a := Anim{}
	if r.IntN(3) == 0 {
		a = Anim{Frame0: uint8(r.IntN(256)), Ticks: uint8(r.IntN(256)), Count: uint8(r.IntN(256))}
	}
	return MakeEntity2(id, uint8(r.IntN(256)), &m, a)
}

func cmpID2(a, b Entity2) int {
	switch {
	case Less(a.ID, b.ID):
		return -1
	case Less(b.ID, a.ID):
		return 1
	}
	return 0
}

func randWorld2(r *rand.Rand, n int, tick uint32) []Entity2 {
	seen := make(map[uint32]bool, n)
	w := make([]Entity2, 0, n)
	for len(w) < n {
		id := MakeID(randIndex(r, n), uint8(r.IntN(4)*r.IntN(64)))
		if seen[id] {
			continue
		}
		seen[id] = true
		w = append(w, randEntity2(r, id, tick))
	}
	slices.SortFunc(w, cmpID2)
	return w
}

// mutate2 returns the world some ticks after base: new motions (one or
// several fields), removals, additions, reused indices, kind changes.
func mutate2(r *rand.Rand, base []Entity2, tick uint32) []Entity2 {
	cur := make([]Entity2, 0, len(base)+16)
	seen := make(map[uint32]bool, len(base)+16)
	for _, e := range base {
		switch r.IntN(10) {
		case 0: // removed
			continue
		case 1: // a new motion
			m := randMotion(r, tick)
			e2 := MakeEntity2(e.ID, e.Kind(), &m, e.Anim())
			e = e2
		case 2: // one field
			f := r.IntN(NumFields2)
			e.F[f] = randEntity2(r, e.ID, tick).F[f]
		case 3: // index reused
			if g := Generation(e.ID) + 1; !seen[MakeID(Index(e.ID), g)] {
				e = randEntity2(r, MakeID(Index(e.ID), g), tick)
			}
		}
		if !seen[e.ID] {
			seen[e.ID] = true
			cur = append(cur, e)
		}
	}
	for k := r.IntN(8); k > 0; k-- {
		id := MakeID(randIndex(r, len(base)+8), uint8(r.IntN(3)))
		if !seen[id] {
			seen[id] = true
			cur = append(cur, randEntity2(r, id, tick))
		}
	}
	slices.SortFunc(cur, cmpID2)
	return cur
}

func randPlayers2(r *rand.Rand, tick uint32) []Player2 {
	ps := randPlayers(r, MaxPlayers)
	out := make([]Player2, len(ps))
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
