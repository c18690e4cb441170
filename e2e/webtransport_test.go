package e2e

import (
	"errors"
	"fmt"
	"testing"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/net/wtclient"
	"rtype/server"
)

// wtTransport returns the native WebTransport client transport of srv,
// trusting its certificates by their hashes, as a page does (9.4).
func wtTransport(t testing.TB, srv *server.Server) (*wtclient.Transport, string) {
	t.Helper()
	info, ok := srv.WebTransport()
	if !ok {
		t.Fatal("the server does not speak WebTransport")
	}
	if len(info.CertHashes) == 0 {
		t.Fatal("the server publishes no certificate hash")
	}
	return &wtclient.Transport{CertHashes: info.CertHashes}, info.Addr
}

// dialWT is dial over the WebTransport binding.
func dialWT(t testing.TB, srv *server.Server, name string, l *clientLog, version uint8) *client.Client {
	t.Helper()
	tr, addr := wtTransport(t, srv)
	return dialVia(t, addr, tr, name, l, version)
}

// TestWebTransportWithUDPToGameOver plays a whole game with two clients
// over the WebTransport binding and two over TCP and UDP, each pair one
// v1 and one v2, in the same game (9.1): every client must have received
// every event exactly once and rebuilt the server's state at every
// snapshot, and each sees the others' ships. (TestSoak's profile
// webtransport-loss5-30ms plays over the binding through the impairment
// relay, which relays QUIC's UDP as it relays ours.)
func TestWebTransportWithUDPToGameOver(t *testing.T) {
	rules := fastRules()
	sl := newServerLog()
	srv := testserver.Start(t, server.Config{MaxGames: 1, Seed: 11, Rules: &rules,
		WebTransportAddr: "127.0.0.1:0", OnSnapshot: sl.onSnapshot, OnEvents: sl.onEvents})
	players := make([]*gamePlayer, 4)
	for i := range players {
		p := &gamePlayer{name: fmt.Sprintf("bot%d", i+1), log: newClientLog()}
		if v := versions[i%len(versions)]; i < 2 {
			p.name = fmt.Sprintf("web%d", i+1)
			p.c = dialWT(t, srv, p.name, p.log, v)
		} else {
			p.c = dial(t, srv.Addr(), p.name, p.log, v)
		}
		players[i] = p
	}
	// Each sees the others, whatever their binding.
	testutil.WaitFor(t, testutil.Wait, "every client sees the four players", func() bool {
		for _, p := range players {
			for _, q := range players {
				if pl := p.c.Players()[q.c.Player()]; !pl.Present || pl.Name != q.name {
					return false
				}
			}
		}
		return true
	})
	playToGameOver(t, sl, players, 5)
}

// TestWebTransportNoRebind: Rebind moves a UDP socket; over WebTransport
// it fails at once with ErrNoRebind and the session goes on.
func TestWebTransportNoRebind(t *testing.T) {
	srv := testserver.Start(t, server.Config{MaxGames: 1, WebTransportAddr: "127.0.0.1:0"})
	c := dialWT(t, srv, "web", newClientLog(), wire.Version2)
	if err := c.Rebind(); !errors.Is(err, client.ErrNoRebind) {
		t.Fatalf("Rebind over WebTransport: %v, want ErrNoRebind", err)
	}
	n := c.Stats().SnapshotTick
	testutil.WaitFor(t, testutil.Wait, "snapshots after the refused Rebind", func() bool { return c.Stats().SnapshotTick > n+30 })
}
