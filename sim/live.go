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
// w.ents: the slot of its index in w.colds.
func (w *World) cold(e *entity) *coldState {
	s := (uintptr(unsafe.Pointer(e)) - uintptr(unsafe.Pointer(&w.ents[0]))) / unsafe.Sizeof(entity{})
	return &w.colds[s]
}
