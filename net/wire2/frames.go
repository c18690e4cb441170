package wire2

import "rtype/vocab"

// AppendEntities appends to dst the v2 record (7.8) of each entity of
// src, in order: its kind, motion and animation. Each record is written
// in place, so dst may be a sender's shared frame
// (link2.SnapshotSender.NextEntities). It allocates nothing when dst has
// room.
func AppendEntities(dst []Entity, src []vocab.Entity) []Entity {
	for i := range src {
		dst = AppendEntity(dst, &src[i])
	}
	return dst
}

// AppendEntity appends to dst the v2 record of e, written in place
// (AppendEntities).
func AppendEntity(dst []Entity, e *vocab.Entity) []Entity {
	dst = append(dst, Entity{})
	dst[len(dst)-1].Set(e.ID, e.Kind, &e.Motion, e.Anim)
	return dst
}

// AppendPlayers appends to dst the v2 record (7.8) of each player of
// src, without a step (HasStep false: the sender sets it per session).
func AppendPlayers(dst []Player, src []vocab.Player) []Player {
	for i := range src {
		p := &src[i]
		dst = append(dst, Player{PlayerState: p.PlayerState, InvulnStart: p.InvulnStart, InvulnTicks: p.InvulnTicks})
	}
	return dst
}
