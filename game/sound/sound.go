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
	TrackMain  Track = iota // the title and Classic games
	TrackStage              // a stage
	TrackBoss               // a boss fight
	TrackClear              // the stage is cleared (plays once)
	TrackNone               // silence
)

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
	music   *audio.Player
	musicCh chan []byte
	vMusic  float64
	vFx     float64
}

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

// NewAudio opens the audio context and prepares the players; the music is
// synthesised in a goroutine and starts when ready.
func NewAudio(music, effects float64) *Audio {
	a := &Audio{ctx: context(), musicCh: make(chan []byte, 1), vMusic: music, vFx: effects}
	srcs := [numEffects][]byte{Shot: assets.Shot(), Explosion: assets.Explosion(), Death: assets.Death(), Join: assets.Join()}
	for e, b := range srcs {
		for v := range voices {
			a.effects[e][v] = a.ctx.NewPlayerF32FromBytes(b)
		}
	}
	go func() { a.musicCh <- assets.Music() }()
	return a
}

// Play implements Sound.
func (a *Audio) Play(e Effect, volume float64) {
	if e < 0 || e >= numEffects || a.vFx <= 0 || volume <= 0 {
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
	if a.music != nil {
		a.music.SetVolume(music * musicGain)
	}
}

// musicGain keeps the music under the effects.
const musicGain = 0.7

// Update implements Sound.
func (a *Audio) Update() {
	if a.music != nil {
		return
	}
	select {
	case b := <-a.musicCh:
		loop := audio.NewInfiniteLoopF32(bytes.NewReader(b), int64(len(b)))
		p, err := a.ctx.NewPlayerF32(loop)
		if err != nil {
			slog.Warn("music player", "err", err)
			return
		}
		a.music = p
		p.SetVolume(a.vMusic * musicGain)
		p.Play()
	default:
	}
}

// Enabled implements Sound.
func (a *Audio) Enabled() bool { return true }

// SetTrack implements Sound. (Only TrackMain exists so far.)
func (a *Audio) SetTrack(Track) {}

// SetCharge implements Sound. (No hum yet.)
func (a *Audio) SetCharge(float64) {}

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
