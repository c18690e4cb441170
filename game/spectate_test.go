package game

import (
	"strings"
	"testing"
)

func TestParseWatch(t *testing.T) {
	for _, c := range []struct {
		arg, addr, code string
		recent          []string
	}{
		{"example.org", "example.org:4242", "", nil},
		{"127.0.0.1:5000", "127.0.0.1:5000", "", nil},
		{"K7MX2Q", "10.0.0.2:4242", "K7MX2Q", []string{"10.0.0.2:4242", "x:1"}},
		{"k7m-x2q@example.org:6000", "example.org:6000", "K7MX2Q", nil},
	} {
		w, err := parseWatch(c.arg, c.recent)
		code := ""
		if w.code[0] != 0 {
			code = w.code.String()
		}
		if err != nil || w.addr != c.addr || code != c.code {
			t.Errorf("parseWatch(%q) = %+v %v, want %s %q", c.arg, w, err, c.addr, c.code)
		}
	}
	for arg, want := range map[string]string{"K7MX2Q": "needs its server", "K7MX2O@example.org": "no room code", "": ""} {
		if _, err := parseWatch(arg, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseWatch(%q): %v, want an error saying %q", arg, err, want)
		}
	}
}
