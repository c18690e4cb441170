package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
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
	"rtype/net/wtclient"
)

// TestWebTransportFlag runs the real binary with -webtransport: it logs
// the binding's address and its certificate's hash (9.4), a client over
// the binding trusting that hash logs in and binds, and SIGTERM tells it
// Logout(ServerShutdown) on its stream, as over TCP. -tls-cert without
// -tls-key is a usage error.
func TestWebTransportFlag(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rtype-server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "-webtransport", "127.0.0.1:0", "-tls-cert", "x.pem").CombinedOutput(); err == nil || !strings.Contains(string(out), "-tls-key") {
		t.Errorf("-tls-cert alone: %v, %s", err, out)
	}
	cmd := exec.Command(bin, "-listen", "127.0.0.1:0", "-webtransport", "127.0.0.1:0", "-discovery-listen", "",
		"-db", filepath.Join(t.TempDir(), "scores.db"))
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
	hash, err := hex.DecodeString(wait(regexp.MustCompile(`msg="webtransport certificate" sha256=([0-9a-f]{64})`))[1])
	if err != nil {
		t.Fatal(err)
	}
	addr := wait(regexp.MustCompile(`msg="webtransport listening" addr=(\S+)`))[1]

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: addr, Name: "Ripley", Logger: testutil.Logger(t),
		Transport: &wtclient.Transport{CertHashes: [][32]byte{[32]byte(hash)}}})
	if err != nil {
		t.Fatalf("dial the binding: %v", err)
	}
	defer c.Close()
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
