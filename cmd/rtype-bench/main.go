// Command rtype-bench measures the game's network and CPU costs and prints
// them as one markdown table: the figures of BENCHMARKS.md (issue #7).
//
// Usage:
//
//	rtype-bench [-quick] [-only SECTION[,SECTION...]] [-seed 1] [-out FILE]
//
// or `./build.sh bench [-quick]`. The sections, each in its own file:
//
//	bandwidth   1. bytes per second per client: as sent, full snapshots,
//	               the byte-aligned layout of seed 003; events; datagrams;
//	               at 0, 5 and 20% loss; bytes spent on predictable changes
//	server      2. sim Step and snapshot encoding per tick, busy games per
//	               process with real sockets and bots in another process
//	client      3. per drawn frame: rebuild, events, frame copy,
//	               interpolation, and their allocations
//	latency     4. key press to the first frame showing the ship moved, and
//	               how far behind the server the world is drawn
//	smoothness  5. a Bydos at constant velocity drawn through jitter and loss
//	players     6. players per core: the server's CPU time per player and
//	               second, and its tick, with rtype-load's clients
//	browser     7. the browser client in headless Chromium against native
//	               clients over UDP and WebTransport in the same game:
//	               payload and wire bytes, smoothness, frames per second
//
// Every scenario is deterministic in its inputs (simulation seed, bot
// seeds, impairment seed); timings on a real clock still vary from run to
// run. -quick runs every section small (a few seconds each), for CI, which
// checks that the table comes out whole, not the figures: the command
// exits with status 1 when a section fails or gives no row.
//
// The command never links Ebitengine: the CPU side of drawing is measured
// by BenchmarkDrawFrame300 of package render.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// opts are the command line's.
type opts struct {
	quick bool
	only  string
	seed  uint64
	out   string
	log   io.Writer // progress, on stderr
}

// row is one line of the table.
type row struct {
	Measure, Cond, Value, Note string
}

// section is one part of the measurements.
type section struct {
	name  string // for -only
	title string // in the table
	run   func(ctx context.Context, o *opts) ([]row, error)
}

var sections = []section{
	{"bandwidth", "1 Bandwidth", runBandwidth},
	{"server", "2 Server CPU", runServerCPU},
	{"client", "3 Client CPU", runClientCPU},
	{"latency", "4 Latency", runLatency},
	{"smoothness", "5 Smoothness", runSmoothness},
	{"players", "6 Players per core", runPlayers},
	{"browser", "7 Browser", runBrowser},
}

func main() {
	if spec := os.Getenv(botsEnv); spec != "" {
		os.Exit(botChild(spec))
	}
	if spec := os.Getenv(serverEnv); spec != "" {
		os.Exit(serverChild(spec))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	o := opts{log: stderr}
	fs := flag.NewFlagSet("rtype-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.quick, "quick", false, "small and short runs (a few seconds per section), for CI")
	fs.StringVar(&o.only, "only", "", "run these sections only, a comma between two: "+sectionNames())
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the simulations, the bots and the impairments")
	fs.StringVar(&o.out, "out", "", "write the markdown table to this file instead of stdout")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rtype-bench: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	var todo []section
	if o.only == "" {
		todo = sections
	}
	for name := range strings.SplitSeq(o.only, ",") {
		if name == "" {
			continue
		}
		i := slices.IndexFunc(sections, func(s section) bool { return s.name == name })
		if i < 0 {
			fmt.Fprintf(stderr, "rtype-bench: -only %q: no section %q (%s)\n", o.only, name, sectionNames())
			return 2
		}
		todo = append(todo, sections[i])
	}
	if len(todo) == 0 {
		fmt.Fprintf(stderr, "rtype-bench: -only %q: no section\n", o.only)
		return 2
	}
	setBenchTime(o.quick)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start, load0 := time.Now(), loadAvg()
	var b strings.Builder
	fmt.Fprintf(&b, "| Section | Measure | Condition | Value | Notes |\n|---|---|---|---|---|\n")
	var failed []string
	for i, s := range todo {
		if i > 0 && !o.quick {
			// Let the previous section's sockets and processes wind down.
			runtime.GC()
			time.Sleep(2 * time.Second)
		}
		t := time.Now()
		fmt.Fprintf(stderr, "==> %s\n", s.title)
		rows, err := s.run(ctx, &o)
		switch {
		case err != nil:
			failed = append(failed, fmt.Sprintf("%s: %v", s.name, err))
			rows = append(rows, row{Measure: "FAILED", Value: esc(err.Error())})
		case len(rows) == 0:
			failed = append(failed, s.name+": no figures")
		}
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", s.title, esc(r.Measure), esc(r.Cond), esc(r.Value), esc(r.Note))
		}
		fmt.Fprintf(stderr, "    %s done in %.1f s\n", s.name, time.Since(t).Seconds())
		if ctx.Err() != nil {
			failed = append(failed, "interrupted")
			break
		}
	}
	mode := "full"
	if o.quick {
		mode = "quick"
	}
	fmt.Fprintf(&b, "\n%s run of %s, seed %d, %.0f s; %s, %d CPUs (%s), %s/%s, GOMAXPROCS %d; load average (1 min) %s at the start, %s at the end.\n",
		mode, start.UTC().Format("2006-01-02 15:04 MST"), o.seed, time.Since(start).Seconds(), runtime.Version(), runtime.NumCPU(), cpuModel(),
		runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), load0, loadAvg())
	table := b.String()

	// The check CI relies on: every section asked for is in the table.
	for _, s := range todo {
		if !strings.Contains(table, "| "+s.title+" |") {
			failed = append(failed, s.name+": missing from the table")
		}
	}
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(table), 0o644); err != nil {
			fmt.Fprintln(stderr, "rtype-bench:", err)
			return 1
		}
		fmt.Fprintf(stderr, "table written to %s\n", o.out)
	} else {
		fmt.Fprint(stdout, table)
	}
	if len(failed) > 0 {
		for _, f := range failed {
			fmt.Fprintln(stderr, "rtype-bench: FAILED", f)
		}
		return 1
	}
	fmt.Fprintf(stderr, "rtype-bench: all %d sections measured in %.1f s\n", len(todo), time.Since(start).Seconds())
	return 0
}

func sectionNames() string {
	var n []string
	for _, s := range sections {
		n = append(n, s.name)
	}
	return strings.Join(n, ", ")
}

// esc keeps a cell inside its column.
func esc(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// loadAvg returns the 1-minute load average, or "?" where /proc has none.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// cpuModel returns the CPU's model name, or "?".
func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func logf(o *opts, format string, args ...any) {
	fmt.Fprintf(o.log, "    "+format+"\n", args...)
}
