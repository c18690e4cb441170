package sim

import (
	"math"

	"rtype/vocab"
)

// The enemies of Stage mode (PROTOCOL.md 7.12): their kinds' behaviours.
// The mid-boss and the end boss are in boss.go, the warship's hull's
// Hatch and Crawler in foes_hull.go.
//
// Every foe moves by its vocab.Motion, set again (from its current
// position, at the current tick) whenever it turns; its shots are
// EnemyMissiles (small: a Force blocks them) or BossBullets (large:
// nothing blocks them) on a Linear from where they are fired. All their
// randomness comes from the world's generator.
//
// The kinds, with their defaults when the foeSpawn leaves them at 0 (hit
// points before the difficulty scaling, score, speed):
//
//   - BydosSlave: 1 hp, 100 points, 120 px/s left. Flies the foeSpawn's
//     sine; fires an EnemyMissile aimed at the nearest ship every
//     fireInterval ticks.
//   - PowArmor: 3 hp, 200 points, 70 px/s left. Never fires, whatever
//     fireInterval says; killed, it drops its item (foeSpawn.drop).
//   - Chaser: 2 hp, 150 points, 150 px/s. Every chaserAim ticks (12) it
//     turns towards the nearest ship by at most chaserTurn (20°) and
//     takes a new Linear at its speed (none when it is on course within
//     chaserSlack); after chaserHoming ticks (6 s) it flies straight on.
//     It never fires. Its frame is its heading, 0 to 7 (the aim frames
//     below).
//   - Turret: 4 hp, 200 points, 60 px/s left (the scroll). It sits on the
//     floor (a foeSpawn.y in the lower half of the area) or the ceiling
//     (the upper half) and scrolls left; every turretAim ticks it aims at
//     the nearest ship: its frame is that aim, 0 to 7, within its half
//     plane (a floor turret 0 to 4, a ceiling turret 4 to 7 and 0). It
//     fires an EnemyMissile at the ship every fireInterval ticks while
//     the ship is in its half plane.
//   - Armored: 20 hp, 500 points, 50 px/s left. A hit of less than
//     armorBreak damage (a missile) does half its damage (two missiles
//     take one hit point), a hit of armorBreak or more (a charged beam)
//     does double. Every fireInterval ticks it fires a spread of 3
//     EnemyMissiles 15° apart, centred on the nearest ship.
//
// Aim frames (Turret, Chaser): frame k points at the angle π + k·π/4 on
// the screen (y down): 0 left, 1 up-left, 2 up, 3 up-right, 4 right,
// 5 down-right, 6 down, 7 down-left.
//
// A foe fires only while its centre is inside the area and some player
// has a ship.
//
// Difficulty (level): at its spawn, a foe's hit points are scaled by
// (3+n)/4 · (1+L)/2, rounded up, for n players in the game (1 to 4) and
// the loop L (1 to 4; loops beyond 4 count as 4): ×1 alone in loop 1,
// ×1.75 with four players, ×1.5 in loop 2, ×2.625 both. Its fire interval
// is divided by (1 + 0.1·(n−1))·(1 + 0.3·(L−1)), at least minFireEvery
// ticks: ×0.77 with four players, ×0.77 in loop 2. Its shots fly
// 1 + 0.15·(L−1) times faster, and a spread has 2·(L−1) more of them.

// foeState is what a foe keeps (small: every entity has one).
type foeState struct {
	score   uint32  // what its killer scores
	every   int32   // ticks between its shots, scaled; 0: it never fires
	speed   float32 // Chaser: its speed, px/s
	aimIn   int16   // Chaser, Turret: ticks until it aims again
	homing  int16   // Chaser: ticks of homing left
	scratch int16   // Armored: half hit points taken by small hits
	drop    uint8   // the item it drops, or noDrop
	loop    uint8   // the loop of its level: its shots' speed and number
	floor   bool    // Turret: on the floor, else on the ceiling
}

// shot is the speed of a foe's EnemyMissiles, px/s.
func (w *World) shot(e *entity) float64 {
	return level{loop: int(w.cold(e).foe.loop)}.speed(w.r.EnemyMissileSpeed)
}

// foeSpawn is what the stage runner asks of a new foe.
type foeSpawn struct {
	kind         uint8   // a foe kind (roleFoe)
	x, y         float64 // where it enters, px
	vx, vy       float64 // its speed, px/s; both 0: the kind's default
	amp          float64 // sine amplitude, px (0: none)
	period       int     // sine period, ticks
	phase        float64 // sine phase, radians
	hp           int32   // hit points before scaling; 0: the kind's default
	fireInterval int32   // ticks between its shots before scaling; 0: it never fires
	drop         uint8   // the item it drops (vocab.Item*), or noDrop
	score        uint32  // what its killer scores; 0: the kind's default
	loop         int     // the stage's loop, 1 first (0 counts as 1)
	// scaled says hp and fireInterval are already scaled for the players
	// and the loop (a stage file's wave says how): spawnFoe keeps them.
	scaled bool
	// mounted says y is already on the floor or the ceiling (the
	// terrain's, mountY): a Turret, Hatch or Crawler keeps it.
	mounted bool
}

// noDrop is foeSpawn.drop for a foe that drops nothing.
const noDrop uint8 = 255

// Tunables of the foes (see the comment at the top).
const (
	chaserAim    = 12           // ticks between two aims of a Chaser
	chaserTurn   = math.Pi / 9  // its largest turn per aim: 20°, so 100°/s
	chaserHoming = 360          // ticks it homes before flying straight on (6 s)
	chaserSlack  = 0.01         // radians: a smaller turn is not worth a new motion
	turretAim    = 8            // ticks between two aims of a Turret
	armorBreak   = 3            // an Armored takes double from hits this big, half below
	spreadStep   = math.Pi / 12 // 15° between two shots of a spread
	minFireEvery = 8            // the shortest fire interval, ticks
)

// foeDefault is a foe kind's defaults.
type foeDefault struct {
	hp    int32
	score uint32
	speed float64 // px/s: to the left, a Chaser's in any direction
}

// foeDefaults are the defaults by kind (hit points before scaling).
var foeDefaults = func() (d [256]foeDefault) {
	d[vocab.KindBydosSlave] = foeDefault{1, 100, 120}
	d[vocab.KindPowArmor] = foeDefault{3, 200, 70}
	d[vocab.KindChaser] = foeDefault{2, 150, 150}
	d[vocab.KindTurret] = foeDefault{4, 200, 60}
	d[vocab.KindArmored] = foeDefault{20, 500, 50}
	d[vocab.KindMidBoss] = foeDefault{150, 3000, 0}
	d[vocab.KindBossCore] = foeDefault{300, 10000, 0}
	d[vocab.KindHatch] = foeDefault{6, 300, 60}
	d[vocab.KindCrawler] = foeDefault{3, 250, 90}
	d[vocab.KindWarship] = foeDefault{220, 20000, 0} // its core's
	return d
}()

// level is the difficulty of a foe or a boss, fixed at its spawn: the
// players in the game and the loop.
type level struct{ n, loop int }

// level returns the difficulty now for loop (1 first; 0 counts as 1).
func (w *World) level(loop int) level {
	n := 0
	for p := range w.pl {
		if w.pl[p].in {
			n++
		}
	}
	return level{n: min(max(n, 1), vocab.MaxPlayers), loop: min(max(loop, 1), 4)}
}

// hp scales hit points: ×(3+n)/4 ×(1+L)/2, rounded up, at most 65535 (the
// Health event's range).
func (l level) hp(base int32) int32 {
	v := (int64(base)*int64(3+l.n)*int64(1+l.loop) + 7) / 8
	return int32(min(max(v, 1), math.MaxUint16))
}

// every scales a fire interval: ÷(1+0.1(n−1))(1+0.3(L−1)), at least
// minFireEvery; 0 stays 0 (never).
func (l level) every(iv int32) int32 {
	if iv <= 0 {
		return 0
	}
	f := (1 + 0.1*float64(l.n-1)) * (1 + 0.3*float64(l.loop-1))
	return max(int32(math.Round(float64(iv)/f)), minFireEvery)
}

// speed scales the speed of shots: ×(1+0.15(L−1)).
func (l level) speed(v float64) float64 { return v * (1 + 0.15*float64(l.loop-1)) }

// more is the number of shots a spread adds: per·(L−1).
func (l level) more(per int) int { return per * (l.loop - 1) }

// spawnFoe brings in a foe of one of the kinds above or foes_hull.go's
// (the bosses come by spawnBoss); it returns its slot, or 0 when none is free or the
// kind is not one of them. Its hit points, fire interval and shots follow
// the difficulty (level).
func (w *World) spawnFoe(f *foeSpawn) int32 {
	def := &foeDefaults[f.kind]
	if def.speed == 0 { // not a foe kind, or a boss's
		return 0
	}
	lv := w.level(f.loop)
	vx, vy := f.vx, f.vy
	if vx == 0 && vy == 0 {
		vx = -def.speed
	}
	y := f.y
	var a vocab.Anim
	switch f.kind {
	case vocab.KindBydosSlave:
		a = vocab.Anim{Ticks: uint8(min(w.r.BydosFrameTicks, 255)), Count: uint8(min(w.r.BydosFrames, 255))}
	case vocab.KindTurret, vocab.KindHatch, vocab.KindCrawler:
		vy = 0
		switch {
		case f.mounted:
		case y > w.r.AreaH/2:
			y = w.r.AreaH - w.half[f.kind].h
		default:
			y = w.half[f.kind].h
		}
	}
	var m vocab.Motion
	if f.amp > 0 && f.period > 0 && !grounded(f.kind) {
		m = vocab.Sine(w.tick, f.x, y, vx, f.amp, f.period, f.phase)
	} else {
		m = vocab.Linear(w.tick, f.x, y, vx, vy)
	}
	head := math.Atan2(vy, vx)
	switch f.kind {
	case vocab.KindChaser:
		a.Frame0 = aimFrame(head)
	case vocab.KindTurret:
		if y > w.r.AreaH/2 {
			a.Frame0 = 2 // up
		} else {
			a.Frame0 = 6 // down
		}
	case vocab.KindHatch:
		if y <= w.r.AreaH/2 {
			a.Frame0 = hatchCeiling
		}
	case vocab.KindCrawler:
		if y <= w.r.AreaH/2 {
			a.Frame0 = 1
		}
	}
	s := w.spawn(f.kind, m, a, vocab.NoPlayer)
	if s == 0 {
		return 0
	}
	e := w.ent(s)
	hp := f.hp
	if hp <= 0 {
		hp = def.hp
	}
	w.cold(e).hp = hp
	if !f.scaled {
		w.cold(e).hp = lv.hp(hp)
	}
	w.cold(e).maxHP = w.cold(e).hp
	w.cold(e).foe = foeState{score: f.score, drop: f.drop, loop: uint8(lv.loop)}
	if w.cold(e).foe.score == 0 {
		w.cold(e).foe.score = def.score
	}
	switch f.kind {
	case vocab.KindPowArmor, vocab.KindChaser: // harmless, or only by contact
	default:
		w.cold(e).foe.every = f.fireInterval
		if !f.scaled {
			w.cold(e).foe.every = lv.every(f.fireInterval)
		}
	}
	if w.cold(e).foe.every > 0 {
		e.fireIn = w.cold(e).foe.every/2 + int32(w.rng.IntN(int(w.cold(e).foe.every/2)+1))
	}
	switch f.kind {
	case vocab.KindChaser:
		w.cold(e).foe.speed = float32(math.Hypot(vx, vy))
		w.cold(e).foe.aimIn = chaserAim
		w.cold(e).foe.homing = chaserHoming
	case vocab.KindTurret:
		w.cold(e).foe.floor = y > w.r.AreaH/2
		w.cold(e).foe.aimIn = 1
	case vocab.KindHatch, vocab.KindCrawler:
		w.cold(e).foe.floor = y > w.r.AreaH/2
		w.cold(e).foe.speed = float32(-vx)
		w.cold(e).foe.aimIn = 1
	}
	return s
}

// damageFoe hurts the foe in slot s by dmg, from player by (or
// vocab.NoPlayer); at 0 hit points it dies (Destroy Killed), its killer
// scores if it is in the game and it drops its item (dropItem). It
// reports whether the foe absorbed the hit (a shot that hits it is
// spent): true for every live foe, including one that cannot be hurt (a
// boss's body, hp 0); false for a slot that holds no live foe. An
// Armored takes half the damage of small hits and double that of big
// ones (armorBreak). The core of a boss passes to its second phase at
// half its hit points, and killing it kills the whole boss (boss.go).
func (w *World) damageFoe(s int32, dmg int32, by uint8) bool {
	e := w.ent(s)
	if !e.alive || roles[e.kind] != roleFoe {
		return false
	}
	if w.cold(e).hp <= 0 || dmg <= 0 {
		return true
	}
	if e.kind == vocab.KindArmored {
		if dmg >= armorBreak {
			dmg *= 2
		} else {
			w.cold(e).foe.scratch += int16(dmg)
			dmg, w.cold(e).foe.scratch = int32(w.cold(e).foe.scratch/2), w.cold(e).foe.scratch%2
		}
	}
	if e.kind == vocab.KindHatch && !hatchOpen(e) {
		return true // a hatch shut: its armour absorbs the hit
	}
	if f := w.fightOf(s); f != nil && f.shut {
		return true // the warship's core, shut behind its plates
	}
	w.cold(e).hp -= dmg
	if f := w.fightOf(s); f != nil {
		w.bossHurt(f, by)
		return true
	}
	if w.cold(e).hp > 0 {
		if e.kind == vocab.KindPlate {
			w.plateHurt(e)
		}
		return true
	}
	if e.kind == vocab.KindPlate {
		w.plateDown(s)
	}
	w.score(by, w.cold(e).foe.score)
	x, y, drop := e.x, e.y, w.cold(e).foe.drop
	w.destroy(s, vocab.DestroyKilled)
	if drop != noDrop {
		w.dropItem(drop, x, y)
		if testDrop != nil {
			testDrop(drop, x, y)
		}
	}
	return true
}

// testDrop, set by tests only, sees every item a dying foe drops.
var testDrop func(item uint8, x, y float64)

// score gives points to player by if it is in the game.
func (w *World) score(by uint8, pts uint32) {
	if int(by) < vocab.MaxPlayers && w.pl[by].in {
		w.pl[by].score += pts
	}
}

// foesThink lets every foe act: aim, turn, fire; then the bosses'
// patterns. It runs after the moves of the tick, so positions are the
// tick's.
func (w *World) foesThink() {
	for s := int32(1); s < w.hi; s++ {
		e := w.ent(s)
		if !e.alive || roles[e.kind] != roleFoe {
			continue
		}
		switch e.kind {
		case vocab.KindBydosSlave:
			if w.foeReady(e) {
				if tx, ty, ok := w.nearestShip(e.x, e.y); ok {
					w.fireShot(vocab.KindEnemyMissile, e.x, e.y, math.Atan2(ty-e.y, tx-e.x), w.shot(e))
				}
			}
		case vocab.KindChaser:
			w.chaserThink(e)
		case vocab.KindTurret:
			w.turretThink(e)
		case vocab.KindHatch:
			w.hatchThink(e)
		case vocab.KindCrawler:
			w.crawlerThink(e)
		case vocab.KindArmored:
			if w.foeReady(e) {
				if tx, ty, ok := w.nearestShip(e.x, e.y); ok {
					hw := w.halfOf(e).w
					w.fireFan(vocab.KindEnemyMissile, e.x-hw, e.y, math.Atan2(ty-e.y, tx-(e.x-hw)), 3+level{loop: int(w.cold(e).foe.loop)}.more(2), spreadStep, w.shot(e))
				}
			}
		}
	}
	w.bossesThink()
}

// foeReady counts down a foe's fire delay; it reports whether the foe
// fires now: its delay is over, its centre is in the area and some
// player has a ship.
func (w *World) foeReady(e *entity) bool {
	if w.cold(e).foe.every <= 0 {
		return false
	}
	if e.fireIn--; e.fireIn > 0 {
		return false
	}
	e.fireIn = w.cold(e).foe.every
	return w.inArea(e.x, e.y)
}

// inArea reports whether (x, y) is inside the play area.
func (w *World) inArea(x, y float64) bool {
	return x >= 0 && x <= w.r.AreaW && y >= 0 && y <= w.r.AreaH
}

// chaserThink: a Chaser homing turns towards the nearest ship by at most
// chaserTurn every chaserAim ticks, with a new Linear at its speed.
func (w *World) chaserThink(e *entity) {
	if w.cold(e).foe.homing <= 0 {
		return
	}
	w.cold(e).foe.homing--
	if w.cold(e).foe.aimIn--; w.cold(e).foe.aimIn > 0 {
		return
	}
	w.cold(e).foe.aimIn = chaserAim
	tx, ty, ok := w.nearestShip(e.x, e.y)
	if !ok {
		return
	}
	head := math.Atan2(float64(e.mo.VY), float64(e.mo.VX)) // its base line's
	d := wrapAngle(math.Atan2(ty-e.y, tx-e.x) - head)
	d = min(max(d, -chaserTurn), chaserTurn)
	if math.Abs(d) < chaserSlack {
		return // on course: no new motion to send
	}
	head += d
	v := float64(w.cold(e).foe.speed)
	e.mo = vocab.Linear(w.tick, e.x, e.y, v*math.Cos(head), v*math.Sin(head))
	e.anim.Frame0 = aimFrame(head)
	w.eval(e)
	e.frame = e.anim.Frame0
}

// turretThink: a Turret aims at the nearest ship every turretAim ticks
// (its frame) and fires at it when its delay is over, if the ship is in
// its half plane.
func (w *World) turretThink(e *entity) {
	fire := w.foeReady(e)
	if w.cold(e).foe.aimIn--; w.cold(e).foe.aimIn > 0 && !fire {
		return
	}
	tx, ty, ok := w.nearestShip(e.x, e.y)
	if !ok {
		return
	}
	ang := math.Atan2(ty-e.y, tx-e.x)
	if w.cold(e).foe.aimIn <= 0 {
		w.cold(e).foe.aimIn = turretAim
		if f := turretFrame(ang, w.cold(e).foe.floor); f != e.anim.Frame0 {
			e.anim.Frame0 = f
			e.frame = f
		}
	}
	if fire && (w.cold(e).foe.floor && ty < e.y || !w.cold(e).foe.floor && ty > e.y) {
		h := w.halfOf(e)
		w.fireShot(vocab.KindEnemyMissile, e.x+h.w*math.Cos(ang), e.y+h.h*math.Sin(ang), ang, w.shot(e))
	}
}

// aimFrame is the aim frame (0 to 7) nearest to the angle a (radians,
// screen): frame k points at π + k·π/4.
func aimFrame(a float64) uint8 {
	k := int(math.Round((a-math.Pi)/(math.Pi/4))) % 8
	if k < 0 {
		k += 8
	}
	return uint8(k)
}

// turretFrame is the aim frame of a turret towards the angle a, within
// its half plane: a floor turret's 0 (left) to 4 (right) through 2 (up),
// a ceiling turret's 4 to 0 through 6 (down).
func turretFrame(a float64, floor bool) uint8 {
	f := aimFrame(a)
	if floor && f > 4 {
		if f == 5 {
			return 4
		}
		return 0 // 6 (down) and 7 (down-left) turn left
	}
	if !floor && f >= 1 && f <= 3 {
		if f == 3 {
			return 4
		}
		return 0 // 1 (up-left) and 2 (up) turn left
	}
	return f
}

// wrapAngle brings a into [−π, π].
func wrapAngle(a float64) float64 {
	for a > math.Pi {
		a -= 2 * math.Pi
	}
	for a < -math.Pi {
		a += 2 * math.Pi
	}
	return a
}

// nearestShip returns the position of the ship nearest to (x, y), the
// lowest player on a tie, and false when no player has a ship.
func (w *World) nearestShip(x, y float64) (tx, ty float64, ok bool) {
	bestD := math.Inf(1)
	for p := range w.pl {
		if s := w.pl[p].slot; s != 0 {
			t := w.ent(s)
			if d := (t.x-x)*(t.x-x) + (t.y-y)*(t.y-y); d < bestD {
				tx, ty, bestD, ok = t.x, t.y, d, true
			}
		}
	}
	return tx, ty, ok
}

// fireShot fires an enemy shot of kind from (x, y) at the angle a
// (radians, screen) and speed v px/s.
func (w *World) fireShot(kind uint8, x, y, a, v float64) {
	w.spawn(kind, vocab.Linear(w.tick, x, y, v*math.Cos(a), v*math.Sin(a)), vocab.Anim{}, vocab.NoPlayer)
}

// fireFan fires n shots of kind from (x, y), step radians apart, centred
// on the angle a.
func (w *World) fireFan(kind uint8, x, y, a float64, n int, step, v float64) {
	a -= step * float64(n-1) / 2
	for i := range n {
		w.fireShot(kind, x, y, a+step*float64(i), v)
	}
}

// fireRing fires n shots of kind from (x, y), evenly around, the first at
// the angle a.
func (w *World) fireRing(kind uint8, x, y, a float64, n int, v float64) {
	w.fireFan(kind, x, y, a+math.Pi*float64(n-1)/float64(n), n, 2*math.Pi/float64(n), v)
}

// foeKeep reports whether the foe in slot s stays even outside the area:
// a boss always (it enters from far away and never leaves), and a foe
// whose base line still heads into the area on a side it is beyond
// (coming in from the right, the left, above or below).
func (w *World) foeKeep(s int32) bool {
	e := w.ent(s)
	if roles[e.kind] != roleFoe {
		return false
	}
	h := w.halfOf(e)
	if e.x-h.w > w.r.AreaW && e.mo.VX < 0 || e.x+h.w < 0 && e.mo.VX > 0 ||
		e.y-h.h > w.r.AreaH && e.mo.VY < 0 || e.y+h.h < 0 && e.mo.VY > 0 {
		return true
	}
	return w.fightOf(s) != nil || w.partOfBoss(s)
}
