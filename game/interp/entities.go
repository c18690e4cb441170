package interp

import "rtype/net/client"

// Drawn is an entity placed at the render time.
//
// The embedded Entity is the entity's state in the frame at or just after
// the render time (the newest frame when the render time is past them all),
// except its Frame, which is the sprite frame of the state nearest to the
// render time. Its X and Y are thus a received position, not the one to
// draw: draw at DrawX, DrawY.
type Drawn struct {
	client.Entity
	// DrawX and DrawY are the position to draw the entity's center at, in
	// logical pixels.
	DrawX, DrawY float32
}

// Lerp returns the position of a linear interpolation from a's position
// (t = 0) to b's (t = 1). It does not clamp t.
func Lerp(a, b client.Entity, t float32) (x, y float32) {
	return a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t
}

// Entities sets dst to the entities to draw at the render time and returns
// it; dst's storage is reused, so that a caller passing the same slice each
// frame allocates nothing once it has grown.
//
// The entities are those of the frame at or just after the render time
// (the newest frame when the render time is past them all), in its order:
// an entity already destroyed in that frame is not drawn, nor one whose
// Spawn tick the render time has not reached; one new in that frame is
// moved back along its velocity from its first known state, to no earlier
// than its Spawn tick, so it enters moving instead of waiting in place.
// Each is placed with the states of the entity in that frame and in the
// frame before, at the server ticks of those states (their Tick field):
//
//   - between the two ticks, linear interpolation; before the older one,
//     the older state's position;
//   - past the newer tick, the newer position moved along its velocity for
//     at most MaxExtrapolation, then frozen;
//   - when the entity's Respawned tick (the newest known, from the newest
//     frame too) falls after the older state and at or before the newer
//     one, the ship teleported: it is drawn on its old path (moved along
//     the old velocity) until the render time reaches the Respawned tick,
//     then at its new position, never in between; and an extrapolation
//     stops at a Respawned tick not reached by any frame yet.
//
// The sprite frame is that of the state nearer in time to the render time.
// Entities uses the frames given to the last Update.
func (ip *Interpolator) Entities(dst []Drawn) []Drawn { return ip.EntitiesAt(dst, ip.render) }

// EntitiesAt is Entities at render tick r instead of the render time of
// the last Update (r is usually RenderTickAt of a drawn frame's time). It
// changes nothing in the Interpolator.
func (ip *Interpolator) EntitiesAt(dst []Drawn, r float64) []Drawn {
	dst = dst[:0]
	n := len(ip.order)
	if n == 0 {
		return dst
	}
	bi := 0
	for bi < n-1 && float64(ip.frames[ip.order[bi]].Tick) < r {
		bi++
	}
	fb := &ip.frames[ip.order[bi]]
	var fa *client.Frame
	if bi > 0 {
		fa = &ip.frames[ip.order[bi-1]]
	}
	fn := &ip.frames[ip.order[n-1]]
	if fn == fb {
		fn = nil
	}
	bSorted := sortedByID(fb.Entities)
	aMerge := fa != nil && bSorted && sortedByID(fa.Entities)
	nMerge := fn != nil && bSorted && sortedByID(fn.Entities)
	ja, jn := 0, 0
	for i := range fb.Entities {
		b := &fb.Entities[i]
		var a *client.Entity
		if fa != nil {
			a, ja = lookup(fa.Entities, b.ID, ja, aMerge)
		}
		resp := [2]uint32{b.Respawned, b.Respawned}
		var e *client.Entity
		if fn != nil {
			e, jn = lookup(fn.Entities, b.ID, jn, nMerge)
			if e != nil && e.Kind == b.Kind && e.Respawned > b.Respawned {
				resp[1] = e.Respawned // a Death known since
			}
		}
		if r < float64(b.Spawned) {
			continue // not in the world yet at the render time
		}
		if b.HasMotion {
			dst = append(dst, Drawn{Entity: *b})
			d := &dst[len(dst)-1]
			m := motionAt(a, b, e, r)
			d.Motion, d.Anim = m.Motion, m.Anim
			x, y, _, _ := d.Motion.At(r)
			d.DrawX, d.DrawY = float32(x), float32(y)
			d.Frame = d.Anim.Frame(d.Motion.T0, r)
			continue
		}
		x, y, frame := ip.place(a, b, resp, r)
		dst = append(dst, Drawn{Entity: *b, DrawX: x, DrawY: y})
		dst[len(dst)-1].Frame = frame
	}
	return dst
}

// motionAt returns, of the states of a v2 entity in the frame before (a),
// the frame at or after the render tick (b) and the newest frame (n), any
// of them nil, the one whose motion holds at render tick r (7.5): the
// newest whose motion started at or before r, else the oldest known. A
// motion is exact until the next one starts: no interpolation, and no
// limit to its extrapolation. A Death's teleport is a new motion too.
func motionAt(a, b, n *client.Entity, r float64) *client.Entity {
	best := b
	for _, s := range [...]*client.Entity{n, b, a} {
		if s == nil || !s.HasMotion || s.Kind != b.Kind {
			continue
		}
		best = s
		if float64(s.Motion.T0) <= r {
			return s
		}
	}
	return best
}

// sortedByID reports whether es is sorted by increasing ID.
func sortedByID(es []client.Entity) bool {
	for i := 1; i < len(es); i++ {
		if es[i].ID <= es[i-1].ID {
			return false
		}
	}
	return true
}

// lookup finds id in es. With merge, es and the ids looked up are both
// increasing and the search goes on from j; without, it scans es. It
// returns the entity (nil if absent) and where to go on from.
func lookup(es []client.Entity, id uint32, j int, merge bool) (*client.Entity, int) {
	if !merge {
		for k := range es {
			if es[k].ID == id {
				return &es[k], j
			}
		}
		return nil, j
	}
	for j < len(es) && es[j].ID < id {
		j++
	}
	if j < len(es) && es[j].ID == id {
		return &es[j], j + 1
	}
	return nil, j
}

// place returns where to draw b at render tick r, and its sprite frame,
// given its state a in the frame before (nil if absent) and its Respawned
// ticks: b's, and the newest known (the same when no newer is known).
func (ip *Interpolator) place(a, b *client.Entity, resp [2]uint32, r float64) (x, y float32, frame uint8) {
	if a != nil && a.Kind == b.Kind && a.Tick < b.Tick {
		ta, tb := float64(a.Tick), float64(b.Tick)
		if t, ok := between(resp, a.Tick, b.Tick); ok {
			// Teleported between the two states: no sliding across.
			if r < float64(t) {
				x, y = ip.extrapolate(a, r, t)
				return x, y, a.Frame
			}
			x, y = ip.extrapolate(b, r, after(resp, b.Tick))
			return x, y, b.Frame
		}
		switch {
		case r <= ta:
			return a.X, a.Y, a.Frame
		case r < tb:
			u := (r - ta) / (tb - ta)
			x, y = Lerp(*a, *b, float32(u))
			if u < 0.5 {
				return x, y, a.Frame
			}
			return x, y, b.Frame
		}
	}
	x, y = ip.extrapolate(b, r, after(resp, b.Tick))
	return x, y, b.Frame
}

// between returns a Respawned tick of resp after lo and at or before hi.
func between(resp [2]uint32, lo, hi uint32) (uint32, bool) {
	for _, t := range resp {
		if t > lo && t <= hi {
			return t, true
		}
	}
	return 0, false
}

// after returns the first Respawned tick of resp after tick, or 0.
func after(resp [2]uint32, tick uint32) uint32 {
	var t uint32
	for _, v := range resp {
		if v > tick && (t == 0 || v < t) {
			t = v
		}
	}
	return t
}

// extrapolate returns e's position moved along its velocity from its tick
// to r, by at most MaxExtrapolation and not past a Respawned tick after
// its own. Before its tick, it is moved back along the velocity to r, but
// to no earlier than its Spawn, where it was not anywhere before; when its
// Spawn is unknown (0), it is held at its position.
func (ip *Interpolator) extrapolate(e *client.Entity, r float64, resp uint32) (x, y float32) {
	d := min(r-float64(e.Tick), ip.maxExtrap)
	if resp > e.Tick {
		d = min(d, float64(resp-e.Tick))
	}
	if d < 0 {
		if e.Spawned == 0 || (e.Respawned > e.Spawned && e.Respawned <= e.Tick) {
			// Spawn unknown, or a ship back at its spawn point, which
			// it did not fly to: held where it was first known.
			return e.X, e.Y
		}
		d = max(d, float64(e.Spawned)-float64(e.Tick))
	}
	if d == 0 {
		return e.X, e.Y
	}
	s := float32(d / ip.tps)
	return e.X + e.VX*s, e.Y + e.VY*s
}
