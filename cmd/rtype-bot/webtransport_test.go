package main

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"rtype/internal/testrules"
	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/server"
)

// -webtransport plays over the server's WebTransport binding (PROTOCOL.md
// Part IV), trusting the certificate of -cert-hash: a quick game, and a
// room's game through the lobby; a hash the server's certificate does
// not have fails with a clear error, a malformed one is a usage error.
func TestWebTransport(t *testing.T) {
	srv := testserver.Start(t, server.Config{LoginLimit: 1 << 20, Rules: testrules.QuickDeath(), Mode: wire.ModeClassic,
		GameOverLinger: 300 * time.Millisecond, WebTransportAddr: "127.0.0.1:0"})
	info, ok := srv.WebTransport()
	if !ok || len(info.CertHashes) == 0 {
		t.Fatalf("WebTransport() = %+v, %v", info, ok)
	}
	hash := hex.EncodeToString(info.CertHashes[0][:])
	var out, errs bytes.Buffer
	if code := run([]string{"-webtransport", info.Addr, "-cert-hash", hash, "-duration", "1s", "-log-level", "error"}, &out, &errs); code != 0 || !strings.HasPrefix(out.String(), "bot1: ") || !strings.Contains(out.String(), "score") {
		// QuickDeath may end the game before the second is up: "bot1: final score 0 (game over)".
		t.Fatalf("quick game: exit %d, stdout %q, stderr %q", code, out.String(), errs.String())
	}
	out.Reset()
	code := run([]string{"-webtransport", info.Addr, "-cert-hash", hash, "-create", "-n", "2", "-name", "web", "-duration", "30s", "-log-level", "warn"}, &out, &errs)
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); code != 0 || len(lines) != 3 || !strings.Contains(lines[2], "(game over)") {
		t.Fatalf("room: exit %d\nstdout %s\nstderr %s", code, out.String(), errs.String())
	}
	out.Reset()
	wrong := strings.Repeat("ab", 32)
	if code := run([]string{"-webtransport", info.Addr, "-cert-hash", wrong, "-log-level", "error"}, &out, &errs); code != 1 || !strings.Contains(out.String(), "not one of the hashes given") {
		t.Fatalf("wrong hash: exit %d, stdout %q", code, out.String())
	}
	for _, args := range [][]string{{"-webtransport", info.Addr, "-cert-hash", "xyz"}, {"-cert-hash", hash}} {
		errs.Reset()
		if code := run(args, &out, &errs); code != 2 || !strings.Contains(errs.String(), "-cert-hash") {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errs.String())
		}
	}
}
