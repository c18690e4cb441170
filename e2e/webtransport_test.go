package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"rtype/bot"
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: addr, Name: name, Logger: testutil.Logger(t), Transport: tr,
		OnSnapshot: l.onSnapshot, OnSnapshot2: l.onSnapshot2, OnEvent: l.onEvent, Version: version, Mode: wire.ModeClassic})
	if err != nil {
		t.Fatalf("%s over WebTransport: %v", name, err)
	}
	if c.Version() != version {
		t.Fatalf("%s speaks version %d, want %d", name, c.Version(), version)
	}
	t.Cleanup(func() { c.Close() })
	return c
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
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	type player struct {
		name string
		wt   bool
		c    *client.Client
		log  *clientLog
		err  error
	}
	players := make([]*player, 4)
	var wg sync.WaitGroup
	for i := range players {
		p := &player{name: fmt.Sprintf("bot%d", i+1), wt: i < 2, log: newClientLog()}
		v := versions[i%len(versions)]
		if p.wt {
			p.name = fmt.Sprintf("web%d", i+1)
			p.c = dialWT(t, srv, p.name, p.log, v)
		} else {
			p.c = dial(t, srv.Addr(), p.name, p.log, v)
		}
		players[i] = p
	}
	// Each sees the others, whatever their binding.
	testutil.WaitFor(t, 10*time.Second, "every client sees the four players", func() bool {
		for _, p := range players {
			for _, q := range players {
				if pl := p.c.Players()[q.c.Player()]; !pl.Present || pl.Name != q.name {
					return false
				}
			}
		}
		return true
	})
	for i, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.err = bot.Play(ctx, p.c, rand.New(rand.NewPCG(uint64(i), 5)))
		}()
	}
	wg.Wait()
	for _, p := range players {
		if p.err != nil {
			t.Fatalf("%s did not reach game over: %v", p.name, p.err)
		}
		scores, over := p.c.GameOver()
		if !over || len(scores) != 4 {
			t.Fatalf("%s: game over %v with scores %+v", p.name, over, scores)
		}
	}
	for _, p := range players {
		snaps := checkWorlds(t, p.name, sl, p.log)
		events := checkEvents(t, p.name, p.c.Player(), sl, p.log)
		st := p.c.Stats()
		t.Logf("%s (v%d, webtransport %v): %d snapshots equal to the server's, %d events exactly once, %.1f kbit/s in",
			p.name, p.c.Version(), p.wt, snaps, events, st.KbitIn)
		if snaps < 100 {
			t.Errorf("%s compared only %d snapshots", p.name, snaps)
		}
	}
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
	testutil.WaitFor(t, 5*time.Second, "snapshots after the refused Rebind", func() bool { return c.Stats().SnapshotTick > n+30 })
}
