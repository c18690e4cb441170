// Package stage is the stage file format of Stage mode: a stage is data, a
// timeline of waves, markers, bosses and music cues that package sim
// plays. It parses and checks stage files (STAGES.md describes the format,
// version 1), and holds the stages built into the binaries. It has no
// Ebitengine, sockets or clocks.
//
// A stage is read once (Parse, Load, Builtin or Resolve) and then only
// read: every time in it is already a tick count (vocab.TickRate per
// second), every field within its range, so a game plays it without
// checking anything again.
package stage

import (
	"fmt"
	"math"

	"rtype/vocab"
)

// Version is the version of the format this package reads: the number on
// the first line of a stage file ("rtype-stage 1").
const Version = 1

// Limits of a stage file. A file beyond them is refused, so that loading
// is bounded whatever the file holds.
const (
	// MaxSize is the largest stage file, in bytes (1 MiB).
	MaxSize = 1 << 20
	// MaxEntries is the most timeline entries a stage has.
	MaxEntries = 2000
	// MaxLine is the longest line, in bytes.
	MaxLine = 1024
	// MaxCount is the most members of a wave, scaling included.
	MaxCount = 32
	// MaxNameLen is the longest name of a stage, marker or boss, and
	// MaxTitleLen the longest title (a Stage event's name, 7.12).
	MaxNameLen  = 32
	MaxTitleLen = 64
	// MaxTime is the latest time of an entry and the longest length: 30
	// minutes.
	MaxTime = 30 * 60
)

// AreaW and AreaH are the size of the play area the heights and spacings
// of a stage refer to (sim.DefaultRules), in pixels.
const (
	AreaW = 1280
	AreaH = 720
)

// Stage is one parsed and checked stage.
type Stage struct {
	// Name is the stage's short name ("1"), Title what the intro shows.
	Name, Title string
	// File is the name of the file it was read from, as errors name it.
	File string
	// Sum is the SHA-256 of the file's bytes: with Name, what a server
	// tells a client so that it loads the same stage (FileSum, Find).
	Sum [32]byte
	// Scroll is the speed of the scrolling, in pixels per second: a
	// distance on the timeline is a time at this speed.
	Scroll float64
	// Length is the length of the stage's timeline, in ticks: no entry
	// comes after it.
	Length uint32
	// PerPlayer and PerLoop are the default scaling of every wave (a wave
	// may override each field).
	PerPlayer, PerLoop Scaling
	// Entries is the timeline, by tick (file order within a tick). The
	// last one is the end boss.
	Entries []Entry
	// Terrain is the stage's terrain, column by column from the
	// timeline's start (terrain.go); nil without terrain. Its lines are
	// not entries: they happen nowhere in the timeline, they are places.
	Terrain []Tile
}

// Seconds returns the length of the stage's timeline in seconds (the
// time spent fighting its bosses is not in it).
func (s *Stage) Seconds() float64 { return float64(s.Length) / vocab.TickRate }

// EntryKind is what a timeline entry does.
type EntryKind uint8

// Kinds of timeline entries.
const (
	// EntryWave brings in a wave of foes (Entry.Wave).
	EntryWave EntryKind = iota + 1
	// EntryMarker is a named marker (Entry.Name): a StageMarker event.
	EntryMarker
	// EntryCheckpoint is a marker where downed players come back.
	EntryCheckpoint
	// EntryMidBoss brings in the mid-boss; the timeline waits while it
	// fights. Entry.Name is its marker ("midboss" by default).
	EntryMidBoss
	// EntryBoss brings in the end boss, the last entry; beating it clears
	// the stage. Entry.Name is its marker ("boss" by default).
	EntryBoss
	// EntryMusic is a music cue (Entry.Name: "stage", "boss", "clear",
	// or "" for silence).
	EntryMusic
)

var kindNames = [...]string{EntryWave: "wave", EntryMarker: "marker", EntryCheckpoint: "checkpoint",
	EntryMidBoss: "midboss", EntryBoss: "boss", EntryMusic: "music"}

// String returns the kind's keyword in a stage file.
func (k EntryKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("EntryKind(%d)", uint8(k))
}

// Entry is one entry of the timeline.
type Entry struct {
	// Tick is when it happens, in ticks of the timeline from its start.
	Tick uint32
	// Line is its line in the file.
	Line int
	Kind EntryKind
	// Name is the marker's name (markers, checkpoints, bosses) or the
	// music cue.
	Name string
	// Wave is the wave of an EntryWave.
	Wave Wave
	// Boss is the kind of the boss an EntryMidBoss or EntryBoss brings
	// in: vocab.KindMidBoss; vocab.KindBoss (Mother Bydos, the default)
	// or vocab.KindWarship (type=warship). 0 for the other entries.
	Boss uint8
}

// Formation is how the members of a wave are placed.
type Formation uint8

// Formations (STAGES.md). Members of line, v, wedge and random enter one
// rank after the other, Wave.Spacing pixels apart at the wave's speed.
const (
	// Single is one foe.
	Single Formation = iota + 1
	// Line is a file of foes at one height, one behind the other.
	Line
	// Column is a vertical column of foes entering together.
	Column
	// V is a leader first, then pairs behind it, above and below.
	V
	// Wedge is a V backwards: the outer pairs first, the centre last.
	Wedge
	// Random is foes one after the other, each at a random height within
	// Wave.Spread of Wave.Y.
	Random
)

var formationNames = [...]string{Single: "single", Line: "line", Column: "column", V: "v", Wedge: "wedge", Random: "random"}

// String returns the formation's name in a stage file.
func (f Formation) String() string {
	if int(f) < len(formationNames) && formationNames[f] != "" {
		return formationNames[f]
	}
	return fmt.Sprintf("Formation(%d)", uint8(f))
}

// Staggered reports whether the members of f enter rank after rank.
func (f Formation) Staggered() bool { return f == Line || f == V || f == Wedge || f == Random }

// Edge is what a wave's height refers to.
type Edge uint8

// Edges.
const (
	// EdgeNone: Wave.Y is the height of the formation's centre.
	EdgeNone Edge = iota
	// EdgeFloor: the foes sit on the floor (the bottom of the area).
	EdgeFloor
	// EdgeCeiling: the foes hang from the ceiling (the top).
	EdgeCeiling
)

// Side is the edge of the screen a wave enters from.
type Side uint8

// Sides.
const (
	FromRight Side = iota // flying left (the default)
	FromLeft              // from behind the players, flying right
)

// Member numbers of a drop besides 0..Count-1.
const (
	MemberLast = -1 // the last member (of the wave as scaled)
	MemberAll  = -2 // every member
)

// Drop is an item a wave's member leaves when it dies.
type Drop struct {
	// Item is a vocab.Item*.
	Item uint8
	// Member is the member that carries it: 0 for the first, or
	// MemberLast, or MemberAll.
	Member int
}

// Scaling is how a wave grows with each extra player (beyond the first)
// or each loop (beyond the first). Fractions are relative: 0.5 is +50%.
type Scaling struct {
	// Count is the number of members added.
	Count int
	// HP, Fire and Speed scale the hit points, the time between shots
	// (negative: more fire) and the speed. Per player, Speed is 0.
	HP, Fire, Speed float64
}

// Wave is a wave of foes: its formation, its enemy, its motion, its fire,
// its drops and its scaling.
type Wave struct {
	// Enemy is the foes' kind: vocab.KindBydosSlave, KindPowArmor,
	// KindChaser, KindTurret, KindArmored, KindHatch or KindCrawler.
	Enemy     uint8
	Formation Formation
	// Count is the number of members with one player in the first loop.
	Count int
	// Spacing is the distance between members (ranks or rows), pixels.
	Spacing float64
	// Y is the height of the formation's centre (Edge none), pixels from
	// the top; Spread the half-height of the band of a random formation.
	Y, Spread float64
	Edge      Edge
	From      Side
	// Speed is the foes' speed along x, pixels per second (towards the
	// other side); VY their vertical speed (positive down).
	Speed, VY float64
	// Amp, Period and Phase make a sine path in y: amplitude in pixels,
	// period in ticks (0: none), phase in radians.
	Amp    float64
	Period uint32
	Phase  float64
	// Fire is the ticks between two shots, 0 if they never fire.
	Fire uint32
	// HP is the hit points of each member (the enemy's default hit
	// points, DefaultHP, when the file gives none). Score is what its
	// killer scores: 0 for the kind's default.
	HP    int32
	Score uint32
	// Drops are the items its members carry.
	Drops []Drop
	// PerPlayer and PerLoop are its scaling.
	PerPlayer, PerLoop Scaling
}

// Scaled is a wave as a game plays it: for a number of players (1 to 4)
// and a loop (1 first).
type Scaled struct {
	Count int
	Speed float64
	HP    int32
	Fire  uint32
}

// Bounds of a scaled wave: the most hit points, speed (px/s) and ticks
// between shots.
const (
	MaxHP    = 1000000
	MaxSpeed = 2000
	MaxFire  = 3600 * vocab.TickRate
)

// MinFire is the fewest ticks between two shots of a foe, scaling
// included (0.2 s).
const MinFire = 12

// Scale returns the wave for players players (1 to 4) in loop loop (1 the
// first): Count grows by Count per extra player and per extra loop (a
// single stays one), HP, Fire and Speed by their fractions, multiplied;
// each factor at least 0.1, and all within their bounds (1 to MaxCount
// members, MinFire to MaxFire, at most MaxHP and MaxSpeed).
func (w *Wave) Scale(players, loop int) Scaled {
	p := float64(max(players, 1) - 1)
	l := float64(max(loop, 1) - 1)
	sc := Scaled{Count: w.Count, Speed: w.Speed, HP: w.HP, Fire: w.Fire}
	if w.Formation != Single {
		n := w.Count + (max(players, 1)-1)*w.PerPlayer.Count + (max(loop, 1)-1)*w.PerLoop.Count
		sc.Count = min(max(n, 1), MaxCount)
	}
	// Each factor is at least 0.1: a negative scaling slows, it never
	// turns a wave back or takes its hit points below 1.
	factor := func(n, f float64) float64 { return math.Max(1+n*f, 0.1) }
	sc.Speed = math.Min(w.Speed*factor(l, w.PerLoop.Speed), MaxSpeed)
	hp := float64(w.HP) * factor(p, w.PerPlayer.HP) * factor(l, w.PerLoop.HP)
	sc.HP = int32(math.Min(math.Max(math.Round(hp), 1), MaxHP))
	if w.Fire > 0 {
		f := float64(w.Fire) * factor(p, w.PerPlayer.Fire) * factor(l, w.PerLoop.Fire)
		sc.Fire = uint32(math.Min(math.Max(math.Round(f), MinFire), MaxFire))
	}
	return sc
}

// Error is an error of a stage file: the file, the line (0 when it is
// about the whole file) and what is wrong.
type Error struct {
	File string
	Line int
	Msg  string
}

// Error returns "FILE:LINE: MSG", or "FILE: MSG" without a line.
func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Warp finds where a game warped by spec starts (sim.StageOptions.Warp):
// "" the beginning; a time ("90", "90s", "1:30", "5400px") the first
// entry at or after it; a marker's name ("midboss", "boss", a
// checkpoint's) that marker's entry. It returns the entry's index and the
// timeline's tick to start at, or an error naming spec when it names no
// marker or a time past the end boss.
func (s *Stage) Warp(spec string) (entry int, tick uint32, err error) {
	if spec == "" {
		return 0, 0, nil
	}
	if t, msg := parseTime(spec, s.Scroll, true); msg == "" {
		last := s.Entries[len(s.Entries)-1].Tick
		if t > last {
			return 0, 0, fmt.Errorf("stage %s: warp %q: %s is past the end boss at %s", s.Name, spec, FormatTicks(t), FormatTicks(last))
		}
		for i := range s.Entries {
			if s.Entries[i].Tick >= t {
				return i, t, nil
			}
		}
	}
	for i := range s.Entries {
		if e := &s.Entries[i]; e.Kind != EntryWave && e.Kind != EntryMusic && e.Name == spec {
			return i, e.Tick, nil
		}
	}
	names := ""
	for i := range s.Entries {
		if e := &s.Entries[i]; e.Kind != EntryWave && e.Kind != EntryMusic {
			names += " " + e.Name
		}
	}
	return 0, 0, fmt.Errorf("stage %s: warp %q: neither a time (90, 90s, 1:30, 5400px) nor a marker (markers:%s)", s.Name, spec, names)
}

// FormatTicks writes a time of the timeline, in ticks, as m:ss.s, as the
// stage's errors and tools name times.
func FormatTicks(t uint32) string {
	const ticksPerTenth = vocab.TickRate / 10
	tenths := (uint64(t) + ticksPerTenth/2) / ticksPerTenth // rounded, before the minutes are taken
	return fmt.Sprintf("%d:%02d.%d", tenths/600, tenths%600/10, tenths%10)
}
