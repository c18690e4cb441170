package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"rtype/internal/testutil"
	"rtype/internal/testutil/redistest"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/server/fleet"
)

// The fleet's flags: -public-addr without -redis, or an address other
// servers could not send a player to, are usage errors (exit 2).
func TestFleetFlagsRefused(t *testing.T) {
	bin := buildBinary(t)
	for _, args := range [][]string{
		{"-public-addr", "game.example.org:4242"},
		{"-redis", "127.0.0.1:1", "-public-addr", "no-port"},
		{"-redis", "127.0.0.1:1", "-public-addr", "a b:4242"},
	} {
		cmd := exec.Command(bin, append([]string{"-listen", "127.0.0.1:0", "-db", "", "-discovery-listen", ""}, args...)...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("rtype-server %v: %v, want exit 2; output:\n%s", args, err, out)
		}
	}
}

// Two rtype-server binaries on one redis-server: a room code made on one
// resolves from the other (the README's operator steps, by a test).
func TestFleetBinaries(t *testing.T) {
	bin := buildBinary(t)
	rd := redistest.New(t)
	_, a, logsA := runServer(t, bin, "-db", "", "-discovery-listen", "", "-mode", "classic", "-redis", rd.Addr())
	_, b, logsB := runServer(t, bin, "-db", "", "-discovery-listen", "", "-mode", "classic", "-redis", rd.Addr())
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
	reg, err := fleet.New(fleet.Config{Redis: rd.Addr(), PublicAddr: "127.0.0.1:1", Logger: testutil.Logger(t)})
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
}
