package lobby_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/internal/testutil/redistest"
	"rtype/internal/testutil/testserver"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/net/wtclient"
	"rtype/server"
	"rtype/server/fleet"
)

// A browser follows a RoomRedirect (7.18) over WebTransport: two servers
// of a fleet, each with its own self-made certificate, share a Redis; a
// WebTransport client logged in on B, which trusts only B's certificate,
// joins a code of A's. B's RoomRedirect carries A's WebTransport address
// and certificate hashes (from the fleet's Redis), and the client logs in
// on A's binding trusting those, joins, and leaves B.
func TestFleetRedirectWebTransport(t *testing.T) {
	rd := redistest.New(t)
	var fl []fleetServer
	for range 2 {
		reg, err := fleet.New(fleet.Config{Redis: rd.Addr(), Prefix: "t:" + t.Name() + ":", Logger: testutil.Logger(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { reg.Close() })
		srv := testserver.Start(t, server.Config{LoginLimit: 1 << 20, MaxSessionsPerIP: 1 << 20, Mode: wire.ModeClassic,
			Fleet: reg, FleetSync: 50 * time.Millisecond, WebTransportAddr: "127.0.0.1:0",
			Bots: func(mode uint8, seed uint64) server.Bots { return bot.NewRoomBots(mode, seed) }})
		fl = append(fl, fleetServer{srv, reg})
	}
	a, b := fl[0], fl[1]
	aWT, _ := a.WebTransport()
	bWT, _ := b.WebTransport()
	if slices.Equal(aWT.CertHashes, bWT.CertHashes) {
		t.Fatal("the two servers have the same certificate")
	}

	ripley := dialTo(t, a.Addr(), "Ripley")
	if err := ripley.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 4}); err != nil {
		t.Fatal(err)
	}
	until(t, ripley, "Ripley's room", inState(ripley, wire.RoomLobby, 1))
	st, _ := ripley.State()
	code := st.Code
	testutil.WaitFor(t, testutil.Wait, "A's room and binding in B's view of the fleet", func() bool {
		wt, ok := b.reg.WebTransportOf(a.Addr())
		rm, found, _ := b.reg.Lookup(context.Background(), code)
		return ok && found && rm.Addr == a.Addr() && wt.Addr == aWT.Addr && slices.Equal(wt.CertHashes, aWT.CertHashes)
	})

	hicks, err := lobby.Dial(context.Background(), lobby.Config{Addr: bWT.Addr, Name: "Hicks", Mode: wire.ModeClassic,
		Logger: testutil.Logger(t), Transport: &wtclient.Transport{CertHashes: bWT.CertHashes}})
	if err != nil {
		t.Fatalf("Hicks over WebTransport on B: %v", err)
	}
	t.Cleanup(func() { hicks.Close() })
	if err := hicks.Join(code); err != nil {
		t.Fatal(err)
	}
	until(t, hicks, "Hicks in Ripley's room", func() bool {
		r, ok := hicks.State()
		return ok && r.Code == code && r.Count == 2
	})
	if hicks.Addr() != aWT.Addr {
		t.Fatalf("Hicks is on %s, want A's WebTransport binding %s", hicks.Addr(), aWT.Addr)
	}
	until(t, ripley, "Ripley sees Hicks", inState(ripley, wire.RoomLobby, 2))
	testutil.WaitFor(t, testutil.Wait, "Hicks logged out of B", func() bool { return b.TickStats().Sessions == 0 })
	if fs := b.FleetStats(); fs.RedirectsCode != 1 {
		t.Fatalf("B's fleet stats %+v", fs)
	}
}

// A WebTransport client sent by a RoomRedirect without WebTransport
// fields (its target serves none) cannot follow it: it stays, and the
// request is refused as NoSuchRoom (7.18, the client's rule 3).
func TestFleetRedirectNoWebTransport(t *testing.T) {
	rd := redistest.New(t)
	a := startFleet(t, rd, 1)[0] // no WebTransport
	reg, err := fleet.New(fleet.Config{Redis: rd.Addr(), Prefix: "t:" + t.Name() + ":", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	b := testserver.Start(t, server.Config{LoginLimit: 1 << 20, MaxSessionsPerIP: 1 << 20, Mode: wire.ModeClassic,
		Fleet: reg, FleetSync: 50 * time.Millisecond, WebTransportAddr: "127.0.0.1:0"})
	bWT, _ := b.WebTransport()

	ripley := dialTo(t, a.Addr(), "Ripley")
	if err := ripley.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 4}); err != nil {
		t.Fatal(err)
	}
	until(t, ripley, "Ripley's room", inState(ripley, wire.RoomLobby, 1))
	st, _ := ripley.State()
	testutil.WaitFor(t, testutil.Wait, "the code in the fleet", func() bool {
		_, found, _ := reg.Lookup(context.Background(), st.Code)
		return found
	})
	hicks, err := lobby.Dial(context.Background(), lobby.Config{Addr: bWT.Addr, Name: "Hicks", Mode: wire.ModeClassic,
		Logger: testutil.Logger(t), Transport: &wtclient.Transport{CertHashes: bWT.CertHashes}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hicks.Close() })
	hicks.Join(st.Code)
	refused(t, hicks, wire.RoomNoSuchRoom)
	if hicks.Addr() != bWT.Addr {
		t.Fatalf("Hicks moved to %s", hicks.Addr())
	}
}
