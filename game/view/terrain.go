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
// the client does not know, is right from the first marker on. A
// StageFile before each StageIntro names the stage that begins, by name
// and checksum (a campaign goes from one to the next): a stage other than
// the one drawn is looked for among the built-in stages (stage.Find).
type terrainClock struct {
	st      *stage.Stage // nil: no terrain drawn
	told    *stage.Stage // the stage the game was said to begin with, if any
	spec    string       // the warp of the first stage, as -warp
	clk     stage.Clock
	files   int    // the StageFiles seen
	missing string // the name of the stage not found that goes on (said once)
}

// newTerrainClock returns the clock of a game that begins with st (nil:
// each stage is found by its StageFile among the built-in stages),
// warped as warp.
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
	if ev.Type == wire.EventStage && ev.What == wire.StageFile {
		unknown = c.file(ev.Name, ev.Value, log)
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

// file takes a StageFile: the stage that begins, by name and checksum,
// looked for among the built-in stages when it is not the one drawn. It
// returns true when it is not found here, once until another stage
// comes.
func (c *terrainClock) file(name string, sum uint32, log *slog.Logger) (unknown bool) {
	c.files++
	if c.st != nil && c.st.Name == name && c.st.FileSum() == sum {
		return false
	}
	if c.files > 1 {
		c.spec = "" // the warp was the first stage's
	}
	st, err := c.told, error(nil)
	if st == nil || st.Name != name || st.FileSum() != sum {
		st, err = stage.Find(name, sum)
	}
	c.use(st)
	switch {
	case st != nil:
		c.missing = ""
	case name != c.missing:
		c.missing, unknown = name, true
		if log != nil {
			log.Info("stage: its terrain is not drawn", "err", err)
		}
	}
	return unknown
}

// unknownStage is the notice of a game whose stage is not built in here.
const unknownStage = "This game's stage is not in this version of the game: its walls are not shown (update the game)"

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
