package main

import (
	"net/netip"
	"regexp"
	"syscall"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/discovery"
)

// TestDiscoveryBinary runs the real binary with its discovery responder on
// the loopback broadcast address: a querier finds it there, by its -name,
// at its game port (PROTOCOL.md 8.1).
func TestDiscoveryBinary(t *testing.T) {
	bin := buildBinary(t)
	cmd, addr, log := runServer(t, bin, "-discovery-listen", "127.255.255.255:0", "-name", "hangar-7", "-db", "")
	game := netip.MustParseAddrPort(addr)
	re := regexp.MustCompile(`msg="answering LAN discovery" addr=(\S+)`)
	var m []string
	if !testutil.Eventually(testutil.Wait, func() bool { m = re.FindStringSubmatch(log()); return m != nil }) {
		t.Fatalf("the server does not say where it answers discovery; its log:\n%s", log())
	}
	q, err := discovery.NewQuerier(discovery.QuerierConfig{Dest: m[1], Local: "127.0.0.1:0", Interval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var found []discovery.Server
	testutil.Eventually(testutil.Wait, func() bool { found = q.Servers(); return len(found) > 0 })
	if len(found) != 1 || found[0].Addr != game || found[0].Name != "hangar-7" || found[0].MaxGames != 8 {
		t.Fatalf("found %+v, want hangar-7 at %v", found, game)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}
