package sim

import (
	"math"

	"rtype/vocab"
)

// The warship (stage 2's end boss, `at T boss type=warship`): the bridge
// of a giant warship (KindWarship, 240×320: shots stop on it, without
// damage), its core (KindBossCore) in the bridge's front, and four armour
// plates (KindPlate, 28×60) standing before it, two above and two below
// the core. Everything moves together (the body's motion, offset).
//
//   - Phase 1, armoured: the core is shut (its frame 2): a hit on it is
//     absorbed without damage. Each plate has 32 hit points before the
//     difficulty scaling (level) and scores 1000; its frame turns 1
//     (cracked) below half of them. Attacks: Broadside (4 volleys, 16
//     ticks apart: every standing plate fires a missile at the nearest
//     ship, so each plate destroyed makes it thinner), Ring and Fan.
//   - Phase 2, exposed: once the last plate is destroyed the core opens
//     (frame 0, a Health at once) and takes damage: 220 hit points before
//     the scaling, 20000 points × the loop to its killer. Attacks: Fan,
//     Sweep, Spiral, 1.2× faster, resting 0.6× as long.
//   - Phase 3, at half the core's hit points (frame 1): Crossfire, Twin
//     sweep, Spiral and Broadside (from the core alone: its plates are
//     gone, the volley is one missile), 1.4× faster, resting 0.4× as long.
//
// Killing the core kills the whole warship, as Mother Bydos: the stage
// is cleared.

// bkWarship is the warship's index in bossKinds.
const bkWarship = 2

// warshipPlates is the number of the warship's armour plates.
const warshipPlates = 4

// Tunables of the warship.
const (
	plateHP     = 32   // hit points of a plate, before the scaling
	plateScore  = 1000 // what a plate's killer scores
	plateDX     = -30  // px from the core's centre to the plates'
	plateNearDY = 48   // px from the core's height to the inner plates'
	plateFarDY  = 112  // and to the outer plates'
)

// Frames of the warship's core: shut (phase 1), else the core's usual
// (0 exposed, 1 in the last phase).
const coreFrameShut = 2

// armWarship gives the warship of fight f its plates and shuts its core;
// it reports false, the fight undone, when no slot is free.
func (w *World) armWarship(f *bossFight) bool {
	b := w.ent(f.body)
	dys := [warshipPlates]float64{-plateFarDY, -plateNearDY, plateNearDY, plateFarDY}
	lv := f.lv
	for i, dy := range dys {
		f.plateD[i] = [2]float64{f.coreDX + plateDX, dy}
		m := b.mo
		m.X0 += vocab.QuantizePos(f.plateD[i][0])
		m.Y0 += vocab.QuantizePos(dy)
		s := w.spawn(vocab.KindPlate, m, vocab.Anim{}, vocab.NoPlayer)
		if s == 0 {
			for _, p := range f.plates {
				if p != 0 {
					w.destroy(p, vocab.DestroyDespawned)
				}
			}
			w.destroy(f.core, vocab.DestroyDespawned)
			w.destroy(f.body, vocab.DestroyDespawned)
			*f = bossFight{}
			return false
		}
		f.plates[i] = s
		p := w.ent(s)
		w.cold(p).hp = lv.hp(plateHP)
		w.cold(p).maxHP = w.cold(p).hp
		w.cold(p).foe = foeState{score: plateScore, drop: noDrop, loop: uint8(lv.loop)}
		f.platesMax += w.cold(p).hp
	}
	f.shut = true
	c := w.ent(f.core)
	c.anim.Frame0, c.frame = coreFrameShut, coreFrameShut
	return true
}

// plateOf returns the index of slot s among f's standing plates, or −1.
func (f *bossFight) plateOf(s int32) int {
	if s == 0 {
		return -1
	}
	for i, p := range f.plates {
		if p == s {
			return i
		}
	}
	return -1
}

// movePlates gives f's standing plates the body's motion m, offset.
func (w *World) movePlates(f *bossFight, m vocab.Motion) {
	for i, s := range f.plates {
		if s == 0 {
			continue
		}
		p := w.ent(s)
		p.mo = m
		p.mo.X0 += vocab.QuantizePos(f.plateD[i][0])
		p.mo.Y0 += vocab.QuantizePos(f.plateD[i][1])
		w.eval(p)
	}
}

// plateHurt follows a hit on a plate that survives it: cracked below
// half its hit points.
func (w *World) plateHurt(e *entity) {
	if e.frame == 0 && w.cold(e).hp*2 <= w.cold(e).maxHP {
		e.anim.Frame0, e.frame = 1, 1
	}
}

// plateDown follows the death of the plate in slot s (before its
// Destroy): the warship forgets it, and opens its core once no plate
// stands: the second phase, with a Health at once.
func (w *World) plateDown(s int32) {
	for i := range w.boss.fights {
		f := &w.boss.fights[i]
		k := f.plateOf(s)
		if !f.on || k < 0 {
			continue
		}
		f.plates[k] = 0
		for _, p := range f.plates {
			if p != 0 {
				return
			}
		}
		f.shut = false
		f.phase = 2
		f.last = -1
		c := w.ent(f.core)
		c.anim.Frame0, c.frame = 0, 0
		if f.atk < 0 {
			w.setBossFrame(f, BossFrameAngry)
		}
		if !f.entering {
			w.bossHover(f)
		}
		w.emitBossHealth(f)
		return
	}
}

// broadside fires one volley of Broadside: a missile from the front of
// each standing plate at the nearest ship, or from the core when none
// stands.
func (w *World) broadside(f *bossFight, v float64) {
	fired := false
	for _, s := range f.plates {
		if s == 0 {
			continue
		}
		p := w.ent(s)
		x := p.x - w.halfOf(p).w
		w.fireAimed(x, p.y, v)
		fired = true
	}
	if !fired {
		c := w.ent(f.core)
		w.fireAimed(c.x-w.halfOf(c).w, c.y, v)
	}
}

// fireAimed fires an EnemyMissile from (x, y) at the nearest ship (to the
// left without one) at v px/s.
func (w *World) fireAimed(x, y, v float64) {
	a := math.Pi
	if tx, ty, ok := w.nearestShip(x, y); ok {
		a = math.Atan2(ty-y, tx-x)
	}
	w.fireShot(vocab.KindEnemyMissile, x, y, a, v)
}
