package sim

import (
	"math"
	"math/bits"

	"rtype/vocab"
)

// The loops of a step visit the live entities through w.order, in slot
// order as before: a slot freed waits IDReuseTicks before it is handed
// out again, so in a busy game about 45 live entities spread over some
// 300 slots. w.order lists them densely, each as a ref (its slot and its
// index in w.ents), so that a loop reads a few cache lines of refs and
// goes straight to the entities, without the slots' table (w.at) or a
// bitmap of the live slots (a server steps many games in turn, and each
// first touch of a line misses the cache).

// ref is a live entity: its slot in the high 16 bits, its index in w.ents
// in the low 16. Refs compare as their slots.
type ref uint32

func mkRef(s int32, i uint16) ref { return ref(uint32(s)<<16 | uint32(i)) }

// slot returns the slot of r.
func (r ref) slot() int32 { return int32(r >> 16) }

// entOf returns the entity of r.
func (w *World) entOf(r ref) *entity { return &w.ents[uint16(r)] }

// addOrder inserts r in w.order, by slot.
func (w *World) addOrder(r ref) {
	o := w.order
	i := len(o)
	for i > 0 && o[i-1] > r { // a new slot is mostly the highest or near it
		i--
	}
	o = append(o, 0)
	copy(o[i+1:], o[i:])
	o[i] = r
	w.order = o
}

// removeOrder removes slot s's ref from w.order, if there.
func (w *World) removeOrder(s int32) {
	o := w.order
	lo, hi := 0, len(o)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if o[m].slot() < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(o) && o[lo].slot() == s {
		copy(o[lo:], o[lo+1:])
		w.order = o[:len(o)-1]
	}
}

// cold returns the Stage-only state of the entity e: the entry of w.colds
// at its index.
func (w *World) cold(e *entity) *coldState {
	return &w.colds[e.i]
}

// The entities are stored apart from their slots (their network ids'
// indices), densely: a slot's entity is w.ents[w.at[s]], and a new entity
// takes the lowest free index of w.ents, while its slot waits IDReuseTicks
// after a Destroy (4.5). A busy game's 40 live entities then sit in some
// 40 entries instead of spread over 300 slots, and a server that steps
// many games in turn loads fewer cache lines for each. An entry freed
// during a step is taken again only from the next step, so a pointer to a
// destroyed entity, or its slot, reads the dead entity until the step ends,
// as before.

// freedEnt is an entry of w.ents freed in the current step, and its slot.
type freedEnt struct {
	slot int32
	i    uint16
}

// ent returns the entity of slot s: a dead one (w.ents[0]) if the slot
// holds none.
func (w *World) ent(s int32) *entity { return &w.ents[w.at[s]] }

// takeEnt returns the lowest free index of w.ents and marks it taken.
func (w *World) takeEnt() uint16 {
	for pass := 0; pass < 2; pass++ {
		for j, u := range w.used {
			if u == ^uint64(0) {
				continue
			}
			i := j<<6 + bits.TrailingZeros64(^u)
			if i >= len(w.ents) {
				break
			}
			w.used[j] |= 1 << (uint(i) & 63)
			return uint16(i)
		}
		// Every entry is live or freed in this step: take the freed ones
		// now (cannot happen with MaxEntities live at most, since a slot
		// waits before reuse; kept as a last resort).
		w.releaseEnts()
	}
	panic("sim: no free entity entry")
}

// releaseEnts frees the entries of the entities destroyed since the last
// call: their slots now hold none, unless already taken again.
func (w *World) releaseEnts() {
	for _, f := range w.freed {
		w.used[f.i>>6] &^= 1 << (f.i & 63)
		if w.at[f.slot] == f.i {
			w.at[f.slot] = 0
		}
	}
	w.freed = w.freed[:0]
}

// touch loads what a Classic step reads before its passes do: the World's
// own fields and every live entity. The loads do not depend on one
// another, so the processor has them in flight at once, where the passes,
// whose branches depend on each entity, would wait for them one by one (a
// server steps many games in turn, each out of the cache). Kept for
// BenchmarkStepManyWaves/1000: 2,870 CPU ns a world with it, 3,690 without.
func (w *World) touch() {
	r := &w.r
	// A field of each cache line of the Rules, in their order.
	f := r.AreaW + r.SpawnY + r.MissileH + r.BydosSpeedMax + r.EnemyMissileW + r.WaveSpeedStep
	n := r.TickRate + r.MaxEntities
	// The tables' headers and the ids.
	n += int(w.tick) + len(w.ents) + len(w.at) + len(w.gens) + len(w.used) + len(w.freed) + int(w.hi) + len(w.order) +
		int(w.ids.next) + len(w.ids.ripe) + w.ids.qN + int(w.ids.headTick) + int(w.ids.qTick[w.ids.qHead])
	for i := range w.pl {
		n += int(w.pl[i].actions)
	}
	// The Classic kinds' boxes, the ships' bounds, the kind lists, the
	// waves.
	f += w.half[vocab.KindPlayerShip].w + w.half[vocab.KindPlayerMissile].w + w.half[vocab.KindBydosSlave].w +
		w.half[vocab.KindEnemyMissile].h + w.shipLoX + w.shipHiY + w.speed
	n += int(w.epoch) + len(w.events) + len(w.shipRefs) + len(w.pmis) + len(w.bydos) + len(w.emis) + len(w.boxes) +
		int(w.maxW) + w.wave + int(w.nextWave) + w.pending + int(w.stagger) + int(w.nextEnter)
	// The first line of each buffer the step fills.
	n += int(w.shipRefs[:1][0]) + int(w.pmis[:1][0]) + int(w.bydos[:1][0]) + int(w.emis[:1][0]) +
		int(w.boxes[:1][0].lx) + int(w.events[:1][0].Kind)
	for _, r := range w.order {
		e := w.entOf(r)
		n += int(e.kind) + int(e.join) // its first and last bytes
	}
	w.sink = uint8(n) + uint8(math.Float64bits(f))
}
