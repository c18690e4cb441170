package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/server"
)

// TestFourBotsPlayToGameOver plays a whole game: four bots against the
// real server until GameOver, two speaking v1 and two v2 in the same game
// (7.11). Every client must have received every event of the game exactly
// once, and every snapshot it rebuilt must equal the server's state at
// that tick.
func TestFourBotsPlayToGameOver(t *testing.T) {
	rules := fastRules()
	sl := newServerLog()
	srv := testserver.Start(t, server.Config{MaxGames: 1, Seed: 7, Rules: &rules,
		OnSnapshot: sl.onSnapshot, OnEvents: sl.onEvents})

	players := make([]*gamePlayer, 4)
	for i := range players {
		p := &gamePlayer{name: fmt.Sprintf("bot%d", i+1), log: newClientLog()}
		p.c = dial(t, srv.Addr(), p.name, p.log, versions[i%len(versions)])
		players[i] = p
	}
	playToGameOver(t, sl, players, 99)
}

// gamePlayer is a recorded client that plays a game to its end.
type gamePlayer struct {
	name string
	c    *client.Client
	log  *clientLog
	err  error
}

// playToGameOver has a bot play each client until GameOver, within 150
// s, then checks every client: a GameOver with the scores of the four,
// every snapshot it rebuilt equal to the server's state at that tick
// (100 at least), every event of the game exactly once.
func playToGameOver(t *testing.T, sl *serverLog, players []*gamePlayer, seed uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.err = bot.Play(ctx, p.c, rand.New(rand.NewPCG(uint64(i), seed)))
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
		t.Logf("%s (v%d): %d snapshots equal to the server's, %d events exactly once, score %d, %.1f kbit/s in",
			p.name, p.c.Version(), snaps, events, p.c.Players()[p.c.Player()].Score, st.KbitIn)
		if snaps < 100 {
			t.Errorf("%s compared only %d snapshots", p.name, snaps)
		}
	}
}
