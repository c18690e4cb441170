package wire

import "rtype/vocab"

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

// AppendPlayers2 appends to dst the v2 record (7.8) of each player of
// src, without a step (HasStep false: the sender sets it per session).
func AppendPlayers2(dst []Player2, src []vocab.Player) []Player2 {
	for i := range src {
		p := &src[i]
		dst = append(dst, Player2{PlayerState: p.PlayerState, InvulnStart: p.InvulnStart, InvulnTicks: p.InvulnTicks})
	}
	return dst
}
