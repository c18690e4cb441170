package stage

import (
	"encoding/binary"
	"fmt"
	"math"

	"rtype/vocab"
)

// Clock follows a game's timeline from the outside, from what a client
// is told (PROTOCOL.md 7.12's Stage events, with their server ticks): to
// scroll the terrain as the server does. The server's timeline runs a
// tick per tick from the loop's StageIntro (at the warp's tick in the
// first loop), is at an entry's tick when that entry's marker comes, and
// stands still while a mid-boss or boss fights. Its zero value knows
// nothing (Known false); NewClock makes one.
type Clock struct {
	st     *Stage
	warp   uint32  // the timeline's tick the first loop starts at
	known  bool    // an anchor was seen
	at     float64 // the server tick of the anchor
	t      float64 // the timeline's tick there
	paused float64 // the server tick it stands still from, +Inf running
}

// NewClock returns the clock of a game playing st warped as warp (as
// sim.StageOptions.Warp; a warp st refuses counts as none).
func NewClock(st *Stage, warp string) Clock {
	c := Clock{st: st, paused: math.Inf(1)}
	if _, tick, err := st.Warp(warp); err == nil {
		c.warp = tick
	}
	return c
}

// Known reports whether the clock has seen where the timeline is.
func (c *Clock) Known() bool { return c.known }

func (c *Clock) anchor(at, t float64) {
	c.known, c.at, c.t, c.paused = true, at, t, math.Inf(1)
}

// Intro takes a StageIntro of loop loop at server tick tick.
func (c *Clock) Intro(tick uint32, loop uint32) {
	start := uint32(0)
	if loop <= 1 {
		start = c.warp
	}
	c.anchor(float64(tick), float64(start))
}

// Marker takes a StageMarker named name at server tick tick: the
// timeline is at its entry's tick, and stops there if it is a boss's.
// A name of no marker of the stage is ignored.
func (c *Clock) Marker(tick uint32, name string) {
	for i := range c.st.Entries {
		e := &c.st.Entries[i]
		if e.Kind == EntryWave || e.Kind == EntryMusic || e.Name != name {
			continue
		}
		c.anchor(float64(tick), float64(e.Tick))
		if e.Kind == EntryMidBoss || e.Kind == EntryBoss {
			c.paused = float64(tick)
		}
		return
	}
}

// BossGone takes the Destroy of a boss at server tick tick: the timeline
// runs again.
func (c *Clock) BossGone(tick uint32) {
	if c.known && !math.IsInf(c.paused, 1) {
		c.anchor(float64(tick), c.Timeline(float64(tick)))
	}
}

// Stop takes the GameOver at server tick tick: the timeline stands still
// from then on (STAGES.md, "How a stage plays").
func (c *Clock) Stop(tick uint32) {
	if c.known {
		c.paused = min(c.paused, float64(tick))
	}
}

// Timeline returns the timeline's tick at server tick r (fractional).
func (c *Clock) Timeline(r float64) float64 {
	return c.t + min(r, c.paused) - c.at
}

// Distance returns how far the terrain has scrolled at server tick r
// (Solid's distance), never below 0.
func (c *Clock) Distance(r float64) float64 {
	return max(c.Timeline(r), 0) * c.st.Scroll / vocab.TickRate
}

// FileSum is the first 4 bytes of the SHA-256 of the stage's file,
// big-endian: what a StageFile event carries (PROTOCOL.md 7.12).
func (s *Stage) FileSum() uint32 { return binary.BigEndian.Uint32(s.Sum[:4]) }

// Find returns the built-in stage name whose file's FileSum is sum: how a
// client told a stage by a StageFile event loads it. The error says
// plainly when this build has no such stage, or another version of it.
func Find(name string, sum uint32) (*Stage, error) {
	st, err := Builtin(name)
	if err != nil {
		return nil, fmt.Errorf("stage %q is not built into this game", name)
	}
	if st.FileSum() != sum {
		return nil, fmt.Errorf("stage %q: this game has another version of it (%08x, the server's %08x): update the game", name, st.FileSum(), sum)
	}
	return st, nil
}
