package assets

import "math"

// The music of stage 2, the warship: its stage theme and its boss fight,
// generated as the others are (sound_stage.go), the same bytes every time.

// The warship's music: beats at their tempo.
const (
	warshipBPM      = 116
	warshipBeats    = 32 // 8 bars
	warshipBeat     = SampleRate * 60 / warshipBPM
	warshipLoopLen  = warshipBeats * warshipBeat
	warBossBPM      = 164
	warBossBeats    = 32
	warBossBeat     = SampleRate * 60 / warBossBPM
	warBossLoopLen  = warBossBeats * warBossBeat
	warshipPulseLen = 8 // eighths of the engine's bass figure
)

// WarshipMusicDuration and WarshipBossMusicDuration are the lengths in
// seconds of WarshipMusic and WarshipBossMusic.
const (
	WarshipMusicDuration     = float64(warshipLoopLen) / SampleRate
	WarshipBossMusicDuration = float64(warBossLoopLen) / SampleRate
)

var warshipMusic, warshipBossMusic cached

// WarshipMusic returns stage 2's music (its cue "warship"), a seamless
// loop of WarshipMusicDuration seconds (116 BPM, C minor: an engine's
// pulse of eighths under a slow horn line; peak 0.5).
func WarshipMusic() []byte { return warshipMusic.get(genWarshipMusic) }

// WarshipBossMusic returns the warship boss's music (its cue
// "warship-boss"), a seamless loop of WarshipBossMusicDuration seconds
// (164 BPM, a tritone ostinato; peak 0.5).
func WarshipBossMusic() []byte { return warshipBossMusic.get(genWarshipBossMusic) }

// The warship's progression: Cm - Ab - Fm - G, two bars each; the
// engine's figure is offsets from the chord's root, in eighths.
var (
	warshipRoots = [4]int{36, 32, 29, 31}
	warshipTones = [4][]int{{60, 63, 67}, {56, 60, 63}, {53, 56, 60}, {55, 59, 62}}
	warshipPulse = [warshipPulseLen]int{0, 0, 12, 0, 0, 10, 0, 7}
	warshipHorn  = []tuneNote{
		{0, 3, 67}, {3, 1, 68}, {4, 3, 67}, {7, 1, 63},
		{8, 4, 68}, {12, 2, 67}, {14, 2, 65},
		{16, 3, 65}, {19, 1, 67}, {20, 2, 68}, {22, 2, 72},
		{24, 4, 71}, {28, 2, 67}, {30, 2, 62},
	}
)

func genWarshipMusic() []byte {
	dry := newTrack(warshipLoopLen)
	send := newTrack(warshipLoopLen)
	chord := func(beat int) int { return (beat / 8) % 4 }
	for step := 0; step < warshipBeats*2; step++ {
		note := float64(warshipRoots[chord(step/2)] + warshipPulse[step%warshipPulseLen])
		bassNote(dry, step*warshipBeat/2, warshipBeat/2-warshipBeat/12, midiHz(note), 0.42)
	}
	for c := 0; c < 4; c++ {
		padChord(dry, c*8*warshipBeat, 8*warshipBeat, warshipTones[c], 0.07)
	}
	// A metallic tick on every other sixteenth, panned across: the hull.
	for step := 0; step < warshipBeats*4; step += 2 {
		tones := warshipTones[chord(step/4)]
		note := float64(tones[(step/2)%3] + 24)
		pluck(send, step*warshipBeat/4, warshipBeat/4, midiHz(note), 0.06, 0.08, 0.5*math.Sin(float64(step)*0.4))
	}
	playTune(send, warshipHorn, warshipBeat, 0, 0.19)
	playTune(send, warshipHorn, warshipBeat, -12, 0.08)
	nz := noise(0x3A45)
	for beat := 0; beat < warshipBeats; beat++ {
		drums(dry, beat, warshipBeat, beat%8 == 7, nz)
	}
	out := echo(dry, send, warshipBeat*3/4)
	normalize(0.5, out.l, out.r)
	return encode(out.l, out.r)
}

// The warship boss's ostinato: C and F#, a tritone, in sixteenths; stabs
// of diminished chords; a motif that climbs by semitones.
var (
	warBossRoots = [4]int{36, 42, 36, 41}
	warBossStabs = [4][]int{{60, 63, 66}, {66, 69, 72}, {60, 63, 66}, {65, 68, 71}}
	warBossMotif = []tuneNote{
		{0, 1, 72}, {1, 0.5, 75}, {1.5, 0.5, 74}, {2, 2, 72},
		{4, 0.5, 73}, {4.5, 0.5, 74}, {5, 1, 75}, {6, 2, 78},
		{16, 1, 74}, {17, 0.5, 77}, {17.5, 0.5, 76}, {18, 2, 74},
		{20, 0.5, 75}, {20.5, 0.5, 76}, {21, 1, 77}, {22, 2, 80},
	}
)

func genWarshipBossMusic() []byte {
	dry := newTrack(warBossLoopLen)
	send := newTrack(warBossLoopLen)
	chord := func(beat int) int { return (beat / 8) % 4 }
	for step := 0; step < warBossBeats*4; step++ {
		note := float64(warBossRoots[chord(step/4)])
		if step%8 == 6 {
			note += 6
		}
		bassNote(dry, step*warBossBeat/4, warBossBeat/4-warBossBeat/32, midiHz(note), 0.34)
	}
	for beat := 0; beat < warBossBeats; beat++ {
		if beat%2 == 0 {
			for _, nt := range warBossStabs[chord(beat)] {
				pluck(send, beat*warBossBeat, warBossBeat/3, midiHz(float64(nt)), 0.08, 0.5, 0.3*float64(beat%4-1))
			}
		}
	}
	playTune(send, warBossMotif, warBossBeat, 0, 0.17)
	playTune(send, warBossMotif, warBossBeat, -12, 0.1)
	nz := noise(0x3A45B)
	for beat := 0; beat < warBossBeats; beat++ {
		drums(dry, beat, warBossBeat, true, nz)
	}
	out := echo(dry, send, warBossBeat/2)
	normalize(0.5, out.l, out.r)
	return encode(out.l, out.r)
}
