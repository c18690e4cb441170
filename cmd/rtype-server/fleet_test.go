package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rtype/internal/testutil"
	"rtype/internal/testutil/redistest"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/server/fleet"
)

// writeKey writes a fleet key file of n bytes and returns its path.
func writeKey(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fleet.key")
	if err := os.WriteFile(p, []byte(strings.Repeat("k", n)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The fleet's flags: -public-addr without -redis, an address other
// servers could not send a player to, -redis without a fleet key (nor
// -fleet-insecure), a key too short, a key and -fleet-insecure, or a bad
// Redis URL are usage errors (exit 2), said so.
func TestFleetFlagsRefused(t *testing.T) {
	bin := buildBinary(t)
	key, short := writeKey(t, 32), writeKey(t, 31)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-public-addr", "game.example.org:4242"}, "-public-addr needs -redis"},
		{[]string{"-fleet-insecure"}, "need -redis"},
		{[]string{"-redis", "127.0.0.1:1", "-fleet-key-file", key, "-public-addr", "no-port"}, "public address"},
		{[]string{"-redis", "127.0.0.1:1", "-fleet-key-file", key, "-public-addr", "a b:4242"}, "public address"},
		{[]string{"-redis", "127.0.0.1:1"}, "-redis needs -fleet-key-file"},
		{[]string{"-redis", "redis://:pw@127.0.0.1:1"}, "-redis needs -fleet-key-file"},
		{[]string{"-redis", "127.0.0.1:1", "-fleet-key-file", short}, "at least 32"},
		{[]string{"-redis", "127.0.0.1:1", "-fleet-key-file", key + ".none"}, "-fleet-key-file"},
		{[]string{"-redis", "127.0.0.1:1", "-fleet-key-file", key, "-fleet-insecure"}, "choose one"},
		{[]string{"-redis", "http://127.0.0.1:1", "-fleet-key-file", key}, "Redis URL"},
	} {
		cmd := exec.Command(bin, append([]string{"-listen", "127.0.0.1:0", "-db", "", "-discovery-listen", ""}, c.args...)...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("rtype-server %v: %v, want exit 2 and %q; output:\n%s", c.args, err, c.want, out)
		}
		if strings.Contains(string(out), ":pw@") {
			t.Errorf("rtype-server %v shows the Redis password:\n%s", c.args, out)
		}
	}
}

// -fleet-insecure starts a fleet server without a key, with a WARN.
func TestFleetInsecureWarns(t *testing.T) {
	bin := buildBinary(t)
	rd := redistest.New(t)
	_, _, logs := runServer(t, bin, "-db", "", "-discovery-listen", "", "-redis", rd.Addr(), "-fleet-insecure")
	testutil.WaitFor(t, testutil.Wait, "the WARN of unsigned entries", func() bool {
		return strings.Contains(logs(), "level=WARN") && strings.Contains(logs(), "no fleet key")
	})
}

// Two rtype-server binaries on one redis-server that requires a password,
// with one fleet key: a room code made on one resolves from the other (the
// OPERATING.md's steps, by a test); B's URL names the user. No log
// shows the password.
func TestFleetBinaries(t *testing.T) {
	bin := buildBinary(t)
	rd := redistest.NewPassword(t, "s3cret")
	key := writeKey(t, 44)
	_, a, logsA := runServer(t, bin, "-db", "", "-discovery-listen", "", "-mode", "classic",
		"-redis", "redis://:s3cret@"+rd.Addr()+"/0", "-fleet-key-file", key)
	_, b, logsB := runServer(t, bin, "-db", "", "-discovery-listen", "", "-mode", "classic",
		"-redis", "redis://default:s3cret@"+rd.Addr(), "-fleet-key-file", key)
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	ripley, err := lobby.Dial(ctx, lobby.Config{Addr: a, Name: "Ripley", Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("%v; A's log:\n%s", err, logsA())
	}
	defer ripley.Close()
	ripley.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 2})
	var code wire.RoomCode
	testutil.WaitFor(t, testutil.Wait, "Ripley's room", func() bool {
		st, ok := ripley.State()
		code = st.Code
		return ok
	})
	k, err := fleet.ReadKey(key)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := fleet.New(fleet.Config{Redis: "redis://:s3cret@" + rd.Addr(), Key: k, PublicAddr: "127.0.0.1:1",
		Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	testutil.WaitFor(t, testutil.Wait, "the code in Redis", func() bool {
		rm, ok, _ := reg.Lookup(ctx, code)
		return ok && rm.Addr == a
	})
	hicks, err := lobby.Dial(ctx, lobby.Config{Addr: b, Name: "Hicks", Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("%v; B's log:\n%s", err, logsB())
	}
	defer hicks.Close()
	hicks.Join(code)
	testutil.WaitFor(t, testutil.Wait, "Hicks in Ripley's room on A", func() bool {
		st, ok := hicks.State()
		return ok && st.Code == code && st.Count == 2 && hicks.Addr() == a
	})
	if !strings.Contains(logsB(), `msg="room redirect"`) {
		t.Errorf("B did not log the redirect:\n%s", logsB())
	}
	if strings.Contains(logsA()+logsB(), "s3cret") {
		t.Errorf("a log shows the Redis password:\nA:\n%s\nB:\n%s", logsA(), logsB())
	}
}
