package bot

import (
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/sim/stage"
	"rtype/vocab"
)

// The terrain (STAGES.md, "Terrain"): the bot knows the stage by its
// StageIntro's title among the built-in stages, follows its scroll from
// the Stage events (stage.Clock), and its plans count a wall in their way
// as a hit: the ship dies on it.

// terrainSlack widens the ship's box against the terrain, in pixels: the
// clock is a tick off at most, and the plans' steps are sparse.
const terrainSlack = 6

// terrain is what a brain knows of the stage's terrain.
type terrain struct {
	st     *stage.Stage // nil: none known
	clk    stage.Clock
	bosses [4]uint32 // ids of the bosses spawned, to see them go
	nb     int
	d      float64 // the distance at the frame decided on
	px     float64 // px the terrain scrolls per tick (0 while a boss fights)
}

// Events takes the game's events, as they come (client.DrainEvents): a
// Stage brain follows the terrain's scroll from them.
func (b *Brain) Events(evs []wire.Event) {
	if !b.stage {
		return
	}
	tr := &b.ter
	for i := range evs {
		ev := &evs[i]
		switch ev.Type {
		case wire.EventStage:
			switch ev.What {
			case wire.StageFile: // the stage that begins (a campaign's next)
				if tr.st == nil || tr.st.Name != ev.Name || tr.st.FileSum() != ev.Value {
					if tr.st, _ = stage.Find(ev.Name, ev.Value); tr.st != nil {
						tr.clk = stage.NewClock(tr.st, "")
					}
				}
			case wire.StageIntro:
				if tr.st != nil {
					tr.clk.Intro(ev.Tick, ev.Value)
				}
			case wire.StageMarker:
				if tr.st != nil {
					tr.clk.Marker(ev.Tick, ev.Name)
				}
			}
		case wire.EventSpawn:
			if ev.Kind == wire.KindBoss || ev.Kind == wire.KindMidBoss || ev.Kind == vocab.KindWarship {
				tr.bosses[tr.nb%len(tr.bosses)] = ev.ID
				tr.nb++
			}
		case wire.EventDestroy:
			for _, id := range tr.bosses {
				if id != 0 && id == ev.ID && tr.st != nil {
					tr.clk.BossGone(ev.Tick)
				}
			}
		}
	}
}

// terrainAt prepares the terrain for a decision on f: false when there is
// none on screen or soon.
func (b *Brain) terrainAt(f *client.Frame) bool {
	tr := &b.ter
	if tr.st == nil || len(tr.st.Terrain) == 0 || !tr.clk.Known() {
		return false
	}
	r := float64(f.Tick)
	tr.d = tr.clk.Distance(r)
	tr.px = tr.clk.Distance(r+1) - tr.d
	ahead := tr.px * steer * wire.TickRate
	return tr.st.Solid(tr.d+ahead, 0, 0, areaW, areaH) || tr.st.Solid(tr.d, 0, 0, areaW, areaH)
}

// wall reports whether the ship at (x, y) touches the terrain st ticks
// after the frame (terrainAt first).
func (b *Brain) wall(x, y, st float32) bool {
	tr := &b.ter
	const hw, hh = shipHW + terrainSlack, shipHH + terrainSlack
	return tr.st.Solid(tr.d+tr.px*float64(st), float64(x-hw), float64(y-hh), float64(x+hw), float64(y+hh))
}
