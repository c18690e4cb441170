package client

import "rtype/net/wire"

// healthIDs is how many ids a World orders Health events of (7.12): the
// ones it heard of last.
const healthIDs = 8

// stageOrder applies 7.12's order to the events of Stage mode: an Arms
// older (by tick) than the last one applied for its player, or a Health
// older than the last one applied for its id, is ignored. The World
// draws none of these events: they reach DrainEvents for the view, which
// keeps the HUD.
type stageOrder struct {
	hasArms  [wire.MaxPlayers]bool
	armsTick [wire.MaxPlayers]uint32
	health   [healthIDs]struct {
		id, tick uint32
		used     bool
	}
	next int // the slot the next new id takes
}

// apply reports whether ev, a Stage, Health or Arms event, is applied.
func (o *stageOrder) apply(ev *wire.Event) bool {
	switch ev.Type {
	case wire.EventArms:
		p := ev.Player
		if p >= wire.MaxPlayers || (o.hasArms[p] && ev.Tick < o.armsTick[p]) {
			return false
		}
		o.hasArms[p], o.armsTick[p] = true, ev.Tick
	case wire.EventHealth:
		for i := range o.health {
			h := &o.health[i]
			if h.used && h.id == ev.ID {
				if ev.Tick < h.tick {
					return false
				}
				h.tick = ev.Tick
				return true
			}
		}
		h := &o.health[o.next]
		h.id, h.tick, h.used = ev.ID, ev.Tick, true
		o.next = (o.next + 1) % healthIDs
	}
	return true
}
