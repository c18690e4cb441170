package server

// LAN discovery (PROTOCOL.md section 8) on the real server: the querier
// finds it through the loopback broadcast, with its players, games and
// modes as they change. Nothing here leaves 127.0.0.0/8.

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/discovery"
	"rtype/net/wire"
)

// loopbackBroadcast is where the tests query: a socket bound to 127.0.0.1
// does not get what is sent there, so the responder binds it.
const loopbackBroadcast = "127.255.255.255"

func querier(t *testing.T, port uint16) *discovery.Querier {
	t.Helper()
	q, err := discovery.NewQuerier(discovery.QuerierConfig{
		Dest:  netip.AddrPortFrom(netip.MustParseAddr(loopbackBroadcast), port).String(),
		Local: "127.0.0.1:0", Interval: 50 * time.Millisecond, Logger: testutil.Logger(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

// waitServer waits until q lists one server that satisfies cond.
func waitServer(t *testing.T, q *discovery.Querier, what string, cond func(s discovery.Server) bool) discovery.Server {
	t.Helper()
	var last []discovery.Server
	for end := time.Now().Add(wait); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if last = q.Servers(); len(last) == 1 && cond(last[0]) {
			return last[0]
		}
	}
	t.Fatalf("timed out waiting for %s; listed %+v", what, last)
	return discovery.Server{}
}

func TestDiscoveryFindsTheServer(t *testing.T) {
	cfg := testConfig()
	cfg.MaxGames = 1
	cfg.Discovery = loopbackBroadcast + ":0"
	cfg.Name = "hangar-7\n"
	s := startServer(t, cfg)
	da, err := netip.ParseAddrPort(s.DiscoveryAddr())
	if err != nil {
		t.Fatalf("DiscoveryAddr %q: %v", s.DiscoveryAddr(), err)
	}
	q := querier(t, da.Port())
	both := discovery.ModeBit(wire.ModeClassic) | discovery.ModeBit(wire.ModeStage)
	found := waitServer(t, q, "the empty server", func(s discovery.Server) bool { return true })
	want := discovery.Info{Port: uint16(s.Port()), Modes: both, DefaultMode: wire.ModeStage, Versions: 3, Revision: wire.Revision,
		Capacity: 4, MaxGames: 1, Name: "hangar-7"}
	if found.Info != want || found.Addr != netip.MustParseAddrPort(s.Addr()) || found.RTT <= 0 {
		t.Fatalf("found %+v, want %+v at %s", found, want, s.Addr())
	}
	// A v1 login plays Classic: the one game is Classic, so Stage is no
	// longer offered.
	c := join(t, s, "Ripley")
	found = waitServer(t, q, "Ripley's game", func(s discovery.Server) bool { return s.Players == 1 })
	if found.Games != 1 || found.Modes != discovery.ModeBit(wire.ModeClassic) {
		t.Fatalf("with one Classic game: %+v", found)
	}
	c.logout()
	waitServer(t, q, "the server empty again", func(s discovery.Server) bool { return s.Players == 0 && s.Modes == both })
}

func TestDiscoveryInfo(t *testing.T) {
	cfg := testConfig()
	cfg.MaxVersion = 1
	cfg.MaxGames = 3
	s := startServer(t, cfg)
	if s.DiscoveryAddr() != "" {
		t.Fatalf("discovery on by default: %q", s.DiscoveryAddr())
	}
	got := s.disco.info("v1")
	want := discovery.Info{Port: uint16(s.Port()), Modes: discovery.ModeBit(wire.ModeClassic), DefaultMode: wire.ModeClassic,
		Versions: 1, Capacity: 12, MaxGames: 3, Name: "v1"}
	if got != want {
		t.Fatalf("v1-only server: %+v, want %+v", got, want)
	}
}

// A server whose discovery port is taken runs without answering (8.1);
// its responder's socket closes with it.
func TestDiscoveryPortTakenAndClosed(t *testing.T) {
	taken, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg := testConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Logger = testutil.Logger(t)
	cfg.Discovery = taken.LocalAddr().String()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.DiscoveryAddr() != "" {
		t.Fatalf("answering on a taken port: %q", s.DiscoveryAddr())
	}
	testutil.Go(context.Background(), s)()

	cfg.Discovery = "127.0.0.1:0"
	s, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr := s.DiscoveryAddr()
	if err := testutil.Go(context.Background(), s)(); err != nil {
		t.Fatal(err)
	}
	again, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort(addr)))
	if err != nil {
		t.Fatalf("the stopped server still holds its discovery port: %v", err)
	}
	again.Close()
}
