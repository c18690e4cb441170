package sim

import (
	"math"

	"rtype/vocab"
)

// The bosses of Stage mode (PROTOCOL.md 7.12): the mid-boss and the end
// boss. Each enters from the right (foeKeep keeps it while it is outside
// the area), announces itself (Stage event StageBoss, Value: the network
// id of the entity whose Health the boss bar shows, Name: its name),
// stops at its hover line and hovers up and down on a Sine, and attacks
// until it dies.
//
//   - The mid-boss ("Warden", KindMidBoss, 170×170) is one entity that
//     takes damage: 150 hit points before the difficulty scaling (level),
//     3000 points × the loop to its killer. Attacks: Fan (3 volleys of 5
//     EnemyMissiles 10° apart aimed at the nearest ship) and Ring (2 rings
//     of 10 BossBullets).
//   - The end boss ("Mother Bydos") is a body (KindBoss, 200×240) that
//     cannot be hurt (hp 0: damageFoe absorbs the hit) and a weak point
//     (KindBossCore) that sticks out of the body's front and moves with
//     it (the same motion, offset): 300 hit points before the scaling,
//     10000 points × the loop to its killer. Killing the core kills the
//     whole boss (Destroy Killed of both). Phase 1 attacks: Fan (7
//     missiles, 3 volleys), Ring (12 BossBullets, 2 rings) and Sweep (16
//     missiles sweeping from down-left to up-left, one every 4 ticks).
//     Phase 2 attacks: Spiral (2 arms of BossBullets turning 19° every 6
//     ticks, 16 volleys), Crossfire (a fan of 5 missiles and a ring of 8
//     BossBullets, twice) and Twin sweep (two streams of missiles closing
//     in on the left, one pair every 3 ticks, 20 pairs).
//
//   - The warship ("Warship", stage 2's end boss, `boss type=warship`) is
//     a body (KindWarship), a core and four armour plates, in three
//     phases: boss_warship.go.
//
// A boss's death clears the enemy shots in flight (Destroy Despawned).
// Both pass to their second phase at half their hit points (Health at
// once): their shots fly 1.2× faster, they rest 0.6× as long between
// attacks, they hover faster and wider, and the end boss changes its
// repertoire. An attack is announced bossWarn ticks (1 s) before its first
// shot: a Stage event StageWarning (Value: the ticks until it strikes,
// Name: the attack) and the body's frame shows the attack's tell
// (BossFrame*) until its last volley. Between attacks they rest 80
// ticks (the mid-boss) or 70 (the end boss), divided as a fire interval
// is by the players and the loop (level.every).
//
// Difficulty (level, fixed at spawnBoss): hit points as a foe's, ×1.75
// with four players, ×1.5 in loop 2; shots 1.15× faster in loop 2; fans
// 2, rings 4, streams and spirals 1 more shot per volley for each loop
// after the first.
//
// Health: emitHealth emits a Health event (the core's or the mid-boss's
// id, hit points, maximum) when its hit points changed, at most once every
// healthEvery ticks per boss; at once when it enters, on its phase change
// and at its death (HP 0).

// Frames of a boss's body (KindMidBoss, KindBoss): calm in its first
// phase and angry in its second between attacks; while an attack is
// announced and fired, the attack's tell. A boss core's frame is 0 in the
// first phase, 1 in the second.
const (
	BossFrameCalm   = 0 // between attacks, phase 1
	BossFrameAngry  = 1 // between attacks, phase 2
	BossFrameFan    = 2 // tell: an aimed fan of missiles
	BossFrameRing   = 3 // tell: rings of big bullets
	BossFrameSweep  = 4 // tell: a sweeping stream of missiles
	BossFrameSpiral = 5 // tell: a spiral of big bullets
	BossFrameCross  = 6 // tell: a fan and a ring together
	BossFrameTwin   = 7 // tell: two sweeping streams
	// BossFrameBroadside is the warship's tell: its plates fire (boss_warship.go).
	BossFrameBroadside = 8
)

// Tunables of the bosses (see the comment at the top).
const (
	bossWarn        = 60  // ticks between an attack's Warning and its first shot
	bossFirst       = 30  // ticks between the end of its entrance and its first Warning
	bossEnterSpeed  = 160 // px/s to the left while it enters
	bossEnterFrom   = 120 // px between the area's right edge and its box as it appears
	bossBulletSpeed = 200 // px/s of a BossBullet, before the scaling
	healthEvery     = 6   // ticks between two Health events of a boss, at least
	coreInset       = 16  // px of the core's box inside the body's front
	fanStep         = math.Pi / 18
	sweepHalf       = 50 * math.Pi / 180
	spiralStep      = 19 * math.Pi / 180
)

// Attacks (bossAttacks' indices).
const (
	atkFan = iota
	atkRing
	atkSweep
	atkSpiral
	atkCross
	atkTwin
	atkBroadside
)

// bossAttack is one attack pattern: volleys every few ticks.
type bossAttack struct {
	name    string // the Warning's Name
	tell    uint8  // the body's frame from the Warning to the last volley
	volleys int32
	every   int32 // ticks between two volleys
}

var bossAttacks = [...]bossAttack{
	atkFan:       {"Fan", BossFrameFan, 3, 20},
	atkRing:      {"Ring", BossFrameRing, 2, 36},
	atkSweep:     {"Sweep", BossFrameSweep, 16, 4},
	atkSpiral:    {"Spiral", BossFrameSpiral, 16, 6},
	atkCross:     {"Crossfire", BossFrameCross, 2, 30},
	atkTwin:      {"Twin sweep", BossFrameTwin, 20, 3},
	atkBroadside: {"Broadside", BossFrameBroadside, 4, 16},
}

// The repertoires: [the boss (bossKinds' index)][phase − 1].
var repertoires = [3][3][]uint8{
	{{atkFan, atkRing}, {atkFan, atkRing}},
	{{atkFan, atkRing, atkSweep}, {atkSpiral, atkCross, atkTwin}},
	bkWarship: {{atkBroadside, atkRing, atkFan}, {atkFan, atkSweep, atkSpiral}, {atkCross, atkTwin, atkSpiral, atkBroadside}},
}

// bossKind is what differs between the mid-boss and the end boss.
type bossKind struct {
	name     string
	hpKind   uint8      // the kind whose foeDefaults give the hit points and score
	hoverDX  float64    // hover line: px from the area's right edge to the centre
	amp      [3]float64 // by phase
	period   [3]int
	phases   int   // 2, or 3 (the warship: its plates, then its core in two)
	rest     int32 // ticks between attacks, before the scaling
	fan, rng int   // shots of its Fan and Ring, before the loop's
}

var bossKinds = [3]bossKind{
	{name: "Warden", hpKind: vocab.KindMidBoss, hoverDX: 155, phases: 2,
		amp: [3]float64{170, 200}, period: [3]int{300, 200}, rest: 80, fan: 5, rng: 10},
	{name: "Mother Bydos", hpKind: vocab.KindBossCore, hoverDX: 160, phases: 2,
		amp: [3]float64{140, 180}, period: [3]int{360, 240}, rest: 70, fan: 7, rng: 12},
	bkWarship: {name: "Warship", hpKind: vocab.KindWarship, hoverDX: 175, phases: 3,
		amp: [3]float64{70, 100, 130}, period: [3]int{420, 320, 240}, rest: 70, fan: 7, rng: 12},
}

// bossFight is one boss on stage.
type bossFight struct {
	on       bool
	end      int     // 0: the mid-boss, 1: the end boss
	bk       int     // its bossKinds' index
	body     int32   // slot of the body (the mid-boss itself)
	core     int32   // slot that takes the damage: the core, or the mid-boss
	coreID   uint32  // network id of core
	coreDX   float64 // the core's offset from the body's centre, px
	lv       level
	phase    int // 1, then 2 below half its hit points
	entering bool

	atk    int    // the attack announced or firing, or −1
	last   int    // the repertoire's index of the last attack, or −1
	warnAt uint32 // tick of the next Warning (atk −1)
	nextAt uint32 // tick of the next volley (atk ≥ 0)
	volley int32  // volleys fired of atk
	spin   float64

	sentHP int32  // hit points of the last Health
	sentAt uint32 // its tick

	// The warship's (boss_warship.go): its armour plates' slots (0 once
	// destroyed) and offsets from the body's centre; shut while a plate
	// stands: its core takes no damage.
	plates    [warshipPlates]int32
	plateD    [warshipPlates][2]float64
	platesMax int32 // the plates' hit points at the start: part of the bar
	shut      bool
}

// bossState is the world's boss fights: the mid-boss and the end boss.
type bossState struct {
	fights [2]bossFight
}

// spawnBoss brings in a boss (vocab.KindMidBoss or vocab.KindBoss) for the
// given loop (1 first, harder after), scaled for the players in the game
// now; it announces itself (StageBoss, then its Health). Nothing happens
// for another kind, when the same boss is already on, or when no slot is
// free.
func (w *World) spawnBoss(kind uint8, loop int) {
	end, bk := 0, 0
	switch kind {
	case vocab.KindMidBoss:
	case vocab.KindBoss:
		end, bk = 1, 1
	case vocab.KindWarship:
		end, bk = 1, bkWarship
	default:
		return
	}
	f := &w.boss.fights[end]
	if f.on {
		return
	}
	lv := w.level(loop)
	x := w.r.AreaW + w.half[kind].w + bossEnterFrom
	body := w.spawn(kind, vocab.Linear(w.tick, x, w.r.AreaH/2, -bossEnterSpeed, 0), vocab.Anim{}, vocab.NoPlayer)
	if body == 0 {
		return
	}
	*f = bossFight{on: true, end: end, bk: bk, body: body, core: body, lv: lv, phase: 1, entering: true, atk: -1, last: -1}
	if end == 1 {
		f.coreDX = coreInset - w.half[kind].w - w.half[vocab.KindBossCore].w
		m := w.ent(body).mo
		m.X0 += vocab.QuantizePos(f.coreDX)
		if f.core = w.spawn(vocab.KindBossCore, m, vocab.Anim{}, vocab.NoPlayer); f.core == 0 {
			w.destroy(body, vocab.DestroyDespawned)
			*f = bossFight{}
			return
		}
	}
	if bk == bkWarship && !w.armWarship(f) {
		return
	}
	c := w.ent(f.core)
	def := &foeDefaults[bossKinds[bk].hpKind]
	w.cold(c).hp = lv.hp(def.hp)
	w.cold(c).maxHP = w.cold(c).hp
	w.cold(c).foe = foeState{score: def.score * uint32(lv.loop), drop: noDrop}
	w.colds[w.at[body]].foe.drop = noDrop
	f.coreID = w.id(f.core)
	w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageBoss, Value: f.coreID, Name: bossKinds[bk].name})
	w.emitBossHealth(f)
}

// AppendBosses appends, for each boss on (the mid-boss, then the end
// boss), its StageBoss and its current Health, stamped with the current
// tick, and returns the extended slice: what a client joining during a
// boss fight needs, after AppendSpawns, to show the boss bar. It appends
// nothing in a Classic game or without a boss.
func (w *World) AppendBosses(dst []vocab.Event) []vocab.Event {
	for i := range w.boss.fights {
		f := &w.boss.fights[i]
		if !f.on {
			continue
		}
		dst = append(dst,
			vocab.Event{Type: vocab.EventStage, Tick: w.tick, What: vocab.StageBoss, Value: f.coreID, Name: bossKinds[f.bk].name},
			w.bossHealth(f))
		dst[len(dst)-1].Tick = w.tick
	}
	return dst
}

// clampU16 is v within the range of a u16.
func clampU16(v int32) uint16 { return uint16(min(max(v, 0), math.MaxUint16)) }

// bossActive reports whether a boss fight is on: the mid-boss or the end
// boss is alive.
func (w *World) bossActive() bool { return w.boss.fights[0].on || w.boss.fights[1].on }

// fightOf returns the fight whose damage the slot s takes (the core, or
// the mid-boss), or nil.
func (w *World) fightOf(s int32) *bossFight {
	for i := range w.boss.fights {
		if f := &w.boss.fights[i]; f.on && f.core == s {
			return f
		}
	}
	return nil
}

// partOfBoss reports whether slot s is a boss's body, or one of the
// warship's plates.
func (w *World) partOfBoss(s int32) bool {
	for i := range w.boss.fights {
		if f := &w.boss.fights[i]; f.on && (f.body == s || f.plateOf(s) >= 0) {
			return true
		}
	}
	return false
}

// bossHurt follows a hit on a boss's core (its hit points already
// lowered): its death, or its second phase at half its hit points.
func (w *World) bossHurt(f *bossFight, by uint8) {
	c := w.ent(f.core)
	if w.cold(c).hp <= 0 {
		w.killBoss(f, by)
		return
	}
	if last := bossKinds[f.bk].phases; f.phase == last-1 && w.cold(c).hp*2 <= w.cold(c).maxHP {
		f.phase = last
		f.last = -1
		w.emitBossHealth(f)
		if f.core != f.body {
			c.anim.Frame0, c.frame = 1, 1
		}
		if f.atk < 0 {
			w.setBossFrame(f, BossFrameAngry)
		}
		if !f.entering {
			w.bossHover(f)
		}
	}
}

// killBoss kills a boss whose core is at 0 hit points: its Health (0),
// its killer's score, the Destroy (Killed) of its core and body, then the
// Destroy (Despawned) of every enemy shot in flight: the players get a
// breath while it blows up.
func (w *World) killBoss(f *bossFight, by uint8) {
	c := w.ent(f.core)
	w.cold(c).hp = 0
	w.emitBossHealth(f)
	w.score(by, w.cold(c).foe.score)
	if f.core != f.body {
		w.destroy(f.core, vocab.DestroyKilled)
	}
	for _, p := range f.plates {
		if p != 0 {
			w.destroy(p, vocab.DestroyKilled)
		}
	}
	w.destroy(f.body, vocab.DestroyKilled)
	*f = bossFight{}
	for s := int32(1); s < w.hi; s++ {
		if e := w.ent(s); e.alive && (roles[e.kind] == roleFoeShot || roles[e.kind] == roleBigShot) {
			w.destroy(s, vocab.DestroyDespawned)
		}
	}
}

// emitHealth emits the Health of the bosses whose hit points changed since
// their last Health, at most once every healthEvery ticks per boss.
func (w *World) emitHealth() {
	for i := range w.boss.fights {
		f := &w.boss.fights[i]
		if hp, _ := w.bossHP(f); f.on && hp != f.sentHP && w.tick-f.sentAt >= healthEvery {
			w.emitBossHealth(f)
		}
	}
}

// emitBossHealth emits the Health of a boss now.
func (w *World) emitBossHealth(f *bossFight) {
	w.emit(w.bossHealth(f))
	f.sentHP, _ = w.bossHP(f)
	f.sentAt = w.tick
}

// bossHealth is the Health event of a boss (untimed): what its bar
// shows, under its core's id (bossHP).
func (w *World) bossHealth(f *bossFight) vocab.Event {
	hp, max := w.bossHP(f)
	return vocab.Event{Type: vocab.EventHealth, ID: f.coreID, HP: clampU16(hp), MaxHP: clampU16(max)}
}

// bossHP returns what a boss's bar shows: its core's hit points and
// their most, and the warship's plates' with them while they stand, so
// that the bar goes down as the plates fall, then with the core.
func (w *World) bossHP(f *bossFight) (hp, max int32) {
	c := w.cold(w.ent(f.core))
	hp, max = c.hp, c.maxHP+f.platesMax
	for _, p := range f.plates {
		if p != 0 {
			hp += w.colds[w.at[p]].hp
		}
	}
	return hp, max
}

// setBossMotion sets the motion of a boss's body, and its core's: the
// same, offset.
func (w *World) setBossMotion(f *bossFight, m vocab.Motion) {
	b := w.ent(f.body)
	b.mo = m
	w.eval(b)
	if f.core != f.body {
		c := w.ent(f.core)
		c.mo = m
		c.mo.X0 += vocab.QuantizePos(f.coreDX)
		w.eval(c)
	}
	w.movePlates(f, m)
}

// bossHover sets a boss hovering on its phase's Sine about the middle
// line, from where it is and in the direction it moves.
func (w *World) bossHover(f *bossFight) {
	b := w.ent(f.body)
	bk := &bossKinds[f.bk]
	amp, period := bk.amp[f.phase-1], bk.period[f.phase-1]
	yc := w.r.AreaH / 2
	th := math.Asin(min(max((b.y-yc)/amp, -1), 1))
	if _, vy := w.vel(b); vy < 0 {
		th = math.Pi - th
	}
	w.setBossMotion(f, vocab.Sine(w.tick, b.x, yc, 0, amp, period, th))
}

// setBossFrame shows frame on a boss's body.
func (w *World) setBossFrame(f *bossFight, frame uint8) {
	b := w.ent(f.body)
	b.anim.Frame0, b.frame = frame, frame
}

// bossesThink runs the fights: entrances, then Warnings and volleys.
func (w *World) bossesThink() {
	for i := range w.boss.fights {
		if f := &w.boss.fights[i]; f.on {
			w.bossThink(f)
		}
	}
}

func (w *World) bossThink(f *bossFight) {
	b := w.ent(f.body)
	if !b.alive || !w.ent(f.core).alive { // cannot happen: a boss is kept
		*f = bossFight{}
		return
	}
	bk := &bossKinds[f.bk]
	if f.entering {
		if b.x <= w.r.AreaW-bk.hoverDX {
			f.entering = false
			w.bossHover(f)
			f.warnAt = w.tick + bossFirst
		}
		return
	}
	if f.atk < 0 {
		if w.tick < f.warnAt {
			return
		}
		rep := repertoires[f.bk][f.phase-1]
		i := w.rng.IntN(len(rep))
		if f.last >= 0 && len(rep) > 1 { // never the same twice in a row
			i = (f.last + 1 + w.rng.IntN(len(rep)-1)) % len(rep)
		}
		f.last = i
		f.atk = int(rep[i])
		f.volley = 0
		f.nextAt = w.tick + bossWarn
		f.spin = 2 * math.Pi * w.rng.Float64()
		a := &bossAttacks[f.atk]
		w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageWarning, Value: bossWarn, Name: a.name})
		w.setBossFrame(f, a.tell)
		return
	}
	if w.tick < f.nextAt {
		return
	}
	w.bossVolley(f)
	f.volley++
	if a := &bossAttacks[f.atk]; f.volley < a.volleys {
		f.nextAt = w.tick + uint32(a.every)
		return
	}
	f.atk = -1
	rest := f.lv.every(bk.rest)
	frame := uint8(BossFrameCalm)
	switch f.phase {
	case 2:
		rest = max(rest*3/5, 1)
		frame = BossFrameAngry
	case 3:
		rest = max(rest*2/5, 1)
		frame = BossFrameAngry
	}
	f.warnAt = w.tick + uint32(rest)
	w.setBossFrame(f, frame)
}

// bossVolley fires the current volley of a boss's attack.
func (w *World) bossVolley(f *bossFight) {
	b, c := w.ent(f.body), w.ent(f.core)
	bk := &bossKinds[f.bk]
	lv := f.lv
	mx, my := c.x-w.halfOf(c).w, c.y   // the mouth: the core's front, the mid-boss's
	fast := 1 + 0.2*float64(f.phase-1) // 1.2 in a second phase, 1.4 in a third
	mis := lv.speed(w.r.EnemyMissileSpeed) * fast
	big := lv.speed(bossBulletSpeed) * fast
	aim := math.Pi
	if tx, ty, ok := w.nearestShip(mx, my); ok {
		aim = math.Atan2(ty-my, tx-mx)
	}
	k := float64(f.volley)
	n := float64(bossAttacks[f.atk].volleys - 1)
	switch f.atk {
	case atkFan:
		w.fireFan(vocab.KindEnemyMissile, mx, my, aim, bk.fan+lv.more(2), fanStep, mis)
	case atkRing:
		r := bk.rng + lv.more(4)
		w.fireRing(vocab.KindBossBullet, b.x, b.y, f.spin+k*math.Pi/float64(r), r, big)
	case atkSweep:
		w.fireFan(vocab.KindEnemyMissile, mx, my, math.Pi-sweepHalf+2*sweepHalf*k/n, 1+lv.more(1), fanStep, mis)
	case atkSpiral:
		w.fireRing(vocab.KindBossBullet, b.x, b.y, f.spin+k*spiralStep, 2+lv.more(1), big)
	case atkCross:
		w.fireFan(vocab.KindEnemyMissile, mx, my, aim, 5+lv.more(2), fanStep, mis)
		w.fireRing(vocab.KindBossBullet, b.x, b.y, f.spin+k*math.Pi/8, 8+lv.more(4), big)
	case atkTwin:
		d := sweepHalf * (1 - k/(n+1))
		w.fireFan(vocab.KindEnemyMissile, mx, my, math.Pi, 2, 2*d, mis)
	case atkBroadside:
		w.broadside(f, mis)
	}
}
