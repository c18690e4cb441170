package main

import (
	"net/netip"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"rtype/net/discovery"
)

// TestDiscoveryBinary runs the real binary with its discovery responder on
// the loopback broadcast address: a querier finds it there, by its -name,
// at its game port (PROTOCOL.md 8.1).
func TestDiscoveryBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rtype-server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd, addr, log := runServer(t, bin, "-discovery-listen", "127.255.255.255:0", "-name", "hangar-7", "-db", "")
	game := netip.MustParseAddrPort(addr)
	re := regexp.MustCompile(`msg="answering LAN discovery" addr=(\S+)`)
	var m []string
	for end := time.Now().Add(10 * time.Second); m == nil && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		m = re.FindStringSubmatch(log())
	}
	if m == nil {
		t.Fatalf("the server does not say where it answers discovery; its log:\n%s", log())
	}
	q, err := discovery.NewQuerier(discovery.QuerierConfig{Dest: m[1], Local: "127.0.0.1:0", Interval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var found []discovery.Server
	for end := time.Now().Add(10 * time.Second); len(found) == 0 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		found = q.Servers()
	}
	if len(found) != 1 || found[0].Addr != game || found[0].Name != "hangar-7" || found[0].MaxGames != 8 {
		t.Fatalf("found %+v, want hangar-7 at %v", found, game)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}
