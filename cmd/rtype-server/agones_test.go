package main

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"rtype/internal/agonesstub"
	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/server/agones"
)

// The binary with -agones against a stub sidecar: Ready once it listens,
// Health at -agones-health, Allocate and the labels when a real client
// plays, Shutdown once it left (-agones-shutdown-when-empty), after which
// it refuses logins; SIGTERM still stops it cleanly.
func TestAgonesFlags(t *testing.T) {
	bin := buildBinary(t)
	st := agonesstub.New(t)
	cmd, addr, logs := runServer(t, bin, "-db", "", "-mode", "classic",
		"-agones", "-agones-sdk", st.Addr(), "-agones-health", "50ms", "-agones-shutdown-when-empty")
	testutil.WaitFor(t, testutil.Wait, "Ready", func() bool { return st.Succeeded("/ready") })
	testutil.WaitFor(t, testutil.Wait, "3 Health calls", func() bool { n, _ := st.Count("/health"); return n >= 3 })

	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: addr, Name: "Ripley", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("dial the dedicated server: %v; its log:\n%s", err, logs())
	}
	testutil.WaitFor(t, testutil.Wait, "Allocate", func() bool { return st.Succeeded("/allocate") })
	testutil.WaitFor(t, testutil.Wait, "1 player in the labels", func() bool { v, _ := st.Label(agones.LabelPlayers); return v == "1" })
	c.Close()
	testutil.WaitFor(t, testutil.Wait, "Shutdown", func() bool { return st.Succeeded("/shutdown") })
	testutil.WaitFor(t, testutil.Wait, "the log of the Shutdown", func() bool {
		l := logs()
		return strings.Contains(l, `msg="agones: Shutdown asked"`) && strings.Contains(l, `why="the last game ended"`)
	})
	// Shut down: new logins are refused until SIGTERM.
	if c, err := client.Dial(ctx, client.Config{Addr: addr, Name: "Hicks", Logger: testutil.Logger(t)}); err == nil {
		c.Close()
		t.Fatalf("a login after Shutdown was accepted; the log:\n%s", logs())
	}

	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the server exited with %v after SIGTERM; its log:\n%s", err, logs())
	}
}

// The Agones flags without -agones, or with a bad interval, are usage
// errors (exit 2).
func TestAgonesFlagsRefused(t *testing.T) {
	bin := buildBinary(t)
	for _, args := range [][]string{
		{"-agones-shutdown-when-empty"},
		{"-agones", "-agones-health", "0s"},
	} {
		cmd := exec.Command(bin, append([]string{"-listen", "127.0.0.1:0", "-db", ""}, args...)...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("rtype-server %v: %v, want exit 2; output:\n%s", args, err, out)
		}
	}
}
