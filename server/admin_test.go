package server

import (
	"context"
	"errors"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/server/store"
)

// Kick ends a session with Logout(Kicked) and the others see it leave
// Kicked; CloseGame ends every session of a game with
// Logout(ServerShutdown); both refuse what does not exist.
func TestKickAndCloseGame(t *testing.T) {
	s := startServer(t, testConfig())
	a, b := join(t, s, "Alice"), join(t, s, "Bob")
	games := s.Games()
	if len(games) != 1 || len(games[0].Players) != 2 || games[0].Players[0].Name != "Alice" || games[0].Mode != "classic" {
		t.Fatalf("Games: %+v", games)
	}
	if err := s.Kick(a.acc.Session); err != nil {
		t.Fatal(err)
	}
	expectLogout(t, a.tcp, wire.LogoutKicked)
	b.waitEvent("PlayerLeft(Kicked) of Alice", func(ev *wire.Event) bool {
		return ev.Type == wire.EventPlayerLeft && ev.Player == a.acc.Player && ev.Reason == wire.LeftKicked
	})
	if err := s.Kick(a.acc.Session); !errors.Is(err, ErrNoSession) {
		t.Errorf("Kick of a session gone: %v, want ErrNoSession", err)
	}
	if err := s.CloseGame(games[0].ID + 1); !errors.Is(err, ErrNoGame) {
		t.Errorf("CloseGame of no game: %v, want ErrNoGame", err)
	}
	if err := s.CloseGame(games[0].ID); err != nil {
		t.Fatal(err)
	}
	expectLogout(t, b.tcp, wire.LogoutServerShutdown)
	testutil.WaitFor(t, wait, "no game", func() bool { return len(s.Games()) == 0 })
	if m := s.Metrics(); m.Kicks != 2 {
		t.Errorf("Metrics.Kicks %d, want 2", m.Kicks)
	}
}

// A ban kicks the sessions it matches and refuses their logins with
// LoginRejected(RateLimited) and a text that gives its end and reason;
// names compare ignoring case. Bans of the store survive a restart of
// the server and of the store (real sockets, a real SQLite file).
func TestBansEnforcedAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scores.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Bans = st
	s := startServer(t, cfg)
	a := join(t, s, "Griefer")
	ok := join(t, s, "Nice")
	b, n, err := s.Ban(context.Background(), store.Ban{Name: "GRIEFER", Until: time.Now().Add(time.Hour), Reason: "spawn camping"})
	if err != nil || n != 1 || b.ID == 0 {
		t.Fatalf("Ban: %+v, %d kicked, %v", b, n, err)
	}
	expectLogout(t, a.tcp, wire.LogoutKicked)
	c, m := loginAs(t, s.Addr(), wire.Version, "griefer")
	if m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectRateLimited ||
		!strings.Contains(m.Text, "banned until") || !strings.Contains(m.Text, "spawn camping") {
		t.Fatalf("login of a banned name: %+v", m)
	}
	expectClosed(t, c, wait)
	// An address ban: every login from 127.0.0.1, and the session there.
	if _, n, err := s.Ban(context.Background(), store.Ban{Addr: netip.MustParseAddr("127.0.0.1"), Until: time.Now().Add(time.Hour)}); err != nil || n != 1 {
		t.Fatalf("Ban of 127.0.0.1: %d kicked, %v", n, err)
	}
	expectLogout(t, ok.tcp, wire.LogoutKicked)
	expectRejected(t, s.Addr(), "Someone", wire.RejectRateLimited)
	if m := s.Metrics(); m.Bans != 2 || m.BansMade != 2 || m.Logins[LoginBanned] != 2 {
		t.Errorf("Metrics: %d bans, %d made, %d banned logins; want 2, 2, 2", m.Bans, m.BansMade, m.Logins[LoginBanned])
	}
	s.Close()
	st.Close()

	// A new server on the reopened file refuses them still.
	st, err = store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg.Bans = st
	s2 := startServer(t, cfg)
	if bans := s2.Bans(); len(bans) != 2 {
		t.Fatalf("bans after the restart: %+v", bans)
	}
	expectRejected(t, s2.Addr(), "Other", wire.RejectRateLimited)
	// Lifting the address ban lets others in, not the banned name.
	for _, b := range s2.Bans() {
		if b.Addr.IsValid() {
			if err := s2.Unban(context.Background(), b.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	connect(t, s2, "Other")
	expectRejected(t, s2.Addr(), "Griefer", wire.RejectRateLimited)
	if bans, _ := st.Bans(context.Background(), time.Now()); len(bans) != 1 || bans[0].Name != "griefer" {
		t.Errorf("the store's bans after lifting one: %+v", bans)
	}
}

// A ban's end lets the name in again; without a ban list, bans hold in
// memory.
func TestBanEnds(t *testing.T) {
	s := startServer(t, testConfig())
	// A login before the ban's end is refused. How long a login takes
	// depends on the machine: a login that came back after the end
	// proves nothing either way, so the ban is made again, twice as
	// long, until one login comes back before it ends.
	for d := 500 * time.Millisecond; ; d *= 2 {
		until := time.Now().Add(d)
		if _, _, err := s.Ban(context.Background(), store.Ban{Name: "Brief", Until: until}); err != nil {
			t.Fatal(err)
		}
		c, m := loginAs(t, s.Addr(), wire.Version, "brief")
		if time.Now().Before(until) {
			if m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectRateLimited {
				t.Fatalf("login before the ban's end: want LoginRejected(%d), got %+v", wire.RejectRateLimited, m)
			}
			expectClosed(t, c, wait)
			break
		}
		c.Close()
		t.Logf("the login took longer than the ban of %v: again, twice as long", d)
		if d > wait {
			t.Fatalf("no login came back within a ban of %v", d)
		}
		testutil.WaitFor(t, wait, "the ban to end", func() bool { return len(s.Bans()) == 0 })
	}
	testutil.WaitFor(t, wait, "the ban to end", func() bool { return len(s.Bans()) == 0 })
	connect(t, s, "Brief")
	if _, _, err := s.Ban(context.Background(), store.Ban{Until: time.Now().Add(time.Hour)}); err == nil {
		t.Error("a ban of nobody was accepted")
	}
}

// The byte counters of Metrics are the payloads the players received:
// with one player, between two ticks, what it read of each type.
func TestMetricsBytesAsReceived(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	c := join(t, s, "Counter")
	c.keepAlive = true
	c.waitSnaps(5)
	matches := func() bool {
		m := s.Metrics()
		return c.bytes[wire.TypeEvent] > 0 && m.SnapshotBytes == c.bytes[wire.TypeSnapshot] && m.EventBytes == c.bytes[wire.TypeEvent]
	}
	if !c.pumpUntil(wait, matches) {
		m := s.Metrics()
		t.Fatalf("Metrics: %d bytes of snapshots, %d of events; received %d and %d",
			m.SnapshotBytes, m.EventBytes, c.bytes[wire.TypeSnapshot], c.bytes[wire.TypeEvent])
	}
}

// The counters move when their things happen: logins by result, bytes
// of events and snapshots, datagrams dropped by reason, ticks; and Ready.
func TestMetricsCount(t *testing.T) {
	cfg := testConfig()
	cfg.LoginLimit = 2
	s := startServer(t, cfg)
	testutil.WaitFor(t, wait, "ready", s.Ready)
	c := join(t, s, "Counter")
	c.waitSnaps(2)
	expectRejected(t, s.Addr(), "x", wire.RejectInvalidName)
	expectRejected(t, s.Addr(), "Other", wire.RejectRateLimited) // the 3rd login of 127.0.0.1
	c.send(wire.TypeAck, nil)
	// Dropped: no magic; a v1 header of a bad type; an unknown session;
	// a duplicate sequence number.
	u := c.newUDP()
	u.Write([]byte("hello"))
	u.Write(rawDatagram(wire.Type(99), 1, c.acc.Session, nil))
	u.Write(rawDatagram(wire.TypeAck, 1, c.acc.Session+1, nil))
	c.sendSeq(wire.TypeAck, nil, 1)
	testutil.WaitFor(t, wait, "every counter", func() bool {
		m := s.Metrics()
		return m.Logins[LoginAccepted] == 1 && m.Logins[wire.RejectInvalidName] == 1 && m.Logins[wire.RejectRateLimited] == 1 &&
			m.EventBytes > 0 && m.SnapshotBytes > 0 && m.TickCount > 10 && m.TickSum > 0 &&
			m.Dropped[DropVersion] >= 1 && m.Dropped[DropHeader] >= 1 && m.Dropped[DropSession] >= 1 && m.Dropped[DropStale] >= 1 &&
			m.Sessions[wire.Version] == 1 && m.Games[wire.ModeClassic] == 1 && m.Ready
	})
	m := s.Metrics()
	if m.TickCounts[len(TickBuckets)-1] > m.TickCount || m.TickCounts[0] > m.TickCounts[len(TickBuckets)-1] {
		t.Errorf("tick histogram not cumulative: %v of %d", m.TickCounts, m.TickCount)
	}
	s.Close()
	testutil.WaitFor(t, wait, "not ready after Close", func() bool { return !s.Ready() })
}
