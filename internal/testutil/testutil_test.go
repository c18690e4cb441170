package testutil

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var sink []byte

// AllocsPerRun counts a path that allocates once in four calls as 0.25,
// where testing.AllocsPerRun says 0.
func TestAllocsPerRunIsExact(t *testing.T) {
	if RaceEnabled {
		t.Skip("the race detector allocates for itself")
	}
	i := 0
	f := func() {
		if i%4 == 0 {
			sink = make([]byte, 64+i%3)
		}
		i++
	}
	if n := testing.AllocsPerRun(400, f); n != 0 {
		t.Logf("testing.AllocsPerRun: %v (expected 0, the integer division)", n)
	}
	i = 1 // the warm-up call takes i to 2: the runs cover i = 2..401
	if n := AllocsPerRun(400, f); n < 0.25 || n > 0.26 {
		t.Fatalf("AllocsPerRun = %v, want 0.25", n)
	}
	if n := AllocsPerRun(100, func() {}); n != 0 {
		t.Fatalf("an empty function allocates %v per call", n)
	}
	r := testing.Benchmark(func(b *testing.B) {
		for j := 0; b.Loop(); j++ {
			if j%2 == 0 {
				sink = make([]byte, 64)
			}
		}
	})
	if n := AllocsPerOp(r); n < 0.45 || n > 0.55 {
		t.Fatalf("AllocsPerOp = %v over %d runs, want 0.5 (BenchmarkResult.AllocsPerOp says %d)", n, r.N, r.AllocsPerOp())
	}
}

func TestEventually(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 3 {
			n.Add(1)
		}
	}()
	WaitFor(t, Wait, "three increments", func() bool { return n.Load() == 3 })
	start := time.Now()
	if Eventually(20*time.Millisecond, func() bool { return false }) {
		t.Fatal("a false condition held")
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Fatalf("gave up after %v, before its deadline", d)
	}
}

type runner struct {
	err  error
	runs atomic.Int32
}

func (r *runner) Run(ctx context.Context) error {
	r.runs.Add(1)
	<-ctx.Done()
	return r.err
}

func TestGoStopsAndReports(t *testing.T) {
	r := &runner{err: errors.New("boom")}
	stop := Go(context.Background(), r)
	WaitFor(t, Wait, "Run to start", func() bool { return r.runs.Load() == 1 })
	if err := stop(); err == nil || err.Error() != "boom" {
		t.Fatalf("stop: %v, want Run's error", err)
	}
	if err := stop(); err == nil || err.Error() != "boom" {
		t.Fatalf("second stop: %v, want the same error", err)
	}
}

func TestLoggerKeepsTheTail(t *testing.T) {
	var b tailBuffer
	line := strings.Repeat("x", 99) + "\n"
	for range 3 * maxLog / len(line) {
		b.Write([]byte(line))
	}
	s := b.take()
	if len(s) > maxLog || !strings.HasPrefix(s, "(earlier records cut)\n"+line) {
		t.Fatalf("kept %d bytes beginning %q", len(s), s[:min(len(s), 40)])
	}
	b.Write([]byte("late\n"))
	if strings.Contains(b.b.String(), "late") {
		t.Fatal("a record after take was kept")
	}
}

// ListenTCPUDP gives TCP and UDP the same port of 127.0.0.1, every time.
func TestListenTCPUDP(t *testing.T) {
	for range 5 {
		tcp, udp, err := ListenTCPUDP()
		if err != nil {
			t.Fatal(err)
		}
		tp, up := tcp.Addr().(*net.TCPAddr), udp.LocalAddr().(*net.UDPAddr)
		if tp.Port != up.Port || !tp.IP.IsLoopback() || !up.IP.IsLoopback() {
			t.Errorf("TCP on %v, UDP on %v", tp, up)
		}
		defer tcp.Close()
		defer udp.Close()
	}
}
