package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/server"
	"rtype/sim"
	"rtype/sim/stage"
)

// loginLead is how long before the boss enters the game the four bots
// must be logged in: they log in within a second on 127.0.0.1, even under
// the race detector; the rest is margin.
const loginLead = 6 * wire.TickRate

// bossWarp chooses where the server starts the stage so that the test
// reaches the boss fast yet every bot is in the game when the boss enters
// (a bot that logs in later gets no StageBoss event, only the boss's
// entities). It asks the simulation, headless, with four bot brains
// (stageSim):
//
//   - warped to the "boss" marker, does the boss enter at least loginLead
//     after the start? Then the server warps to "boss".
//   - if not, it finds the latest second of the stage's timeline that
//     sim.NewStage accepts as a warp (none beyond the end boss: a warp in
//     seconds is timeline time, which stands still while the mid-boss
//     fights, so the ticks of a run do not give it), and steps back a
//     second at a time until the boss enters at least loginLead after
//     the start: the bots play the stage's last seconds before the boss.
//
// It returns the warp and why, and skips the test when the stage brings no
// boss (the built-in stage is not in this build).
func bossWarp(t *testing.T, st *stage.Stage) (warp, why string) {
	t.Helper()
	// bossAfter is the tick of the first StageBoss after warping to w, 0
	// if none within a minute.
	bossAfter := func(w string) uint32 {
		s := newStageSim(t, st, 7, w)
		for s.w.Tick() < 60*wire.TickRate && len(s.bosses) == 0 && s.over == 0 {
			s.step()
		}
		if len(s.bosses) == 0 {
			return 0
		}
		return s.bosses[0].tick
	}
	d := bossAfter("boss")
	if d == 0 {
		t.Fatalf("warped to its \"boss\" marker, the stage %q brings no boss within a minute", st.Name)
	}
	if d >= loginLead {
		return "boss", fmt.Sprintf("warped to the \"boss\" marker: the boss enters %s after it", seconds(d))
	}
	accepts := func(sec int) bool {
		_, err := sim.NewStage(sim.DefaultRules(), st, 7, sim.StageOptions{Warp: strconv.Itoa(sec)})
		return err == nil
	}
	lo, hi := 0, 3600 // lo is accepted
	if accepts(hi) {
		t.Fatalf("the stage %q accepts a warp to %d s: no end to find", st.Name, hi)
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; accepts(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	for sec := lo - 1; sec >= 0; sec-- { // the latest: the shortest test
		if d := bossAfter(strconv.Itoa(sec)); d >= loginLead {
			return strconv.Itoa(sec), fmt.Sprintf("warped to %d s of the timeline (the last warp it accepts is %d s; the \"boss\" marker brings the boss at once): the boss enters %s after the start",
				sec, lo, seconds(d))
		}
	}
	t.Fatalf("no warp of the stage %q brings the boss at least %s after the start", st.Name, seconds(loginLead))
	return "", ""
}

// TestFourBotsReachTheBoss has four bots (protocol v2, mode Stage) play
// the built-in stage against the real server over real sockets until the
// boss appears: a StageBoss event must reach each of them. To keep the
// test fast the server starts the stage shortly before the boss
// (bossWarp); TestStageDeterminism plays the whole stage, without the
// network. Then the boss fight goes on for a few seconds and each bot's
// bandwidth is logged.
func TestFourBotsReachTheBoss(t *testing.T) {
	st := builtinStage(t)
	warp, why := bossWarp(t, st)
	t.Logf("%s", why)
	srv := testserver.Start(t, server.Config{MaxGames: 1, Seed: 7, Mode: wire.ModeStage, Stage: st, Warp: warp})

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	type player struct {
		name string
		c    *client.Client
		boss chan wire.Event // the first StageBoss
		done chan error      // Play's result
	}
	players := make([]*player, wire.MaxPlayers)
	for i := range players {
		p := &player{name: fmt.Sprintf("bot%d", i+1), boss: make(chan wire.Event, 1), done: make(chan error, 1)}
		c, err := client.Dial(ctx, client.Config{Addr: srv.Addr(), Name: p.name, Logger: testutil.Logger(t),
			Version: wire.Version2, Mode: wire.ModeStage, OnEvent: func(ev *wire.Event) {
				if ev.Type == wire.EventStage && ev.What == wire.StageBoss {
					select {
					case p.boss <- *ev:
					default:
					}
				}
			}})
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		t.Cleanup(func() { c.Close() })
		if c.Mode() != wire.ModeStage {
			t.Fatalf("%s asked for Stage mode and joined a game of mode %d", p.name, c.Mode())
		}
		p.c = c
		players[i] = p
	}
	var wg sync.WaitGroup
	for i, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.done <- bot.Play(ctx, p.c, rand.New(rand.NewPCG(uint64(i), 13)))
		}()
	}
	defer wg.Wait()
	defer cancel()

	var last uint32
	for _, p := range players {
		select {
		case ev := <-p.boss:
			pl := p.c.Players()[p.c.Player()]
			t.Logf("%s: the boss %q enters at tick %d (%s into the game), lives %d, score %d",
				p.name, ev.Name, ev.Tick, seconds(ev.Tick), pl.Lives, pl.Score)
			last = max(last, ev.Tick)
		case err := <-p.done:
			if err == nil {
				err = errors.New("game over")
			}
			t.Fatalf("%s stopped playing before the boss: %v", p.name, err)
		case <-ctx.Done():
			t.Fatalf("%s saw no boss within the test's time", p.name)
		}
	}
	// The boss fight, for a few seconds: every bot still plays.
	fight := last + 3*wire.TickRate
	testutil.WaitFor(t, testutil.Wait, "three seconds of the boss fight", func() bool {
		for _, p := range players {
			var frames []client.Frame
			if frames = p.c.Frames(frames); len(frames) == 0 || frames[len(frames)-1].Tick < fight {
				return false
			}
		}
		return true
	})
	for _, p := range players {
		select {
		case err := <-p.done:
			t.Fatalf("%s stopped playing in the boss fight: %v", p.name, err)
		default:
		}
		st := p.c.Stats()
		pl := p.c.Players()[p.c.Player()]
		t.Logf("%s in the boss fight: %.1f kbit/s in, %.1f out, lives %d, score %d", p.name, st.KbitIn, st.KbitOut, pl.Lives, pl.Score)
	}
}
