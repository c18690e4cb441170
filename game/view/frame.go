package view

import (
	"math"
	"time"

	"rtype/game/core"
	"rtype/game/interp"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render/model"
	"rtype/sim"
	"rtype/vocab"
)

// Frame is everything one drawn frame shows, at its time.
type Frame struct {
	// T is the frame's time in seconds since Config.Epoch: the clock of
	// the animations, the effects and the notices.
	T float64
	// Age is the time since the View was made, in seconds.
	Age float64
	// RenderTick is the server time the world is drawn at, in ticks
	// (fractional), and NewestTick the tick of the newest snapshot held.
	RenderTick float64
	NewestTick uint32
	// Sprites are the entities, placed at the frame's time: the
	// interpolated world, the own ship at its prediction and the own
	// missiles led to the server's present.
	Sprites []model.Sprite
	// Effects are the effects in flight (draw those Active at T).
	Effects []model.Effect
	// Notices are the notices on screen, oldest first.
	Notices []model.Notice
	// HUD is the players' panels.
	HUD [wire.MaxPlayers]model.HUDPlayer
	// Labels are the names written under the ships.
	Labels []Label
	// HitFlash is the opacity of the red flash of the own ship blowing
	// up, 0 for none; Out that of "you are out", 0 while in the game.
	HitFlash, Out float64
	// Shake is how far the screen shakes, in pixels (0 for still): when
	// the own ship or a boss blows up. The game shakes it only when its
	// player wants (ShakeAt).
	Shake float64
	// Own is the own ship's placement.
	Own Own
	// Net are the network overlay's figures.
	Net Net
	// Stage is what a Stage game adds to the screen (7.12).
	Stage model.StageHUD
	// Terrain is the stage's terrain at RenderTick (none: no Tiles).
	Terrain model.Terrain

	drawn []interp.Drawn
}

// Own is where the own ship is drawn, and where the interpolation alone
// would draw it.
type Own struct {
	// Shown is true when the frame has the own ship.
	Shown bool
	// X and Y are where it is drawn; Predicted tells whether that is the
	// prediction (else the interpolation).
	X, Y      float64
	Predicted bool
	// InterpX and InterpY are where the interpolation places it.
	InterpX, InterpY float64
}

// Label is a name written under a ship, in its player's colour.
type Label struct {
	Text   string
	X, Y   float64
	Player uint8
}

// Net are the figures of the network overlay, read every 0.25 s.
type Net struct {
	Stats client.Stats
	// Delay is the interpolation delay, Behind how far the render time is
	// behind the newest snapshot, Extrapolating whether it is past it.
	Delay, Behind time.Duration
	Extrapolating bool
	// Actions are the actions held.
	Actions uint8
}

// Frame fills dst with what shows at now (a drawn frame's time, from the
// View's clock) and returns it; dst's slices are reused. It changes
// nothing in the View: the world is interpolated at the render clock's
// time at now, the own ship predicted at now.
func (v *View) Frame(dst *Frame, now time.Time) *Frame {
	t := v.t(now)
	dst.T, dst.Age = t, t-v.start
	v.sprites(dst, now)
	dst.Effects = append(dst.Effects[:0], v.fx.List...)
	dst.Notices = append(dst.Notices[:0], v.notices.List...)
	v.hud(dst)
	v.labels(dst)
	dst.HitFlash, dst.Out = 0, 0
	if t >= v.hitAt && t-v.hitAt < hitFlash {
		dst.HitFlash = 1 - (t-v.hitAt)/hitFlash
	}
	if v.out {
		dst.Out = min(1, max(0, (t-v.outAt)/outFadeIn))
	}
	dst.Shake = v.shake(t)
	dst.Net = v.net
	v.stageHUD(dst, t)
	v.terrain.frame(&dst.Terrain, dst.RenderTick)
	return dst
}

// sprites places the entities at now.
func (v *View) sprites(dst *Frame, now time.Time) {
	r := v.ip.RenderTickAt(now)
	dst.RenderTick, dst.NewestTick = r, v.newest
	dst.drawn = v.ip.EntitiesAt(dst.drawn, r)
	px, py, pframe, predicted := v.pred.Position(now)
	// The own missiles are drawn at their present position on the
	// server's clock: the interpolation shows them as they were (newest -
	// render tick) + one way (rtt/2) ago, while the own ship is drawn at
	// the prediction, ahead of the interpolation; moved forward along
	// their velocity (straight lines), they leave from the predicted
	// ship's nose rather than from where the ship was ~100 ms ago.
	lead := float32(0)
	if len(v.frames) > 0 {
		behind := (float64(v.newest) - r) / float64(v.cfg.Rules.TickRate)
		lead = float32(behind + v.stats.RTT.Seconds()/2)
	}
	dst.Sprites = dst.Sprites[:0]
	dst.Own = Own{}
	for i := range dst.drawn {
		d := &dst.drawn[i]
		sp := model.Sprite{ID: d.ID, Kind: d.Kind, Owner: d.Owner, Frame: d.Frame, X: float64(d.DrawX), Y: float64(d.DrawY)}
		if d.HasMotion {
			// v2: the motion at the render tick, exactly (7.5).
			sp.X, sp.Y, _, _ = d.Motion.At(r)
			if d.Kind == wire.KindPlayerShip && v.blinking(d.Owner, r) {
				sp.Frame = sim.ShipFrameInvuln
			}
		}
		if d.Owner == v.me && d.Owner < wire.MaxPlayers {
			switch d.Kind {
			case wire.KindPlayerShip:
				dst.Own = Own{Shown: true, InterpX: sp.X, InterpY: sp.Y}
				if predicted {
					dst.Own.Predicted = true
					sp.X, sp.Y = float64(px), float64(py)
					if sp.Frame != sim.ShipFrameInvuln { // the blink is the server's
						sp.Frame = pframe
					}
				}
				dst.Own.X, dst.Own.Y = sp.X, sp.Y
			case wire.KindPlayerMissile:
				// A new missile is led by no more than its age on the
				// render clock: it leaves from the nose (its Spawn, where
				// the interpolation has it) and catches up with the
				// server's present at twice its speed, instead of
				// appearing a lead's flight (~70 px) ahead of the ship.
				l := lead
				if d.Spawned > 0 {
					l = min(l, float32(max(0, (r-float64(d.Spawned))/float64(v.cfg.Rules.TickRate))))
				}
				if d.HasMotion {
					sp.X, sp.Y, _, _ = d.Motion.At(r + float64(l)*float64(v.cfg.Rules.TickRate))
					break
				}
				sp.X += float64(d.VX * l)
				sp.Y += float64(d.VY * l)
			case wire.KindForce:
				v.ownForce(&sp, &d.Motion, d.HasMotion, r, float64(lead)*float64(v.cfg.Rules.TickRate), float64(px), float64(py), predicted, dst.T)
			}
		}
		dst.Sprites = append(dst.Sprites, sp)
	}
}

// blinking reports whether the ship of player p shows the invulnerable
// frame at render tick r (7.5, Blink): during the player's last
// invulnerability, in the even half-periods of blink_ticks.
func (v *View) blinking(p uint8, r float64) bool {
	if p >= wire.MaxPlayers || len(v.frames) == 0 {
		return false
	}
	pl := &v.newestFrame().Players[p]
	t := math.Floor(r)
	start := float64(pl.InvulnStart)
	if pl.InvulnTicks == 0 || t < start || t >= start+float64(pl.InvulnTicks) {
		return false
	}
	return uint64(t-start)/uint64(v.blink)%2 == 0
}

// hud fills the players' panels: the player table, the leader, and the
// panels something of the play area is under (drawn see-through).
func (v *View) hud(dst *Frame) {
	var present [wire.MaxPlayers]bool
	var scores [wire.MaxPlayers]uint32
	for p, pl := range v.players {
		present[p], scores[p] = pl.Present, pl.Score
		name := pl.Name
		if name == "" {
			name = v.names[p]
		}
		dst.HUD[p] = model.HUDPlayer{Present: pl.Present, Name: name, Score: pl.Score, Lives: int(pl.Lives), HasShip: pl.HasShip, Local: uint8(p) == v.me}
	}
	hudH := v.cfg.HUDHeight
	if hudH <= 0 {
		hudH = model.HUDHeight
	}
	for _, sp := range dst.Sprites {
		if underPanel(sp.Kind) {
			if p := model.HUDSlotAtHeight(sp.X, sp.Y, 16, hudH); p >= 0 {
				dst.HUD[p].Behind = true
			}
		}
	}
	if lead, ok := core.Leader(present, scores); ok {
		dst.HUD[lead].Leader = true
	}
}

// labels writes the players' names under the other players' ships, and
// "YOU" under the own one for the first seconds.
func (v *View) labels(dst *Frame) {
	dst.Labels = dst.Labels[:0]
	for _, sp := range dst.Sprites {
		if sp.Kind != wire.KindPlayerShip || sp.Owner >= wire.MaxPlayers {
			continue
		}
		name := v.players[sp.Owner].Name
		if name == "" {
			name = v.names[sp.Owner]
		}
		if v.own(sp.Owner) {
			if dst.Age > ownLabel {
				continue
			}
			name = "YOU"
		}
		dst.Labels = append(dst.Labels, Label{Text: name, X: sp.X, Y: sp.Y + 13, Player: sp.Owner})
	}
}

// underPanel reports whether an entity of kind k under a player's panel
// makes it see-through: ships, foes, enemy shots and items (what a player
// must see), not the players' own shots.
func underPanel(k uint8) bool {
	switch k {
	case wire.KindPlayerShip, wire.KindBydosSlave, wire.KindEnemyMissile,
		wire.KindPowerUp, wire.KindPowArmor, wire.KindChaser, wire.KindTurret, wire.KindArmored,
		wire.KindMidBoss, wire.KindBoss, wire.KindBossCore, wire.KindBossBullet,
		vocab.KindHatch, vocab.KindCrawler, vocab.KindWarship, vocab.KindPlate:
		return true
	}
	return false
}

// Screen shake: its amplitudes in pixels when the own ship and when a boss
// blows up; it fades out over the hit flash, and over the boss
// explosion's first half.
const (
	shakeHit  = 7.0
	shakeBoss = 10.0
)

// shake returns the screen shake's amplitude at t.
func (v *View) shake(t float64) float64 {
	a := 0.0
	if t >= v.hitAt && t-v.hitAt < hitFlash {
		a = shakeHit * (1 - (t-v.hitAt)/hitFlash)
	}
	for _, e := range v.fx.List {
		if e.Kind == model.FxBossExplosion {
			if p := e.Progress(t) * 2; p >= 0 && p < 1 {
				a = max(a, shakeBoss*(1-p))
			}
		}
	}
	return a
}

// ShakeAt returns the screen's offset at time t for a shake of amplitude
// a: a quick, deterministic wobble.
func ShakeAt(a, t float64) (dx, dy float64) {
	if a <= 0 {
		return 0, 0
	}
	return math.Round(a * math.Sin(t*73)), math.Round(a * math.Cos(t*59))
}
