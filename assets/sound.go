package assets

import (
	"encoding/binary"
	"math"
	"sync"
)

// SampleRate is the sample rate in Hz of every sound returned by this package.
//
// All sounds are interleaved stereo (left, right) 32-bit float little-endian
// PCM, the format taken by Ebitengine's audio.NewPlayerF32FromBytes. Each
// sound is synthesised deterministically on first use and cached; the
// returned slices are shared and must not be modified.
const SampleRate = 48000

// Durations of the sound effects, in sample frames.
const (
	shotFrames      = SampleRate * 80 / 1000
	explosionFrames = SampleRate * 600 / 1000
	deathFrames     = SampleRate * 1200 / 1000
	joinFrames      = SampleRate * 300 / 1000
)

// Music timing: 8 bars of 4/4 at 120 BPM = 16 seconds.
const (
	musicBPM      = 120
	musicBeats    = 32
	beatFrames    = SampleRate * 60 / musicBPM
	musicFrames   = musicBeats * beatFrames
	sixteenthStep = beatFrames / 4
)

// MusicDuration is the length of the Music loop in seconds.
const MusicDuration = float64(musicFrames) / SampleRate

type cached struct {
	once sync.Once
	data []byte
}

func (c *cached) get(f func() []byte) []byte {
	c.once.Do(func() { c.data = f() })
	return c.data
}

var shotSnd, explosionSnd, deathSnd, joinSnd, musicSnd cached

// Shot returns an 80 ms laser zap for the player's fire.
func Shot() []byte { return shotSnd.get(genShot) }

// Explosion returns a 600 ms noise burst for a destroyed enemy.
func Explosion() []byte { return explosionSnd.get(genExplosion) }

// Death returns a 1.2 s low explosion with a descending tone, for a lost ship.
func Death() []byte { return deathSnd.get(genDeath) }

// Join returns a 300 ms rising two-tone chime, played when a player joins.
func Join() []byte { return joinSnd.get(genJoin) }

// Music returns the seamlessly loopable background track (MusicDuration
// seconds of synthwave: bass, arpeggio, pad, lead and drums, peak 0.5).
// Loop it with audio.NewInfiniteLoop over the full length.
func Music() []byte { return musicSnd.get(genMusic) }

// ---------------------------------------------------------------------------
// helpers

const twoPi = 2 * math.Pi

// encode interleaves l and r into float32 little-endian PCM.
func encode(l, r []float64) []byte {
	b := make([]byte, len(l)*8)
	for i := range l {
		pace()
		binary.LittleEndian.PutUint32(b[i*8:], math.Float32bits(float32(l[i])))
		binary.LittleEndian.PutUint32(b[i*8+4:], math.Float32bits(float32(r[i])))
	}
	return b
}

// normalize scales both channels so that the peak magnitude equals peak.
func normalize(peak float64, chans ...[]float64) {
	m := 0.0
	for _, c := range chans {
		for _, v := range c {
			pace()
			m = math.Max(m, math.Abs(v))
		}
	}
	if m == 0 {
		return
	}
	g := peak / m
	for _, c := range chans {
		for i := range c {
			pace()
			c[i] *= g
		}
	}
}

// fadeEdges applies short linear fades so effects start and end at zero.
func fadeEdges(x []float64, in, out int) {
	n := len(x)
	for i := 0; i < in && i < n; i++ {
		x[i] *= float64(i) / float64(in)
	}
	for i := 0; i < out && i < n; i++ {
		x[n-1-i] *= float64(i) / float64(out)
	}
}

// lowpass is a one-pole low-pass filter.
type lowpass struct{ y, cut, a float64 }

func (f *lowpass) step(x, cutoff float64) float64 {
	if cutoff != f.cut {
		f.cut = cutoff
		f.a = 1 - math.Exp(-twoPi*cutoff/SampleRate)
	}
	f.y += f.a * (x - f.y)
	return f.y
}

// noise returns a deterministic white noise source in [-1, 1).
func noise(seed uint64) func() float64 {
	r := rng{s: seed}
	return func() float64 { return r.float()*2 - 1 }
}

// polyBLEP smooths the discontinuity of naive oscillators (t in [0,1)).
func polyBLEP(t, dt float64) float64 {
	switch {
	case t < dt:
		t /= dt
		return t + t - t*t - 1
	case t > 1-dt:
		t = (t - 1) / dt
		return t*t + t + t + 1
	}
	return 0
}

// osc is a band-limited oscillator.
type osc struct{ phase float64 }

func (o *osc) advance(freq float64) (t, dt float64) {
	dt = freq / SampleRate
	t = o.phase
	o.phase += dt
	o.phase -= math.Floor(o.phase)
	return t, dt
}

func (o *osc) saw(freq float64) float64 {
	t, dt := o.advance(freq)
	return 2*t - 1 - polyBLEP(t, dt)
}

func (o *osc) pulse(freq, duty float64) float64 {
	t, dt := o.advance(freq)
	v := -1.0
	if t < duty {
		v = 1
	}
	v += polyBLEP(t, dt)
	t2 := t - duty
	if t2 < 0 {
		t2++
	}
	v -= polyBLEP(t2, dt)
	return v - (2*duty - 1) // remove the DC offset of asymmetric pulses
}

func (o *osc) sine(freq float64) float64 {
	t, _ := o.advance(freq)
	return math.Sin(twoPi * t)
}

func (o *osc) tri(freq float64) float64 {
	t, _ := o.advance(freq)
	return 1 - 4*math.Abs(t-0.5)
}

func midiHz(n float64) float64 { return 440 * math.Pow(2, (n-69)/12) }

// ---------------------------------------------------------------------------
// sound effects

func genShot() []byte {
	n := shotFrames
	l := make([]float64, n)
	var o1, o2 osc
	var lp lowpass
	nz := noise(0x5407)
	for i := range l {
		pace()
		t := float64(i) / SampleRate
		f := 2600 * math.Exp(-t*28) // fast downward sweep ending near 280 Hz
		f = math.Max(f, 280)
		env := math.Exp(-t * 32)
		v := 0.55*o1.pulse(f, 0.3) + 0.35*o2.sine(f*0.5) + 0.15*nz()*math.Exp(-t*120)
		l[i] = lp.step(v, 7000) * env
	}
	fadeEdges(l, 48, 480)
	normalize(0.35, l)
	return encode(l, l)
}

// boom renders filtered noise with a falling cutoff plus a low thump.
func boom(n int, seed uint64, cut0, cut1, decay, thump float64) (l, r []float64) {
	l = make([]float64, n)
	r = make([]float64, n)
	nc, nl, nr := noise(seed), noise(seed+1), noise(seed+2)
	var fl1, fl2, fr1, fr2 lowpass
	var th osc
	for i := 0; i < n; i++ {
		pace()
		t := float64(i) / SampleRate
		u := float64(i) / float64(n)
		cut := cut0 * math.Pow(cut1/cut0, u)
		env := math.Exp(-t / decay)
		c := nc()
		a := 0.75*c + 0.25*nl()
		b := 0.75*c + 0.25*nr()
		low := th.sine(30+60*math.Exp(-t*14)) * math.Exp(-t*9) * thump
		l[i] = fl2.step(fl1.step(a, cut), cut)*env*2 + low
		r[i] = fr2.step(fr1.step(b, cut), cut)*env*2 + low
	}
	return l, r
}

func genExplosion() []byte {
	l, r := boom(explosionFrames, 0xE401, 3200, 180, 0.17, 0.9)
	fadeEdges(l, 96, 2400)
	fadeEdges(r, 96, 2400)
	normalize(0.6, l, r)
	return encode(l, r)
}

func genDeath() []byte {
	n := deathFrames
	l, r := boom(n, 0xDEAD, 1600, 70, 0.42, 1.3)
	var tone, vib osc
	var lp lowpass
	for i := 0; i < n; i++ {
		pace()
		t := float64(i) / SampleRate
		u := float64(i) / float64(n)
		f := 620 * math.Pow(70.0/620.0, u) * (1 + 0.03*vib.sine(7))
		env := math.Min(1, t/0.01) * (1 - u) * 0.55
		v := lp.step(tone.saw(f)*0.6, 2400) * env
		l[i] += v
		r[i] += v
	}
	fadeEdges(l, 96, 4800)
	fadeEdges(r, 96, 4800)
	normalize(0.6, l, r)
	return encode(l, r)
}

func genJoin() []byte {
	n := joinFrames
	l := make([]float64, n)
	r := make([]float64, n)
	notes := []struct {
		start, freq, pan float64
	}{
		{0, midiHz(76), -0.3},    // E5
		{0.11, midiHz(83), 0.3},  // B5
		{0.11, midiHz(88), 0.15}, // E6 sparkle
	}
	for k, nt := range notes {
		var o1, o2 osc
		gain := 1.0
		if k == 2 {
			gain = 0.35
		}
		s0 := int(nt.start * SampleRate)
		for i := s0; i < n; i++ {
			pace()
			t := float64(i-s0) / SampleRate
			env := math.Min(1, t/0.004) * math.Exp(-t*11) * gain
			v := (o1.sine(nt.freq) + 0.3*o2.sine(nt.freq*2.01)) * env
			l[i] += v * (1 - nt.pan) * 0.5
			r[i] += v * (1 + nt.pan) * 0.5
		}
	}
	fadeEdges(l, 48, 960)
	fadeEdges(r, 48, 960)
	normalize(0.45, l, r)
	return encode(l, r)
}

// ---------------------------------------------------------------------------
// music

// track is a stereo buffer whose writes wrap around, so note tails that run
// past the end of the loop continue at its start: the loop is seamless.
type track struct{ l, r []float64 }

func newTrack(n int) *track { return &track{make([]float64, n), make([]float64, n)} }

func (t *track) add(i int, v, pan float64) {
	pace()
	n := len(t.l)
	i = ((i % n) + n) % n
	t.l[i] += v * (1 - pan) * 0.5
	t.r[i] += v * (1 + pan) * 0.5
}

// chords of the progression Am - F - C - G, two bars each.
var chordRoots = []int{45, 41, 48, 43} // bass roots (A2, F2, C3, G2)
var chordTones = [][]int{              // triads for pad and arpeggio
	{57, 60, 64}, {53, 57, 60}, {55, 60, 64}, {55, 59, 62},
}

// melody notes: start beat, length in beats, MIDI note.
var melody = []tuneNote{
	{0, 2, 76}, {2, 1, 74}, {3, 1, 72},
	{4, 1, 71}, {5, 1, 72}, {6, 2, 69},
	{8, 1, 69}, {9, 1, 72}, {10, 2, 77},
	{12, 1, 76}, {13, 1, 74}, {14, 2, 72},
	{16, 2, 79}, {18, 1, 76}, {19, 1, 79},
	{20, 1.5, 81}, {21.5, 0.5, 79}, {22, 2, 76},
	{24, 1, 74}, {25, 1, 76}, {26, 1, 79}, {27, 1, 83},
	{28, 1, 81}, {29, 1, 79}, {30, 2, 74},
}

// genMusic is the music loop: each instrument played onto its bus (the
// dry one, or the send one fed to the echo), in this order, then the echo
// and the mix.
func genMusic() []byte {
	dry := newTrack(musicFrames)  // bass, pad, drums
	send := newTrack(musicFrames) // arp and lead, fed to the echo
	playBass(dry)
	playPad(dry)
	playArpeggio(send)
	playLead(send)
	playDrums(dry, noise(0x3A51C))
	out := echo(dry, send, beatFrames*3/4)
	normalize(0.5, out.l, out.r)
	return encode(out.l, out.r)
}

// chordAt is the chord (index into chordRoots) of a beat: two bars each.
func chordAt(beat int) int { return (beat / 8) % 4 }

// playBass plays filtered saw eighth notes with an octave bounce.
func playBass(dry *track) {
	for step := 0; step < musicBeats*2; step++ {
		c := chordAt(step / 2)
		note := float64(chordRoots[c])
		if step%4 == 3 {
			note += 12
		}
		bassNote(dry, step*beatFrames/2, beatFrames/2-beatFrames/16, midiHz(note), 0.42)
	}
}

// bassNote plays one filtered saw bass note of length frames (and a short
// release) from frame start, at frequency f and gain g.
func bassNote(dry *track, start, length int, f, g float64) {
	var o1, o2 osc
	var f1, f2 lowpass
	for i := 0; i < length+SampleRate/50; i++ {
		t := float64(i) / SampleRate
		env := math.Min(1, t/0.004) * (0.55 + 0.45*math.Exp(-t*9))
		if i >= length {
			env *= 1 - float64(i-length)/float64(SampleRate/50)
		}
		cut := 350 + 1500*math.Exp(-t*14)
		v := f2.step(f1.step(0.7*o1.saw(f)+0.5*o2.pulse(f*0.5, 0.5), cut), cut)
		dry.add(start+i, v*env*g, 0)
	}
}

// playPad plays detuned saws, slow attack, one chord per two bars.
func playPad(dry *track) {
	for c := 0; c < 4; c++ {
		padChord(dry, c*8*beatFrames, 8*beatFrames, chordTones[c], 0.08)
	}
}

// padChord plays a chord of detuned saws with a slow attack, for length
// frames from start, at gain g per saw.
func padChord(dry *track, start, length int, tones []int, g float64) {
	rel := SampleRate / 2
	for k, nt := range tones {
		f := midiHz(float64(nt))
		var oa, ob osc
		oa.phase = float64(k) * 0.31
		ob.phase = float64(k) * 0.57
		var fa, fb lowpass
		for i := 0; i < length+rel; i++ {
			t := float64(i) / SampleRate
			env := math.Min(1, t/0.6)
			if i >= length {
				env *= math.Exp(-float64(i-length) / float64(SampleRate) * 8)
			}
			cut := 900 + 400*math.Sin(twoPi*t/4)
			a := fa.step(oa.saw(f*1.004), cut)
			b := fb.step(ob.saw(f*0.996), cut)
			dry.add(start+i, a*env*g, -0.6)
			dry.add(start+i, b*env*g, 0.6)
		}
	}
}

// playArpeggio plays sixteenth notes over the chord, up and down two
// octaves.
func playArpeggio(send *track) {
	pattern := []int{0, 1, 2, 3, 4, 3, 2, 1}
	for step := 0; step < musicBeats*4; step++ {
		c := chordAt(step / 4)
		tones := chordTones[c]
		idx := pattern[step%len(pattern)]
		note := float64(tones[idx%3] + 12*(idx/3) + 12)
		accent := 0.8
		if step%4 == 0 {
			accent = 1
		}
		pan := 0.35 * math.Sin(float64(step)*0.4)
		pluck(send, step*sixteenthStep, sixteenthStep*2, midiHz(note), accent*0.2, 0.25, pan)
	}
}

// pluck plays a short filtered pulse note of length frames from start:
// frequency f, gain g, pulse duty, pan.
func pluck(send *track, start, length int, f, g, duty, pan float64) {
	var o osc
	var lp lowpass
	for i := 0; i < length; i++ {
		t := float64(i) / SampleRate
		env := math.Min(1, t/0.003) * math.Exp(-t*16) * g
		if i > length-480 {
			env *= float64(length-i) / 480
		}
		v := lp.step(o.pulse(f, duty), 2600)
		send.add(start+i, v*env, pan)
	}
}

// playLead plays the melody: a soft triangle/pulse mix with delayed
// vibrato.
func playLead(send *track) {
	playTune(send, melody, beatFrames, 0, 0.21)
}

// tuneNote is a note of a tune: its start and length in beats, its MIDI
// note.
type tuneNote struct{ beat, length, note float64 }

// playTune plays a tune with leadNote, at bf frames a beat, transposed by
// the given semitones, at gain g.
func playTune(send *track, tune []tuneNote, bf int, transpose, g float64) {
	for _, m := range tune {
		leadNote(send, int(m.beat*float64(bf)), int(m.length*float64(bf))-bf/16, midiHz(m.note+transpose), g)
	}
}

// leadNote plays one lead note of length frames from start, at frequency
// f0 and gain g.
func leadNote(send *track, start, length int, f0, g float64) {
	rel := SampleRate / 8
	var o1, o2, vib osc
	var lp lowpass
	for i := 0; i < length+rel; i++ {
		t := float64(i) / SampleRate
		env := math.Min(1, t/0.012) * (0.75 + 0.25*math.Exp(-t*6))
		if i >= length {
			env *= 1 - float64(i-length)/float64(rel)
		}
		depth := 0.006 * smoothstep(0.15, 0.4, t)
		f := f0 * (1 + depth*vib.sine(5.5))
		v := lp.step(0.7*o1.tri(f)+0.3*o2.pulse(f, 0.5), 3000)
		send.add(start+i, v*env*g, 0)
	}
}

// playDrums plays a four-on-the-floor kick, the snare on 2 and 4 and the
// hats, beat by beat: the snare and the hats draw from the same noise in
// turn.
func playDrums(dry *track, nz func() float64) {
	for beat := 0; beat < musicBeats; beat++ {
		bs := beat * beatFrames
		playKick(dry, bs)
		if beat%2 == 1 {
			playSnare(dry, bs, nz)
		}
		playHats(dry, beat, beatFrames, nz)
	}
}

// playKick plays a kick at frame bs.
func playKick(dry *track, bs int) {
	var ko osc
	for i := 0; i < SampleRate*35/100; i++ {
		t := float64(i) / SampleRate
		f := 48 + 110*math.Exp(-t*35)
		v := ko.sine(f) * math.Exp(-t*9) * math.Min(1, t/0.001)
		dry.add(bs+i, v*0.5, 0)
	}
}

// playSnare plays a snare at frame bs.
func playSnare(dry *track, bs int, nz func() float64) {
	var so osc
	var lp1, lp2 lowpass
	for i := 0; i < SampleRate/4; i++ {
		t := float64(i) / SampleRate
		w := nz()
		hp := w - lp1.step(w, 1200)
		body := lp2.step(hp, 6000) * math.Exp(-t*18)
		tone := so.sine(185) * math.Exp(-t*30)
		dry.add(bs+i, (body*0.5+tone*0.25)*math.Min(1, t/0.001), 0.1)
	}
}

// playHats plays the hats of a beat: closed on the off-beat, soft
// sixteenths, an open hat at bar ends.
func playHats(dry *track, beat, bf int, nz func() float64) {
	bs := beat * bf
	for s := 0; s < 4; s++ {
		open := beat%4 == 3 && s == 2
		gain := 0.05
		switch {
		case s == 2:
			gain = 0.12
		case s == 0:
			gain = 0.035
		}
		decay := 55.0
		if open {
			decay, gain = 12, 0.1
		}
		var lp lowpass
		hs := bs + s*(bf/4)
		for i := 0; i < SampleRate/6; i++ {
			t := float64(i) / SampleRate
			w := nz()
			v := (w - lp.step(w, 7000)) * math.Exp(-t*decay)
			dry.add(hs+i, v*gain, 0.3)
		}
	}
}

// echo mixes the dry bus, the send bus and a ping-pong echo of the send
// bus (d frames, e.g. a dotted eighth), run over two laps of the circular
// buffer so the echo tail wraps seamlessly into the loop start.
func echo(dry, send *track, d int) *track {
	n := len(dry.l)
	bl := make([]float64, d)
	br := make([]float64, d)
	out := newTrack(n)
	var dampL, dampR lowpass
	for lap := 0; lap < 2; lap++ {
		for i := 0; i < n; i++ {
			pace()
			j := (lap*n + i) % d
			el, er := bl[j], br[j]
			in := (send.l[i] + send.r[i]) * 0.5
			bl[j] = dampL.step(in+er*0.45, 4500)
			br[j] = dampR.step(el*0.9, 4500)
			if lap == 1 {
				out.l[i] = dry.l[i] + send.l[i] + el*0.35
				out.r[i] = dry.r[i] + send.r[i] + er*0.35
			}
		}
	}
	return out
}
