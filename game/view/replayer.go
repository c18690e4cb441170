package view

import (
	"time"

	"rtype/net/replay"
	"rtype/net/wire"
)

// Speeds of a Replayer.
const (
	MinSpeed = 0.25
	MaxSpeed = 4.0
)

// seekWarm is how much of the recording before a seek's point a View is
// shown, quickly, to reach the point with the interpolation, effects
// and notices of the live game.
const seekWarm = time.Second

// updateStep is the recording's time of one Update at speed 1.
const updateStep = time.Second / 60

// Replayer plays a recording (net/replay) through a View, as the live
// client fed it: the same frames at the same times. It plays, pauses,
// seeks, plays at 0.25x to 4x, and follows any player (the View's own
// player: its HUD panel marked, its ship labelled). It is headless; the
// game's replay scene draws its Frames. Not safe for concurrent use.
type Replayer struct {
	rep    *replay.Replay
	cfg    Config
	follow uint8
	pos    time.Duration // the recording's present
	speed  float64
	paused bool
	p      *replay.Player
	v      *View
	now    time.Time // the View's clock: the recording's time of pos
	over   bool
}

// NewReplayer returns the Replayer of rep at its start, following the
// recording player (the first player who joined in a server's
// recording). cfg is a View's Config; its Clock and Epoch are the
// Replayer's.
func NewReplayer(rep *replay.Replay, cfg Config) *Replayer {
	r := &Replayer{rep: rep, cfg: cfg, speed: 1, follow: rep.Header.Player}
	if r.follow >= wire.MaxPlayers {
		r.follow = 0
		for p, name := range rep.Players() {
			if name != "" {
				r.follow = uint8(p)
				break
			}
		}
	}
	r.Seek(0)
	return r
}

// Seek moves to d into the recording (clamped to its length): the
// records up to a second before are applied to a new client world, the
// events among them prime a new View (View.Prime: the players, the live
// entities, the Stage HUD's state), then the View is shown that last
// second, 60 Updates a second.
func (r *Replayer) Seek(d time.Duration) {
	d = min(max(d, 0), r.rep.Length)
	from := max(d-seekWarm, 0)
	r.p = replay.NewPlayer(r.rep, r.follow)
	r.p.Advance(from)
	r.p.DrainEvents(nil)
	r.now = r.rep.Time(from)
	cfg := r.cfg
	cfg.Clock = func() time.Time { return r.now }
	cfg.Epoch = r.rep.Time(0)
	r.v = New(r.p, cfg)
	r.rep.EachEvent(from, r.v.Prime)
	r.v.Primed()
	r.over = false
	for t := from; t < d; t += updateStep {
		r.step(t)
	}
	r.step(d)
}

// step brings the View to t into the recording.
func (r *Replayer) step(t time.Duration) Result {
	r.pos = t
	r.now = r.rep.Time(t)
	r.p.Advance(t)
	res := r.v.Update(r.p.Actions())
	r.over = r.over || res.GameOver
	return res
}

// Update plays 1/60 s of the game's time times the speed, unless paused
// or at the end, and returns what the View tells (sounds, the music).
func (r *Replayer) Update() Result {
	if r.paused || r.pos >= r.rep.Length {
		return Result{Music: r.v.stage.music}
	}
	return r.step(min(r.pos+time.Duration(float64(updateStep)*r.speed), r.rep.Length))
}

// Frame fills dst with what shows at the recording's present.
func (r *Replayer) Frame(dst *Frame) *Frame { return r.v.Frame(dst, r.now) }

// View returns the View shown (a seek or a follow makes a new one).
func (r *Replayer) View() *View { return r.v }

// Pos returns the recording's present; Length its length.
func (r *Replayer) Pos() time.Duration    { return r.pos }
func (r *Replayer) Length() time.Duration { return r.rep.Length }

// SetSpeed sets the speed, clamped to MinSpeed..MaxSpeed.
func (r *Replayer) SetSpeed(s float64) { r.speed = min(max(s, MinSpeed), MaxSpeed) }

// Speed returns the speed.
func (r *Replayer) Speed() float64 { return r.speed }

// SetPaused pauses or plays.
func (r *Replayer) SetPaused(p bool) { r.paused = p }

// Paused reports whether it is paused.
func (r *Replayer) Paused() bool { return r.paused }

// Ended reports whether the recording was played to its end.
func (r *Replayer) Ended() bool { return r.pos >= r.rep.Length }

// Follow shows the game as player p saw it from the present on (a new
// View, as a seek to the present).
func (r *Replayer) Follow(p uint8) {
	if p >= wire.MaxPlayers || p == r.follow {
		return
	}
	r.follow = p
	r.Seek(r.pos)
}

// Following returns the player followed.
func (r *Replayer) Following() uint8 { return r.follow }

// Replay returns the recording played.
func (r *Replayer) Replay() *replay.Replay { return r.rep }

// Err returns the first record that could not be applied, or nil.
func (r *Replayer) Err() error { return r.p.Err() }
