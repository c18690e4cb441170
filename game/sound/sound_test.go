package sound

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"rtype/assets"
	"rtype/internal/testutil"
)

func TestMuteIsSilent(t *testing.T) {
	s := New(true, 1, 1, testutil.Logger(t))
	if _, ok := s.(Silent); !ok || s.Enabled() {
		t.Fatalf("mute gave %T", s)
	}
	// The silent sound accepts everything.
	s.Play(Shot, 1)
	s.SetVolumes(0.5, 0.5)
	s.Update()
	s.SetTrack(TrackBoss)
	s.SetCharge(1)
}

func TestTrackFor(t *testing.T) {
	for cue, want := range map[string]Track{"stage": TrackStage, "boss": TrackBoss, "clear": TrackClear, "warship": TrackWarship, "warship-boss": TrackWarshipBoss, "": TrackNone, "Stage": TrackNone, "main": TrackNone} {
		if got := TrackFor(cue); got != want {
			t.Errorf("TrackFor(%q) = %d, want %d", cue, got, want)
		}
	}
}

func TestProbe(t *testing.T) {
	// No device, no configuration, no sound server: silent.
	t.Setenv("ALSA_CONFIG_PATH", "")
	t.Setenv("PULSE_SERVER", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if m, _ := filepath.Glob("/dev/snd/pcmC*D*p"); len(m) == 0 {
		if ok, why := Probe(); ok || why == "" {
			t.Errorf("Probe() = %v, %q on a machine without sound", ok, why)
		}
		if _, ok := New(false, 1, 1, testutil.Logger(t)).(Silent); !ok {
			t.Error("no device must give the silent sound")
		}
	}
	// A PulseAudio socket is a device.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pulse"), 0o755)
	os.WriteFile(filepath.Join(dir, "pulse", "native"), nil, 0o644)
	t.Setenv("XDG_RUNTIME_DIR", dir)
	if ok, _ := Probe(); !ok {
		t.Error("a PulseAudio socket must count as a device")
	}
	// So is an ALSA configuration (the tests' null device).
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("ALSA_CONFIG_PATH", "/some/alsa.conf")
	if ok, _ := Probe(); !ok {
		t.Error("ALSA_CONFIG_PATH must count as a device")
	}
}

// synthWait bounds the music's synthesis in TestAudio: far above the few
// seconds it takes, even under -race with other packages' tests on the
// same two CPUs; it only stops a hung synthesis.
const synthWait = 2 * time.Minute

// TestAudio builds the real sound on the audio context when a device (or
// ALSA's null device, as build.sh sets up) is there.
func TestAudio(t *testing.T) {
	if ok, why := Probe(); !ok {
		t.Skip("no sound device:", why)
	}
	a := NewAudio(0.5, 0.5)
	if !a.Enabled() {
		t.Fatal("audio not enabled")
	}
	for e := range numEffects {
		a.Play(e, 1)
		a.Play(e, 0.3)
	}
	for range voices + 2 {
		a.Play(Shot, 1) // more than the voices: reuses them
	}
	a.Play(numEffects, 1) // unknown: ignored
	a.SetVolumes(0.2, 0.9)
	// The music is synthesised in a goroutine (assets.Music, once per
	// process): seconds of work, and many more under -race on a busy
	// machine, where a fixed deadline for synthesis and start together
	// failed. Wait for the synthesis itself (the same sync.Once: this
	// returns when NewAudio's goroutine has the music), then Update must
	// start the music at once.
	synth := make(chan time.Duration, 1)
	start := time.Now()
	go func() { assets.Music(); synth <- time.Since(start) }()
	select {
	case d := <-synth:
		t.Logf("music synthesised in %v", d.Round(time.Millisecond))
	case <-time.After(synthWait):
		t.Fatalf("the music was not synthesised within %v", synthWait)
	}
	testutil.WaitFor(t, synthWait, "the effects", func() bool {
		a.Update()
		for e := range numEffects {
			if a.effects[e][0] == nil {
				return false
			}
		}
		return true
	})
	for e := range numEffects {
		ok := seenPlaying(func() { a.Play(e, 1) }, func() bool {
			for _, p := range a.effects[e] {
				if p.IsPlaying() {
					return true
				}
			}
			return false
		})
		if !ok {
			t.Errorf("effect %d does not play", e)
		}
	}
	testutil.WaitFor(t, testutil.Wait, "Update to start the synthesised music", func() bool {
		a.Update()
		return a.tracks[TrackMain] != nil
	})
	if v := a.tracks[TrackMain].Volume(); v < 0.13 || v > 0.15 {
		t.Errorf("music volume %v, want 0.2 x %v", v, musicGain)
	}
	if !a.tracks[TrackMain].IsPlaying() {
		t.Error("the main music does not play")
	}

	// The Stage tracks: each is synthesised when first wanted, then
	// plays alone; TrackNone silences.
	for _, tr := range []Track{TrackStage, TrackBoss, TrackClear, TrackStage, TrackMain} {
		a.SetTrack(tr)
		waitSynth(t, trackSamples[tr])
		testutil.WaitFor(t, testutil.Wait, "Update to make the track's player", func() bool {
			a.Update()
			return a.tracks[tr] != nil
		})
		restart := func() {
			if !a.tracks[tr].IsPlaying() {
				a.SetTrack(TrackNone)
				a.SetTrack(tr)
			}
		}
		if !seenPlaying(restart, a.tracks[tr].IsPlaying) {
			t.Fatalf("track %d does not play", tr)
		}
		for o, p := range a.tracks {
			if Track(o) != tr && p != nil && p.IsPlaying() {
				t.Errorf("track %d plays along with track %d", o, tr)
			}
		}
	}
	a.SetTrack(TrackNone)
	a.SetTrack(Track(99)) // unknown: silence too
	for o, p := range a.tracks {
		if p != nil && p.IsPlaying() {
			t.Errorf("track %d plays after TrackNone", o)
		}
	}

	// The charge hum: no player until a charge, then it plays, and a
	// level of 0 keeps it (silent).
	a.SetCharge(0)
	if a.humPlayer != nil {
		t.Error("a hum player before any charge")
	}
	a.SetCharge(0.5)
	if a.humPlayer == nil || !a.humPlayer.IsPlaying() {
		t.Fatal("the charge hum does not play")
	}
	a.SetCharge(1)
	a.SetCharge(0)
	a.SetVolumes(0.3, 0.4)
	if v := a.humPlayer.Volume(); v != 0.4 {
		t.Errorf("hum volume %v, want the effects' 0.4", v)
	}
}

// seenPlaying reports whether sound started by play is seen playing
// just after it. ALSA's null device (the tests') takes samples as fast as
// they come: a short effect is over within a millisecond, and a busy
// machine may look too late (CI of stop 34). So play is repeated until
// its sound is seen, within testutil.Wait. (A Player's Position moves
// only in a running game's frames: it says nothing here.)
func seenPlaying(play func(), playing func() bool) bool {
	return testutil.Eventually(testutil.Wait, func() bool { play(); return playing() })
}

// waitSynth waits for a track's synthesis (once per process: this returns
// when the goroutine SetTrack started has it too), bounded by synthWait.
func waitSynth(t *testing.T, f func() []byte) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(synthWait):
		t.Fatalf("a track was not synthesised within %v", synthWait)
	}
}
