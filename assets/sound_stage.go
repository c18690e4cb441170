package assets

import (
	"encoding/binary"
	"math"
	"sync/atomic"
)

// The sounds of Stage mode: effects (beam, Force attach and launch,
// pickup, boss alarm and explosion), the stage and boss music, the clear
// jingle, and the wave cannon's charge hum, synthesised as it plays.

// Durations of the Stage effects, in sample frames.
const (
	beamSndFrames       = SampleRate * 550 / 1000
	forceAttachFrames   = SampleRate * 220 / 1000
	forceLaunchFrames   = SampleRate * 380 / 1000
	pickupFrames        = SampleRate * 420 / 1000
	bossAlarmFrames     = SampleRate * 1800 / 1000
	bossExplosionFrames = SampleRate * 2600 / 1000
)

// Stage and boss music and the clear jingle: beats at their tempo.
const (
	stageBPM     = 132
	stageBeats   = 32 // 8 bars
	stageBeat    = SampleRate * 60 / stageBPM
	bossBPM      = 152
	bossBeats    = 32
	bossBeat     = SampleRate * 60 / bossBPM
	clearBPM     = 120
	clearBeat    = SampleRate * 60 / clearBPM
	clearFrames  = 9 * clearBeat // 4.5 s
	stageLoopLen = stageBeats * stageBeat
	bossLoopLen  = bossBeats * bossBeat
)

// StageMusicDuration, BossMusicDuration and ClearDuration are the
// lengths in seconds of StageMusic, BossMusic and ClearJingle.
const (
	StageMusicDuration = float64(stageLoopLen) / SampleRate
	BossMusicDuration  = float64(bossLoopLen) / SampleRate
	ClearDuration      = float64(clearFrames) / SampleRate
)

var beamSnd, attachSnd, launchSnd, pickupSnd, alarmSnd, bossBoomSnd, stageMusic, bossMusic, clearSnd cached

// Beam returns a 550 ms wave-cannon blast: a falling zap over a noisy
// whoosh.
func Beam() []byte { return beamSnd.get(genBeam) }

// ForceAttach returns a 220 ms metallic clunk, the Force docking.
func ForceAttach() []byte { return attachSnd.get(genForceAttach) }

// ForceLaunch returns a 380 ms rising whoosh, the Force launched.
func ForceLaunch() []byte { return launchSnd.get(genForceLaunch) }

// Pickup returns a 420 ms rising chime, an item taken.
func Pickup() []byte { return pickupSnd.get(genPickup) }

// BossAlarm returns a 1.8 s two-tone klaxon, three times: a boss comes or
// an attack is announced.
func BossAlarm() []byte { return alarmSnd.get(genBossAlarm) }

// BossExplosion returns a 2.6 s chain of explosions ending in a deep
// rumble, a boss destroyed.
func BossExplosion() []byte { return bossBoomSnd.get(genBossExplosion) }

// StageMusic returns the stage's music, a seamless loop of
// StageMusicDuration seconds (132 BPM, D minor, driving; peak 0.5).
func StageMusic() []byte { return stageMusic.get(genStageMusic) }

// BossMusic returns the boss fight's music, a seamless loop of
// BossMusicDuration seconds (152 BPM, tense, chromatic; peak 0.5).
func BossMusic() []byte { return bossMusic.get(genBossMusic) }

// ClearJingle returns the stage-clear fanfare, ClearDuration seconds, to
// play once (peak 0.5).
func ClearJingle() []byte { return clearSnd.get(genClear) }

// ---------------------------------------------------------------------------
// effects

// finish fades a stereo sound in and out (in and out frames), scales it to
// peak and encodes it.
func finish(l, r []float64, in, out int, peak float64) []byte {
	fadeEdges(l, in, out)
	fadeEdges(r, in, out)
	normalize(peak, l, r)
	return encode(l, r)
}

func genBeam() []byte {
	n := beamSndFrames
	l := make([]float64, n)
	r := make([]float64, n)
	var o1, o2, o3 osc
	var lp, nl lowpass
	nz := noise(0xBEA4)
	for i := 0; i < n; i++ {
		pace()
		t := float64(i) / SampleRate
		f := 180 + 1400*math.Exp(-t*9)
		env := math.Min(1, t/0.005) * math.Exp(-t*4.5)
		zap := 0.5*o1.saw(f) + 0.4*o2.pulse(f*1.5, 0.25) + 0.3*o3.sine(f*0.5)
		v := lp.step(zap, 1200+5000*math.Exp(-t*6)) * env
		w := nl.step(nz(), 2500) * math.Exp(-t*7) * 0.9
		// A slow phaser-like stereo wobble.
		p := 0.3 * math.Sin(twoPi*7*t)
		l[i] = v*(1-p) + w
		r[i] = v*(1+p) + w
	}
	return finish(l, r, 48, 2400, 0.55)
}

func genForceAttach() []byte {
	n := forceAttachFrames
	l := make([]float64, n)
	var o1, o2, o3 osc
	nz := noise(0xA77A)
	var lp lowpass
	for i := 0; i < n; i++ {
		pace()
		t := float64(i) / SampleRate
		click := lp.step(nz(), 4000) * math.Exp(-t*120)
		ring := (0.6*o1.sine(660) + 0.4*o2.sine(990*1.01) + 0.3*o3.sine(1480)) * math.Exp(-t*18)
		thud := math.Sin(twoPi*90*t) * math.Exp(-t*30)
		l[i] = click*1.2 + ring*0.5 + thud*0.8
	}
	fadeEdges(l, 24, 960)
	normalize(0.5, l)
	return encode(l, l)
}

func genForceLaunch() []byte {
	n := forceLaunchFrames
	l := make([]float64, n)
	r := make([]float64, n)
	var o osc
	var lp1, lp2 lowpass
	nz := noise(0x1A57)
	for i := 0; i < n; i++ {
		pace()
		t := float64(i) / SampleRate
		u := float64(i) / float64(n)
		f := 220 * math.Pow(8, u)
		env := math.Min(1, t/0.02) * (1 - u)
		tone := o.pulse(f, 0.4) * 0.35
		w := lp2.step(lp1.step(nz(), 500+6000*u), 500+6000*u)
		v := (tone + w*1.4) * env
		// It flies away: from the centre towards the right.
		l[i] = v * (1 - 0.5*u)
		r[i] = v * (1 + 0.3*u)
	}
	return finish(l, r, 48, 1440, 0.5)
}

func genPickup() []byte {
	n := pickupFrames
	l := make([]float64, n)
	r := make([]float64, n)
	notes := [...]float64{72, 76, 79, 84} // C E G C, up
	for k, nt := range notes {
		s0 := k * SampleRate * 60 / 1000
		f := midiHz(nt)
		var o1, o2 osc
		pan := -0.4 + 0.27*float64(k)
		for i := s0; i < n; i++ {
			pace()
			t := float64(i-s0) / SampleRate
			env := math.Min(1, t/0.003) * math.Exp(-t*9)
			v := (0.6*o1.pulse(f, 0.5) + 0.4*o2.sine(f*2)) * env
			l[i] += v * (1 - pan) * 0.5
			r[i] += v * (1 + pan) * 0.5
		}
	}
	return finish(l, r, 48, 2400, 0.45)
}

func genBossAlarm() []byte {
	n := bossAlarmFrames
	l := make([]float64, n)
	var o1, o2 osc
	var lp lowpass
	period := n / 3
	for i := 0; i < n; i++ {
		pace()
		k := i % period
		t := float64(k) / SampleRate
		// Two tones in each third: high then low.
		f := 880.0
		if k >= period/2 {
			f = 660
		}
		gate := math.Min(1, math.Min(t/0.01, float64(period-k)/float64(SampleRate)/0.03))
		v := lp.step(0.6*o1.saw(f)+0.4*o2.pulse(f*1.005, 0.5), 3500)
		l[i] = v * gate * (0.8 + 0.2*math.Sin(twoPi*12*float64(i)/SampleRate))
	}
	fadeEdges(l, 96, 2400)
	normalize(0.5, l)
	return encode(l, l)
}

func genBossExplosion() []byte {
	n := bossExplosionFrames
	l := make([]float64, n)
	r := make([]float64, n)
	// A chain of blasts across the stereo field, then the big one.
	for k := 0; k < 5; k++ {
		s0 := k * SampleRate * 180 / 1000
		m := n - s0
		bl, br := boom(m, 0xB055+uint64(k), 2800, 150, 0.22+0.1*float64(k), 0.7+0.2*float64(k))
		pan := []float64{-0.6, 0.5, -0.2, 0.7, 0}[k]
		g := 0.5 + 0.15*float64(k)
		for i := 0; i < m; i++ {
			pace()
			l[s0+i] += bl[i] * g * (1 - pan*0.7)
			r[s0+i] += br[i] * g * (1 + pan*0.7)
		}
	}
	var rum osc
	for i := 0; i < n; i++ {
		pace()
		t := float64(i) / SampleRate
		v := rum.sine(38+20*math.Exp(-t*2)) * math.Min(1, t/0.8) * math.Exp(-t*1.4) * 0.9
		l[i] += v
		r[i] += v
	}
	return finish(l, r, 96, 9600, 0.7)
}

// ---------------------------------------------------------------------------
// music

// drums plays a beat of drums at frame bs of a beat bf frames long: the
// kick on each beat (and on the off-beat when double), the snare on 2 and
// 4, the hats.
func drums(dry *track, beat, bf int, double bool, nz func() float64) {
	bs := beat * bf
	playKick(dry, bs)
	if double && beat%2 == 1 {
		playKick(dry, bs+bf/2)
	}
	if beat%2 == 1 {
		playSnare(dry, bs, nz)
	}
	playHats(dry, beat, bf, nz)
}

// The stage's progression: Dm - Bb - C - A, two bars each.
var (
	stageRoots = [4]int{38, 34, 36, 33}
	stageTones = [4][]int{{62, 65, 69}, {58, 62, 65}, {60, 64, 67}, {57, 61, 64}}
	stageTune  = []tuneNote{
		{0, 1.5, 74}, {1.5, 0.5, 76}, {2, 1, 77}, {3, 1, 76},
		{4, 2, 74}, {6, 1, 69}, {7, 1, 72},
		{8, 1.5, 70}, {9.5, 0.5, 72}, {10, 1, 74}, {11, 1, 77},
		{12, 3, 74},
		{16, 1.5, 72}, {17.5, 0.5, 74}, {18, 1, 76}, {19, 1, 79},
		{20, 2, 76}, {22, 1, 72}, {23, 1, 76},
		{24, 1.5, 73}, {25.5, 0.5, 76}, {26, 1, 79}, {27, 1, 81},
		{28, 4, 81},
	}
)

func genStageMusic() []byte {
	dry := newTrack(stageLoopLen)
	send := newTrack(stageLoopLen)
	chord := func(beat int) int { return (beat / 8) % 4 }
	for step := 0; step < stageBeats*2; step++ {
		note := float64(stageRoots[chord(step/2)])
		if step%2 == 1 {
			note += 12
		}
		bassNote(dry, step*stageBeat/2, stageBeat/2-stageBeat/16, midiHz(note), 0.4)
	}
	for c := 0; c < 4; c++ {
		padChord(dry, c*8*stageBeat, 8*stageBeat, stageTones[c], 0.06)
	}
	for step := 0; step < stageBeats*4; step++ {
		tones := stageTones[chord(step/4)]
		idx := [...]int{0, 2, 1, 2, 3, 2, 1, 2}[step%8]
		note := float64(tones[idx%3] + 12*(idx/3))
		g := 0.13
		if step%4 == 0 {
			g = 0.17
		}
		pluck(send, step*stageBeat/4, stageBeat/2, midiHz(note), g, 0.125, 0.4*math.Sin(float64(step)*0.3))
	}
	playTune(send, stageTune, stageBeat, 0, 0.2)
	nz := noise(0x57A6E)
	for beat := 0; beat < stageBeats; beat++ {
		drums(dry, beat, stageBeat, false, nz)
	}
	out := echo(dry, send, stageBeat*3/4)
	normalize(0.5, out.l, out.r)
	return encode(out.l, out.r)
}

// The boss's ostinato: E and F in the bass, a minor second that does not
// resolve; stabs of dissonant chords.
var (
	bossRoots = [4]int{28, 29, 28, 27}
	bossStabs = [4][]int{{64, 67, 71}, {65, 68, 71}, {64, 67, 70}, {63, 66, 70}}
	bossMotif = []tuneNote{
		{0, 0.5, 76}, {0.5, 0.5, 77}, {1, 1, 76}, {3, 0.5, 71}, {3.5, 0.5, 72},
		{4, 2, 71}, {6, 1, 70}, {7, 1, 71},
		{16, 0.5, 79}, {16.5, 0.5, 80}, {17, 1, 79}, {19, 0.5, 76}, {19.5, 0.5, 77},
		{20, 2, 76}, {22, 1, 75}, {23, 1, 74},
	}
)

func genBossMusic() []byte {
	dry := newTrack(bossLoopLen)
	send := newTrack(bossLoopLen)
	chord := func(beat int) int { return (beat / 8) % 4 }
	for step := 0; step < bossBeats*4; step++ {
		// Sixteenths of the root, an octave jump on the last of each beat.
		note := float64(bossRoots[chord(step/4)])
		if step%4 == 3 {
			note += 12
		}
		bassNote(dry, step*bossBeat/4, bossBeat/4-bossBeat/32, midiHz(note), 0.34)
	}
	for beat := 0; beat < bossBeats; beat++ {
		if beat%4 == 0 || beat%4 == 3 {
			for _, nt := range bossStabs[chord(beat)] {
				pluck(send, beat*bossBeat+bossBeat/2*(beat%4/3), bossBeat/2, midiHz(float64(nt)), 0.09, 0.5, 0)
			}
		}
	}
	playTune(send, bossMotif, bossBeat, 0, 0.17)
	playTune(send, bossMotif, bossBeat, -12, 0.1) // an octave down, for weight
	nz := noise(0xB055E)
	for beat := 0; beat < bossBeats; beat++ {
		drums(dry, beat, bossBeat, true, nz)
	}
	out := echo(dry, send, bossBeat/2)
	normalize(0.5, out.l, out.r)
	return encode(out.l, out.r)
}

// genClear is the clear jingle: a rising fanfare in C over F and G, and a
// held C major chord that fades out.
func genClear() []byte {
	dry := newTrack(clearFrames + SampleRate) // room for the tails
	send := newTrack(clearFrames + SampleRate)
	fan := []tuneNote{
		{0, 0.5, 67}, {0.5, 0.5, 72}, {1, 0.5, 76}, {1.5, 0.5, 79},
		{2, 0.5, 77}, {2.5, 0.5, 81}, {3, 0.5, 79}, {3.5, 0.5, 83},
		{4, 4, 84},
	}
	playTune(send, fan, clearBeat, 0, 0.25)
	playTune(send, fan, clearBeat, -12, 0.12)
	for k, c := range [][]int{{60, 64, 67}, {65, 69, 72}, {67, 71, 74}} {
		padChord(dry, k*clearBeat*4/3, clearBeat*4/3, c, 0.05)
	}
	padChord(dry, 4*clearBeat, 4*clearBeat, []int{60, 64, 67, 72}, 0.06)
	for k, nt := range []int{36, 41, 43} {
		bassNote(dry, k*clearBeat*4/3, clearBeat*4/3-clearBeat/16, midiHz(float64(nt)), 0.4)
	}
	bassNote(dry, 4*clearBeat, 4*clearBeat, midiHz(36), 0.4)
	playKick(dry, 0)
	playKick(dry, 4*clearBeat)
	out := echo(dry, send, clearBeat*3/4)
	l, r := out.l[:clearFrames], out.r[:clearFrames]
	return finish(l, r, 48, SampleRate, 0.5)
}

// ---------------------------------------------------------------------------
// the charge hum

// Hum is the wave cannon's charge hum, synthesised as it plays: an
// endless stream of stereo float32 PCM (read it with Read, e.g. through
// an audio player) whose pitch and loudness follow the level given to Set,
// smoothed so that changes never click. At level 0 it is silent. Set may
// be called from any goroutine; Read from one at a time.
type Hum struct {
	level atomic.Uint64 // math.Float64bits of the target level, 0 to 1

	vol, lv    float64 // smoothed loudness and level
	o1, o2, o3 osc
	trem       osc
	lp         lowpass
}

// NewHum returns a silent hum.
func NewHum() *Hum { return &Hum{} }

// Set sets the level of the charge, 0 (silent) to 1 (full).
func (h *Hum) Set(level float64) {
	h.level.Store(math.Float64bits(min(max(level, 0), 1)))
}

// humSmooth is how much of the way to the target each sample goes: about
// 15 ms.
const humSmooth = 1.0 / (0.015 * SampleRate)

// Read fills p with whole stereo frames (8 bytes each) of the hum and
// returns how many bytes it wrote; it never fails.
func (h *Hum) Read(p []byte) (int, error) {
	target := math.Float64frombits(h.level.Load())
	tvol := 0.0
	if target > 0 {
		tvol = 0.12 + 0.28*target
	}
	n := len(p) / 8
	for i := 0; i < n; i++ {
		h.vol += (tvol - h.vol) * humSmooth
		h.lv += (target - h.lv) * humSmooth
		var v float64
		if h.vol > 1e-5 {
			f := 70 + 330*math.Pow(h.lv, 1.3)
			tr := 0.75 + 0.25*h.trem.sine(5+20*h.lv)
			raw := 0.5*h.o1.saw(f) + 0.35*h.o2.pulse(f*2.003, 0.3) + 0.3*h.o3.sine(f*0.5)
			v = h.lp.step(raw, 300+3500*h.lv) * tr * h.vol
		} else {
			h.vol = 0
		}
		b := math.Float32bits(float32(v))
		binary.LittleEndian.PutUint32(p[i*8:], b)
		binary.LittleEndian.PutUint32(p[i*8+4:], b)
	}
	return n * 8, nil
}
