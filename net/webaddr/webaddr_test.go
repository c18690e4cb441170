package webaddr

import "testing"

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
