package wire

import "rtype/vocab"

// The world as the simulation shows it (vocab.Entity, vocab.Player), in
// the records of each version's snapshot.

// AppendEntities appends to dst the v1 record (4.3) of each entity of
// src, the world at tick, in order: its position, its velocity (its
// motion's at tick) and its frame, quantized by MakeEntity. It allocates
// nothing when dst has room.
func AppendEntities(dst []Entity, tick uint32, src []vocab.Entity) []Entity {
	for i := range src {
		dst = AppendEntity(dst, tick, &src[i])
	}
	return dst
}

// AppendEntity appends to dst the v1 record of e, an entity of the world
// at tick (AppendEntities).
func AppendEntity(dst []Entity, tick uint32, e *vocab.Entity) []Entity {
	_, _, vx, vy := e.Motion.At(float64(tick))
	return append(dst, MakeEntity(e.ID, e.Kind, e.X, e.Y, float32(vx), float32(vy), int(e.Frame)))
}

// AppendPlayers appends to dst the v1 record (4.3) of each player of src.
func AppendPlayers(dst []PlayerState, src []vocab.Player) []PlayerState {
	for i := range src {
		dst = append(dst, src[i].PlayerState)
	}
	return dst
}
