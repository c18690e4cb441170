package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wire"
)

// process is the real binary running, its log read line by line.
type process struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines chan string
	logs  []string
}

// startProcess builds the binary and runs it with args and no DISPLAY
// until the test ends.
func startProcess(t *testing.T, args ...string) *process {
	t.Helper()
	bin := buildBinary(t)
	cmd := exec.Command(bin, args...)
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
	t.Cleanup(func() { cmd.Process.Kill() })
	p := &process{t: t, cmd: cmd, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	return p
}

// wait returns the submatches of the next log line that matches re,
// within testutil.Wait (a deadlock guard).
func (p *process) wait(re *regexp.Regexp) []string {
	p.t.Helper()
	deadline := time.After(testutil.Wait)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the server exited before logging %v; its log:\n%s", re, strings.Join(p.logs, "\n"))
			}
			p.logs = append(p.logs, l)
			if m := re.FindStringSubmatch(l); m != nil {
				return m
			}
		case <-deadline:
			p.t.Fatalf("no log line matching %v within %v; its log:\n%s", re, testutil.Wait, strings.Join(p.logs, "\n"))
		}
	}
}

// stop sends SIGTERM: the client c must be told Logout(ServerShutdown),
// and the process log its stop and exit 0.
func (p *process) stop(c *client.Client) {
	t := p.t
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.Done():
		var le *client.LogoutError
		if !errors.As(c.Err(), &le) || le.Reason != wire.LogoutServerShutdown {
			t.Errorf("the client's session ended with %v, want Logout(ServerShutdown)", c.Err())
		}
	case <-time.After(testutil.Wait):
		t.Errorf("the client was not logged out within %v of SIGTERM", testutil.Wait)
	}
	p.wait(regexp.MustCompile(`msg="server stopped"`))
	for range p.lines {
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("the server exited with %v after SIGTERM", err)
	}
}
