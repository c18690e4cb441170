package sim

import (
	"math"

	"rtype/vocab"
)

// laserAngles are the directions of a Force's laser shots, in degrees
// from straight ahead (positive: down), by laser (vocab.Laser*) and Force
// level (1 to 3): red straight then wide, blue diagonal, yellow up and
// down. A Force attached to its ship's back fires them mirrored
// (backward).
var laserAngles = [3][3][]float64{
	vocab.LaserRed:    {{0}, {-4, 4}, {-10, 0, 10}},
	vocab.LaserBlue:   {{-30, 30}, {-30, 0, 30}, {-45, -20, 0, 20, 45}},
	vocab.LaserYellow: {{-90, 90}, {-90, 0, 90}, {-90, -45, 0, 45, 90}},
}

// fireArms: ships charge, release beams, shoot; Forces and bits shoot
// with them. The press edge of Fire shoots a missile when the cooldown
// (Rules.FireInterval) is over, and with it the Force's laser pattern and
// one shot from each bit; holding Fire charges the wave cannon (no
// auto-fire); releasing it fires a beam of the level reached (none below
// level 1).
func (w *World) fireArms() {
	r := &armsRules
	for p := range w.pl {
		pl := &w.pl[p]
		if !pl.in {
			continue
		}
		pa := &pl.arms
		fire := pl.actions&vocab.ActionFire != 0
		wasFire := pa.prev&vocab.ActionFire != 0
		pa.prev = pl.actions
		if pl.slot == 0 {
			pa.held = 0
			continue
		}
		if pl.cooldown > 0 {
			pl.cooldown--
		}
		switch {
		case fire && !wasFire:
			pa.held = 1
			if pl.cooldown == 0 {
				w.shoot(uint8(p))
				pl.cooldown = int32(w.r.FireInterval)
			}
		case fire:
			pa.held = min(pa.held+1, math.MaxInt32-1)
		case wasFire:
			if l := r.ChargeLevel(int(pa.held)); l > 0 {
				w.fireBeam(uint8(p), l)
			}
			pa.held = 0
		}
	}
}

// shoot fires player p's missile, its Force's lasers and its bits' shots.
func (w *World) shoot(p uint8) {
	r := &armsRules
	pl := &w.pl[p]
	pa := &pl.arms
	e := w.ent(pl.slot)
	mo := vocab.Linear(w.tick, e.x+w.r.MissileDX, e.y+w.r.MissileDY, w.r.MissileSpeed, 0)
	w.playerShot(vocab.KindPlayerMissile, mo, 0, p, r.MissileDamage)
	if pa.force != 0 {
		fe := w.ent(pa.force)
		dir := 1.0
		if pa.a.ForceAt == vocab.ForceBack {
			dir = -1
		}
		laser := min(pa.a.Laser, vocab.LaserYellow)
		lvl := min(max(pa.a.Force, 1), 3) - 1
		for _, deg := range laserAngles[laser][lvl] {
			sin, cos := math.Sincos(deg * math.Pi / 180)
			vx, vy := dir*cos*r.ForceShotSpeed, sin*r.ForceShotSpeed
			s := w.playerShot(vocab.KindForceShot, vocab.Linear(w.tick, fe.x, fe.y, vx, vy), laser, p, r.ForceShotDamage[lvl])
			if s != 0 && math.Abs(deg) > 60 { // an upright shot: its box too
				h := &w.cold(w.ent(s)).half
				h.w, h.h = h.h, h.w
			}
		}
	}
	for _, b := range pa.bits {
		if b != 0 {
			be := w.ent(b)
			w.playerShot(vocab.KindForceShot, vocab.Linear(w.tick, be.x, be.y, r.ForceShotSpeed, 0),
				min(pa.a.Laser, vocab.LaserYellow), p, r.ForceShotDamage[0])
		}
	}
}

// playerShot spawns a shot of player p (kind, moving by m, frame frame)
// that does dmg; it returns its slot, 0 if none was free.
func (w *World) playerShot(kind uint8, m vocab.Motion, frame uint8, p uint8, dmg int32) int32 {
	s := w.spawn(kind, m, vocab.Anim{Frame0: frame}, p)
	if s != 0 {
		w.ent(s).setEpoch(w.pl[p].epoch)
		w.colds[w.at[s]].arm.dmg = dmg
	}
	return s
}

// fireBeam fires player p's wave beam of level l (1 to 3) from its
// ship's nose: its box is BeamSize(l), it flies right at BeamSpeed and
// remembers whom it hurt in the player's next beams entry.
func (w *World) fireBeam(p uint8, l int) {
	r := &armsRules
	pl := &w.pl[p]
	e := w.ent(pl.slot)
	bw, bh := r.BeamSize(l)
	m := vocab.Linear(w.tick, e.x+w.r.ShipW/2+bw/2, e.y, r.BeamSpeed, 0)
	s := w.playerShot(vocab.KindWaveBeam, m, uint8(l), p, r.BeamDamage[l-1])
	if s == 0 {
		return
	}
	be := w.ent(s)
	w.cold(be).half = halfSize{bw / 2, bh / 2}
	pa := &pl.arms
	i := pa.nextBeam
	pa.nextBeam = (i + 1) % uint8(len(pa.beams))
	pa.beams[i] = beamHits{id: w.id(s)}
	w.cold(be).arm.beam = i
}
