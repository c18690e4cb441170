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
// the client does not know, is right from the first marker on. Each
// StageIntro names the stage that begins (a campaign goes from one to
// the next): a stage of another title is looked for among the built-in
// stages.
type terrainClock struct {
	st      *stage.Stage // nil: no terrain drawn
	told    *stage.Stage // the stage the game was said to begin with, if any
	spec    string       // the warp of the first stage, as -warp
	clk     stage.Clock
	intros  int    // the StageIntros seen
	missing string // the title of the stage not built in that goes on (said once)
}

// newTerrainClock returns the clock of a game that begins with st (nil:
// each stage is found by the title of its StageIntro among the built-in
// stages), warped as warp.
func newTerrainClock(st *stage.Stage, warp string) terrainClock {
	c := terrainClock{told: st, spec: warp}
	c.use(st)
	return c
}

// use takes st as the game's stage.
func (c *terrainClock) use(st *stage.Stage) {
	c.st, c.clk = st, stage.Clock{}
	if st != nil {
		c.clk = stage.NewClock(st, c.spec)
	}
}

// event takes a Stage event, a GameOver, or a boss's Destroy (boss true). It
// returns true when the game's stage turned out not to be known here
// (once): the caller tells the player.
func (c *terrainClock) event(ev *wire.Event, boss bool, log *slog.Logger) (unknown bool) {
	if ev.Type == wire.EventStage && ev.What == wire.StageIntro {
		unknown = c.intro(stageText(ev.Name), log)
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

// intro takes the title of a StageIntro: the stage that begins, looked
// for among the built-in stages when it is not the one drawn. It
// returns true when it is not built in here, once until another stage
// comes.
func (c *terrainClock) intro(title string, log *slog.Logger) (unknown bool) {
	c.intros++
	if c.st != nil && c.st.Title == title {
		return false
	}
	if c.intros > 1 {
		c.spec = "" // the warp was the first stage's
	}
	st := c.told
	if st == nil || st.Title != title {
		st = stage.ByTitle(title)
	}
	c.use(st)
	switch {
	case st != nil:
		c.missing = ""
	case title != c.missing:
		c.missing, unknown = title, true
		if log != nil {
			log.Info("stage: not a built-in stage here: its terrain is not drawn", "title", title)
		}
	}
	return unknown
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
