package main

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"rtype/internal/testutil"
	"rtype/net/client"
)

// TestServesWithoutDisplayAndStopsOnSIGTERM builds the real binary, runs
// it with no DISPLAY, lets a client log in and bind, then sends SIGTERM:
// the client must be told ServerShutdown and the process exit 0, with its
// structured logs of the login and of the stop.
func TestServesWithoutDisplayAndStopsOnSIGTERM(t *testing.T) {
	p := startProcess(t, "-listen", "127.0.0.1:0", "-max-games", "2", "-seed", "1", "-log-level", "info",
		"-db", filepath.Join(t.TempDir(), "scores.db"))
	addr := p.wait(regexp.MustCompile(`msg="server listening" addr=(\S+)`))[1]

	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: addr, Name: "Ripley", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("dial the dedicated server: %v", err)
	}
	defer c.Close()
	p.wait(regexp.MustCompile(`msg=login .*name=Ripley`))
	p.wait(regexp.MustCompile(`msg="player joined"`))
	p.stop(c)
}
