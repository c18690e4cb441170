package view

import (
	"log/slog"

	"rtype/net/wire"
	"rtype/render/model"
	"rtype/sim/stage"
)

// terrainClock follows where the stage's timeline is, to draw its
// terrain (STAGES.md, "Terrain") scrolled as the server's: the protocol
// carries no scroll, but the Stage events say where the timeline is
// (stage.Clock). A client that joined late, or a game warped to a time
// the client does not know, is right from the first marker on.
type terrainClock struct {
	st     *stage.Stage // nil: no terrain drawn
	spec   string       // the warp, as -warp
	clk    stage.Clock
	looked bool // a stage was looked for by the intro's title
}

// newTerrainClock returns the clock of a game playing st (nil: the stage
// is found by the title of its StageIntro among the built-in stages)
// warped as warp.
func newTerrainClock(st *stage.Stage, warp string) terrainClock {
	c := terrainClock{spec: warp}
	c.use(st)
	return c
}

// use takes st as the game's stage.
func (c *terrainClock) use(st *stage.Stage) {
	c.st = st
	if st != nil {
		c.clk = stage.NewClock(st, c.spec)
	}
}

// event takes a Stage event, a GameOver, or a boss's Destroy (boss true). It
// returns true when the game's stage turned out not to be known here
// (once): the caller tells the player.
func (c *terrainClock) event(ev *wire.Event, boss bool, log *slog.Logger) (unknown bool) {
	if ev.Type == wire.EventStage && ev.What == wire.StageIntro && c.st == nil && !c.looked {
		c.looked = true
		c.use(stage.ByTitle(stageText(ev.Name)))
		if c.st == nil {
			unknown = true
			if log != nil {
				log.Info("stage: not a built-in stage here: its terrain is not drawn", "title", stageText(ev.Name))
			}
		}
	}
	if c.st == nil {
		return unknown
	}
	switch {
	case boss:
		c.clk.BossGone(ev.Tick)
	case ev.Type == wire.EventGameOver:
		c.clk.Stop(ev.Tick)
	case ev.Type != wire.EventStage:
	case ev.What == wire.StageIntro:
		c.clk.Intro(ev.Tick, ev.Value)
	case ev.What == wire.StageMarker:
		c.clk.Marker(ev.Tick, ev.Name)
	}
	return false
}

// unknownStage is the notice of a game whose stage is not built in here.
const unknownStage = "This game's stage is not in this version of the game: its walls are not shown"

// frame fills tr with the terrain at server tick r.
func (c *terrainClock) frame(tr *model.Terrain, r float64) {
	tr.Tiles, tr.D = nil, 0
	if c.st == nil || !c.clk.Known() || len(c.st.Terrain) == 0 {
		return
	}
	tr.Tiles, tr.D = c.st.Terrain, c.clk.Distance(r)
}

// log returns the View's logger.
func (v *View) log() *slog.Logger {
	if v.cfg.Log != nil {
		return v.cfg.Log
	}
	return slog.Default()
}
