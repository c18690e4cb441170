package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/server"
)

func TestLoginGate(t *testing.T) {
	g := newLoginGate(5, 10*time.Second, 100*time.Millisecond)
	t0 := time.Now()
	var slots []time.Duration
	for range 12 {
		slots = append(slots, g.reserve().Sub(t0))
	}
	near := func(got, want time.Duration) bool { return got >= want && got < want+50*time.Millisecond }
	for i, want := range []time.Duration{0, 100, 200, 300, 400, 10000, 10100, 10200, 10300, 10400, 20000, 20100} {
		if !near(slots[i], want*time.Millisecond) {
			t.Fatalf("slot %d at %v, want %v ms", i, slots[i], want)
		}
	}
	// At most 5 in any window of 10 s.
	for i := 5; i < len(slots); i++ {
		if slots[i]-slots[i-5] < 10*time.Second {
			t.Fatalf("slots %d and %d less than 10 s apart", i-5, i)
		}
	}
	g = newLoginGate(5, 10*time.Second, 100*time.Millisecond)
	g.reserve()
	g.backOff()
	if d := time.Until(g.reserve()); d < 9*time.Second {
		t.Fatalf("after a back-off the next slot is in %v, want a whole window", d)
	}
}

func TestFlags(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-n", "0"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "-n must be at least 1") {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	errs.Reset()
	if code := run([]string{"-name", "x"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "3 to 20 characters") {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	o, err := parse(nil, &errs)
	if err != nil || o.addr != "127.0.0.1:4242" || o.n != 1 || o.name != "bot" || o.duration != 0 || o.seed == 0 || o.version != 0 {
		t.Fatalf("defaults %+v, %v", o, err)
	}
	for arg, want := range map[string]uint8{"auto": 0, "1": 1, "2": 2} {
		if o, err := parse([]string{"-protocol", arg}, &errs); err != nil || o.version != want {
			t.Fatalf("-protocol %s: %+v, %v", arg, o, err)
		}
	}
	errs.Reset()
	if code := run([]string{"-protocol", "3"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "-protocol") {
		t.Fatalf("-protocol 3: exit %d, stderr %q", code, errs.String())
	}
	if o.mode != wire.ModeAny {
		t.Fatalf("default mode %d, want any", o.mode)
	}
	for arg, want := range map[string]uint8{"any": wire.ModeAny, "classic": wire.ModeClassic, "stage": wire.ModeStage} {
		if o, err := parse([]string{"-mode", arg}, &errs); err != nil || o.mode != want {
			t.Fatalf("-mode %s: %+v, %v", arg, o, err)
		}
	}
	for _, args := range [][]string{{"-mode", "arcade"}, {"-mode", "stage", "-protocol", "1"}} {
		errs.Reset()
		if code := run(args, &out, &errs); code != 2 || !strings.Contains(errs.String(), "-mode") {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errs.String())
		}
	}
	// A server that is not there: exit status 1 with a readable error.
	out.Reset()
	errs.Reset()
	if code := run([]string{"-addr", "127.0.0.1:1", "-log-level", "error"}, &out, &errs); code != 1 || !strings.Contains(out.String(), "bot1: error: cannot reach server 127.0.0.1:1") {
		t.Fatalf("exit %d, stdout %q", code, out.String())
	}
}

// -protocol against a v1-only server (rtype-server -protocol 1): auto
// plays in v1, and -protocol 2 fails with a clear error.
func TestProtocolFallback(t *testing.T) {
	srv := testserver.Start(t, server.Config{MaxGames: 1, MaxVersion: 1})
	var out, errs bytes.Buffer
	if code := run([]string{"-addr", srv.Addr(), "-duration", "1s", "-log-level", "error"}, &out, &errs); code != 0 || !strings.Contains(out.String(), "bot1: score") {
		t.Fatalf("auto: exit %d, stdout %q, stderr %q", code, out.String(), errs.String())
	}
	out.Reset()
	if code := run([]string{"-addr", srv.Addr(), "-protocol", "2", "-name", "two", "-log-level", "error"}, &out, &errs); code != 1 || !strings.Contains(out.String(), "does not speak protocol version 2") {
		t.Fatalf("-protocol 2: exit %d, stdout %q", code, out.String())
	}
}
