package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wire"
)

// TestServesWithoutDisplayAndStopsOnSIGTERM builds the real binary, runs
// it with no DISPLAY, lets a client log in and bind, then sends SIGTERM:
// the client must be told ServerShutdown and the process exit 0, with its
// structured logs of the login and of the stop.
func TestServesWithoutDisplayAndStopsOnSIGTERM(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rtype-server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-listen", "127.0.0.1:0", "-max-games", "2", "-seed", "1", "-log-level", "info",
		"-db", filepath.Join(t.TempDir(), "scores.db"))
	cmd.Env = append([]string{}, os.Environ()...)
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "DISPLAY=") {
			cmd.Env[i] = "DISPLAY="
		}
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var logs []string
	wait := func(re *regexp.Regexp) []string {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the server exited before logging %v; its log:\n%s", re, strings.Join(logs, "\n"))
				}
				logs = append(logs, l)
				if m := re.FindStringSubmatch(l); m != nil {
					return m
				}
			case <-deadline:
				t.Fatalf("no log line matching %v within 20 s; its log:\n%s", re, strings.Join(logs, "\n"))
			}
		}
	}
	addr := wait(regexp.MustCompile(`msg="server listening" addr=(\S+)`))[1]

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: addr, Name: "Ripley", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("dial the dedicated server: %v", err)
	}
	defer c.Close()
	wait(regexp.MustCompile(`msg=login .*name=Ripley`))
	wait(regexp.MustCompile(`msg="player joined"`))

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.Done():
		var le *client.LogoutError
		if !errors.As(c.Err(), &le) || le.Reason != wire.LogoutServerShutdown {
			t.Errorf("the client's session ended with %v, want Logout(ServerShutdown)", c.Err())
		}
	case <-time.After(5 * time.Second):
		t.Error("the client was not logged out within 5 s of SIGTERM")
	}
	wait(regexp.MustCompile(`msg="server stopped"`))
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the server exited with %v after SIGTERM", err)
	}
}
