package server

import (
	"fmt"
	"strings"

	"rtype/net/wire"
	"rtype/sim"
	"rtype/sim/stage"
)

// defaultStage is the stage Stage games play when Config.Stage is nil: the
// built-in stage "1".
func defaultStage() *stage.Stage {
	st, err := stage.Builtin("1")
	if err != nil {
		panic(err) // embedded in the binary and tested: cannot happen
	}
	return st
}

// ParseMode reads a game mode as the command lines give it (-mode):
// "classic" or "stage", in any case.
func ParseMode(s string) (uint8, error) {
	switch strings.ToLower(s) {
	case "classic":
		return wire.ModeClassic, nil
	case "stage":
		return wire.ModeStage, nil
	}
	return 0, fmt.Errorf("mode %q: classic or stage", s)
}

// gameMode returns the mode of the game a login plays (PROTOCOL.md 7.12):
// Classic for a session without Features.Modes (v1); else the mode asked
// for, the server's default for ModeAny or a mode it does not know.
func (s *Server) gameMode(f wire.Features, m *wire.Message) uint8 {
	if !f.Modes {
		return wire.ModeClassic
	}
	switch m.Mode {
	case wire.ModeClassic, wire.ModeStage:
		return m.Mode
	}
	return s.cfg.Mode
}

// newWorld returns the world of a new game of mode, seeded with seed.
func (s *Server) newWorld(mode uint8, seed uint64) (*sim.World, error) {
	return s.newWorldOf(mode, wire.DifficultyNormal, seed)
}

// newWorldOf returns the world of a new game of mode and difficulty
// (7.14: Easy gives 5 lives, Normal the rules', Hard 1), seeded with seed.
func (s *Server) newWorldOf(mode, difficulty uint8, seed uint64) (*sim.World, error) {
	r := *s.cfg.Rules
	switch difficulty {
	case wire.DifficultyEasy:
		r.Lives = 5
	case wire.DifficultyHard:
		r.Lives = 1
	}
	if mode != wire.ModeStage {
		return sim.New(r, seed), nil
	}
	return sim.NewStage(r, s.cfg.Stage, seed, sim.StageOptions{Warp: s.cfg.Warp, Campaign: s.cfg.Campaign})
}

// stageState is what a session joining a Stage game needs of the game's
// present, beyond 4.6's PlayerJoined and Spawns (7.12, Joining): the last
// events that make it, as they were sent, kept up to date from the events
// the world produces.
type stageState struct {
	file, intro        wire.Event
	music, boss        wire.Event
	health, bossHealth wire.Event
	hasIntro, hasMusic bool
	hasBoss, hasBossHP bool
	hasHealth          bool
	arms               [wire.MaxPlayers]wire.Event
	hasArms            [wire.MaxPlayers]bool
}

// observe takes one event of the game, in order.
func (st *stageState) observe(ev *wire.Event) {
	switch ev.Type {
	case wire.EventStage:
		switch ev.What {
		case wire.StageFile:
			st.file = *ev
		case wire.StageIntro:
			st.intro, st.hasIntro = *ev, true
			st.hasBoss, st.hasBossHP = false, false
		case wire.StageMusic:
			st.music, st.hasMusic = *ev, true
		case wire.StageBoss:
			st.boss, st.hasBoss = *ev, true
			st.bossHealth, st.hasBossHP = st.health, st.hasHealth && st.health.ID == ev.Value
		case wire.StageClear:
			st.hasBoss, st.hasBossHP = false, false
		}
	case wire.EventHealth:
		st.health, st.hasHealth = *ev, true
		if st.hasBoss && ev.ID == st.boss.Value {
			st.bossHealth, st.hasBossHP = *ev, true
		}
	case wire.EventDestroy:
		if st.hasBoss && ev.ID == st.boss.Value {
			st.hasBoss, st.hasBossHP = false, false
		}
	case wire.EventArms, wire.EventPlayerJoined, wire.EventPlayerLeft:
		if ev.Player < wire.MaxPlayers {
			st.arms[ev.Player], st.hasArms[ev.Player] = *ev, ev.Type == wire.EventArms
		}
	}
}

// appendJoin appends the joining events of 7.12 to dst: the last File
// and Intro, the last Music cue, the boss that lives and its Health, each
// player's last Arms.
func (st *stageState) appendJoin(dst []wire.Event) []wire.Event {
	if st.hasIntro {
		dst = append(dst, st.file, st.intro) // a File comes with each Intro
	}
	if st.hasMusic {
		dst = append(dst, st.music)
	}
	if st.hasBoss {
		dst = append(dst, st.boss)
		if st.hasBossHP {
			dst = append(dst, st.bossHealth)
		}
	}
	for p := range st.arms {
		if st.hasArms[p] {
			dst = append(dst, st.arms[p])
		}
	}
	return dst
}
