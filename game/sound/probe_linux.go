package sound

import (
	"os"
	"path/filepath"
)

// Probe reports whether a sound device is likely to open, and if not why.
// On Linux Ebitengine's audio goes through ALSA, which works when a
// playback device exists (/dev/snd/pcmC*D*p), when an ALSA configuration
// is given (ALSA_CONFIG_PATH, e.g. the null device of the tests), or when
// a PulseAudio or PipeWire server runs (ALSA's default device then goes to
// it).
func Probe() (bool, string) {
	if os.Getenv("ALSA_CONFIG_PATH") != "" {
		return true, ""
	}
	if m, _ := filepath.Glob("/dev/snd/pcmC*D*p"); len(m) > 0 {
		return true, ""
	}
	if os.Getenv("PULSE_SERVER") != "" {
		return true, ""
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		for _, s := range []string{"pulse/native", "pipewire-0"} {
			if _, err := os.Stat(filepath.Join(dir, s)); err == nil {
				return true, ""
			}
		}
	}
	return false, "no ALSA playback device (/dev/snd/pcmC*D*p), no ALSA_CONFIG_PATH, no PulseAudio or PipeWire socket"
}
