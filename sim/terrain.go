package sim

import "rtype/vocab"

// Terrain (STAGES.md, "Terrain"): the stage's floors, ceilings and blocks
// scroll with its timeline (stage.Stage.Distance of the timeline's tick,
// which stops while a boss fights). A ship that touches them dies, shots
// of both sides and the wave beam stop on them (Consumed), a launched
// Force stops against them and is never hurt; foes fly through. A stage
// without terrain costs a test per step, and a Classic game nothing.

// terrainOn reports whether the world plays a stage with terrain.
func (w *World) terrainOn() bool { return w.st != nil && len(w.st.st.Terrain) > 0 }

// StageDistance returns how far the stage's terrain has scrolled, in
// pixels (stage.Stage.Solid's distance): 0 in a Classic game.
func (w *World) StageDistance() float64 {
	if w.st == nil {
		return 0
	}
	return w.st.st.Distance(w.st.t)
}

// solid reports whether e's box, swept from its position at the start of
// the step to its position, touches the terrain at distance d.
func (w *World) solid(d float64, e *entity) bool {
	h := w.halfOf(e)
	x0, x1 := min(e.px, e.x), max(e.px, e.x)
	y0, y1 := min(e.py, e.y), max(e.py, e.y)
	return w.st.st.Solid(d, x0-h.w, y0-h.h, x1+h.w, y1+h.h)
}

// shotsOnTerrain: the player shots (but beams) and the enemy shots that
// touch the terrain are Consumed, before they hit anything else.
func (w *World) shotsOnTerrain() {
	if !w.terrainOn() {
		return
	}
	d := w.StageDistance()
	for _, s := range w.shots {
		if e := w.ent(s); e.alive && e.kind != vocab.KindWaveBeam && w.solid(d, e) {
			w.destroy(s, vocab.DestroyConsumed)
		}
	}
	for _, s := range w.eshots {
		if e := w.ent(s); e.alive && w.solid(d, e) {
			w.destroy(s, vocab.DestroyConsumed)
		}
	}
}

// beamsOnTerrain: a wave beam that touches the terrain is Consumed, once
// it has hurt the foes it touched in the tick (hitFoes).
func (w *World) beamsOnTerrain() {
	if !w.terrainOn() {
		return
	}
	d := w.StageDistance()
	for _, s := range w.shots {
		if e := w.ent(s); e.alive && e.kind == vocab.KindWaveBeam && w.solid(d, e) {
			w.destroy(s, vocab.DestroyConsumed)
		}
	}
}

// shipOnTerrain reports whether the ship e touches the terrain.
func (w *World) shipOnTerrain(e *entity) bool {
	return w.terrainOn() && w.solid(w.StageDistance(), e)
}

// forceOnTerrain stops a flying Force e that touches the terrain where it
// was at the start of the step; it hovers there.
func (w *World) forceOnTerrain(e *entity) {
	if !w.terrainOn() || !w.solid(w.StageDistance(), e) {
		return
	}
	e.mo = vocab.Stationary(w.tick, e.px, e.py)
	w.eval(e)
	w.cold(e).arm.mode = forceHover
}

// mountY returns the height of a foe of half height hh mounted on the
// terrain's floor (floor true) or ceiling at x (half width hw), its
// row'th from it spaced by step; without terrain there, on the area's
// edge.
func (w *World) mountY(x, hw, hh float64, floor bool, row float64) float64 {
	var ceil, fl float64
	if w.terrainOn() {
		ceil, fl = w.st.st.Edges(w.StageDistance(), x-hw, x+hw)
	}
	if floor {
		return w.r.AreaH - fl - hh - row
	}
	return ceil + hh + row
}
