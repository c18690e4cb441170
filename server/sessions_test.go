package server

// Sessions over TCP (PROTOCOL.md 3.1 to 3.3, 5.5): login and its checks,
// the rate limit, deadlines, protocol errors and every way a session ends.

import (
	"context"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
)

// 3.2 Names: the server normalizes (NFKC, white space runs collapsed and
// trimmed), and PlayerJoined carries the normalized name.
func TestLoginNameNormalized(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	cases := []struct{ sent, want string }{
		{"Ｒｉｐｌｅｙ", "Ripley"}, // fullwidth letters: NFKC
		{"  Jean \t\n  Luc  ", "Jean Luc"},
		{"Jean\u00a0\u2003Luc", "Jean Luc"},              // Unicode white space too
		{"Zoe\u0301", "Zoé"},                             // composed by NFKC
		{"Ninja\u20dd", "Ninja\u20dd"},                   // an enclosing mark stays
		{"नमस्ते", "नमस्ते"},                             // letters with combining marks
		{"a b", "a b"},                                   // 3 characters, the least
		{"ABCDEFGHIJ0123456789", "ABCDEFGHIJ0123456789"}, // 20, the most
		{"x_-_y", "x_-_y"},
		{"ﬁve", "five"},       // a ligature is 2 letters after NFKC
		{"Rip\u00b2", "Rip2"}, // superscript two is a digit after NFKC
	}
	for _, tc := range cases {
		c := join(t, s, tc.sent)
		i := c.waitEvent("our PlayerJoined", func(ev *wire.Event) bool {
			return ev.Type == wire.EventPlayerJoined && ev.Player == c.acc.Player
		})
		if got := c.events[i].Name; got != tc.want {
			t.Errorf("name %q: PlayerJoined carries %q, want %q", tc.sent, got, tc.want)
		}
		c.logout()
		expectClosed(t, c.tcp, wait)
	}
}

// 3.2 Names: each rule broken gives InvalidName, then close.
func TestLoginInvalidName(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	for _, name := range []string{
		"",
		"ab",                    // 2 characters
		"abcdefghijklmnopqrstu", // 21
		"ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵ", // 21 after NFKC
		"   ",     // nothing left once trimmed
		"  ab   ", // 2 once trimmed
		"___",     // no letter or digit
		"_ - _",
		"ab\x01cd",           // control character
		"ab\tc\x7f",          // DEL
		"ab\u202ecd",         // bidi override
		"ab\u200bcd",         // zero width space (a format character)
		"Rip😀ey",             // emoji
		"Rip!ey",             // punctuation
		"Rip.ey",             //
		"\u0301\u0301\u0301", // marks only
		"ab\xffcd",           // invalid UTF-8: InvalidName (3.1, 3.2 rule 1, appendix C)
		"\xc0\x80abc",        // overlong encoding
		strings.Repeat("a", 300),
	} {
		expectRejected(t, s.Addr(), name, wire.RejectInvalidName)
	}
}

// 3.1, 6.5: a 10,000-character name does not fit a frame: the length
// field (over 1024) is a protocol error, Logout(Kicked), refused before
// the body is read.
func TestLoginHugeNameKicked(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	c := dialTCP(t, s.Addr())
	writeAll(t, c, rawLoginRequest(1, []byte(strings.Repeat("x", 10000))))
	expectLogout(t, c, wire.LogoutKicked)
	// And the server is still fine.
	join(t, s, "Survivor")
}

// 3.2 rule 7: the same name, ignoring case, in the game the login would
// join (a listen server runs one game).
func TestLoginNameTaken(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxGames = 1
	s := startServer(t, cfg)
	connect(t, s, "Ripley")
	expectRejected(t, s.Addr(), "ripley", wire.RejectNameTaken)
	expectRejected(t, s.Addr(), "RIPLEY", wire.RejectNameTaken)
	expectRejected(t, s.Addr(), "Ｒｉｐｌｅｙ", wire.RejectNameTaken) // normalized first
	expectRejected(t, s.Addr(), " Ripley ", wire.RejectNameTaken)
	connect(t, s, "Σίσυφος")
	expectRejected(t, s.Addr(), "ΣΊΣΥΦΟΣ", wire.RejectNameTaken) // Unicode case folding
	connect(t, s, "Ripley2")                                     // another name is fine
}

// Appendix B, 3.2 check 2: another version is VersionMismatch, even with a
// body v1 cannot read.
func TestLoginVersionMismatch(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxVersion = 1 // a v1 server (rtype-server -protocol 1); the v2 one: negotiate_test.go
	s := startServer(t, cfg)
	for _, v := range []uint8{0, 2, 255} {
		c, m := loginAs(t, s.Addr(), v, "Ripley")
		if m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectVersionMismatch {
			t.Fatalf("version %d: %+v", v, m)
		}
		expectClosed(t, c, wait)
	}
	c := dialTCP(t, s.Addr())
	writeAll(t, c, []byte{3, 0, 1, 2, 0xEE}) // version 2, then bytes v1 cannot parse
	expectMsg(t, c, wire.MsgLoginRejected, int(wire.RejectVersionMismatch))
	expectClosed(t, c, wait)
}

// 3.3: with one game of 4, the fifth login is GameFull.
func TestLoginGameFull(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxGames = 1
	s := startServer(t, cfg)
	for p, name := range []string{"Alpha", "Bravo", "Charlie", "Delta"} {
		c := connect(t, s, name)
		if c.acc.Player != uint8(p) {
			t.Fatalf("%s: player %d, want %d", name, c.acc.Player, p)
		}
	}
	expectRejected(t, s.Addr(), "Echo", wire.RejectGameFull)
}

// 3.2 Acceptance: the lowest free player number.
func TestLoginLowestFreePlayer(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxGames = 1
	s := startServer(t, cfg)
	a := join(t, s, "Alpha")
	b := join(t, s, "Bravo")
	c := join(t, s, "Charlie")
	if a.acc.Player != 0 || b.acc.Player != 1 || c.acc.Player != 2 {
		t.Fatalf("players %d %d %d", a.acc.Player, b.acc.Player, c.acc.Player)
	}
	b.logout()
	expectClosed(t, b.tcp, wait)
	d := connect(t, s, "Delta")
	if d.acc.Player != 1 {
		t.Fatalf("after player 1 left, the next login is player %d, want 1", d.acc.Player)
	}
	e := connect(t, s, "Echo")
	if e.acc.Player != 3 {
		t.Fatalf("next login is player %d, want 3", e.acc.Player)
	}
}

// 3.2 Acceptance: sessions random, non-zero and unique; tokens random.
func TestLoginSessionsAndTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	sessions := map[uint32]bool{}
	tokens := map[wire.Token]bool{}
	for i := range 12 {
		c := connect(t, s, "Player"+string(rune('A'+i)))
		if c.acc.Session == 0 {
			t.Fatal("session 0")
		}
		if c.acc.Token == (wire.Token{}) {
			t.Fatal("zero token")
		}
		sessions[c.acc.Session] = true
		tokens[c.acc.Token] = true
	}
	if len(sessions) != 12 || len(tokens) != 12 {
		t.Fatalf("%d distinct sessions, %d distinct tokens out of 12", len(sessions), len(tokens))
	}
	// Random, not counting: the ids are not consecutive.
	ids := slices.Sorted(maps.Keys(sessions))
	consecutive := 0
	for i := 1; i < len(ids); i++ {
		if ids[i]-ids[i-1] <= 16 {
			consecutive++
		}
	}
	if consecutive > 2 {
		t.Fatalf("session ids look sequential: %v", ids)
	}
}

// 3.1 LoginAccepted tick: the current tick of the game joined.
func TestLoginAcceptedTick(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxGames = 1
	s := startServer(t, cfg)
	a := connect(t, s, "Alpha")
	if a.acc.Tick != 0 {
		t.Fatalf("first login of a new game: tick %d, want 0", a.acc.Tick)
	}
	a.bind()
	a.pumpUntil(wait, func() bool { return a.lastSnap() != nil && a.lastSnap().tick >= 30 })
	before := a.lastSnap().tick
	b := connect(t, s, "Bravo")
	a.pump(100 * time.Millisecond)
	after := a.lastSnap().tick
	if b.acc.Tick < before || b.acc.Tick > after+3 {
		t.Fatalf("LoginAccepted tick %d, game was at %d..%d", b.acc.Tick, before, after)
	}
}

// 3.3 Rate limit: the sixth LoginRequest within the window is refused
// before any other check, and refused requests count. The limiter's
// clock is virtual: the test moves it.
func TestLoginRateLimit(t *testing.T) {
	t.Parallel()
	const window = 10 * time.Second
	s := startServer(t, Config{LoginWindow: window}) // default limit: 5
	now := time.Unix(1000, 0)                        // s.mu held
	s.mu.Lock()
	s.gate.limiter.clock = func() time.Time { return now }
	s.mu.Unlock()
	advance := func(d time.Duration) { s.mu.Lock(); now = now.Add(d); s.mu.Unlock() }
	for range 5 {
		expectRejected(t, s.Addr(), "!!", wire.RejectInvalidName) // passes the limiter
	}
	advance(window / 2)
	// Five more within the window: refused, before any other check.
	expectRejected(t, s.Addr(), "Ripley", wire.RejectRateLimited)
	expectRejected(t, s.Addr(), "Ripley", wire.RejectRateLimited)
	c, m := loginAs(t, s.Addr(), 2, "Ripley") // before the version check
	if m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectRateLimited {
		t.Fatalf("version 2 over the limit: %+v", m)
	}
	expectClosed(t, c, wait)
	c = dialTCP(t, s.Addr())
	writeAll(t, c, []byte{2, 0, 1, 1}) // before the body check: no name
	expectMsg(t, c, wire.MsgLoginRejected, int(wire.RejectRateLimited))
	expectClosed(t, c, wait)
	expectRejected(t, s.Addr(), "!!", wire.RejectRateLimited) // before the name check
	// The first five are out of the window now, but the five refused ones
	// are in it: they count.
	advance(window/2 + window/10)
	expectRejected(t, s.Addr(), "Ripley", wire.RejectRateLimited)
	// A window after the last ones, a login goes through.
	advance(window + window/10)
	connect(t, s, "Ripley")
}

// The limiter alone, with its clock: 5 in 10 s pass, the 6th is refused,
// a refused one counts, another address is not affected.
func TestLoginLimiterWindow(t *testing.T) {
	t.Parallel()
	l := newLoginLimiter(5, 10*time.Second, 100)
	ip := mustAddr("192.0.2.1")
	t0 := time.Unix(1000, 0)
	for i := range 5 {
		if !l.allow(ip, t0.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("request %d refused", i+1)
		}
	}
	if l.allow(ip, t0.Add(9*time.Second)) {
		t.Fatal("6th within 10 s allowed")
	}
	if !l.allow(mustAddr("192.0.2.2"), t0.Add(9*time.Second)) {
		t.Fatal("another address refused")
	}
	// At t0+10.5 s the requests of t0+1..t0+4 and the refused one of
	// t0+9 are within the last 10 s: refused.
	if l.allow(ip, t0.Add(10500*time.Millisecond)) {
		t.Fatal("allowed while 5 requests (one refused) are within 10 s")
	}
	// 10 s after the last one, allowed again.
	if !l.allow(ip, t0.Add(21*time.Second)) {
		t.Fatal("refused after 10 s of silence")
	}
}

// 3.2 Deadline: a connection that sends no LoginRequest is closed after
// LoginTimeout, also one that sends part of a frame: never before it
// (the server's deadline starts after the test's dial began).
func TestLoginDeadline(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.LoginTimeout = 500 * time.Millisecond
	s := startServer(t, cfg)
	for _, first := range [][]byte{nil, {0x0A}, {0x0A, 0x00, 0x01}} {
		start := time.Now()
		c := dialTCP(t, s.Addr())
		if first != nil {
			writeAll(t, c, first)
		}
		expectClosed(t, c, wait)
		if d := time.Since(start); d < cfg.LoginTimeout {
			t.Fatalf("closed after %v, before the deadline", d)
		}
	}
}

// MaxPending: connections beyond the cap are closed at once while the
// others wait for their LoginRequest; the cap frees up afterwards. The
// LoginTimeout is an hour: a connection closed within the test's guard
// was not closed by it.
func TestLoginMaxPending(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxPending = 2
	cfg.LoginTimeout = time.Hour
	s := startServer(t, cfg)
	p1 := dialTCP(t, s.Addr())
	p2 := dialTCP(t, s.Addr())
	testutil.WaitFor(t, wait, "2 pending connections", func() bool { return s.TickStats().Pending == 2 })
	c := dialTCP(t, s.Addr())
	expectClosed(t, c, wait) // at once: long before its LoginTimeout
	// The pending ones still log in.
	writeAll(t, p1, loginRequest(1, "Alpha"))
	expectMsg(t, p1, wire.MsgLoginAccepted, -1)
	p2.Close()
	// Room again once the server has seen p2 go: a new connection logs in.
	testutil.WaitFor(t, wait, "no pending connection", func() bool { return s.TickStats().Pending == 0 })
	c = dialTCP(t, s.Addr())
	writeAll(t, c, loginRequest(1, "Bravo"))
	expectMsg(t, c, wire.MsgLoginAccepted, -1)
}

// 3.1 Malformed messages before login: Logout(Kicked), then close.
func TestProtocolErrorsBeforeLogin(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	acc := wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginAccepted, Player: 0, Session: 1, Tick: 0})
	cases := map[string][]byte{
		"length 0":                  {0, 0},
		"length 1025":               append([]byte{0x01, 0x04}, make([]byte, 1025)...),
		"length 1025, no body":      {0x01, 0x04},
		"length 65535":              {0xFF, 0xFF, 1, 1},
		"unknown type 0":            {1, 0, 0},
		"unknown type 9":            {3, 0, 9, 1, 2},
		"LoginAccepted from client": acc,
		"LoginRejected from client": wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRejected, Reason: 1, Text: "x"}),
		"Logout before login":       {2, 0, 4, 0},
		"LoginRequest type only":    {1, 0, 1},
		"LoginRequest no name":      {2, 0, 1, 1},
		"LoginRequest half length":  {3, 0, 1, 1, 6},
		"name runs past the frame":  {6, 0, 1, 1, 10, 0, 'a', 'b'},
		"bytes after the name":      {9, 0, 1, 1, 3, 0, 'a', 'b', 'c', 'd', 'e'},
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			c := dialTCP(t, s.Addr())
			writeAll(t, c, b)
			expectLogout(t, c, wire.LogoutKicked)
		})
	}
	join(t, s, "Survivor")
}

// A frame cut short, then close: nothing to answer, nothing breaks.
func TestTruncatedFrameBeforeLogin(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	for _, b := range [][]byte{{0x0A}, {0x0A, 0x00, 0x01, 0x01, 0x06}} {
		c := dialTCP(t, s.Addr())
		writeAll(t, c, b)
		c.(interface{ CloseWrite() error }).CloseWrite()
		expectClosed(t, c, wait)
	}
	join(t, s, "Survivor")
}

// 3.1 After login every message but Logout is a protocol error: the
// session gets Logout(Kicked), the others PlayerLeft(Kicked) and the
// Destroy of its ship.
func TestProtocolErrorsAfterLogin(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	obs := join(t, s, "Observer")
	cases := []struct {
		name string
		b    []byte
	}{
		{"second LoginRequest", loginRequest(1, "Again")},
		{"LoginRequest of another version", loginRequest(2, "Again")},
		{"length 0", []byte{0, 0}},
		{"length 1025", []byte{0x01, 0x04}},
		{"unknown type", []byte{1, 0, 0x42}},
		{"LoginAccepted", wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginAccepted, Session: 1})},
		{"Logout too long", []byte{3, 0, 4, 0, 0}},
		{"Logout too short", []byte{1, 0, 4}},
	}
	for i, tc := range cases {
		c := join(t, s, "Victim"+string(rune('A'+i)))
		ship := c.shipID()
		writeAll(t, c.tcp, tc.b)
		expectLogout(t, c.tcp, wire.LogoutKicked)
		pl := obs.waitEvent(tc.name+": PlayerLeft(Kicked)", func(ev *wire.Event) bool {
			return ev.Type == wire.EventPlayerLeft && ev.Player == c.acc.Player && ev.Reason == wire.LeftKicked &&
				ev.Tick >= c.accepts[0].Tick
		})
		obs.waitEvent(tc.name+": Destroy of the ship", func(ev *wire.Event) bool {
			return ev.Type == wire.EventDestroy && ev.ID == ship && ev.Reason == wire.DestroyPlayerLeft
		})
		if d := obs.findEvent(0, func(ev *wire.Event) bool { return ev.Type == wire.EventDestroy && ev.ID == ship }); d < pl {
			t.Fatalf("%s: Destroy before PlayerLeft", tc.name)
		}
	}
}

// 1.2, 3.2: Logout(Left) from a client: the others get PlayerLeft(Left)
// then the Destroy of its ship (PlayerLeft); the server closes.
func TestLogoutLeft(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	a := join(t, s, "Alpha")
	b := join(t, s, "Bravo")
	ship := b.shipID()
	a.waitEvent("Spawn of Bravo's ship", func(ev *wire.Event) bool { return ev.Type == wire.EventSpawn && ev.ID == ship })
	b.logout()
	expectClosed(t, b.tcp, wait)
	checkLeft(t, a, b.acc.Player, ship, wire.LeftLeft)
	// Its session is unknown now: its datagrams get no answer. What the
	// server sent before the session ended may still wait in the socket:
	// drain it first.
	drainQuiet(b.udp, 100*time.Millisecond)
	b.send(wire.TypeBind, b.acc.Token[:])
	silentFor(t, b.udp, 300*time.Millisecond, "Bind of a session that ended")
}

// checkLeft waits for PlayerLeft(p, reason) then the Destroy of ship.
func checkLeft(t *testing.T, obs *tclient, p uint8, ship uint32, reason uint8) {
	t.Helper()
	i := obs.waitEvent("PlayerLeft", func(ev *wire.Event) bool {
		return ev.Type == wire.EventPlayerLeft && ev.Player == p
	})
	if ev := obs.events[i]; ev.Reason != reason {
		t.Fatalf("PlayerLeft reason %d, want %d", ev.Reason, reason)
	}
	j := obs.waitEvent("Destroy of the ship", func(ev *wire.Event) bool {
		return ev.Type == wire.EventDestroy && ev.ID == ship
	})
	if ev := obs.events[j]; ev.Reason != wire.DestroyPlayerLeft || j < i {
		t.Fatalf("Destroy %s at %d after PlayerLeft at %d", eventString(&ev), j, i)
	}
	// The ship leaves the snapshots, and so does the player.
	left := time.Now()
	ok := obs.pumpUntil(wait, func() bool {
		sn := obs.lastSnap()
		if sn == nil || sn.at.Before(left) {
			return false
		}
		_, hasShip := sn.entity(ship)
		_, hasPlayer := sn.player(p)
		return !hasShip && !hasPlayer
	})
	if !ok {
		t.Fatal("the player or its ship is still in the snapshots")
	}
}

// 1.2: closing TCP without Logout counts as Logout(Left).
func TestTCPCloseIsLeft(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	a := join(t, s, "Alpha")
	b := join(t, s, "Bravo")
	ship := b.shipID()
	b.tcp.Close()
	checkLeft(t, a, b.acc.Player, ship, wire.LeftLeft)
}

// A frame cut short after login, then close: Left, no crash.
func TestTruncatedFrameAfterLogin(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	a := join(t, s, "Alpha")
	b := join(t, s, "Bravo")
	ship := b.shipID()
	writeAll(t, b.tcp, []byte{2, 0, 4})
	b.tcp.Close()
	checkLeft(t, a, b.acc.Player, ship, wire.LeftLeft)
}

// 3.2: Close ends every session with Logout(ServerShutdown), bound or
// not, in every game.
func TestServerShutdown(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxGames = 2
	s := startServer(t, cfg)
	var conns []*tclient
	for i := range 6 {
		c := connect(t, s, "Player"+string(rune('A'+i)))
		if i%2 == 0 {
			c.bind()
		}
		conns = append(conns, c)
	}
	s.Close()
	for _, c := range conns {
		expectLogout(t, c.tcp, wire.LogoutServerShutdown)
	}
}

// 5.5: a bound session silent for SessionTimeout ends, not before: the
// others get PlayerLeft(TimedOut) and the Destroy of its ship, it gets
// Logout(TimedOut). The talking one is pumped all along but while the
// silent one logs in. The timeout is 2 s: a server whose tick loop
// stalls longer than it (on a busy machine) times out every session at
// its next tick, the talking one too, its Inputs still unread.
func TestSessionTimeout(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.SessionTimeout = 2 * time.Second
	s := startServer(t, cfg)
	a := join(t, s, "Alpha")
	b := join(t, s, "Bravo")
	silentSince := b.lastSent // its Bind: b sends nothing from here on
	i := a.waitEvent("Spawn of Bravo's ship", func(ev *wire.Event) bool {
		return ev.Type == wire.EventSpawn && ev.Kind == wire.KindPlayerShip && ev.Owner == b.acc.Player
	})
	ship := a.events[i].ID
	checkLeft(t, a, b.acc.Player, ship, wire.LeftTimedOut)
	if d := time.Since(silentSince); d < cfg.SessionTimeout {
		t.Fatalf("timed out after %v of silence", d)
	}
	expectLogout(t, b.tcp, wire.LogoutTimedOut)
	// a kept talking: it is still in.
	if _, ok := a.lastSnap().player(a.acc.Player); !ok {
		t.Fatal("the talking player left too")
	}
}

// 3.4 Timeout: a login that never binds is dropped after BindTimeout with
// Logout(TimedOut), and never had a ship.
func TestBindTimeout(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.BindTimeout = 600 * time.Millisecond
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	a := join(t, s, "Alpha")
	start := time.Now()
	b := connect(t, s, "Bravo")
	for time.Since(start) < 300*time.Millisecond {
		a.pump(50 * time.Millisecond)
	}
	expectLogout(t, b.tcp, wire.LogoutTimedOut)
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Fatalf("dropped after %v", d)
	}
	a.pump(300 * time.Millisecond)
	if i := a.findEvent(0, func(ev *wire.Event) bool {
		switch ev.Type {
		case wire.EventPlayerJoined, wire.EventPlayerLeft, wire.EventDeath:
			return ev.Player == b.acc.Player
		case wire.EventSpawn:
			return ev.Owner == b.acc.Player
		}
		return false
	}); i >= 0 {
		t.Fatalf("an unbound player made event %s", eventString(&a.events[i]))
	}
	for _, sn := range a.snaps {
		if _, ok := sn.player(b.acc.Player); ok || len(sn.entities) != 1 {
			t.Fatalf("snapshot of tick %d has the unbound player or its ship: %+v", sn.tick, sn)
		}
	}
	// Its session is gone: a late Bind gets nothing.
	u := b.newUDP()
	u.Write(rawDatagram(wire.TypeBind, 0, b.acc.Session, b.acc.Token[:]))
	silentFor(t, u, 300*time.Millisecond, "late Bind")
	// And its player number is free again.
	if c := connect(t, s, "Charlie"); c.acc.Player != b.acc.Player {
		t.Fatalf("player %d, want %d", c.acc.Player, b.acc.Player)
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

// Close ends the connections that have not logged in yet too, at once
// (not after their LoginTimeout), and Run returns.
func TestShutdownClosesPending(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Logger = testutil.Logger(t)
	cfg.LoginTimeout = time.Hour // a close within the guards is Close's
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- s.Run(context.Background()) }()
	a := join(t, s, "Alpha")
	pending := dialTCP(t, s.Addr())
	partial := dialTCP(t, s.Addr())
	writeAll(t, partial, []byte{10, 0, 1})
	// The server has taken them: Close must end them, not the listen
	// queue's reset.
	testutil.WaitFor(t, wait, "2 pending connections", func() bool { return s.TickStats().Pending == 2 })
	s.Close()
	expectLogout(t, a.tcp, wire.LogoutServerShutdown)
	expectClosed(t, pending, wait)
	expectClosed(t, partial, wait)
	select {
	case err := <-ran:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(wait):
		t.Fatalf("Run still running %v after Close", wait)
	}
	// Nothing listens any more.
	if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
		c.Close()
		t.Fatal("still accepting connections")
	}
}
