package sim

import (
	"math/bits"
	"unsafe"
)

// The loops of a step visit the live slots through a bitmap, in slot
// order as before: a slot freed waits IDReuseTicks before it is handed
// out again, so in a busy game about 40 live entities spread over some
// 300 slots, and a loop that loaded every slot's entity to read its alive
// flag spent most of its time on the dead ones (the first touch of each
// missed the cache: 5% of the server's CPU in moveOthers' alive check).

// setLive sets or clears slot s's bit.
func (w *World) setLive(s int32, alive bool) {
	if alive {
		w.live[s>>6] |= 1 << (uint(s) & 63)
	} else {
		w.live[s>>6] &^= 1 << (uint(s) & 63)
	}
}

// nextLive returns the first live slot after s, or w.hi when there is
// none (every live slot is below w.hi). An entity spawned or destroyed
// during a loop in a slot after the current one is visited, or not, as
// the loop over every slot did.
func (w *World) nextLive(s int32) int32 {
	s++
	i := int(s >> 6)
	if s >= w.hi || i >= len(w.live) {
		return w.hi
	}
	b := w.live[i] >> (uint(s) & 63)
	for b == 0 {
		i++
		if i >= len(w.live) || int32(i<<6) >= w.hi {
			return w.hi
		}
		b, s = w.live[i], int32(i<<6)
	}
	return min(s+int32(bits.TrailingZeros64(b)), w.hi)
}

// cold returns the Stage-only state of the entity e, which points into
// w.ents: the entry of w.colds at its index.
func (w *World) cold(e *entity) *coldState {
	s := (uintptr(unsafe.Pointer(e)) - uintptr(unsafe.Pointer(&w.ents[0]))) / unsafe.Sizeof(entity{})
	return &w.colds[s]
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
