package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseRendezvous: what the settings screen takes as a rendezvous,
// and what it keeps of it.
func TestParseRendezvous(t *testing.T) {
	for text, want := range map[string]string{
		"":                       "",
		"  ":                     "",
		"off":                    RendezvousOff,
		"None":                   RendezvousOff,
		"rv.example.org:4250":    "rv.example.org:4250",
		" rv.example.org ":       "rv.example.org:4250",
		"11.0.0.1:9":             "11.0.0.1:9",
		"2001:db8::1":            "[2001:db8::1]:4250",
		"[2001:db8::1]:5000":     "[2001:db8::1]:5000",
		"rv.example.org:0":       "error",
		"rv.example.org:65536":   "error",
		"rv.example.org:port":    "error",
		":4250":                  "error",
		"http://rv.example.org":  "error",
		"a b:4250":               "error",
		strings.Repeat("a", 300): "error",
	} {
		got, err := ParseRendezvous(text)
		if want == "error" {
			if err == nil {
				t.Errorf("ParseRendezvous(%q) = %q, want an error", text, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("ParseRendezvous(%q) = %q, %v; want %q", text, got, err, want)
		}
	}
}

// TestRendezvousAddr: "" is the build's default, off is none, an address
// is itself; a file's bad address is the default again.
func TestRendezvousAddr(t *testing.T) {
	s := Default()
	if s.Rendezvous != "" || s.RendezvousAddr("rv.example.org:4250") != "rv.example.org:4250" || s.RendezvousAddr("") != "" {
		t.Fatalf("the default %q gives %q", s.Rendezvous, s.RendezvousAddr("rv.example.org:4250"))
	}
	s.Rendezvous = RendezvousOff
	if got := s.RendezvousAddr("rv.example.org:4250"); got != "" {
		t.Errorf("off gives %q", got)
	}
	s.Rendezvous = "11.0.0.1:4250"
	if got := s.RendezvousAddr("rv.example.org:4250"); got != "11.0.0.1:4250" {
		t.Errorf("an address gives %q", got)
	}

	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(`{"rendezvous": "http://bad/"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, Checks{})
	if err != nil || got.Rendezvous != "" {
		t.Fatalf("a bad rendezvous loads as %q, %v; want the default", got.Rendezvous, err)
	}
	if err := os.WriteFile(path, []byte(`{"rendezvous": "off"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Load(path, Checks{}); err != nil || got.Rendezvous != RendezvousOff {
		t.Fatalf("off loads as %q, %v", got.Rendezvous, err)
	}
}
