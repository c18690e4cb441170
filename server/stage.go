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
	return s.newWorldOf(mode, wire.DifficultyNormal, 0, seed)
}

// roomStage returns stage n (1 for the first) of the server's campaign
// when a room's games may start at it (7.14): the campaign has it, and
// Warp finds its place in it. Else nil.
func (s *Server) roomStage(n uint8) *stage.Stage {
	if n == 0 || int(n) > len(s.cfg.Campaign) {
		return nil
	}
	st := s.cfg.Campaign[n-1]
	if st == nil {
		return nil
	}
	if _, _, err := st.Warp(s.cfg.Warp); err != nil {
		return nil
	}
	return st
}

// firstStage returns the number of Config.Stage in the campaign (1 for
// the first): what a Stage room's stage 0 stands for (7.14). 0 when the
// campaign does not have it (a stage file played alone).
func (s *Server) firstStage() uint8 {
	for i, c := range s.cfg.Campaign {
		if i < 255 && (c == s.cfg.Stage || c != nil && c.Sum == s.cfg.Stage.Sum) {
			return uint8(i + 1)
		}
	}
	return 0
}

// roomSettings returns st as a room holds it (7.14), and whether the
// server takes it: a Stage room's stage 0 made the number of the
// server's first stage, a stage the campaign has that its games may
// start at (roomStage). st.Valid() is the caller's.
func (s *Server) roomSettings(st wire.RoomSettings) (wire.RoomSettings, bool) {
	if st.Mode != wire.ModeStage {
		return st, true
	}
	if st.Stage == 0 {
		st.Stage = s.firstStage()
		return st, true
	}
	return st, s.roomStage(st.Stage) != nil
}

// newWorldOf returns the world of a new game of mode and difficulty
// (7.14: Easy gives 5 lives, Normal the rules', Hard 1), seeded with
// seed. A Stage game plays stage n of the campaign (roomStage), and on
// through the campaign from there; with n 0, Config.Stage.
func (s *Server) newWorldOf(mode, difficulty, n uint8, seed uint64) (*sim.World, error) {
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
	st := s.cfg.Stage
	if n != 0 {
		if st = s.roomStage(n); st == nil {
			return nil, fmt.Errorf("no stage %d in the campaign of %d with warp %q", n, len(s.cfg.Campaign), s.cfg.Warp)
		}
	}
	return sim.NewStage(r, st, seed, sim.StageOptions{Warp: s.cfg.Warp, Campaign: s.cfg.Campaign})
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
