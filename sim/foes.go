package sim

// The enemies of Stage mode (PROTOCOL.md 7.12): their kinds' behaviours,
// the mid-boss and the end boss.

// foeState is what a foe keeps.
type foeState struct{}

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
func (w *World) spawnFoe(f *foeSpawn) int32 { return 0 }

// spawnBoss brings in a boss (wire.KindMidBoss or wire.KindBoss) for the
// given loop (1 first, harder after); it announces itself (StageBoss).
func (w *World) spawnBoss(kind uint8, loop int) {}

// bossActive reports whether a boss fight is on.
func (w *World) bossActive() bool { return false }

// damageFoe hurts the foe in slot s by dmg, from player by (or
// wire.NoPlayer); at 0 hit points it dies, its killer scores and it drops
// its item. It reports whether the foe absorbed the hit (a shot that hits
// it is spent), which is also true for a foe that cannot be hurt.
func (w *World) damageFoe(s int32, dmg int32, by uint8) bool { return true }

// foesThink lets every foe act: aim, turn, fire, and the bosses' patterns.
func (w *World) foesThink() {}

// foeKeep reports whether the foe in slot s stays even outside the area.
func (w *World) foeKeep(s int32) bool { return false }

// emitHealth emits the Health of the bosses whose hit points changed,
// at most once every few ticks.
func (w *World) emitHealth() {}
