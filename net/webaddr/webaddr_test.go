package webaddr

import (
	"strconv"
	"strings"
	"testing"
)

func TestPublic(t *testing.T) {
	for _, c := range []struct{ addr, host, want string }{
		{":4443", "example.org:8080", "example.org:4443"},
		{"0.0.0.0:4443", "192.168.1.5", "192.168.1.5:4443"},
		{"[::]:4443", "[::1]:8080", "[::1]:4443"},
		{"game.example.org:4443", "other:80", "game.example.org:4443"},
		{"10.0.0.2:4443", "other", "10.0.0.2:4443"},
		{":4443", "", "localhost:4443"},
	} {
		if got := Public(c.addr, c.host); got != c.want {
			t.Errorf("Public(%q, %q) = %q, want %q", c.addr, c.host, got, c.want)
		}
	}
}

func TestHashes(t *testing.T) {
	a, b := [32]byte{0xab, 1}, [32]byte{31: 0xff}
	hx := HexHashes(a, b)
	if len(hx) != 2 || hx[0] != "ab01"+strings.Repeat("00", 30) || hx[1] != strings.Repeat("00", 31)+"ff" {
		t.Fatalf("HexHashes: %q", hx)
	}
	if HexHashes() != nil {
		t.Fatal("HexHashes of none is not nil")
	}
	got, err := ParseHashes([]string{" " + hx[0], "", hx[1] + "\n"})
	if err != nil || len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("ParseHashes: %x, %v", got, err)
	}
	for _, bad := range []string{"ab", hx[0] + "00", "zz" + hx[0][2:]} {
		if _, err := ParseHashes([]string{hx[0], bad}); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("ParseHashes(%q): %v, want an error that quotes it", bad, err)
		}
	}
}
