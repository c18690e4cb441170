package sim

import "rtype/vocab"

// The player's side of Stage mode (PROTOCOL.md 7.12, README "Stage mode:
// arms, deaths and co-op"): the wave cannon, the Force, power-ups, bits, deaths,
// continues. Everything here runs only when w.st != nil; a Classic world
// never reaches it.
//
// Files: arms.go (rules, state, events, items, checkpoints),
// arms_move.go (the Force and bits moving), arms_fire.go (charging,
// beams, shots), arms_hit.go (collisions and deaths).

// ArmsRules are the numbers of the player's side of Stage mode. The
// server's simulation uses DefaultArmsRules; a client predicting its own
// ship (the charge meter, the speed) uses the same values. Durations are
// ticks (1/60 s), distances pixels, speeds pixels per second.
type ArmsRules struct {
	// ChargeTicks[l-1] is how many ticks Fire must have been held, the
	// press tick counting as 1, for the wave cannon to reach level l
	// (24, 60, 96: 0.4 s, 1 s, 1.6 s). A release before ChargeTicks[0]
	// fires no beam (the press already shot a missile).
	ChargeTicks [3]int
	// BeamSpeed is a wave beam's speed to the right (1200).
	BeamSpeed float64
	// BeamW and BeamH are the size of a wave beam's box by level
	// (64x12, 96x20, 128x32).
	BeamW, BeamH [3]float64
	// BeamDamage is the damage a beam does, once, to each foe it crosses,
	// by level (3, 6, 12).
	BeamDamage [3]int32
	// MissileDamage is the damage of a normal missile (1).
	MissileDamage int32

	// ShipSpeeds[n] is the ship's speed along each axis with n speed-ups
	// (0 to MaxSpeed): 270, 330, 390, 450. (Classic's is Rules.ShipSpeed.)
	ShipSpeeds [4]float64

	// ForceDX is the distance between the centres of a ship and its
	// attached Force: in front (+ForceDX) or behind (-ForceDX) (28).
	ForceDX float64
	// ForceEnterSpeed is the speed of a new Force entering from the left
	// edge at its ship's height (240); it flies at its ship, aiming again
	// every ForceReaimTicks, until it touches it.
	ForceEnterSpeed float64
	// ForceLaunchSpeed and ForceLaunchTicks: a launched Force flies
	// forward (or backward) at 720 px/s for 40 ticks (480 px), stopping
	// earlier with its centre ForceEdge (40) from the area's left or right
	// edge, then waits where it is. During those ForceLaunchTicks it does
	// not attach to its ship (unless recalled).
	ForceLaunchSpeed float64
	ForceLaunchTicks int
	ForceEdge        float64
	// ForceRecallSpeed is the speed of a recalled Force flying back to its
	// ship (600); it aims again at the ship every ForceReaimTicks (4).
	ForceRecallSpeed float64
	ForceReaimTicks  int
	// ForceContactDamage is the damage a Force does to each foe it touches,
	// every tick it touches it (1: 60 per second).
	ForceContactDamage int32

	// ForceShotSpeed is the speed of a Force's or bit's laser shot (960).
	ForceShotSpeed float64
	// ForceShotDamage is the damage of a Force's laser shot by Force level
	// (1, 1, 2); a bit's shot does ForceShotDamage[0].
	ForceShotDamage [3]int32

	// BitDY is the distance between a ship's centre and its bits: the
	// first above, the second below (30).
	BitDY float64
	// BitContactDamage is the damage a bit does to each foe it touches,
	// every tick it touches it (1).
	BitContactDamage int32

	// ItemSpeed is the speed to the left at which a dropped item drifts
	// (40).
	ItemSpeed float64

	// MaxForce, MaxSpeed and MaxBits bound the Force's level (3), the
	// speed-ups (3) and the bits (2).
	MaxForce, MaxSpeed, MaxBits uint8
}

// DefaultArmsRules returns the arms of Stage mode as README.md ("Stage
// mode: arms, deaths and co-op") describes them.
func DefaultArmsRules() ArmsRules {
	return ArmsRules{
		ChargeTicks:   [3]int{24, 60, 96},
		BeamSpeed:     1200,
		BeamW:         [3]float64{64, 96, 128},
		BeamH:         [3]float64{12, 20, 32},
		BeamDamage:    [3]int32{3, 6, 12},
		MissileDamage: 1,

		ShipSpeeds: [4]float64{270, 330, 390, 450},

		ForceDX:            28,
		ForceEnterSpeed:    240,
		ForceLaunchSpeed:   720,
		ForceLaunchTicks:   40,
		ForceEdge:          40,
		ForceRecallSpeed:   600,
		ForceReaimTicks:    4,
		ForceContactDamage: 1,

		ForceShotSpeed:  960,
		ForceShotDamage: [3]int32{1, 1, 2},

		BitDY:            30,
		BitContactDamage: 1,

		ItemSpeed: 40,

		MaxForce: 3,
		MaxSpeed: 3,
		MaxBits:  2,
	}
}

// armsRules are the arms of every Stage world (read only).
var armsRules = DefaultArmsRules()

// ChargeLevel returns the wave cannon's level (0 to 3) after Fire has been
// held for heldTicks ticks, the press tick counting as 1: the beam that a
// release on the next tick fires (0: none).
func (r *ArmsRules) ChargeLevel(heldTicks int) int {
	l := 0
	for l < len(r.ChargeTicks) && heldTicks >= r.ChargeTicks[l] {
		l++
	}
	return l
}

// ShipSpeed returns the ship's speed along each axis with speed speed-ups
// (vocab.Arms.Speed), clamped to 0..MaxSpeed. A client predicting its ship
// in Stage mode moves it at this speed from the tick after the Arms event
// that says speed (PROTOCOL.md 7.12; game/predict's Config.StageSpeeds).
func (r *ArmsRules) ShipSpeed(speed uint8) float64 {
	return r.ShipSpeeds[min(speed, r.MaxSpeed, uint8(len(r.ShipSpeeds)-1))]
}

// BeamSize returns the width and height of a wave beam of level (1 to 3,
// clamped), in pixels.
func (r *ArmsRules) BeamSize(level int) (w, h float64) {
	i := min(max(level, 1), len(r.BeamW)) - 1
	return r.BeamW[i], r.BeamH[i]
}

// ForceOffset returns where an attached Force is relative to its ship's
// centre, for vocab.ForceFront or vocab.ForceBack (0, 0 otherwise).
func (r *ArmsRules) ForceOffset(at uint8) (dx, dy float64) {
	switch at {
	case vocab.ForceFront:
		return r.ForceDX, 0
	case vocab.ForceBack:
		return -r.ForceDX, 0
	}
	return 0, 0
}

// Modes of a Force (armState.mode).
const (
	forceAttached uint8 = iota // on its ship, front or back (playerArms.a.ForceAt)
	forceEnter                 // entering from the left edge, at its ship; attaches on contact
	forceFlight                // launched: cannot attach for ForceLaunchTicks
	forceHover                 // stopped; attaches on contact
	forceRecall                // flying back to its ship; attaches on contact
)

// armState is what an entity of the player's side keeps (a Force, a shot,
// a beam, a bit).
type armState struct {
	mode  uint8  // a Force's mode (force*)
	beam  uint8  // a beam's entry in its owner's playerArms.beams
	until uint32 // a Force's tick to end its flight or aim again
	stop  uint32 // a launched Force's tick to stop moving
	dmg   int32  // a shot's or beam's damage (0: MissileDamage)
}

// beamHits are the foes a beam has hurt: each only once. A beam whose
// entry was taken by a newer beam, or whose player left, hurts no one.
type beamHits struct {
	id  uint32 // the beam's network id
	n   int
	hit [32]uint32 // the foes' network ids; a 33rd foe is not hurt
}

// has reports whether the foe id was hit; add records it, false when full.
func (b *beamHits) has(id uint32) bool {
	for _, h := range b.hit[:b.n] {
		if h == id {
			return true
		}
	}
	return false
}

func (b *beamHits) add(id uint32) bool {
	if b.n == len(b.hit) {
		return false
	}
	b.hit[b.n] = id
	b.n++
	return true
}

// playerArms is what a player carries and charges in Stage mode.
type playerArms struct {
	a     vocab.Arms // what it carries now
	sent  vocab.Arms // what the last Arms event said
	prev  uint8      // the actions held at the previous tick (edges)
	held  int32      // ticks Fire has been held, the press tick as 1; 0 when released
	force int32      // slot of its Force, 0 without one
	bits  [2]int32   // slots of its bits: above, below (0: none)
	// beams remembers whom its last beams hurt; a new beam takes the
	// next entry in turn (at most 3 beams of a player fly at once).
	beams    [4]beamHits
	nextBeam uint8
}

// loseArms takes from player p its Force and bits (destroyed for reason)
// and everything it carries: what a death costs in Stage mode.
func (w *World) loseArms(p uint8, reason uint8) {
	pa := &w.pl[p].arms
	if pa.force != 0 {
		w.destroy(pa.force, reason)
		pa.force = 0
	}
	for i, b := range pa.bits {
		if b != 0 {
			w.destroy(b, reason)
			pa.bits[i] = 0
		}
	}
	pa.a = vocab.Arms{}
	pa.held = 0
}

// shooter is the player a shot, beam, Force or bit scores for: its owner
// if still in the game in the same session, else vocab.NoPlayer.
func (w *World) shooter(e *entity) uint8 {
	if p := e.owner; int(p) < vocab.MaxPlayers && w.pl[p].in && w.pl[p].epoch == e.epoch() {
		return p
	}
	return vocab.NoPlayer
}

// Arms returns what player p carries in Stage mode (zero in Classic or if
// p is not in the game).
func (w *World) Arms(p uint8) vocab.Arms {
	if !w.InGame(p) {
		return vocab.Arms{}
	}
	return w.pl[p].arms.a
}

// AppendArms appends an Arms event for every player in a Stage game, by
// player number, stamped with the current tick: what a joining client
// needs with AppendJoins and AppendSpawns. It appends nothing in Classic.
func (w *World) AppendArms(dst []vocab.Event) []vocab.Event {
	if w.st == nil {
		return dst
	}
	for p := range w.pl {
		if w.pl[p].in {
			dst = append(dst, vocab.Event{Type: vocab.EventArms, Tick: w.tick, Player: uint8(p), Arms: w.pl[p].arms.a})
		}
	}
	return dst
}

// emitArms emits an Arms event for each player whose arms changed since
// its last one: at most one per player and tick, with the tick's final
// state.
func (w *World) emitArms() {
	for p := range w.pl {
		pa := &w.pl[p].arms
		if w.pl[p].in && pa.a != pa.sent {
			pa.sent = pa.a
			w.emit(vocab.Event{Type: vocab.EventArms, Player: uint8(p), Arms: pa.a})
		}
	}
}

// checkOverStage emits the tick's Arms events, then GameOver when every
// player in the game is down (no life left) at once, as Classic.
func (w *World) checkOverStage() {
	w.emitArms()
	w.checkOver()
}

// onCheckpoint is called by the stage runner at each checkpoint marker:
// each player in the game that is down (no life, no ship) comes back with
// 1 life, a new ship at its spawn point, invulnerable for
// RespawnInvulnTicks, while a teammate still has a ship: StageContinue
// (Value: the player), then the ship's Spawn. Nothing happens once the
// game is over.
func (w *World) onCheckpoint() {
	if w.over {
		return
	}
	playing := false
	for p := range w.pl {
		if w.pl[p].in && w.pl[p].slot != 0 {
			playing = true
		}
	}
	if !playing {
		return
	}
	for p := range w.pl {
		pl := &w.pl[p]
		if !pl.in || pl.slot != 0 || pl.lives != 0 {
			continue
		}
		w.emit(vocab.Event{Type: vocab.EventStage, What: vocab.StageContinue, Value: uint32(p)})
		x, y := w.spawnPoint(uint8(p))
		w.ids.ripen(w.tick)
		s := w.spawn(vocab.KindPlayerShip, vocab.Linear(w.tick, x, y, 0, 0), vocab.Anim{}, uint8(p))
		if s == 0 {
			continue
		}
		pl.lives = 1
		pl.slot = s
		pl.arms.held = 0
		pl.invuln = int32(w.r.RespawnInvulnTicks)
		pl.invulnStart = w.tick
		pl.invulnTicks = uint32(w.r.RespawnInvulnTicks)
		w.ent(s).setEpoch(pl.epoch)
		w.ent(s).frame = w.shipFrame(pl, w.ent(s))
	}
}

// dropItem puts an item (vocab.Item*) at (x, y), drifting left at
// ItemSpeed: a vocab.KindPowerUp whose frame is the item.
func (w *World) dropItem(item uint8, x, y float64) {
	w.spawn(vocab.KindPowerUp, vocab.Linear(w.tick, x, y, -armsRules.ItemSpeed, 0), vocab.Anim{Frame0: item}, vocab.NoPlayer)
}

// pickups: each item, by slot, goes to the ship that touches it first in
// the tick (sweep time); on a tie, to the lowest player number. The item
// is Consumed and its player's arms change (takeItem).
func (w *World) pickups() {
	for _, it := range w.items {
		ie := w.ent(it)
		if !ie.alive {
			continue
		}
		who, bestT := vocab.NoPlayer, 2.0
		for _, s := range w.ships {
			se := w.ent(s)
			if !se.alive {
				continue
			}
			if t, ok := w.sweep(se, ie); ok && (t < bestT || t == bestT && se.owner < who) {
				who, bestT = se.owner, t
			}
		}
		if who == vocab.NoPlayer {
			continue
		}
		item := ie.anim.Frame0
		w.destroy(it, vocab.DestroyConsumed)
		w.takeItem(who, item)
	}
}

// takeItem gives item to player p: a laser item gives the Force (level 1,
// entering from the left edge at the ship's height, flying at the ship)
// or raises its level (up to MaxForce), and sets its laser; ItemSpeed adds
// a speed-up (up to MaxSpeed); ItemBit a bit (up to MaxBits). An item
// beyond a maximum is taken for nothing, and so is any item by a player
// without a ship.
func (w *World) takeItem(p uint8, item uint8) {
	pl := &w.pl[p]
	pa := &pl.arms
	r := &armsRules
	if pl.slot == 0 {
		return
	}
	switch item {
	case vocab.ItemLaserRed, vocab.ItemLaserBlue, vocab.ItemLaserYellow:
		if pa.force != 0 {
			pa.a.Force = min(pa.a.Force+1, r.MaxForce)
			pa.a.Laser = item
			return
		}
		ship := w.ent(pl.slot)
		x, y := -w.half[vocab.KindForce].w, ship.y
		vx, vy := toward(x, y, ship.x, ship.y, r.ForceEnterSpeed)
		f := w.spawn(vocab.KindForce, vocab.Linear(w.tick, x, y, vx, vy), vocab.Anim{}, p)
		if f == 0 {
			return
		}
		e := w.ent(f)
		e.setEpoch(pl.epoch)
		w.cold(e).arm.mode = forceEnter
		w.cold(e).arm.until = w.tick + uint32(max(r.ForceReaimTicks, 1))
		pa.force = f
		pa.a.Force, pa.a.Laser, pa.a.ForceAt = 1, item, vocab.ForceLoose
	case vocab.ItemSpeed:
		pa.a.Speed = min(pa.a.Speed+1, r.MaxSpeed)
	case vocab.ItemBit:
		if pa.a.Bits >= r.MaxBits {
			return
		}
		for i := range pa.bits {
			if pa.bits[i] != 0 {
				continue
			}
			ship := w.ent(pl.slot)
			m := bitMotion(&ship.mo, i)
			b := w.spawn(vocab.KindBit, m, vocab.Anim{}, p)
			if b == 0 {
				return
			}
			w.ent(b).setEpoch(pl.epoch)
			pa.bits[i] = b
			pa.a.Bits++
			return
		}
	}
}
