package sim

import (
	"rtype/sim/stage"
	"rtype/vocab"
)

// StageOptions are the options of a Stage game.
type StageOptions struct {
	// Warp starts the stage later than its beginning: "" (the beginning),
	// a number of seconds ("90"), or a marker's name ("boss", "midboss").
	// The default is "".
	Warp string
	// Campaign is the stages of the campaign, in order, the stage played
	// among them (the same file: the same Sum): when one is cleared the
	// next follows, and after the last comes the next loop from the first
	// (STAGES.md, "How a stage plays"). Without it, or without the stage
	// played in it, the stage is played alone, loop after loop. The warp
	// is of the stage played first.
	Campaign []*stage.Stage
}

// NewStage returns a world at tick 0 that plays st in Stage mode (PROTOCOL.md
// 7.12): the Force, the wave cannon, power-ups, the stage's waves and its
// bosses. Its randomness is drawn from a PCG generator seeded with seed,
// as New's. It returns an error when opt.Warp names no marker of st or a
// time beyond it; it panics on rules as New.
func NewStage(rules Rules, st *stage.Stage, seed uint64, opt StageOptions) (*World, error) {
	w := New(rules, seed)
	n := rules.MaxEntities
	w.shots = make([]int32, 0, n)
	w.forces = make([]int32, 0, vocab.MaxPlayers)
	w.bits = make([]int32, 0, n)
	w.foes = make([]int32, 0, n)
	w.eshots = make([]int32, 0, n)
	w.items = make([]int32, 0, n)
	w.colds = make([]coldState, n+1)
	run, err := newStageRun(w, st, opt)
	if err != nil {
		return nil, err
	}
	w.st = run
	return w, nil
}

// Stage reports whether the world plays a Stage (7.12), not Classic.
func (w *World) Stage() bool { return w.st != nil }

// stepStage is Step in Stage mode. In order: the tick; ships move; the
// Forces and bits follow or fly; everything else moves by its motion; foes
// think (aim, turn, fire, boss patterns); the lists by role; shots stop on
// the terrain; player shots, beams, Forces and bits hit foes; beams stop
// on the terrain; ships hit foes and enemy shots (a Force
// blocks small shots first); ships pick up items; ships charge and fire;
// the stage's timeline; despawns; ship frames; the end of the game; the
// bosses' Health.
func (w *World) stepStage() {
	w.tick++
	w.ids.ripen(w.tick)
	w.moveShips()
	w.moveArms()
	w.moveOthers()
	w.foesThink()
	w.collectStage()
	w.shotsOnTerrain()
	w.hitFoes()
	w.beamsOnTerrain()
	w.hitShipsStage()
	w.pickups()
	w.fireArms()
	w.runStage()
	w.despawnStage()
	w.shipFrames()
	w.checkOverStage()
	w.emitHealth()
}

// collectStage lists the live entities of each role, by slot.
func (w *World) collectStage() {
	w.ships, w.shots, w.forces, w.bits = w.ships[:0], w.shots[:0], w.forces[:0], w.bits[:0]
	w.foes, w.eshots, w.items = w.foes[:0], w.eshots[:0], w.items[:0]
	for s := int32(1); s < w.hi; s++ {
		e := w.ent(s)
		if !e.alive {
			continue
		}
		switch roles[e.kind] {
		case roleShip:
			w.ships = append(w.ships, s)
		case roleShot:
			w.shots = append(w.shots, s)
		case roleForce:
			w.forces = append(w.forces, s)
		case roleBit:
			w.bits = append(w.bits, s)
		case roleFoe:
			w.foes = append(w.foes, s)
		case roleFoeShot, roleBigShot:
			w.eshots = append(w.eshots, s)
		case roleItem:
			w.items = append(w.items, s)
		}
	}
}

// despawnStage destroys (Despawned) what is entirely outside the area by
// more than DespawnMargin, but ships, Forces, bits and what the stage
// keeps (a boss entering from far away: foeKeep).
func (w *World) despawnStage() {
	r := &w.r
	m := r.DespawnMargin
	for s := int32(1); s < w.hi; s++ {
		e := w.ent(s)
		if !e.alive {
			continue
		}
		switch roles[e.kind] {
		case roleShip, roleForce, roleBit:
			continue
		}
		if w.foeKeep(s) {
			continue
		}
		if h := w.halfOf(e); e.x+h.w < -m || e.x-h.w > r.AreaW+m || e.y+h.h < -m || e.y-h.h > r.AreaH+m {
			w.destroy(s, vocab.DestroyDespawned)
		}
	}
}
