// Package sound plays the game's effects and music, or nothing: Sound is
// a small interface with a real implementation on Ebitengine's audio and a
// silent one, chosen before any audio context exists (an audio device that
// fails makes Ebitengine's RunGame return an error, so the game only opens
// one when a device is there).
package sound

import (
	"bytes"
	"log/slog"
	"sync"
	"time"

	"github.com/hajimehoshi/ebiten/v2/audio"

	"rtype/assets"
)

// Effect is a sound effect.
type Effect int

// The effects.
const (
	Shot Effect = iota
	Explosion
	Death
	Join
	// Stage mode.
	Beam          // a wave-cannon beam leaves
	ForceAttach   // the Force docks at the ship
	ForceLaunch   // the Force is launched
	Pickup        // an item is taken
	BossAlarm     // a boss is coming, or an attack is announced
	BossExplosion // a boss is destroyed
	numEffects
)

// Track is a music track.
type Track int

// The tracks.
const (
	TrackMain        Track = iota // the title and Classic games
	TrackStage                    // a stage
	TrackBoss                     // a boss fight
	TrackClear                    // the stage is cleared (plays once)
	TrackWarship                  // stage 2, the warship
	TrackWarshipBoss              // the warship boss's fight
	TrackNone                     // silence
	numTracks        = TrackNone
)

// TrackFor returns the track of a Stage event's music cue (wire.StageMusic's
// Name): "stage", "boss", "clear", "warship", "warship-boss", and "" (or
// any other cue) for silence.
func TrackFor(cue string) Track {
	switch cue {
	case "stage":
		return TrackStage
	case "boss":
		return TrackBoss
	case "clear":
		return TrackClear
	case "warship":
		return TrackWarship
	case "warship-boss":
		return TrackWarshipBoss
	}
	return TrackNone
}

// Sound plays effects and music.
type Sound interface {
	// Play starts an effect at volume (0 to 1, times the effects volume).
	Play(e Effect, volume float64)
	// SetVolumes sets the music and effects volumes, 0 to 1.
	SetVolumes(music, effects float64)
	// Update is called once per game tick: it starts the music once its
	// samples are ready.
	Update()
	// Enabled reports whether sound really plays.
	Enabled() bool
	// SetTrack switches the music to track t (nothing when it plays it).
	SetTrack(t Track)
	// SetCharge sets the hum of the own wave cannon charging: 0 silent,
	// up to 1 at full charge.
	SetCharge(level float64)
}

// Silent is a Sound that plays nothing.
type Silent struct{}

func (Silent) Play(Effect, float64)        {}
func (Silent) SetVolumes(float64, float64) {}
func (Silent) Update()                     {}
func (Silent) Enabled() bool               { return false }
func (Silent) SetTrack(Track)              {}
func (Silent) SetCharge(float64)           {}

// voices is how many copies of one effect can overlap.
const voices = 6

// Audio is the real Sound, on Ebitengine's audio context.
type Audio struct {
	ctx     *audio.Context
	effects [numEffects][voices]*audio.Player
	next    [numEffects]int
	// The music: a player per track once its samples are synthesised (in
	// a goroutine, on the first SetTrack that wants it, through ready).
	tracks [numTracks]*audio.Player
	ready  [numTracks]chan []byte
	asked  [numTracks]bool
	want   Track
	vMusic float64
	vFx    float64
	// fx brings the effects' samples, synthesised in a goroutine; their
	// players are nil (Play skips them) until then.
	fx chan [numEffects][]byte
	// The charge hum: a stream synthesised as it plays, its player made
	// on the first charge.
	hum       *assets.Hum
	humPlayer *audio.Player
}

// trackSamples synthesise the tracks.
var trackSamples = [numTracks]func() []byte{
	TrackMain:        assets.Music,
	TrackStage:       assets.StageMusic,
	TrackBoss:        assets.BossMusic,
	TrackClear:       assets.ClearJingle,
	TrackWarship:     assets.WarshipMusic,
	TrackWarshipBoss: assets.WarshipBossMusic,
}

// humBuffer is the hum player's buffer: short, so the pitch follows the
// charge within a frame or three.
const humBuffer = 40 * time.Millisecond

var (
	ctxOnce sync.Once
	ctx     *audio.Context
)

// context returns the process's one audio context (a second NewContext
// panics), created on first use.
func context() *audio.Context {
	ctxOnce.Do(func() { ctx = audio.NewContext(assets.SampleRate) })
	return ctx
}

// effectSamples synthesise the effects, in a goroutine: the Stage ones
// are a second of work together, and in a browser (one thread) even the
// Classic ones would stall a frame (assets paces its synthesis there).
var effectSamples = [numEffects]func() []byte{
	Shot: assets.Shot, Explosion: assets.Explosion, Death: assets.Death, Join: assets.Join,
	Beam: assets.Beam, ForceAttach: assets.ForceAttach, ForceLaunch: assets.ForceLaunch,
	Pickup: assets.Pickup, BossAlarm: assets.BossAlarm, BossExplosion: assets.BossExplosion,
}

// NewAudio opens the audio context; the effects and the main music are
// synthesised in goroutines, their players made by Update when ready
// (the game's first Updates play no effects).
func NewAudio(music, effects float64) *Audio {
	a := &Audio{ctx: context(), vMusic: music, vFx: effects, want: TrackMain, fx: make(chan [numEffects][]byte, 1)}
	go func() {
		var fx [numEffects][]byte
		for e := range numEffects {
			fx[e] = effectSamples[e]()
		}
		a.fx <- fx
	}()
	for t := range a.ready {
		a.ready[t] = make(chan []byte, 1)
	}
	a.load(TrackMain)
	return a
}

// effectPlayers makes the voices of effect e.
func (a *Audio) effectPlayers(e Effect, b []byte) {
	for v := range voices {
		a.effects[e][v] = a.ctx.NewPlayerF32FromBytes(b)
	}
}

// load starts synthesising track t's samples, once.
func (a *Audio) load(t Track) {
	if a.asked[t] {
		return
	}
	a.asked[t] = true
	gen, ch := trackSamples[t], a.ready[t]
	go func() { ch <- gen() }()
}

// Play implements Sound.
func (a *Audio) Play(e Effect, volume float64) {
	if e < 0 || e >= numEffects || a.vFx <= 0 || volume <= 0 || a.effects[e][0] == nil {
		return
	}
	// The next voice, or the first idle one.
	i := a.next[e]
	for k := range voices {
		if !a.effects[e][(i+k)%voices].IsPlaying() {
			i = (i + k) % voices
			break
		}
	}
	a.next[e] = (i + 1) % voices
	p := a.effects[e][i]
	p.Pause()
	if err := p.Rewind(); err != nil {
		return
	}
	p.SetVolume(min(volume, 1) * a.vFx)
	p.Play()
}

// SetVolumes implements Sound.
func (a *Audio) SetVolumes(music, effects float64) {
	a.vMusic, a.vFx = music, effects
	for _, p := range a.tracks {
		if p != nil {
			p.SetVolume(music * musicGain)
		}
	}
	if a.humPlayer != nil {
		a.humPlayer.SetVolume(effects)
	}
}

// musicGain keeps the music under the effects.
const musicGain = 0.7

// Update implements Sound: it makes the players of the effects and of
// the tracks whose samples are ready, and starts the track wanted.
func (a *Audio) Update() {
	select {
	case fx := <-a.fx:
		for e := range numEffects {
			a.effectPlayers(e, fx[e])
		}
	default:
	}
	for t := range numTracks {
		if !a.asked[t] || a.tracks[t] != nil {
			continue
		}
		select {
		case b := <-a.ready[t]:
			var p *audio.Player
			if t == TrackClear {
				p = a.ctx.NewPlayerF32FromBytes(b) // once
			} else {
				var err error
				p, err = a.ctx.NewPlayerF32(audio.NewInfiniteLoopF32(bytes.NewReader(b), int64(len(b))))
				if err != nil {
					slog.Warn("music player", "track", t, "err", err)
					continue
				}
			}
			a.tracks[t] = p
			p.SetVolume(a.vMusic * musicGain)
			if t == a.want {
				p.Play()
			}
		default:
		}
	}
}

// Enabled implements Sound.
func (a *Audio) Enabled() bool { return true }

// SetTrack implements Sound: the track playing stops (it starts from
// its beginning next time), and t starts, at once when its samples are
// ready, else when Update finds them synthesised. TrackNone (or an
// unknown track) is silence.
func (a *Audio) SetTrack(t Track) {
	if t < 0 || t > TrackNone {
		t = TrackNone
	}
	if t == a.want {
		return
	}
	if a.want != TrackNone {
		if p := a.tracks[a.want]; p != nil {
			p.Pause()
			if err := p.Rewind(); err != nil {
				slog.Warn("music rewind", "track", a.want, "err", err)
			}
		}
	}
	a.want = t
	if t == TrackNone {
		return
	}
	if p := a.tracks[t]; p != nil {
		p.Play()
		return
	}
	a.load(t)
}

// SetCharge implements Sound: the hum follows level (0 silent to 1),
// its player made on the first charge.
func (a *Audio) SetCharge(level float64) {
	if a.hum == nil {
		if level <= 0 {
			return
		}
		a.hum = assets.NewHum()
		p, err := a.ctx.NewPlayerF32(a.hum)
		if err != nil {
			slog.Warn("charge hum player", "err", err)
			a.hum = nil
			return
		}
		p.SetBufferSize(humBuffer)
		p.SetVolume(a.vFx)
		p.Play()
		a.humPlayer = p
	}
	a.hum.Set(level)
}

// New returns the Sound to use: Silent when mute, or when Probe finds no
// sound device (logged once), else an Audio.
func New(mute bool, music, effects float64, log *slog.Logger) Sound {
	if mute {
		log.Info("sound muted: no audio device opened")
		return Silent{}
	}
	if ok, why := Probe(); !ok {
		log.Info("no sound device: running without sound", "why", why)
		return Silent{}
	}
	return NewAudio(music, effects)
}
