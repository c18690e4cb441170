package sound

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestMuteIsSilent(t *testing.T) {
	s := New(true, 1, 1, quiet())
	if _, ok := s.(Silent); !ok || s.Enabled() {
		t.Fatalf("mute gave %T", s)
	}
	// The silent sound accepts everything.
	s.Play(Shot, 1)
	s.SetVolumes(0.5, 0.5)
	s.Update()
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
		if _, ok := New(false, 1, 1, quiet()).(Silent); !ok {
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
	deadline := time.Now().Add(10 * time.Second)
	for a.music == nil && time.Now().Before(deadline) {
		a.Update()
		time.Sleep(10 * time.Millisecond)
	}
	if a.music == nil {
		t.Fatal("the music never started")
	}
	if v := a.music.Volume(); v < 0.13 || v > 0.15 {
		t.Errorf("music volume %v, want 0.2 x %v", v, musicGain)
	}
}
