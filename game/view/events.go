package view

import (
	"fmt"
	"time"

	"rtype/net/wire"
	"rtype/render/model"
)

// pendingFx is an effect of an event, started when the interpolated world
// reaches the event's tick (so an explosion starts where the enemy is
// drawn, not 100 ms ahead of it), or at once when its tick is 0.
type pendingFx struct {
	tick     uint32
	received float64 // T it was queued at
	fx       model.Effect
	hasFx    bool
	snd      Cue
	hasSnd   bool
}

// timeline turns the events of this Update into effects, sounds and
// notices; a GameOver ends it with the final scores.
func (v *View) timeline(t float64, now time.Time) Result {
	for i := range v.events {
		ev := &v.events[i]
		if ev.Type == wire.EventGameOver {
			v.terrain.event(ev, false, nil) // the terrain stops with the game
			return Result{GameOver: true, Scores: ev.Scores[:min(ev.NumScores, wire.MaxPlayers)]}
		}
		v.event(ev, t, now)
	}
	return Result{}
}

// event dispatches one event to its phase.
func (v *View) event(ev *wire.Event, t float64, now time.Time) {
	if !v.evSeen {
		v.evSeen, v.firstEv = true, t
	}
	if ev.Type == wire.EventPlayerJoined && v.own(ev.Player) && !v.joinSeen {
		v.joinSeen, v.joinTick = true, ev.Tick
	}
	switch ev.Type {
	case wire.EventSpawn:
		v.spawned(ev, t, now)
	case wire.EventDestroy:
		v.destroyed(ev, t)
	case wire.EventDeath:
		v.died(ev, t)
	case wire.EventPlayerJoined:
		v.joined(ev, t)
	case wire.EventPlayerLeft:
		v.left(ev, t)
	case wire.EventStage, wire.EventHealth, wire.EventArms:
		v.stageEvent(ev, t)
	}
}

// quiet reports whether ev belongs to the world as it was when we joined:
// the events of the tick of our own PlayerJoined (or, if the server does
// not send us ours, those of the first moments). They make no sound.
func (v *View) quiet(ev *wire.Event, t float64) bool {
	if v.joinSeen {
		return ev.Tick <= v.joinTick
	}
	return t-v.firstEv < burstQuiet
}

// queue adds an effect of ev, due when the render clock reaches its tick.
func (v *View) queue(ev *wire.Event, t float64, p pendingFx) {
	p.tick, p.received = ev.Tick, t
	v.pending = append(v.pending, p)
}

// spawned remembers the entity's kind; a player's shot flashes at the
// muzzle and sounds, the own one at once at the predicted ship's nose
// (the own ship is drawn ahead of the world, at the prediction), the
// others' when the interpolated world reaches it.
func (v *View) spawned(ev *wire.Event, t float64, now time.Time) {
	v.kinds[ev.ID] = kindOf{kind: ev.Kind, tick: ev.Tick}
	if ev.Kind == wire.KindWaveBeam && !v.quiet(ev, t) {
		c := Cue{SoundBeam, 0.45}
		if v.own(ev.Owner) {
			c.Volume = 1
		}
		v.sounds = append(v.sounds, c)
		return
	}
	if ev.Kind != wire.KindPlayerMissile || v.quiet(ev, t) {
		return
	}
	p := pendingFx{
		fx:    model.Effect{Kind: model.FxMuzzle, X: float64(ev.X) - 4, Y: float64(ev.Y), Owner: ev.Owner},
		hasFx: true, snd: Cue{SoundShot, 0.35}, hasSnd: true,
	}
	if v.own(ev.Owner) {
		p.snd.Volume = 0.8
	}
	v.queue(ev, t, p)
	if x, y, _, ok := v.pred.Position(now); v.own(ev.Owner) && ok {
		q := &v.pending[len(v.pending)-1]
		q.tick = 0
		q.fx.X, q.fx.Y = float64(x+v.muzzleDX), float64(y)
	}
}

// destroyed forgets the entity; a killed one explodes, except a ship,
// whose explosion comes with its Death.
func (v *View) destroyed(ev *wire.Event, t float64) {
	k, known := v.kinds[ev.ID]
	delete(v.kinds, ev.ID)
	v.stageDestroyed(ev, t, k, known)
	killed := ev.Reason == wire.DestroyKilled || ev.Reason > wire.DestroyPlayerLeft
	if !killed || (known && k.kind == wire.KindPlayerShip) {
		return
	}
	v.queue(ev, t, pendingFx{
		fx:    model.Effect{Kind: model.FxExplosion, X: float64(ev.X), Y: float64(ev.Y), Owner: wire.NoPlayer},
		hasFx: true, snd: Cue{SoundExplosion, 0.7}, hasSnd: true,
	})
}

// died blows a ship up; another player out of lives gets a notice.
func (v *View) died(ev *wire.Event, t float64) {
	v.queue(ev, t, pendingFx{
		fx:    model.Effect{Kind: model.FxShipExplosion, X: float64(ev.X), Y: float64(ev.Y), Owner: ev.Player},
		hasFx: true, snd: Cue{SoundDeath, 1}, hasSnd: true,
	})
	if !v.own(ev.Player) && ev.Player < wire.MaxPlayers && ev.Lives == 0 {
		v.notices.Add(model.Notice{Text: v.names[ev.Player] + " is out of lives", Start: t, Player: ev.Player})
	}
}

// joined names the player and says so: our own ship's colour, the
// players already there, or a newcomer (with a sound).
func (v *View) joined(ev *wire.Event, t float64) {
	if ev.Player >= wire.MaxPlayers {
		return
	}
	if v.present[ev.Player] && v.names[ev.Player] == ev.Name {
		return // told twice
	}
	v.present[ev.Player] = true
	v.names[ev.Player] = ev.Name
	n := model.Notice{Start: t, Player: ev.Player}
	switch {
	case v.own(ev.Player):
		n.Text = fmt.Sprintf("You fly the %s ship, %s", model.Palettes[v.cfg.Palette%model.NumPalettes].Names[ev.Player], ev.Name)
	case v.quiet(ev, t):
		n.Text = ev.Name + " is here"
	default:
		n.Text = ev.Name + " joined"
		v.sounds = append(v.sounds, Cue{SoundJoin, 0.8})
	}
	v.notices.Add(n)
}

// left says a player left, and why when it did not choose to.
func (v *View) left(ev *wire.Event, t float64) {
	if ev.Player >= wire.MaxPlayers {
		return
	}
	v.present[ev.Player] = false
	name := v.names[ev.Player]
	if name == "" {
		name = fmt.Sprintf("Player %d", ev.Player+1)
	}
	why := ""
	switch ev.Reason {
	case wire.LeftTimedOut:
		why = " (timed out)"
	case wire.LeftKicked:
		why = " (kicked)"
	}
	v.notices.Add(model.Notice{Text: name + " left" + why, Start: t, Player: ev.Player})
}
