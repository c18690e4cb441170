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

// AppendEntities2 appends to dst the v2 record (7.8) of each entity of
// src, in order: its kind, motion and animation. Each record is written
// in place, so dst may be a sender's shared frame
// (link.SnapshotSender2.NextEntities). It allocates nothing when dst has
// room.
func AppendEntities2(dst []Entity2, src []vocab.Entity) []Entity2 {
	for i := range src {
		dst = AppendEntity2(dst, &src[i])
	}
	return dst
}

// AppendEntity2 appends to dst the v2 record of e, written in place
// (AppendEntities2).
func AppendEntity2(dst []Entity2, e *vocab.Entity) []Entity2 {
	dst = append(dst, Entity2{})
	dst[len(dst)-1].Set(e.ID, e.Kind, &e.Motion, e.Anim)
	return dst
}

// AppendPlayers appends to dst the v1 record (4.3) of each player of src.
func AppendPlayers(dst []PlayerState, src []vocab.Player) []PlayerState {
	for i := range src {
		dst = append(dst, src[i].PlayerState)
	}
	return dst
}

// AppendPlayers2 appends to dst the v2 record (7.8) of each player of
// src, without a step (HasStep false: the sender sets it per session).
func AppendPlayers2(dst []Player2, src []vocab.Player) []Player2 {
	for i := range src {
		p := &src[i]
		dst = append(dst, Player2{PlayerState: p.PlayerState, InvulnStart: p.InvulnStart, InvulnTicks: p.InvulnTicks})
	}
	return dst
}
