package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"time"

	"rtype/internal/load"
	"rtype/internal/testrules"
	"rtype/net/wire"
	"rtype/server"
)

// Section 6: players per core. A server in a process of its own (this
// executable in the mode of serverEnv) runs Classic games at full
// strength; rtype-load's clients (package internal/load) in this process
// log in, step by step, and play. At each step the server's own CPU time
// (its getrusage) over a measured window gives its cost per player and
// second; its tick statistics give the tick duration; this process's
// getrusage gives the load generator's cost.

// serverEnv, when set to "PROFILE" (a file name, or "-" for none), makes
// this program (or its test binary) a server process instead: it prints
// its address on its standard output, then answers each line of its
// standard input: "mark" starts a window, "stats" prints the window's
// figures (serverStats); it ends when its standard input is closed.
const serverEnv = "RTYPE_BENCH_SERVER"

// serverStats are a server process's figures over a window.
type serverStats struct {
	cpu             float64 // CPU seconds (user + system)
	wall            float64 // seconds
	ticks, overruns int
	p50, p99, max   time.Duration
	games, sessions int
	busy            float64 // the tick loop's duty cycle at the end
	sys             float64 // the system (kernel) part of cpu
	nice            int     // the server's nice value
	sock            server.SocketStats
}

// serverChild is the server process. It returns its exit status.
func serverChild(spec string) int {
	setNice(0) // the priority the load lowered for itself, forked into this process (where allowed)
	rules := testrules.FullStrength()
	srv, err := server.New(server.Config{Listen: "127.0.0.1:0", MaxGames: 4096, MaxSessions: 1 << 16,
		Seed: 1, Rules: &rules, Mode: wire.ModeClassic, LoginLimit: 1 << 20, MaxSessionsPerIP: 1 << 20,
		MaxPending: 1024, MaxPendingPerIP: 1024, MaxTickLoad: 1, Logger: quiet(), // no back-pressure: the cost is measured
		TickShards: envInt("RTYPE_BENCH_TICK_SHARDS")}) // 0: the default, GOMAXPROCS
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtype-bench server:", err)
		return 1
	}
	if spec != "-" {
		f, err := os.Create(spec)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rtype-bench server:", err)
			return 1
		}
		pprof.StartCPUProfile(f)
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Run(ctx); close(done) }()
	fmt.Println(srv.Addr())
	if n := envInt("RTYPE_BENCH_SERVER_PROCS"); n > 0 { // a measurement, not a default
		runtime.GOMAXPROCS(n)
	}
	var t0 time.Time
	var cpu0, sys0 float64
	var st0 server.TickStats
	var sk0 server.SocketStats
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch sc.Text() {
		case "mark":
			startTrace(os.Getenv("RTYPE_BENCH_TRACE"))
			t0, cpu0, sys0, st0, sk0 = time.Now(), load.CPUSeconds(), load.SystemCPUSeconds(), srv.TickStats(), srv.SocketStats()
			fmt.Println("ok")
		case "stats":
			cpu, wall := load.CPUSeconds()-cpu0, time.Since(t0).Seconds()
			st := srv.TickStatsSince(st0.Ticks)
			sys, sk := load.SystemCPUSeconds()-sys0, srv.SocketStats()
			fmt.Println(cpu, wall, st.Ticks-st0.Ticks, st.Overruns-st0.Overruns, int64(st.P50), int64(st.P99), int64(st.Max),
				st.Games, st.Sessions, st.Load, sys,
				sk.Reads-sk0.Reads, sk.Received-sk0.Received, sk.ReadWaits-sk0.ReadWaits,
				sk.Writes-sk0.Writes, sk.Sent-sk0.Sent, sk.WriteWaits-sk0.WriteWaits, sk.ShortWrites-sk0.ShortWrites, sk.Refused-sk0.Refused, niceOf())
			if r := tickPartsReport(srv.TickPartsSince(st0.Ticks)); r != "" {
				fmt.Fprintln(os.Stderr, r)
			}
		}
	}
	cancel()
	<-done
	return 0
}

// startTrace, when name is not "", writes a runtime/trace of the server
// process's first 3 seconds of the window to name (RTYPE_BENCH_TRACE):
// what the tick's goroutines, the read loop and the GC do, tick by tick.
func startTrace(name string) {
	if name == "" {
		return
	}
	f, err := os.Create(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtype-bench server:", err)
		return
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-bench server:", err)
		f.Close()
		return
	}
	time.AfterFunc(3*time.Second, func() { trace.Stop(); f.Close() })
}

// serverProcess is a running server process.
type serverProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
	addr  string
}

// startServerProcess starts a server process; profile, when not "",
// receives its CPU profile.
func startServerProcess(profile string) (*serverProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if profile == "" {
		profile = "-"
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serverEnv+"="+profile)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serverProcess{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	if !p.out.Scan() {
		p.stop()
		return nil, errors.New("the server process printed no address")
	}
	p.addr = p.out.Text()
	return p, nil
}

// ask sends a command and returns the answer line.
func (p *serverProcess) ask(cmd string) (string, error) {
	if _, err := fmt.Fprintln(p.stdin, cmd); err != nil {
		return "", err
	}
	if !p.out.Scan() {
		return "", fmt.Errorf("the server process did not answer %q", cmd)
	}
	return p.out.Text(), nil
}

func (p *serverProcess) stats() (serverStats, error) {
	var s serverStats
	line, err := p.ask("stats")
	if err != nil {
		return s, err
	}
	var p50, p99, mx int64
	k := &s.sock
	_, err = fmt.Sscan(line, &s.cpu, &s.wall, &s.ticks, &s.overruns, &p50, &p99, &mx, &s.games, &s.sessions, &s.busy, &s.sys,
		&k.Reads, &k.Received, &k.ReadWaits, &k.Writes, &k.Sent, &k.WriteWaits, &k.ShortWrites, &k.Refused, &s.nice)
	s.p50, s.p99, s.max = time.Duration(p50), time.Duration(p99), time.Duration(mx)
	return s, err
}

// stop ends the server (closing its input) and waits for it, killing it,
// by its id, if it has not ended within 10 seconds.
func (p *serverProcess) stop() { stopChild(p.cmd, p.stdin, 10*time.Second) }

// playersStep is one step of the section: n players for a window.
type playersStep struct {
	n        int
	srv      serverStats
	load     load.Report
	loadNice int // the load generator's nice value (niceLoad)
}

// runPlayers is section 6: a step that does not hold (a client dropped,
// or more than 5% of the ticks missed) is the last, its row marked so; a
// first step that does not hold fails the section.
func runPlayers(ctx context.Context, o *opts) ([]row, error) {
	steps := []int{100, 200, 400, 800, 1000}
	warm, window := 5*time.Second, 20*time.Second
	if o.quick {
		steps, warm, window = []int{8}, time.Second, 2*time.Second
	}
	if s := os.Getenv("RTYPE_BENCH_PLAYERS"); s != "" { // e.g. "400,800"
		steps = nil
		for _, f := range strings.Split(s, ",") {
			var n int
			if _, err := fmt.Sscan(f, &n); err == nil && n > 0 {
				steps = append(steps, n)
			}
		}
	}
	var rows []row
	for i, n := range steps {
		st, err := playersRun(ctx, o, n, warm, window, os.Getenv("RTYPE_BENCH_PROFILE"))
		switch {
		case err != nil && (st == nil || i == 0):
			return rows, err
		case err != nil:
			// The machine holds no more (the load generator's CPU
			// counts too): the step is a figure, and the last.
			r := st.row(window)
			r.Measure += " (did not hold: " + err.Error() + ")"
			return append(rows, r), nil
		}
		rows = append(rows, st.row(window))
	}
	return rows, nil
}

// playersRun runs one step: a new server process, n clients logged in,
// warm, then a measured window.
func playersRun(ctx context.Context, o *opts, n int, warm, window time.Duration, profile string) (*playersStep, error) {
	if profile != "" {
		profile = fmt.Sprintf("%s.%d", profile, n)
	}
	sp, err := startServerProcess(profile)
	if err != nil {
		return nil, err
	}
	defer sp.stop()
	logf(o, "%d players: logging in...", n)
	lc := load.Config{Addr: sp.addr, N: n, Seed: o.seed, Logins: 16, Logger: quiet()}
	lc.PerSocket = envInt("RTYPE_BENCH_PER_SOCKET")       // light sessions per UDP socket (0: 16)
	lc.Full = os.Getenv("RTYPE_BENCH_FULL_CLIENTS") != "" // net/client.Client per player

	lc.Parked = os.Getenv("RTYPE_BENCH_PARKED_READERS") != "" // a reader parked per socket, not polled at each tick
	lc.Phases = envInt("RTYPE_BENCH_PHASES")                  // the sockets' turns in a tick (0: 8; 1: all at once)
	l, err := load.Start(ctx, lc)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	loadNice := 19 // the default: the server has the machine first, as the clients are not on it
	if o.quick {
		// -quick checks the table, not the machine: at nice 19 beside
		// other work (a test suite, CPU hogs) the clients got no CPU
		// and timed out.
		loadNice = 0
	}
	if _, ok := os.LookupEnv("RTYPE_BENCH_LOAD_NICE"); ok {
		loadNice = envInt("RTYPE_BENCH_LOAD_NICE") // 0: the load competes with the server as an equal
	}
	defer niceLoad(loadNice)() // once logged in: logging in at nice 19 on a busy machine timed out
	if err := sleepCtx(ctx, warm); err != nil {
		return nil, err
	}
	if _, err := sp.ask("mark"); err != nil {
		return nil, err
	}
	l.Mark()
	if err := sleepCtx(ctx, window); err != nil {
		return nil, err
	}
	st := &playersStep{n: n, load: l.Report(), loadNice: loadNice}
	if st.srv, err = sp.stats(); err != nil {
		return nil, err
	}
	logf(o, "    server cpu %.2fs over %.1fs (%.1f µs per player-second, %.1f per player-second of ticks), p50 %s p99 %s max %s, %d/%d ticks, %d games, %d sessions; load cpu %.2fs, %d connected; nice: load %d, server %d",
		st.srv.cpu, st.srv.wall, st.cpuPerPlayerSecond()*1e6, st.cpuPerPlayerTicked()*1e6, dur(st.srv.p50), dur(st.srv.p99), dur(st.srv.max),
		st.srv.ticks, int(st.srv.wall*wire.TickRate), st.srv.games, st.srv.sessions, st.load.CPU, st.load.Connected, st.loadNice, st.srv.nice)
	if k, w := st.srv.sock, st.srv.wall; w > 0 {
		// The server's UDP syscalls: the batches the load lets it make,
		// and the kernel's share of its CPU (getrusage's system time).
		logf(o, "    server socket: %.0f reads/s of %.1f datagrams, %.0f waits for the socket to be readable/s; %.0f writes/s of %.1f datagrams, %d EAGAIN waits, %d short, %d refused; system %.0f%% of the server's CPU",
			float64(k.Reads)/w, float64(k.Received)/max(float64(k.Reads), 1), float64(k.ReadWaits)/w,
			float64(k.Writes)/w, float64(k.Sent)/max(float64(k.Writes), 1), k.WriteWaits, k.ShortWrites, k.Refused, 100*st.srv.sys/max(st.srv.cpu, 1e-9))
	}
	if ps := st.load.Seconds * float64(st.load.Clients); ps > 0 {
		// What a player costs in datagrams, by kind (light clients).
		logf(o, "    per player-second: in %.1f datagrams, %.1f kB (%.1f snapshots, %.1f of them carrying events, %.1f event datagrams; %.1f events, %.1f of them repeats), out %.1f, %.1f kB (%.1f acks)",
			float64(st.load.DatagramsIn)/ps, float64(st.load.BytesIn)/ps/1000, float64(st.load.Snapshots)/ps, float64(st.load.TailSnapshots)/ps, float64(st.load.EventDatagrams)/ps,
			float64(st.load.EventFrames)/ps, float64(st.load.EventFrames-min(st.load.Events, st.load.EventFrames))/ps,
			float64(st.load.DatagramsOut)/ps, float64(st.load.BytesOut)/ps/1000, float64(st.load.Acks)/ps)
	}
	switch expected := int(st.srv.wall * wire.TickRate); {
	case st.load.Connected < n || st.srv.sessions < n:
		return st, fmt.Errorf("%d connected at the end, the server holds %d sessions", st.load.Connected, st.srv.sessions)
	case !o.quick && st.srv.ticks < expected-expected/20: // -quick checks the table, not the machine
		return st, fmt.Errorf("the server ran %d of %d ticks", st.srv.ticks, expected)
	}
	return st, nil
}

// niceLoad sets this process's threads (the load generator's) to nice n
// for a step, and again every quarter second for the threads the runtime
// starts meanwhile, until the returned stop; n <= 0 leaves them. Real
// clients are not on the server's machine: with the load at nice 19 the
// server's threads run whenever they have work, and its read loop wakes
// for the datagrams as they come, as on a machine of its own. At the same
// priority the load held the cores between the server's wake-ups, so that
// the server found its datagrams gathered in larger batches, and paid
// less per player than it would alone (BENCHMARKS.md, players per core,
// ninth pass). The server process, forked from a niced thread, sets its
// own back to 0 (serverChild), where the system allows it.
func niceLoad(n int) (stop func()) {
	if n <= 0 {
		return func() {}
	}
	setNice(n)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second / 4)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				setNice(n)
			}
		}
	}()
	return func() {
		close(done)
		setNice(0) // where the system allows it: the next sections as before
	}
}

// envInt reads a number from the environment variable name: 0 when unset
// or not a number.
func envInt(name string) int {
	var n int
	fmt.Sscan(os.Getenv(name), &n)
	return n
}

// cpuPerPlayerTicked is cpuPerPlayerSecond over the seconds of ticks the
// server ran (ticks/60) instead of the wall seconds: on a machine too busy
// to run every tick, what a player costs at the full tick rate, roughly
// (the Inputs received do not slow down with the ticks).
func (s *playersStep) cpuPerPlayerTicked() float64 {
	if s.srv.ticks == 0 || s.n == 0 {
		return 0
	}
	return s.srv.cpu / (float64(s.srv.ticks) / wire.TickRate * float64(s.n))
}

// cpuPerPlayerSecond is the server's CPU seconds per player and second.
func (s *playersStep) cpuPerPlayerSecond() float64 {
	if s.srv.wall == 0 || s.n == 0 {
		return 0
	}
	return s.srv.cpu / (s.srv.wall * float64(s.n))
}

func (s *playersStep) row(window time.Duration) row {
	c := s.cpuPerPlayerSecond()
	perCore := 0.0
	if c > 0 {
		perCore = 1 / c
	}
	return row{
		Measure: fmt.Sprintf("%d players in %d busy games", s.n, s.srv.games),
		Cond:    fmt.Sprintf("server process, GOMAXPROCS %d, nice %d; load in another process, nice %d", runtime.GOMAXPROCS(0), s.srv.nice, s.loadNice),
		Value: fmt.Sprintf("%s µs server CPU per player-second: %s players per core; tick p50 %s, p99 %s",
			sig(c*1e6), num(perCore), dur(s.srv.p50), dur(s.srv.p99)),
		Note: fmt.Sprintf("server CPU %.2f s over %.1f s (getrusage of its process, not wall time), %s µs per player and second of ticks run; max tick %s, %d/%d ticks; load generator CPU %s µs per player-second (%.2f s); in %s datagrams/s, out %s datagrams/s",
			s.srv.cpu, s.srv.wall, sig(s.cpuPerPlayerTicked()*1e6), dur(s.srv.max), s.srv.ticks, int(s.srv.wall*wire.TickRate),
			sig(s.load.CPUPerClientSecond()*1e6), s.load.CPU,
			num(float64(s.load.DatagramsIn)/s.load.Seconds), num(float64(s.load.DatagramsOut)/s.load.Seconds)),
	}
}

// tickPartsReport describes where a window's ticks spent their time
// (server.TickPart), for the server process's standard error: each
// part's p50 and p99 over every tick, its mean over the slowest 1%, and
// the tick's p50 and p99 per class of snapshot ticks.
func tickPartsReport(ps []server.TickPart) string {
	if len(ps) == 0 {
		return ""
	}
	type part struct {
		name string
		of   func(p *server.TickPart) time.Duration
	}
	shard := func(i int, f func(sp server.ShardPart) time.Duration) func(p *server.TickPart) time.Duration {
		return func(p *server.TickPart) time.Duration {
			if i >= len(p.Shards) {
				return 0
			}
			return f(p.Shards[i])
		}
	}
	parts := []part{
		{"total", func(p *server.TickPart) time.Duration { return p.Total }},
		{"lock", func(p *server.TickPart) time.Duration { return p.Lock }},
		{"queued", func(p *server.TickPart) time.Duration { return p.Queued }},
	}
	for i := range ps[0].Shards {
		parts = append(parts,
			part{fmt.Sprintf("s%d.start", i), shard(i, func(sp server.ShardPart) time.Duration { return sp.Start })},
			part{fmt.Sprintf("s%d.steps", i), shard(i, func(sp server.ShardPart) time.Duration { return sp.Steps })},
			part{fmt.Sprintf("s%d.steps-cpu", i), shard(i, func(sp server.ShardPart) time.Duration { return sp.StepsCPU })},
			part{fmt.Sprintf("s%d.sends", i), shard(i, func(sp server.ShardPart) time.Duration { return sp.Sends })},
			part{fmt.Sprintf("s%d.sends-cpu", i), shard(i, func(sp server.ShardPart) time.Duration { return sp.SendsCPU })},
			part{fmt.Sprintf("s%d.sending", i), shard(i, func(sp server.ShardPart) time.Duration { return sp.Sending })})
	}
	parts = append(parts,
		part{"wait", func(p *server.TickPart) time.Duration { return p.Wait }},
		part{"rest", func(p *server.TickPart) time.Duration { return p.Rest }})
	slow := slices.Clone(ps)
	slices.SortFunc(slow, func(a, b server.TickPart) int { return cmp.Compare(a.Total, b.Total) })
	slow = slow[len(slow)*99/100:]
	var b strings.Builder
	fmt.Fprintf(&b, "    tick parts over %d ticks (p50 / p99 of each; mean of the slowest %d ticks):", len(ps), len(slow))
	for _, pt := range parts {
		// A negative figure is unknown (a thread's CPU time when its
		// goroutine changed threads).
		var d []time.Duration
		for i := range ps {
			if v := pt.of(&ps[i]); v >= 0 {
				d = append(d, v)
			}
		}
		var sum time.Duration
		k := 0
		for i := range slow {
			if v := pt.of(&slow[i]); v >= 0 {
				sum, k = sum+v, k+1
			}
		}
		if len(d) == 0 || k == 0 {
			continue
		}
		slices.Sort(d)
		fmt.Fprintf(&b, " %s %s / %s (%s);", pt.name, dur(d[len(d)/2]), dur(d[len(d)*99/100]), dur(sum/time.Duration(k)))
	}
	classes := map[int][]time.Duration{}
	for i := range ps {
		classes[ps[i].Class] = append(classes[ps[i].Class], ps[i].Total)
	}
	b.WriteString("\n    tick by class of snapshot ticks:")
	for c := 0; c < len(classes)+1; c++ {
		t, ok := classes[c]
		if !ok {
			continue
		}
		slices.Sort(t)
		fmt.Fprintf(&b, " %d: p50 %s p99 %s (%d ticks, %d of the slowest);", c, dur(t[len(t)/2]), dur(t[len(t)*99/100]), len(t),
			len(slices.DeleteFunc(slices.Clone(slow), func(p server.TickPart) bool { return p.Class != c })))
	}
	return b.String()
}
