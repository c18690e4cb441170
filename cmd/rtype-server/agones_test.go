package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"rtype/internal/agonesstub"
	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/server/agones"
)

// buildBinary builds rtype-server for a test that runs it.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rtype-server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// logWatch reads a process's log lines and waits for those a test
// expects.
type logWatch struct {
	t     *testing.T
	lines chan string
	logs  []string
}

func watchLogs(t *testing.T, cmd *exec.Cmd) *logWatch {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	w := &logWatch{t: t, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	return w
}

// wait returns the submatches of the next log line matching re.
func (w *logWatch) wait(re *regexp.Regexp) []string {
	w.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				w.t.Fatalf("the server exited before logging %v; its log:\n%s", re, strings.Join(w.logs, "\n"))
			}
			w.logs = append(w.logs, l)
			if m := re.FindStringSubmatch(l); m != nil {
				return m
			}
		case <-deadline:
			w.t.Fatalf("no log line matching %v within 20 s; its log:\n%s", re, strings.Join(w.logs, "\n"))
		}
	}
}

// The binary with -agones against a stub sidecar: Ready once it listens,
// Health at -agones-health, Allocate and the labels when a real client
// plays, Shutdown once it left (-agones-shutdown-when-empty); SIGTERM
// still stops it cleanly.
func TestAgonesFlags(t *testing.T) {
	st := agonesstub.New(t)
	cmd := exec.Command(buildBinary(t), "-listen", "127.0.0.1:0", "-db", "", "-mode", "classic", "-log-level", "info",
		"-agones", "-agones-sdk", st.Addr(), "-agones-health", "50ms", "-agones-shutdown-when-empty")
	cmd.Env = append(os.Environ(), "DISPLAY=")
	logs := watchLogs(t, cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	addr := logs.wait(regexp.MustCompile(`msg="server listening" addr=(\S+)`))[1]
	testutil.WaitFor(t, testutil.Wait, "Ready", func() bool { return st.Succeeded("/ready") })
	testutil.WaitFor(t, testutil.Wait, "3 Health calls", func() bool { n, _ := st.Count("/health"); return n >= 3 })

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: addr, Name: "Ripley", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("dial the dedicated server: %v", err)
	}
	testutil.WaitFor(t, testutil.Wait, "Allocate", func() bool { return st.Succeeded("/allocate") })
	testutil.WaitFor(t, testutil.Wait, "1 player in the labels", func() bool { v, _ := st.Label(agones.LabelPlayers); return v == "1" })
	c.Close()
	testutil.WaitFor(t, testutil.Wait, "Shutdown", func() bool { return st.Succeeded("/shutdown") })
	logs.wait(regexp.MustCompile(`msg="agones: the last game ended: Shutdown asked"`))

	cmd.Process.Signal(syscall.SIGTERM)
	logs.wait(regexp.MustCompile(`msg="server stopped"`))
	for range logs.lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the server exited with %v after SIGTERM", err)
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
