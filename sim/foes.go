package sim

import "rtype/net/wire"

// The enemies of Stage mode (PROTOCOL.md 7.12): their kinds' behaviours,
// the mid-boss and the end boss.

// foeState is what a foe keeps.
type foeState struct {
	score uint32 // what its killer scores
	drop  uint8  // the item it drops, or noDrop
}

// bossState is the world's boss fight, if any.
type bossState struct{}

// foeSpawn is what the stage runner asks of a new foe.
type foeSpawn struct {
	kind         uint8   // a foe kind (roleFoe)
	x, y         float64 // where it enters, px
	vx, vy       float64 // its speed, px/s
	amp          float64 // sine amplitude, px (0: none)
	period       int     // sine period, ticks
	phase        float64 // sine phase, radians
	hp           int32   // hit points; 0: the kind's default
	fireInterval int32   // ticks between its shots; 0: it never fires
	drop         uint8   // the item it drops (wire.Item*), or noDrop
	score        uint32  // what its killer scores; 0: the kind's default
}

// noDrop is foeSpawn.drop for a foe that drops nothing.
const noDrop uint8 = 255

// spawnFoe brings in a foe; it returns its slot, or 0 when none is free.
// (A first version: the foes helper gives each kind its behaviour.)
func (w *World) spawnFoe(f *foeSpawn) int32 {
	var m wire.Motion
	if f.amp > 0 && f.period > 0 {
		m = wire.Sine(w.tick, f.x, f.y, f.vx, f.amp, f.period, f.phase)
	} else {
		m = wire.Linear(w.tick, f.x, f.y, f.vx, f.vy)
	}
	s := w.spawn(f.kind, m, wire.Anim{}, wire.NoPlayer)
	if s == 0 {
		return 0
	}
	e := &w.ents[s]
	e.hp = max(f.hp, 1)
	e.maxHP = e.hp
	e.foe = foeState{score: f.score, drop: f.drop}
	if e.foe.score == 0 {
		e.foe.score = w.r.ScorePerBydos
	}
	return s
}

// spawnBoss brings in a boss (wire.KindMidBoss or wire.KindBoss) for the
// given loop (1 first, harder after); it announces itself (StageBoss).
func (w *World) spawnBoss(kind uint8, loop int) {}

// bossActive reports whether a boss fight is on.
func (w *World) bossActive() bool { return false }

// damageFoe hurts the foe in slot s by dmg, from player by (or
// wire.NoPlayer); at 0 hit points it dies, its killer scores and it drops
// its item. It reports whether the foe absorbed the hit (a shot that hits
// it is spent), which is also true for a foe that cannot be hurt.
// (A first version: the foes helper refines it.)
func (w *World) damageFoe(s int32, dmg int32, by uint8) bool {
	e := &w.ents[s]
	if !e.alive || e.hp <= 0 {
		return true
	}
	e.hp -= dmg
	if e.hp > 0 {
		return true
	}
	if int(by) < wire.MaxPlayers && w.pl[by].in {
		w.pl[by].score += e.foe.score
	}
	x, y, drop := e.x, e.y, e.foe.drop
	w.destroy(s, wire.DestroyKilled)
	if drop != noDrop {
		w.dropItem(drop, x, y)
	}
	return true
}

// foesThink lets every foe act: aim, turn, fire, and the bosses' patterns.
func (w *World) foesThink() {}

// foeKeep reports whether the foe in slot s stays even outside the area.
func (w *World) foeKeep(s int32) bool { return false }

// emitHealth emits the Health of the bosses whose hit points changed,
// at most once every few ticks.
func (w *World) emitHealth() {}
