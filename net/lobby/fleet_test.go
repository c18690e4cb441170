package lobby_test

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/internal/testutil/redistest"
	"rtype/internal/testutil/testserver"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
	"rtype/server/fleet"
	"rtype/server/ops"
)

// scrape returns srv's /metrics (server/ops).
func scrape(t *testing.T, srv *server.Server) string {
	t.Helper()
	o, err := ops.New(ops.Config{Listen: "127.0.0.1:0", Server: srv, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	o.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o.Serve(ctx) // closes its listener
	return rec.Body.String()
}

// fleetServer is a game server of a fleet and its registry.
type fleetServer struct {
	*server.Server
	reg *fleet.Registry
}

// startFleet starts n servers sharing rd's Redis, each under its own key
// prefix of the test.
func startFleet(t *testing.T, rd *redistest.Server, n int) []fleetServer {
	t.Helper()
	var out []fleetServer
	for range n {
		reg, err := fleet.New(fleet.Config{Redis: rd.Addr(), Prefix: "t:" + t.Name() + ":", Logger: testutil.Logger(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { reg.Close() })
		srv := testserver.Start(t, server.Config{LoginLimit: 1 << 20, MaxSessionsPerIP: 1 << 20, Mode: wire.ModeClassic,
			Fleet: reg, FleetSync: 50 * time.Millisecond,
			Bots: func(mode uint8, seed uint64) server.Bots { return bot.NewRoomBots(mode, seed) }})
		out = append(out, fleetServer{srv, reg})
	}
	return out
}

func dialTo(t *testing.T, addr, name string) *lobby.Lobby {
	t.Helper()
	l, err := lobby.Dial(context.Background(), lobby.Config{Addr: addr, Name: name, Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// refused waits for a refusal of reason.
func refused(t *testing.T, l *lobby.Lobby, reason uint8) {
	t.Helper()
	var got []wire.Room
	until(t, l, "a refusal", func() bool {
		got = append(got, l.Refusals()...)
		return len(got) > 0
	})
	if got[0].Reason != reason {
		t.Fatalf("refused %d (%s), want %d", got[0].Reason, wire.RoomReason(got[0].Reason), reason)
	}
}

// A private room's code made on one server of a fleet resolves from the
// other: the client is sent there (RoomRedirect), logs in, joins, and
// logs out of the first; a code no server holds is NoSuchRoom.
func TestFleetCodeResolves(t *testing.T) {
	rd := redistest.New(t)
	fl := startFleet(t, rd, 2)
	a, b := fl[0], fl[1]

	ripley := dialTo(t, a.Addr(), "Ripley")
	if err := ripley.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 4}); err != nil {
		t.Fatal(err)
	}
	until(t, ripley, "Ripley's room", inState(ripley, wire.RoomLobby, 1))
	st, _ := ripley.State()
	code := st.Code
	testutil.WaitFor(t, testutil.Wait, "the code in the fleet", func() bool {
		rm, ok, _ := b.reg.Lookup(context.Background(), code)
		return ok && rm.Addr == a.Addr()
	})

	hicks := dialTo(t, b.Addr(), "Hicks")
	if err := hicks.Join(code); err != nil {
		t.Fatal(err)
	}
	until(t, hicks, "Hicks in Ripley's room", func() bool {
		r, ok := hicks.State()
		return ok && r.Code == code && r.Count == 2
	})
	if hicks.Addr() != a.Addr() {
		t.Fatalf("Hicks is on %s, want %s", hicks.Addr(), a.Addr())
	}
	until(t, ripley, "Ripley sees Hicks", inState(ripley, wire.RoomLobby, 2))
	testutil.WaitFor(t, testutil.Wait, "Hicks logged out of the first server", func() bool { return b.TickStats().Sessions == 0 })
	if fs := b.FleetStats(); fs.RedirectsCode != 1 || !fs.Up {
		t.Fatalf("B's fleet stats %+v", fs)
	}
	metrics := scrape(t, b.Server)
	for _, want := range []string{`rtype_fleet_redirects_total{why="code"} 1`, `rtype_fleet_redirects_total{why="quick"} 0`,
		"rtype_fleet_redis_up 1", "rtype_fleet_code_lookups_total 1", "rtype_fleet_redis_errors_total 0", "rtype_fleet_entries_rejected_total 0",
		"rtype_database_up 1"} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("B's /metrics lacks %q:\n%s", want, metrics)
		}
	}

	// A code that no server holds.
	vasquez := dialTo(t, b.Addr(), "Vasquez")
	wrong, _ := wire.ParseRoomCode("ZZZZZZ")
	if wrong == code {
		wrong, _ = wire.ParseRoomCode("YYYYYY")
	}
	for range 5 { // the rate limit of wrong codes (7.14): 5 per address
		vasquez.Join(wrong)
		refused(t, vasquez, wire.RoomNoSuchRoom)
	}
	before := b.FleetStats().Lookups
	vasquez.Join(wrong)
	refused(t, vasquez, wire.RoomRateLimited)
	if n := b.FleetStats().Lookups; n != before {
		t.Fatalf("a rate-limited RoomJoin asked Redis: %d lookups, %d before", n, before)
	}
	if vasquez.Addr() != b.Addr() {
		t.Fatalf("Vasquez moved to %s", vasquez.Addr())
	}

	// The room closes: its code leaves the fleet.
	hicks.Leave()
	ripley.Leave()
	testutil.WaitFor(t, testutil.Wait, "the code out of the fleet", func() bool {
		_, ok, err := b.reg.Lookup(context.Background(), code)
		return !ok && err == nil
	})
}

// Quick join fills the fleet's fullest public room first: a client of a
// server whose best public room has one player is sent to the other
// server's room of two.
func TestFleetQuickJoinFillsFullerRoom(t *testing.T) {
	rd := redistest.New(t)
	fl := startFleet(t, rd, 2)
	a, b := fl[0], fl[1]

	ripley := dialTo(t, a.Addr(), "Ripley")
	ripley.Quick(wire.ModeClassic)
	until(t, ripley, "Ripley's public room", inState(ripley, wire.RoomLobby, 1))
	ripley.AddBot()
	until(t, ripley, "the bot", inState(ripley, wire.RoomLobby, 2))
	st, _ := ripley.State()

	// Bishop makes B's public room himself: a quick join of his would go
	// to A's fuller room as soon as B's sync knows it.
	bishop := dialTo(t, b.Addr(), "Bishop")
	bishop.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 4,
		Flags: wire.RoomPublic | wire.RoomJoinLate})
	until(t, bishop, "Bishop's public room", inState(bishop, wire.RoomLobby, 1))
	testutil.WaitFor(t, testutil.Wait, "A's room of 2 known to B", func() bool {
		p := b.reg.Public(wire.ModeClassic)
		return len(p) == 1 && p[0].Code == st.Code && p[0].Players == 2
	})

	newt := dialTo(t, b.Addr(), "Newt")
	newt.Quick(wire.ModeClassic)
	until(t, newt, "Newt in Ripley's room", func() bool {
		r, ok := newt.State()
		return ok && r.Code == st.Code && r.Count == 3
	})
	if newt.Addr() != a.Addr() {
		t.Fatalf("Newt is on %s, want %s", newt.Addr(), a.Addr())
	}
	if fs := b.FleetStats(); fs.RedirectsQuick != 1 {
		t.Fatalf("B's fleet stats %+v", fs)
	}

	// Now B's room of 1 is not the fullest either, but A's room of 3 has
	// one slot: a quick join on A stays on A and fills it.
	drake := dialTo(t, a.Addr(), "Drake")
	drake.Quick(wire.ModeClassic)
	until(t, drake, "Drake in Ripley's room", func() bool {
		r, ok := drake.State()
		return ok && r.Code == st.Code && r.Count == 4
	})
}

// Redis lost: codes of other servers are NoSuchRoom (not counted as
// wrong) and the servers are not ready; once it is back, each server
// publishes its rooms again and codes resolve again.
func TestFleetRedisLost(t *testing.T) {
	rd := redistest.New(t)
	fl := startFleet(t, rd, 2)
	a, b := fl[0], fl[1]

	ripley := dialTo(t, a.Addr(), "Ripley")
	ripley.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 4})
	until(t, ripley, "Ripley's room", inState(ripley, wire.RoomLobby, 1))
	st, _ := ripley.State()

	rd.Kill()
	testutil.WaitFor(t, testutil.Wait, "the servers see Redis down", func() bool {
		return !a.FleetStats().Up && !b.FleetStats().Up && !a.Ready() && !b.Ready()
	})
	hicks := dialTo(t, b.Addr(), "Hicks")
	for range 6 { // more than the 5 wrong codes of the rate limit
		hicks.Join(st.Code)
		refused(t, hicks, wire.RoomNoSuchRoom)
	}
	lookups := b.FleetStats().Lookups
	if lookups != 6 {
		t.Fatalf("%d lookups, want 6", lookups)
	}

	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	if err := rd.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, testutil.Wait, "the code back in the fleet, the servers ready", func() bool {
		_, ok, _ := b.reg.Lookup(context.Background(), st.Code)
		return ok && a.Ready() && b.Ready()
	})
	hicks.Join(st.Code)
	until(t, hicks, "Hicks in Ripley's room", func() bool {
		r, ok := hicks.State()
		return ok && r.Code == st.Code && r.Count == 2
	})
}

// A client follows one RoomRedirect per request: a server that sends it
// to itself again and again gets one login more, then the client shows
// NoSuchRoom. A malformed RoomRedirect ends the session (3.1).
func TestRedirectFollowedOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	self := ln.Addr().String()
	var logins atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go redirector(c, self, &logins)
		}
	}()
	l := dialTo(t, self, "Hicks")
	code, _ := wire.ParseRoomCode("K7MX2Q")
	l.Join(code)
	refused(t, l, wire.RoomNoSuchRoom)
	if n := logins.Load(); n != 2 {
		t.Fatalf("%d logins, want 2: the first, and one redirect followed", n)
	}
	l.Join(code) // a new request may follow one again
	refused(t, l, wire.RoomNoSuchRoom)
	if n := logins.Load(); n != 3 {
		t.Fatalf("%d logins after the second request, want 3", n)
	}

	bad, _ := wire.ParseRoomCode("BADBAD")
	l.Join(bad) // answered with a RoomRedirect whose address has a space
	select {
	case <-l.Done():
	case <-time.After(testutil.Wait):
		t.Fatal("a malformed RoomRedirect did not end the session")
	}
}

// redirector is a lobby server that answers every RoomJoin with a
// RoomRedirect to itself (or, for the code BADBAD, a malformed one).
func redirector(c net.Conn, self string, logins *atomic.Int32) {
	defer c.Close()
	fr := wire.FrameReader{R: c}
	f, err := fr.ReadFrame()
	if err != nil {
		return
	}
	if m, err := wire2.ParseMessage(f); err != nil || m.Type != wire.MsgLoginRequest {
		return
	}
	logins.Add(1)
	ext := wire.LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8}
	c.Write(wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginAccepted, Player: wire.NoPlayer, Session: uint32(logins.Load()),
		Ext: ext, Revision: wire.Revision, Mode: wire.ModeClassic}))
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		var r wire.Room
		if wire.ParseRoom(f, &r) != nil || r.Type != wire.MsgRoomJoin {
			continue
		}
		addr := self
		if r.Code.String() == "BADBAD" {
			addr = "a b:1"
		}
		c.Write(wire.AppendRedirect(nil, &wire.Redirect{Why: wire.RedirectCode, Code: r.Code, Addr: addr}))
	}
}
