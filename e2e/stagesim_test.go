package e2e

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"rtype/bot"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/sim"
	"rtype/sim/stage"
	"rtype/vocab"
)

// builtinStage returns the built-in stage "1" that Stage games play by
// default.
func builtinStage(t testing.TB) *stage.Stage {
	t.Helper()
	st, err := stage.Builtin("1")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// stageSim plays a Stage world headless with four bot brains, fed from the
// world's own state as a client sees it: every tick, each brain decides
// from a client.Frame of the world (the entities' motions at the tick,
// their owners from the Spawns), then the world steps with their inputs.
// No sockets: it is what the server and four bots do, without the
// network.
type stageSim struct {
	w      *sim.World
	brains [wire.MaxPlayers]*bot.Brain
	owner  map[uint32]uint8 // of the live entities, from their Spawns
	kind   map[uint32]uint8 // of every entity ever spawned
	ents   []vocab.Entity
	frame  client.Frame

	// What the game did, for the report.
	foes   int // foes spawned
	deaths [wire.MaxPlayers]int
	bosses []stageMoment // StageBoss, with the kind of its Value
	clear  stageMoment   // the first StageClear (tick 0: none)
	loop2  stageMoment   // the StageIntro of loop 2 (tick 0: none)
	clear2 stageMoment   // the StageClear of loop 2 (tick 0: none)
	over   uint32        // the tick of GameOver, 0 if none
	marks  []stageMoment // StageMarker

	// How the bots used the new mechanics.
	beams        [wire.MaxPlayers]int // wave-cannon beams fired
	launches     [wire.MaxPlayers]int // Force launches (attached → loose)
	forceAt      [wire.MaxPlayers]uint8
	forcePresses [wire.MaxPlayers]int // ticks with the Force button held
	forceGot     [wire.MaxPlayers]int // Arms events with a Force
}

// stageMoment is a Stage event worth reporting.
type stageMoment struct {
	tick uint32
	name string
	kind uint8
}

// newStageSim returns a Stage world of st warped as warp, seeded with seed,
// with four players whose brains are drawn from seed too.
func newStageSim(t testing.TB, st *stage.Stage, seed uint64, warp string) *stageSim {
	t.Helper()
	return newStageSimN(t, st, seed, warp, wire.MaxPlayers)
}

// newStageSimN is newStageSim with n players (1 to 4), players 0 to n-1.
func newStageSimN(t testing.TB, st *stage.Stage, seed uint64, warp string, n int) *stageSim {
	t.Helper()
	w, err := sim.NewStage(sim.DefaultRules(), st, seed, sim.StageOptions{Warp: warp})
	if err != nil {
		t.Fatalf("stage %q warped %q: %v", st.Name, warp, err)
	}
	s := &stageSim{w: w, owner: map[uint32]uint8{}, kind: map[uint32]uint8{}}
	for p := range uint8(n) {
		w.AddPlayer(p, fmt.Sprintf("bot%d", p+1))
		s.brains[p] = bot.NewMode(p, wire.ModeStage, rand.New(rand.NewPCG(seed, uint64(p))))
	}
	s.note(w.TakeEvents())
	return s
}

// step lets every brain decide from the world as it is, steps the world
// with their inputs, and returns the step's events (the world's buffer,
// valid until the next step).
func (s *stageSim) step() []wire.Event {
	s.see()
	for p, b := range s.brains {
		if b != nil && s.w.InGame(uint8(p)) {
			s.w.SetInput(uint8(p), b.Decide(&s.frame))
		}
	}
	s.w.Step()
	evs := s.w.TakeEvents()
	for _, b := range s.brains {
		if b != nil {
			b.Events(evs) // the stage's events: the terrain and its scroll
		}
	}
	s.note(evs)
	return evs
}

// see builds the frame the brains decide from: the world at its tick.
func (s *stageSim) see() { s.ents = bot.SeeWorld(&s.frame, s.w, s.owner, s.ents) }

// note keeps the owners and kinds of the entities, and what the report
// tells.
func (s *stageSim) note(evs []wire.Event) {
	for i := range evs { // first the Spawns: a StageBoss may come before its boss's
		if ev := &evs[i]; ev.Type == wire.EventSpawn {
			s.owner[ev.ID], s.kind[ev.ID] = ev.Owner, ev.Kind
			if isFoe(ev.Kind) {
				s.foes++
			}
			if ev.Kind == wire.KindWaveBeam && int(ev.Owner) < wire.MaxPlayers {
				s.beams[ev.Owner]++
			}
		}
	}
	for i := range evs {
		ev := &evs[i]
		switch ev.Type {
		case wire.EventDestroy:
			delete(s.owner, ev.ID)
		case wire.EventDeath:
			if int(ev.Player) < wire.MaxPlayers {
				s.deaths[ev.Player]++
			}
		case wire.EventArms:
			if p := ev.Player; int(p) < wire.MaxPlayers {
				was := s.forceAt[p]
				if ev.Arms.ForceAt == wire.ForceLoose && (was == wire.ForceFront || was == wire.ForceBack) {
					s.launches[p]++
				}
				s.forceAt[p] = ev.Arms.ForceAt
			}
		case wire.EventGameOver:
			if s.over == 0 {
				s.over = ev.Tick
			}
		case wire.EventStage:
			switch ev.What {
			case wire.StageBoss:
				s.bosses = append(s.bosses, stageMoment{ev.Tick, ev.Name, s.kind[ev.Value]})
			case wire.StageClear:
				switch {
				case s.clear.tick == 0:
					s.clear = stageMoment{tick: ev.Tick, name: ev.Name}
				case ev.Value == 2 && s.clear2.tick == 0:
					s.clear2 = stageMoment{tick: ev.Tick, name: ev.Name}
				}
			case wire.StageIntro:
				if ev.Value == 2 && s.loop2.tick == 0 {
					s.loop2 = stageMoment{tick: ev.Tick, name: ev.Name}
				}
			case wire.StageMarker:
				s.marks = append(s.marks, stageMoment{tick: ev.Tick, name: ev.Name})
			}
		}
	}
}

// isFoe reports whether kind is an enemy (not a shot).
func isFoe(kind uint8) bool {
	switch kind {
	case wire.KindBydosSlave, wire.KindPowArmor, wire.KindChaser, wire.KindTurret, wire.KindArmored,
		wire.KindMidBoss, wire.KindBoss, wire.KindBossCore:
		return true
	}
	return false
}

// endBoss returns the StageBoss of the end boss: the first whose entity is
// the end boss's body or core.
func (s *stageSim) endBoss() (stageMoment, bool) { return s.endBossAfter(0) }

// endBossAfter returns the first StageBoss of the end boss after tick
// (loop 2's: after s.loop2.tick).
func (s *stageSim) endBossAfter(tick uint32) (stageMoment, bool) {
	i := slices.IndexFunc(s.bosses, func(b stageMoment) bool {
		return b.tick > tick && (b.kind == wire.KindBoss || b.kind == wire.KindBossCore)
	})
	if i < 0 {
		return stageMoment{}, false
	}
	return s.bosses[i], true
}

// seconds formats a number of ticks as seconds.
func seconds(ticks uint32) string { return fmt.Sprintf("%.1f s", float64(ticks)/wire.TickRate) }

// report tells how far the bots got, and how fast.
func (s *stageSim) report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d ticks (%s), %d foes spawned", s.w.Tick(), seconds(s.w.Tick()), s.foes)
	for _, m := range s.marks {
		fmt.Fprintf(&b, "; marker %q at %d (%s)", m.name, m.tick, seconds(m.tick))
	}
	for _, m := range s.bosses {
		fmt.Fprintf(&b, "; boss %q (kind %d) at %d (%s)", m.name, m.kind, m.tick, seconds(m.tick))
	}
	if s.clear.tick != 0 {
		fmt.Fprintf(&b, "; clear at %d (%s)", s.clear.tick, seconds(s.clear.tick))
	}
	if s.loop2.tick != 0 {
		fmt.Fprintf(&b, "; loop 2 at %d (%s)", s.loop2.tick, seconds(s.loop2.tick))
	}
	if s.clear2.tick != 0 {
		fmt.Fprintf(&b, "; loop 2 clear at %d (%s)", s.clear2.tick, seconds(s.clear2.tick))
	}
	if s.over != 0 {
		fmt.Fprintf(&b, "; game over at %d (%s)", s.over, seconds(s.over))
	}
	for p := range uint8(wire.MaxPlayers) {
		if s.brains[p] == nil {
			continue
		}
		fmt.Fprintf(&b, "; bot%d: %d deaths, %d lives, score %d, %d beams, %d Force launches", p+1, s.deaths[p], s.w.Lives(p), s.w.Score(p), s.beams[p], s.launches[p])
	}
	return b.String()
}
