package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"rtype/internal/testrules"
	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/server"
	"rtype/sim"
)

// quiet is the logger of every server, client and relay of the bench.
func quiet() *slog.Logger { return testutil.Discard() }

// botBusyRules make a game played by four bots as busy as the busy game
// of section 2 (4 ships, about 40 Bydos and 100 missiles; the bots kill
// many Bydos): full-strength waves of 36 Bydos every 2 s at their base
// speed, each firing every 1 to 2 s.
func botBusyRules() sim.Rules {
	r := testrules.FullStrength()
	r.WaveSpeedStep = 0
	r.WaveSize, r.WaveSizeMax = 36, 36
	r.BydosFireMin, r.BydosFireMax = 60, 120
	return r
}

// busyRules make the busy game of section 2 through the public sim API
// alone: four ships that never die, firing along the top edge (so that
// their missiles rarely hit), and waves tuned so that about 40 Bydos and
// 100 missiles (both sides) are in flight. With scale 3 and fire every 3
// ticks, the same recipe holds about 300 entities (section 3).
func busyRules(scale, fireEvery int) sim.Rules {
	r := sim.DefaultRules()
	r.Lives = 255
	r.JoinInvulnTicks = 1 << 30
	r.FirstWave = 1
	r.FireInterval = fireEvery
	r.WaveSize, r.WaveSizeMax = 6*scale, 6*scale
	r.WaveInterval, r.WaveIntervalMin, r.WaveIntervalStep = 100, 100, 0
	r.WaveSpeedStep = 0
	return r
}

// newBusyWorld returns a world of busyRules with four players, stepped
// warm ticks into its steady state.
func newBusyWorld(rules sim.Rules, seed uint64, warm int) *sim.World {
	w := sim.New(rules, seed)
	for p := range uint8(wire.MaxPlayers) {
		w.AddPlayer(p, fmt.Sprintf("ship%d", p))
	}
	w.TakeEvents()
	for i := range warm {
		busyInput(w, i)
		w.Step()
		w.TakeEvents()
	}
	return w
}

// busyInput holds the busy world's inputs: every ship fires and hugs the
// top edge, going left then right, one second each, out of step.
func busyInput(w *sim.World, i int) {
	if i%60 != 0 {
		return
	}
	for p := range uint8(wire.MaxPlayers) {
		w.SetInput(p, busyActions(p, i))
	}
}

// busyActions returns the actions player p holds at input step i of the
// busy world (busyInput).
func busyActions(p uint8, i int) uint8 {
	lr := []uint8{wire.ActionLeft, wire.ActionRight}[(i/60+int(p))%2]
	return wire.ActionFire | wire.ActionUp | lr
}

// kindCounts counts entities by kind.
type kindCounts struct {
	n    [8]float64
	snap int
}

func (k *kindCounts) add(es []wire.Entity) {
	for i := range es {
		k.n[es[i].Kind&7]++
	}
	k.snap++
}

func (k *kindCounts) String() string {
	if k.snap == 0 {
		return "no snapshot"
	}
	d := float64(k.snap)
	return fmt.Sprintf("%.1f ships, %.1f Bydos, %.1f player + %.1f enemy missiles (%.0f entities)",
		k.n[wire.KindPlayerShip]/d, k.n[wire.KindBydosSlave]/d, k.n[wire.KindPlayerMissile]/d,
		k.n[wire.KindEnemyMissile]/d, (k.n[1]+k.n[2]+k.n[3]+k.n[4])/d)
}

// startServer runs a server on a free loopback port until ctx is done or
// the returned stop is called (which waits for it to end).
func startServer(ctx context.Context, cfg server.Config) (*server.Server, func(), error) {
	cfg.Listen = "127.0.0.1:0"
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	if cfg.LoginLimit == 0 {
		cfg.LoginLimit = 1 << 20 // every bot logs in from 127.0.0.1
	}
	if cfg.MaxSessionsPerIP == 0 {
		cfg.MaxSessionsPerIP = 1 << 20 // likewise
	}
	if cfg.Mode == wire.ModeAny {
		// The figures are Classic's: its v1 and v2 bots share one game
		// (PROTOCOL.md 7.12: a Stage game holds only v2 sessions).
		cfg.Mode = wire.ModeClassic
	}
	s, err := server.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	stop := testutil.Go(ctx, s)
	return s, func() { stop() }, nil
}

// setBenchTime sets how long testing.Benchmark runs each benchmark: the
// testing package's -test.benchtime, 1 s by default, 100 ms with -quick.
func setBenchTime(quick bool) {
	if !quick {
		return
	}
	if flag.Lookup("test.benchtime") == nil {
		testing.Init()
	}
	flag.Set("test.benchtime", "100ms")
}

// benchRes is the figures of one benchmark.
type benchRes struct {
	testing.BenchmarkResult
	allocs float64 // MemAllocs / N, exact (BenchmarkResult.AllocsPerOp rounds down)
}

// bench measures body after warm calls of it (buffers at their size: the
// steady state) with testing.Benchmark: the time per call, and the exact
// mean allocations per call over the same calls (testutil.AllocsPerOp:
// MemAllocs / N as a float, so that one allocation in ten calls shows as
// 0.1 and not, as Go's integer division has it, 0).
func bench(warm int, body func()) benchRes {
	for range warm {
		body()
	}
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body()
		}
	})
	return benchRes{r, testutil.AllocsPerOp(r)}
}

// benchResult is a benchmark in the table's words.
func benchResult(r benchRes) string {
	return fmt.Sprintf("%s/op, %s allocs/op", dur(time.Duration(r.NsPerOp())), frac(r.allocs))
}

// dur formats a duration with 3 significant digits.
func dur(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	case d < time.Millisecond:
		return sig(float64(d)/1e3) + " µs"
	case d < time.Second:
		return sig(float64(d)/1e6) + " ms"
	}
	return sig(d.Seconds()) + " s"
}

// frac formats a count per operation: whole when it is, else with 2
// decimals (or 4 for a rare allocation).
func frac(v float64) string {
	switch {
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case v < 0.01:
		return fmt.Sprintf("%.4f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// ms formats a duration in milliseconds, one decimal.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

// sig formats v with 3 significant digits.
func sig(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// num formats an integer figure with thousands separators.
func num(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// pct formats a ratio as a percentage.
func pct(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*a/b)
}

// quantile returns the q quantile (0 to 1) of v, sorting v.
func quantile[T int | uint32 | float64 | time.Duration](v []T, q float64) T {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[min(len(v)-1, int(q*float64(len(v))))]
}

// sleepCtx waits for d or ctx.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
