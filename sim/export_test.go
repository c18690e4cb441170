package sim

import (
	"math"

	"rtype/net/wire"
)

// Test helpers: they place entities and read the exact (unquantized)
// state. They emit the Spawn events of what they create.

// NoWaves stops the waves.
func (w *World) NoWaves() { w.noWaves = true }

// SpawnBydosAt spawns a Bydos at (x, y) flying straight at vx, that fires
// for the first time after fireIn ticks, or never if fireIn <= 0.
func (w *World) SpawnBydosAt(x, y, vx float64, fireIn int) uint32 {
	if fireIn <= 0 {
		fireIn = math.MaxInt32
	}
	w.ids.ripen(w.tick)
	return w.idOf(w.spawnBydos(x, y, vx, 0, 0, int32(fireIn)))
}

// SpawnPlayerMissileAt spawns a missile of player p at (x, y), flying
// right at the rules' speed.
func (w *World) SpawnPlayerMissileAt(p uint8, x, y float64) uint32 {
	w.ids.ripen(w.tick)
	s := w.spawn(wire.KindPlayerMissile, wire.Linear(w.tick, x, y, w.r.MissileSpeed, 0), wire.Anim{}, p)
	if s != 0 {
		w.ent(s).setEpoch(w.pl[p].epoch)
	}
	return w.idOf(s)
}

// SpawnEnemyMissileAt spawns an enemy missile at (x, y) with (vx, vy).
func (w *World) SpawnEnemyMissileAt(x, y, vx, vy float64) uint32 {
	w.ids.ripen(w.tick)
	return w.idOf(w.spawn(wire.KindEnemyMissile, wire.Linear(w.tick, x, y, vx, vy), wire.Anim{}, wire.NoPlayer))
}

func (w *World) idOf(s int32) uint32 {
	if s == 0 {
		return wire.NoEntity
	}
	return w.id(s)
}

// Pos returns the exact position of the live entity id.
func (w *World) Pos(id uint32) (x, y float64, ok bool) {
	s := int32(wire.Index(id))
	if s <= 0 || s >= w.hi || !w.ent(s).alive || w.id(s) != id {
		return 0, 0, false
	}
	return w.ent(s).x, w.ent(s).y, true
}

// ShipPos returns the exact position of player p's ship.
func (w *World) ShipPos(p uint8) (x, y float64) {
	e := w.ent(w.pl[p].slot)
	return e.x, e.y
}

// SetShipPos moves player p's ship to (x, y), still.
func (w *World) SetShipPos(p uint8, x, y float64) {
	e := w.ent(w.pl[p].slot)
	w.setShipMotion(e, w.tick, x, y, 0, 0)
	w.eval(e)
	e.px, e.py = e.x, e.y
}

// Invuln returns the ticks of invulnerability player p has left.
func (w *World) Invuln(p uint8) int { return int(w.pl[p].invuln) }

// CountKind returns the number of live entities of kind.
func (w *World) CountKind(kind uint8) int {
	n := 0
	for s := int32(1); s < w.hi; s++ {
		if w.ent(s).alive && w.ent(s).kind == kind {
			n++
		}
	}
	return n
}

// TopUp keeps a busy world busy for benchmarks: it brings the Bydos up
// to nBydos and the missiles (of both sides) up to nMissiles, and gives
// every player 200 lives when it has fewer than 100.
func (w *World) TopUp(nBydos, nMissiles int) {
	for p := range w.pl {
		if w.pl[p].in && w.pl[p].lives < 100 {
			w.pl[p].lives = 200
		}
	}
	b := w.CountKind(wire.KindBydosSlave)
	m := w.CountKind(wire.KindPlayerMissile) + w.CountKind(wire.KindEnemyMissile)
	w.ids.ripen(w.tick)
	for ; b < nBydos; b++ {
		w.spawnBydos(w.uniform(400, 1280), w.uniform(100, 620), -w.uniform(90, 160),
			w.uniform(0, 60), w.uniform(0, 6), w.fireDelay())
	}
	for ; m < nMissiles; m++ {
		w.spawn(wire.KindEnemyMissile, wire.Linear(w.tick, w.uniform(0, 1280), w.uniform(0, 720),
			w.uniform(-300, 300), w.uniform(-300, 300)), wire.Anim{}, wire.NoPlayer)
	}
}
