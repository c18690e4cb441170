package view

import (
	"time"

	"rtype/net/wire"
)

// A View made in the middle of a game (a replay's seek, Replayer.Seek)
// is shown the events before its warm-up as state only: who plays, which
// entities live, and the Stage's state (the stage and its banners, the
// music, the boss bar and its Health, each player's Arms, the results
// after a clear), at the times they happened, without their effects or
// sounds, which belong to their time.

// Prime applies the state of an event that happened at at, before the
// View's first Update (in order, oldest first); Primed ends the priming.
func (v *View) Prime(ev *wire.Event, at time.Time) {
	t := v.t(at)
	switch ev.Type {
	case wire.EventSpawn:
		v.kinds[ev.ID] = kindOf{kind: ev.Kind, tick: ev.Tick}
	case wire.EventDestroy:
		k, known := v.kinds[ev.ID]
		delete(v.kinds, ev.ID)
		v.stageDestroyed(ev, t, k, known)
	case wire.EventPlayerJoined:
		if ev.Player < wire.MaxPlayers {
			v.present[ev.Player], v.names[ev.Player] = true, ev.Name
		}
	case wire.EventPlayerLeft:
		if ev.Player < wire.MaxPlayers {
			v.present[ev.Player] = false
		}
	case wire.EventStage, wire.EventHealth, wire.EventArms:
		v.stageEvent(ev, t)
	}
}

// Primed ends the priming: the effects and sounds the primed events
// queued (a boss's explosion, an alarm) are dropped; their notices stay
// for their time.
func (v *View) Primed() {
	clear(v.pending)
	v.pending = v.pending[:0]
	clear(v.sounds)
	v.sounds = v.sounds[:0]
}
