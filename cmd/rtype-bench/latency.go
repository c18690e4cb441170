package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"rtype/bot"
	"rtype/internal/testrules"
	"rtype/net/client"
	"rtype/net/netsim"
	"rtype/net/wire"
	"rtype/server"
	"rtype/sim"
)

// Section 4: latency, measured in a client as the game runs it (the
// game's own view, rtype/game/view: frame history, interpolation, own-ship
// prediction, one Update and one drawn frame every 1/60 s), with three
// bots in the game and the waves running. The measured player's ship
// cannot be hit, so that it stays where the test moves it.
//
// Key to screen: right after a frame is drawn, the player presses right
// (or left, in turn); the game reads the keys at the next frame's Update.
// The measure is the time from that drawn frame until the first frame that
// draws the own ship moved by half a pixel or more in that direction: as
// the player sees it (the prediction), and as the other players see it
// (the interpolation, the path every other entity takes). The press is
// released once the predicted ship moved, and the next one waits until the
// ship has stood still on both paths for a third of a second. A press in
// the middle of a frame would be read sooner: the figure is the worst case
// of the frame grid.
//
// Behind the server: at every frame, the server's present tick (its last
// snapshot's tick plus the time since, in process) minus the render tick
// the entities are drawn at.

// latResult is one condition's measures.
type latResult struct {
	keys      []time.Duration // key to screen, predicted own ship
	keysOther []time.Duration // key to screen, interpolated own ship
	timeouts  int             // presses not seen on both paths within giveUp
	behind    []time.Duration // behind the server's present
	behindNF  []time.Duration // behind the newest frame received
	delay     time.Duration   // the interpolation delay at the end
	missed    int
}

// latencyRules: default waves, no death for anyone.
func latencyRules() *sim.Rules {
	r := testrules.FullStrength()
	r.WaveSize, r.WaveSizeMax, r.WaveInterval, r.WaveIntervalMin = 6, 6, 120, 120
	r.JoinInvulnTicks = 1 << 30
	return &r
}

func measureLatency(ctx context.Context, o *opts, im *netsim.Impairment, presses int) (*latResult, error) {
	var mu sync.Mutex
	var clk serverClock
	rules := latencyRules()
	addr, c, stop, err := joinServer(ctx, server.Config{MaxGames: 1, Seed: o.seed, Rules: rules,
		OnSnapshot: func(_ int, s server.Snapshot) {
			mu.Lock()
			clk = serverClock{s.Tick, time.Now()}
			mu.Unlock()
		}}, im, o.seed, "player")
	if err != nil {
		return nil, err
	}
	defer stop()
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	bctx, bcancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { bcancel(); wg.Wait() }()
	for i := range 3 {
		b, err := client.Dial(dctx, client.Config{Addr: addr, Name: fmt.Sprintf("bot%d", i+1), Logger: quiet()})
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer b.Close()
			bot.Play(bctx, b, rand.New(rand.NewPCG(o.seed, uint64(i))))
		}()
	}

	res := &latResult{}
	v := newViewer(c, *rules)
	settle := 2 * time.Second // the interpolation delay finds its level
	if o.quick {
		settle = 500 * time.Millisecond // -quick checks the table, not the figures
	}
	const (
		still    = 20  // frames standing still before a press
		moved    = 0.5 // pixels
		giveUp   = 2 * time.Second
		tickTime = float64(time.Second) / wire.TickRate
	)
	start := time.Now()
	var (
		held            uint8 // the keys held, read at the next Update
		stillFor        int
		lastX, lastIX   float64
		pressed         bool
		seen, seenOther bool
		dir             float64
		x0, ix0         float64
		t0              time.Time
	)
	res.missed, err = renderLoop(ctx, start, func(_ int64, now time.Time) bool {
		f := v.frame(now, held)
		if now.Sub(start) < settle || !f.Own.Shown {
			return true
		}
		mu.Lock()
		present := float64(clk.tick) + float64(time.Since(clk.at))/tickTime
		mu.Unlock()
		res.behind = append(res.behind, time.Duration((present-f.RenderTick)*tickTime))
		res.behindNF = append(res.behindNF, time.Duration((float64(f.NewestTick)-f.RenderTick)*tickTime))
		x, ix := f.Own.X, f.Own.InterpX
		if pressed {
			if !seen && (x-x0)*dir >= moved {
				res.keys = append(res.keys, now.Sub(t0))
				seen = true
			}
			if !seenOther && (ix-ix0)*dir >= moved {
				res.keysOther = append(res.keysOther, now.Sub(t0))
				seenOther = true
			}
			switch {
			case seen && seenOther:
				pressed, stillFor, held = false, 0, 0
			case now.Sub(t0) > giveUp:
				res.timeouts++
				pressed, stillFor, held = false, 0, 0
			}
		} else {
			if math.Abs(x-lastX) < 0.01 && math.Abs(ix-lastIX) < 0.01 {
				stillFor++
			} else {
				stillFor = 0
			}
			if stillFor >= still {
				if len(res.keys)+res.timeouts >= presses {
					return false
				}
				dir, held = 1, wire.ActionRight
				if (len(res.keys)+res.timeouts)%2 == 1 {
					dir, held = -1, wire.ActionLeft
				}
				pressed, seen, seenOther, x0, ix0, t0 = true, false, false, x, ix, now
			}
		}
		lastX, lastIX = x, ix
		return true
	})
	res.delay = v.f.Net.Delay
	if err != nil {
		return nil, err
	}
	if err := c.Err(); err != nil {
		return nil, fmt.Errorf("the session ended: %w", err)
	}
	return res, nil
}

func runLatency(ctx context.Context, o *opts) ([]row, error) {
	presses := 40
	if o.quick {
		presses = 3
	}
	im := link40(0)
	conds := []struct {
		name string
		im   *netsim.Impairment
	}{
		{"loopback", nil},
		{"40 ± 20 ms each way", &im},
	}
	var rows [2][]row
	for i, cd := range conds {
		logf(o, "%s: %d key presses", cd.name, presses)
		r, err := measureLatency(ctx, o, cd.im, presses)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cd.name, err)
		}
		rows[i] = []row{
			{"Key press to the first frame showing the own ship moved, as its player sees it (predicted)", cd.name, keyFigures(r.keys),
				fmt.Sprintf("%d presses, %d not seen on both paths within 2 s; frames on a 60 Hz grid, %d missed by the loop (machine load); package game/view, as the game runs it", len(r.keys), r.timeouts, r.missed)},
			{"Key press to the first frame showing the own ship moved, as the other players see it (interpolated)", cd.name, keyFigures(r.keysOther),
				fmt.Sprintf("%d presses; the path of every entity but the own ship", len(r.keysOther))},
			{"Other entities drawn behind the server's present", cd.name,
				fmt.Sprintf("p50 %s, p90 %s, max %s", ms(quantile(r.behind, 0.5)), ms(quantile(r.behind, 0.9)), ms(quantile(r.behind, 1))),
				fmt.Sprintf("behind the newest snapshot received: p50 %s; interpolation delay at the end %s", ms(quantile(r.behindNF, 0.5)), ms(r.delay))},
		}
	}
	return []row{rows[0][0], rows[1][0], rows[0][1], rows[1][1], rows[0][2], rows[1][2]}, nil
}

// keyFigures are the quantiles and the mean of key-to-screen times.
func keyFigures(keys []time.Duration) string {
	keys = append([]time.Duration(nil), keys...)
	var mean time.Duration
	for _, k := range keys {
		mean += k
	}
	if len(keys) > 0 {
		mean /= time.Duration(len(keys))
	}
	return fmt.Sprintf("p50 %s, p90 %s, max %s (mean %s)", ms(quantile(keys, 0.5)), ms(quantile(keys, 0.9)), ms(quantile(keys, 1)), ms(mean))
}
