package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/internal/testutil/redistest"
	"rtype/internal/testutil/testserver"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/server"
	"rtype/server/fleet"
)

var (
	signedFleetKey = []byte("0123456789abcdef0123456789abcdef")
	strangerKey    = []byte("fedcba9876543210fedcba9876543210")
)

// signedFleetServer starts a game server of the fleet at rd under prefix,
// signing with key.
func signedFleetServer(t *testing.T, rd *redistest.Server, prefix string, key []byte) (*server.Server, *fleet.Registry) {
	t.Helper()
	reg, err := fleet.New(fleet.Config{Redis: "redis://" + rd.Addr(), Key: key, Prefix: prefix, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	srv := testserver.Start(t, server.Config{LoginLimit: 1 << 20, MaxSessionsPerIP: 1 << 20, Mode: wire.ModeClassic,
		Fleet: reg, FleetSync: 50 * time.Millisecond,
		Bots: func(mode uint8, seed uint64) server.Bots { return bot.NewRoomBots(mode, seed) }})
	return srv, reg
}

func signedDial(t *testing.T, addr, name string) *lobby.Lobby {
	t.Helper()
	l, err := lobby.Dial(context.Background(), lobby.Config{Addr: addr, Name: name, Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// waitLobby waits for cond, woken by l's changes.
func waitLobby(t *testing.T, l *lobby.Lobby, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(testutil.Wait)
	for !cond() {
		select {
		case <-l.Changed():
		case <-l.Done():
			t.Fatalf("waiting for %s: the lobby ended: %v", what, l.Err())
		case <-deadline:
			t.Fatalf("no %s within %v", what, testutil.Wait)
		}
	}
}

// TestFleetSignedRedirects: issue 27 item 1. Rooms forged in the fleet's
// Redis, by a stranger's two commands (SET, ZADD: unsigned) and by a
// server of another fleet key, fuller than any real room, are not
// followed: quick join goes to the fleet peer's room (signed with the
// same key), a code join of a forged code is NoSuchRoom, and B counts
// what it ignored.
func TestFleetSignedRedirects(t *testing.T) {
	rd := redistest.New(t)
	ctx := context.Background()
	prefix := "t:" + t.Name() + ":"
	a, _ := signedFleetServer(t, rd, prefix, signedFleetKey)
	b, regB := signedFleetServer(t, rd, prefix, signedFleetKey)

	// The stranger's two commands: a public room of 3 of 4 at its address.
	const evil = "127.0.0.1:9"
	forged, _ := wire.ParseRoomCode("FFFFFF")
	raw := redis.NewClient(&redis.Options{Addr: rd.Addr()})
	defer raw.Close()
	entry := fmt.Sprintf("%s %d %d 3 4 %d 1", evil, wire.ModeClassic, wire.RoomLobby, wire.RoomPublic|wire.RoomJoinLate)
	if err := raw.Set(ctx, prefix+"room:"+forged.String(), entry, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	if err := raw.ZAdd(ctx, prefix+"public", redis.Z{Score: float64(time.Now().Add(time.Hour).UnixMilli()),
		Member: forged.String()}).Err(); err != nil {
		t.Fatal(err)
	}
	// A server of another key publishes the same, with a WebTransport
	// binding and its certificate's hash.
	other, _ := wire.ParseRoomCode("SSSSSS")
	stranger, err := fleet.New(fleet.Config{Redis: rd.Addr(), Key: strangerKey, Prefix: prefix, PublicAddr: "127.0.0.1:8",
		Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	stranger.SetWebTransport(fleet.WebTransport{Addr: "127.0.0.1:8", CertHashes: [][32]byte{{0xee}}})
	if err := stranger.Sync(ctx, []fleet.Room{{Code: other, Mode: wire.ModeClassic, State: wire.RoomLobby, Players: 3, Max: 4,
		Flags: wire.RoomPublic | wire.RoomJoinLate, Created: 1}}); err != nil {
		t.Fatal(err)
	}

	// Ripley's public room of 2 on A, signed with the fleet's key.
	ripley := signedDial(t, a.Addr(), "Ripley")
	ripley.Quick(wire.ModeClassic)
	waitLobby(t, ripley, "Ripley's public room", func() bool { r, ok := ripley.State(); return ok && r.Count == 1 })
	ripley.AddBot()
	waitLobby(t, ripley, "the bot", func() bool { r, ok := ripley.State(); return ok && r.Count == 2 })
	st, _ := ripley.State()
	testutil.WaitFor(t, testutil.Wait, "A's room known to B, the forged ones ignored", func() bool {
		p := regB.Public(wire.ModeClassic)
		return len(p) == 1 && p[0].Code == st.Code && p[0].Players == 2 && b.FleetStats().Rejected >= 3
	})
	if _, ok := regB.WebTransportOf("127.0.0.1:8"); ok {
		t.Error("B took the stranger's WebTransport binding")
	}

	// Quick join: to A's room of 2, not to the forged rooms of 3.
	newt := signedDial(t, b.Addr(), "Newt")
	newt.Quick(wire.ModeClassic)
	waitLobby(t, newt, "Newt in Ripley's room", func() bool {
		r, ok := newt.State()
		return ok && r.Code == st.Code && r.Count == 3
	})
	if newt.Addr() != a.Addr() {
		t.Fatalf("Newt is on %s, want A %s", newt.Addr(), a.Addr())
	}

	// Code join of the forged codes: NoSuchRoom on B, each counted.
	hicks := signedDial(t, b.Addr(), "Hicks")
	for _, c := range []wire.RoomCode{forged, other} {
		before := b.FleetStats().Rejected
		hicks.Join(c)
		var got []wire.Room
		waitLobby(t, hicks, "a refusal", func() bool { got = append(got, hicks.Refusals()...); return len(got) > 0 })
		if got[0].Reason != wire.RoomNoSuchRoom {
			t.Fatalf("the join of %s: refused %d, want NoSuchRoom", c, got[0].Reason)
		}
		if b.FleetStats().Rejected <= before {
			t.Errorf("the join of %s: the entry not counted (%d)", c, before)
		}
	}
	if hicks.Addr() != b.Addr() {
		t.Fatalf("Hicks moved to %s", hicks.Addr())
	}

	// Code join of the peer's code: redirected as before.
	hicks.Join(st.Code)
	waitLobby(t, hicks, "Hicks in Ripley's room", func() bool { r, ok := hicks.State(); return ok && r.Code == st.Code })
	if hicks.Addr() != a.Addr() {
		t.Fatalf("Hicks is on %s, want A %s", hicks.Addr(), a.Addr())
	}
	if fs := b.FleetStats(); fs.RedirectsQuick != 1 || fs.RedirectsCode != 1 || fs.Rejected == 0 {
		t.Errorf("B's fleet stats %+v", fs)
	}
	if fs := a.FleetStats(); fs.Rejected == 0 {
		t.Errorf("A ignored nothing: %+v", fs)
	}
}
