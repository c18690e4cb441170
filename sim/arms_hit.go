package sim

import "rtype/vocab"

// hitFoes: player shots, beams, Forces and bits hurt the foes they touch
// (w.damageFoe), in this order:
//   - each missile or laser shot, by slot, hits the foe it touches first
//     in the tick (the lowest slot on a tie) and is Consumed if the foe
//     absorbs it;
//   - each wave beam, by slot, hurts every foe it touches, each foe once
//     in the beam's life, by its level's damage; it stops (Consumed) on a
//     boss's body (vocab.KindBoss), hurting only the foes it touched before
//     or at the same time;
//   - each Force, then each bit, by slot, hurts every foe it touches by
//     ForceContactDamage (BitContactDamage) at every tick it touches it;
//     neither is ever spent.
func (w *World) hitFoes() {
	for _, s := range w.shots {
		e := w.ent(s)
		if !e.alive {
			continue
		}
		if e.kind == vocab.KindWaveBeam {
			w.beamHits(s)
			continue
		}
		best := w.firstHit(e, w.foes, nil)
		if best == 0 {
			continue
		}
		dmg := w.cold(e).arm.dmg
		if dmg == 0 {
			dmg = armsRules.MissileDamage
		}
		if w.damageFoe(best, dmg, w.shooter(e)) {
			w.destroy(s, vocab.DestroyConsumed)
		}
	}
	for _, f := range w.forces {
		w.contact(f, armsRules.ForceContactDamage)
	}
	for _, b := range w.bits {
		w.contact(b, armsRules.BitContactDamage)
	}
}

// beamHits: the beam in slot s hurts the foes it crosses (see hitFoes).
func (w *World) beamHits(s int32) {
	e := w.ent(s)
	var body int32
	bodyT := 2.0
	for _, f := range w.foes {
		fe := w.ent(f)
		if !fe.alive || fe.kind != vocab.KindBoss {
			continue
		}
		if t, ok := w.sweep(e, fe); ok && t < bodyT {
			body, bodyT = f, t
		}
	}
	var hits *beamHits
	if p := e.owner; int(p) < vocab.MaxPlayers && int(w.cold(e).arm.beam) < len(w.pl[p].arms.beams) {
		if h := &w.pl[p].arms.beams[w.cold(e).arm.beam]; h.id == w.id(s) {
			hits = h
		}
	}
	by := w.shooter(e)
	for _, f := range w.foes {
		fe := w.ent(f)
		if !fe.alive || fe.kind == vocab.KindBoss || hits == nil {
			continue
		}
		t, ok := w.sweep(e, fe)
		if !ok || t > bodyT {
			continue
		}
		if id := w.id(f); hits.has(id) || !hits.add(id) {
			continue
		}
		w.damageFoe(f, w.cold(e).arm.dmg, by)
	}
	if body != 0 {
		w.damageFoe(body, w.cold(e).arm.dmg, by)
		w.destroy(s, vocab.DestroyConsumed)
	}
}

// contact: the Force or bit in slot s hurts every foe it touches by dmg.
func (w *World) contact(s int32, dmg int32) {
	e := w.ent(s)
	by := w.shooter(e)
	for _, f := range w.foes {
		fe := w.ent(f)
		if !fe.alive {
			continue
		}
		if _, ok := w.sweep(e, fe); ok {
			w.damageFoe(f, dmg, by)
		}
	}
}

// hitShipsStage: first each small enemy shot (roleFoeShot), by slot, that
// touches a Force or a bit is Consumed (big shots, roleBigShot, pass).
// Then each vulnerable ship, by slot, dies on the foe or enemy shot it
// touches first in the tick (the lowest slot on a tie): Death (the
// Classic loseLife: respawn invulnerable, or no ship after the last
// life), then the player loses its arms: its Force and bits are destroyed
// (Killed), its speed-ups and Force level are gone. An enemy shot that
// hit is Consumed; a foe flies on unhurt. A ship that touches none but
// touches the terrain dies the same way.
func (w *World) hitShipsStage() {
	for _, s := range w.eshots {
		se := w.ent(s)
		if !se.alive || roles[se.kind] != roleFoeShot {
			continue
		}
		if w.blocked(se, w.forces) || w.blocked(se, w.bits) {
			w.destroy(s, vocab.DestroyConsumed)
		}
	}
	for _, s := range w.ships {
		se := w.ent(s)
		p := se.owner
		if !se.alive || w.pl[p].invuln > 0 {
			continue
		}
		best := w.firstHit(se, w.foes, w.eshots)
		if best == 0 {
			if w.shipOnTerrain(se) {
				w.loseLife(p, s)
				w.loseArms(p, vocab.DestroyKilled)
			}
			continue
		}
		w.loseLife(p, s)
		w.loseArms(p, vocab.DestroyKilled)
		if roles[w.ent(best).kind] != roleFoe {
			w.destroy(best, vocab.DestroyConsumed)
		}
	}
}

// blocked reports whether the shot e touches one of the live entities in
// list during the tick.
func (w *World) blocked(e *entity, list []int32) bool {
	for _, b := range list {
		be := w.ent(b)
		if !be.alive {
			continue
		}
		if _, ok := w.sweep(e, be); ok {
			return true
		}
	}
	return false
}
