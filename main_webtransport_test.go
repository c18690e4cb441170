package main

import (
	"io"
	"strings"
	"testing"
)

// -webtransport serves a hosted game to browsers: it goes with -host.
func TestWebTransportFlag(t *testing.T) {
	opt, _, err := parseFlags([]string{"-host", "-webtransport", ":4244"}, io.Discard)
	if err != nil || opt.WebTransport != ":4244" {
		t.Fatalf("-host -webtransport :4244: %+v, %v", opt, err)
	}
	if _, _, err := parseFlags([]string{"-webtransport", ":4244"}, io.Discard); err == nil || !strings.Contains(err.Error(), "-host") {
		t.Fatalf("-webtransport alone: %v, want an error saying -host", err)
	}
}
