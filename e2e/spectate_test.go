package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/server"
)

// TestSpectatorSeesTheGame plays a game of two bots to its game over
// with a spectator watching (PROTOCOL.md 7.17), all through the real
// server and the real client: every snapshot the spectator rebuilt equals
// the server's state at its tick, it got every event once, it is in
// nobody's scores and took no slot, the players were told its name, and
// it is logged out with the game over.
func TestSpectatorSeesTheGame(t *testing.T) {
	rules := fastRules()
	sl := newServerLog()
	srv := testserver.Start(t, server.Config{MaxGames: 1, Seed: 11, Rules: &rules,
		OnSnapshot: sl.onSnapshot, OnEvents: sl.onEvents})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()

	type player struct {
		name string
		c    *client.Client
		log  *clientLog
		err  error
	}
	players := make([]*player, 2)
	for i := range players {
		p := &player{name: fmt.Sprintf("bot%d", i+1), log: newClientLog()}
		p.c = dial(t, srv.Addr(), p.name, p.log, wire.Version2)
		players[i] = p
	}
	vl := newClientLog()
	v, err := client.Dial(ctx, client.Config{Addr: srv.Addr(), Name: "Newt", Logger: testutil.Logger(t), Spectate: true,
		OnFrame: vl.onSnapshot2, OnEvent: vl.onEvent})
	if err != nil {
		t.Fatalf("spectator: %v", err)
	}
	t.Cleanup(func() { v.Close() })
	if !v.Spectating() || v.Mode() != wire.ModeClassic {
		t.Fatalf("spectator's player %d, mode %d", v.Player(), v.Mode())
	}
	for _, p := range players {
		testutil.WaitFor(t, testutil.Wait, p.name+" told of the spectator", func() bool {
			return slices.Equal(p.c.Spectators(nil), []string{"Newt"})
		})
	}
	var wg sync.WaitGroup
	for i, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.err = bot.Play(ctx, p.c, rand.New(rand.NewPCG(uint64(i), 7)))
		}()
	}
	wg.Wait()
	for _, p := range players {
		if p.err != nil {
			t.Fatalf("%s did not reach game over: %v", p.name, p.err)
		}
	}
	select {
	case <-v.Done():
	case <-ctx.Done():
		t.Fatal("the spectator's session did not end with the game")
	}
	var le *client.LogoutError
	if err := v.Err(); !errors.As(err, &le) || le.Reason != wire.LogoutGameOver {
		t.Fatalf("spectator ended with %v, want Logout(GameOver)", err)
	}
	scores, over := v.GameOver()
	if !over || len(scores) != 2 {
		t.Fatalf("spectator saw game over %v with scores %+v", over, scores)
	}
	if pl := v.Players(); pl[2].Present || pl[3].Present {
		t.Fatalf("players seen by the spectator: %+v", pl)
	}
	snaps := checkWorlds(t, "spectator", sl, vl)
	if snaps < 50 { // of about 130 in a game of fastRules
		t.Errorf("the spectator rebuilt only %d snapshots", snaps)
	}
	// Every event once; from the game over on, nothing more is promised.
	vl.mu.Lock()
	seen := map[wire.Event]int{}
	for _, e := range vl.events {
		seen[e]++
	}
	vl.mu.Unlock()
	sl.mu.Lock()
	defer sl.mu.Unlock()
	over1 := slices.IndexFunc(sl.events, func(e wire.Event) bool { return e.Type == wire.EventGameOver })
	first := slices.IndexFunc(sl.events, func(e wire.Event) bool {
		return seen[e] > 0 && e.Type != wire.EventPlayerJoined && e.Type != wire.EventSpawn
	})
	if over1 < 0 || first < 0 {
		t.Fatalf("no game over (%d) or no event (%d) seen", over1, first)
	}
	for _, e := range sl.events[first : over1+1] {
		if seen[e] != 1 {
			t.Errorf("spectator received %d times: %+v", seen[e], e)
		}
	}
	t.Logf("spectator: %d snapshots equal to the server's, %d events from %d to the game over", snaps, over1+1-first, first)
}
