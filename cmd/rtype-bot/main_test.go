package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"rtype/internal/testrules"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/internal/version"
	"rtype/net/lobby"
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

// -create prints the room's code; the second bot joins it; both say a
// line, get ready, play the room's game to its end.
func TestCreateRoom(t *testing.T) {
	srv := testserver.Start(t, server.Config{LoginLimit: 1 << 20, Rules: testrules.QuickDeath(), Mode: wire.ModeClassic,
		GameOverLinger: 300 * time.Millisecond})
	var out, errs bytes.Buffer
	code := run([]string{"-addr", srv.Addr(), "-create", "-n", "2", "-say", "hello", "-duration", "30s", "-log-level", "warn"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "room ") || !strings.Contains(lines[1], "(game over)") || !strings.Contains(lines[2], "(game over)") {
		t.Fatalf("stdout %q", out.String())
	}
	if c, ok := wire.ParseRoomCode(strings.TrimPrefix(lines[0], "room ")); !ok || !c.Valid() {
		t.Fatalf("code in %q", lines[0])
	}
}

// -room joins a room by its code; a wrong code is a clear error.
func TestJoinRoom(t *testing.T) {
	srv := testserver.Start(t, server.Config{LoginLimit: 1 << 20, Rules: testrules.QuickDeath(), Mode: wire.ModeClassic,
		GameOverLinger: 300 * time.Millisecond})
	var out, errs bytes.Buffer
	if code := run([]string{"-addr", srv.Addr(), "-room", "ZZZZZZ", "-duration", "10s"}, &out, &errs); code != 1 ||
		!strings.Contains(out.String(), "no room has that code") {
		t.Fatalf("wrong code: exit %d, %q", code, out.String())
	}
	errs.Reset()
	if code := run([]string{"-room", "ZZZZZ0"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "-room") {
		t.Fatalf("bad code: exit %d, %q", code, errs.String())
	}
	host, err := lobby.Dial(context.Background(), lobby.Config{Addr: srv.Addr(), Name: "Ripley"})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	host.Create(wire.RoomSettings{Mode: wire.ModeClassic, MaxPlayers: 2})
	var st wire.Room
	for deadline := time.Now().Add(testutil.Wait); ; {
		var ok bool
		if st, ok = host.State(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no room")
		}
		select {
		case <-host.Changed():
		case <-time.After(100 * time.Millisecond):
		}
	}
	go func() {
		for {
			select {
			case <-host.Changed():
				if r, _ := host.State(); r.Count == 2 && r.State == wire.RoomLobby {
					host.Start()
					return
				}
			case <-time.After(testutil.Wait):
				return
			}
		}
	}()
	out.Reset()
	if code := run([]string{"-addr", srv.Addr(), "-room", strings.ToLower(st.Code.String()), "-duration", "30s", "-log-level", "warn"}, &out, &errs); code != 0 ||
		!strings.Contains(out.String(), "(game over)") {
		t.Fatalf("exit %d: %q %s", code, out.String(), errs.String())
	}
}

// TestVersionFlag: -version prints "rtype-bot VERSION" on stdout and exits
// 0 without playing.
func TestVersionFlag(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run([]string{"-version", "-addr", "256.0.0.1:1"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got, want := stdout.String(), "rtype-bot "+version.String()+"\n"; got != want {
		t.Fatalf("printed %q, want %q", got, want)
	}
}
