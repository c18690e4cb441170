// Package testutil is the test infrastructure of the module, written once:
// running a server (or any component with a Run method) until a test ends,
// waiting for a condition with a deadline instead of sleeping, quieting
// logs, and counting allocations exactly.
//
// It is headless and imports nothing of the module, so that every package
// can use it from its own tests, package server's included (the helper
// that starts a server.Server is in the subpackage testserver, which
// package server's tests cannot import without a cycle). Only _test.go
// files and cmd/rtype-bench use it.
package testutil

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Wait is the deadline of an "eventually" check on loopback. It is a
// guard against a deadlock, not a figure of speed: a condition that needs
// a few hundred milliseconds on an idle machine gets a hundred times
// that, so that a test passes on a machine whose cores are busy with
// other work (two CPU hogs beside the suite, as ./build.sh stress runs
// it). A passing wait returns as soon as its condition holds.
const Wait = 30 * time.Second

// poll is how often Eventually checks its condition.
const poll = 5 * time.Millisecond

// Eventually checks cond every few milliseconds until it holds, and
// reports whether it did within d. It is a wait for an observable
// condition with a deadline: the way tests synchronise, never a sleep
// whose length is a guess.
func Eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(poll)
	}
}

// WaitFor waits until cond holds, and fails the test (t.Fatalf, so from
// the test's goroutine only) if it does not within d; what names the
// condition in the failure message.
func WaitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Eventually(d, cond) {
		t.Fatalf("still waiting after %v for %s", d, what)
	}
}

// Runner is a component that serves until its context is done:
// server.Server, netsim.Relay.
type Runner interface {
	Run(ctx context.Context) error
}

// Go runs r in a goroutine until ctx is done or stop is called; stop
// cancels Run's context and returns Run's error once it returned, or an
// error if it did not within Wait.
func Go(ctx context.Context, r Runner) (stop func() error) {
	ctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx) }()
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-errc:
			case <-time.After(Wait):
				err = fmt.Errorf("testutil: %T.Run did not return within %v of its stop", r, Wait)
			}
		})
		return err
	}
}

// Run runs r in a goroutine until the test ends: its cleanup stops it as
// Go does and fails the test if Run returned an error or did not return.
func Run(t testing.TB, r Runner) {
	t.Helper()
	stop := Go(context.Background(), r)
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// Start makes a component with newR(cfg) and runs it until the test
// ends (Run); it fails the test if newR fails. For example
// testutil.Start(t, server.New, cfg), with cfg listening on 127.0.0.1:0.
func Start[C any, R Runner](t testing.TB, newR func(C) (R, error), cfg C) R {
	t.Helper()
	r, err := newR(cfg)
	if err != nil {
		t.Fatalf("testutil: start %T: %v", r, err)
	}
	Run(t, r)
	return r
}

// ListenTCPUDP listens on 127.0.0.1 with TCP and UDP on the same free
// port, as a game server does (PROTOCOL.md 3): a port free for TCP may be
// taken for UDP, so it tries again, 20 times at most, on another port.
func ListenTCPUDP() (*net.TCPListener, *net.UDPConn, error) {
	for try := 0; ; try++ {
		tcp, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return nil, nil, fmt.Errorf("testutil: listen TCP on 127.0.0.1: %w", err)
		}
		udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: tcp.Addr().(*net.TCPAddr).Port})
		if err == nil {
			return tcp, udp, nil
		}
		tcp.Close()
		if try == 20 {
			return nil, nil, fmt.Errorf("testutil: no port of 127.0.0.1 free for both TCP and UDP: %w", err)
		}
	}
}

// LogEnv is the environment variable that sends every test log to stderr
// as it happens, at the Debug level: RTYPE_TEST_LOG=1 go test ./e2e.
const LogEnv = "RTYPE_TEST_LOG"

// maxLog bounds the log a test keeps for its failure report: its last
// 256 KiB.
const maxLog = 256 << 10

// Logger returns a logger for the components of a test. It keeps their
// records (Info and above) in memory and writes them to the test's log
// only if the test fails, at its end; a passing test prints nothing. With
// RTYPE_TEST_LOG set in the environment, it writes every record (Debug and
// above) to stderr at once instead. Records logged after the test ended
// are discarded.
func Logger(t testing.TB) *slog.Logger {
	if os.Getenv(LogEnv) != "" {
		return ProcessLogger()
	}
	b := &tailBuffer{}
	t.Cleanup(func() {
		if s := b.take(); t.Failed() && s != "" {
			t.Logf("log of the components:\n%s", s)
		}
	})
	return slog.New(slog.NewTextHandler(b, nil))
}

// ProcessLogger is the logger of a helper process that a test starts
// (a server or bots in a child process), which has no testing.TB: with
// RTYPE_TEST_LOG set, every record to stderr; else none.
func ProcessLogger() *slog.Logger {
	if os.Getenv(LogEnv) != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return Discard()
}

// Discard returns a logger that drops every record: for the tools and
// tests that never want one (see Logger for a test's components).
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// tailBuffer keeps the last maxLog bytes written to it, until take.
type tailBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	done bool
	cut  bool
}

func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(p), nil
	}
	w.b.Write(p)
	if w.b.Len() > maxLog {
		// Keep the newer half, from a line start.
		old := w.b.Bytes()[w.b.Len()-maxLog/2:]
		if i := bytes.IndexByte(old, '\n'); i >= 0 {
			old = old[i+1:]
		}
		var nb bytes.Buffer
		nb.Write(old)
		w.b, w.cut = nb, true
	}
	return len(p), nil
}

// take returns what was kept and discards what comes later.
func (w *tailBuffer) take() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.cut {
		return "(earlier records cut)\n" + w.b.String()
	}
	return w.b.String()
}

var _ io.Writer = (*tailBuffer)(nil)

// AllocsPerRun returns the exact mean number of heap allocations of one
// call of f, over runs calls after one warm-up call: the difference of
// runtime.MemStats.Mallocs around the runs, divided as a float. Unlike
// testing.AllocsPerRun, whose integer division reports 0.9 allocation per
// call as 0, a path that allocates once in ten calls shows 0.1 here. As
// testing.AllocsPerRun does, it runs with GOMAXPROCS 1, so that other
// goroutines allocate as little as possible meanwhile; what they still
// allocate counts.
func AllocsPerRun(runs int, f func()) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.Mallocs
	for range runs {
		f()
	}
	runtime.ReadMemStats(&ms)
	return float64(ms.Mallocs-before) / float64(runs)
}

// AllocsPerOp returns the exact mean allocations per operation of a
// testing.Benchmark result: MemAllocs / N as a float, where
// BenchmarkResult.AllocsPerOp divides integers (0.9 becomes 0).
func AllocsPerOp(r testing.BenchmarkResult) float64 {
	if r.N == 0 {
		return 0
	}
	return float64(r.MemAllocs) / float64(r.N)
}

// NoAllocs fails the test unless f allocates nothing at all over runs
// calls after a warm-up call (AllocsPerRun is exactly 0). It checks under
// the race detector too, whose bookkeeping is not on the Go heap; a path
// that allocates only under -race can skip its test with RaceEnabled.
//
// The count covers the whole process: once in a few hundred tests, some
// other goroutine of the test binary (the testing package's, the
// runtime's) allocated once during the runs. So a round that allocates is
// measured again, and the test fails when the second round allocates too:
// a path that allocates in steady state, even once in runs calls, does so
// in every round.
func NoAllocs(t testing.TB, runs int, what string, f func()) {
	t.Helper()
	n := AllocsPerRun(runs, f)
	if n == 0 {
		return
	}
	if again := AllocsPerRun(runs, f); again != 0 {
		t.Errorf("%s: %.4g then %.4g allocations per call over two rounds of %d calls, want 0", what, n, again, runs)
	}
}

// FieldOffset returns the offset in bytes of field name in the struct
// v (a value, not a pointer), as unsafe.Offsetof gives it: for the tests
// that hold a struct's layout, without unsafe. It panics when v has no
// such field.
func FieldOffset(v any, name string) uintptr {
	f, ok := reflect.TypeOf(v).FieldByName(name)
	if !ok {
		panic("testutil: no field " + name + " in " + reflect.TypeOf(v).String())
	}
	return f.Offset
}

// FieldEnd returns the byte just past field name of the struct v: its
// offset plus its size.
func FieldEnd(v any, name string) uintptr {
	f, _ := reflect.TypeOf(v).FieldByName(name)
	return FieldOffset(v, name) + f.Type.Size()
}
