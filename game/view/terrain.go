package view

import (
	"log/slog"
	"math"

	"rtype/net/wire"
	"rtype/render/model"
	"rtype/sim"
	"rtype/sim/stage"
)

// terrainClock follows where the stage's timeline is, to draw its
// terrain (STAGES.md, "Terrain") scrolled as the server's: the protocol
// carries no scroll, but the events do say where the timeline is. A
// StageIntro starts it (at the warp's tick in the first loop, 0 in the
// next ones), a StageMarker sets it to its entry's tick (a client that
// joined late, or a game warped to a time, is right from its first
// marker on), a mid-boss or boss stops it until the boss is destroyed.
// Between two, it runs a tick per server tick, as the server's.
type terrainClock struct {
	st     *stage.Stage // nil: no terrain drawn
	warp   uint32       // the timeline's tick the first loop starts at
	spec   string       // the warp, as -warp
	known  bool         // an anchor was seen
	at     float64      // the server tick of the anchor
	t      float64      // the timeline's tick there
	paused float64      // the server tick it stands still from, +Inf running
	looked bool         // a stage was looked for by the intro's title
}

// newTerrainClock returns the clock of a game playing st (nil: the stage
// is found by the title of its StageIntro among the built-in stages)
// warped as warp.
func newTerrainClock(st *stage.Stage, warp string) terrainClock {
	c := terrainClock{spec: warp, paused: math.Inf(1)}
	c.use(st)
	return c
}

// use takes st as the game's stage.
func (c *terrainClock) use(st *stage.Stage) {
	c.st = st
	if st != nil {
		if _, tick, err := st.Warp(c.spec); err == nil {
			c.warp = tick
		}
	}
}

// anchor says the timeline is at t at server tick at.
func (c *terrainClock) anchor(at uint32, t uint32) {
	c.known, c.at, c.t, c.paused = true, float64(at), float64(t), math.Inf(1)
}

// event takes a Stage event, or a boss's Destroy (boss true).
func (c *terrainClock) event(ev *wire.Event, boss bool, log *slog.Logger) {
	if boss {
		if !math.IsInf(c.paused, 1) {
			c.anchor(ev.Tick, uint32(c.timeline(float64(ev.Tick))))
		}
		return
	}
	if ev.Type != wire.EventStage {
		return
	}
	switch ev.What {
	case wire.StageIntro:
		if c.st == nil && !c.looked {
			c.looked = true
			c.use(builtinByTitle(stageText(ev.Name)))
			if c.st == nil && log != nil {
				log.Info("stage: not a built-in stage here: its terrain is not drawn", "title", stageText(ev.Name))
			}
		}
		start := uint32(0)
		if ev.Value <= 1 {
			start = c.warp
		}
		c.anchor(ev.Tick, start)
	case wire.StageMarker:
		if c.st == nil {
			return
		}
		for i := range c.st.Entries {
			e := &c.st.Entries[i]
			if e.Kind == stage.EntryWave || e.Kind == stage.EntryMusic || e.Name != ev.Name {
				continue
			}
			c.anchor(ev.Tick, e.Tick)
			if ev.Value == sim.MarkerMidBoss || ev.Value == sim.MarkerBoss {
				c.paused = float64(ev.Tick)
			}
			break
		}
	}
}

// timeline returns the timeline's tick at server tick r.
func (c *terrainClock) timeline(r float64) float64 {
	return c.t + min(r, c.paused) - c.at
}

// frame fills tr with the terrain at server tick r.
func (c *terrainClock) frame(tr *model.Terrain, r float64) {
	tr.Tiles, tr.D = nil, 0
	if c.st == nil || !c.known || len(c.st.Terrain) == 0 {
		return
	}
	tr.Tiles = c.st.Terrain
	tr.D = max(c.timeline(r), 0) * c.st.Scroll / wire.TickRate
}

// builtinByTitle returns the built-in stage of that title, or nil.
func builtinByTitle(title string) *stage.Stage {
	for _, n := range stage.Names() {
		if st, err := stage.Builtin(n); err == nil && st.Title == title {
			return st
		}
	}
	return nil
}

// log returns the View's logger.
func (v *View) log() *slog.Logger {
	if v.cfg.Log != nil {
		return v.cfg.Log
	}
	return slog.Default()
}
