package server

import (
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// The chat of 7.13 over real TCP connections to the real server: the
// clients are raw connections speaking the codec, which may log in with
// v1 or v2.

// fakeClock is the chat's clock in the tests: time moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// useClock makes clk the chat's clock of s; call it before any login.
func useClock(s *Server) *fakeClock {
	clk := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	s.mu.Lock()
	s.chatHub.now = clk.now
	s.mu.Unlock()
	return clk
}

// chatter is a raw TCP session of the chat tests.
type chatter struct {
	t      testing.TB
	c      net.Conn
	fr     wire.FrameReader
	player uint8
	id     uint32
}

// chatLogin logs in as name with version 1 or 2 and mode (v2).
func chatLogin(t testing.TB, s *Server, name string, version int, mode uint8) *chatter {
	t.Helper()
	var req []byte
	switch version {
	case 1:
		req = loginRequest(wire.Version, name)
	default:
		req = loginMode2(name, mode)
	}
	c, f := rawLogin(t, s.Addr(), req)
	m, err := wire2.ParseMessage(f)
	if version == 1 {
		m, err = wire.ParseMessage(f)
	}
	if err != nil || m.Type != wire.MsgLoginAccepted {
		t.Fatalf("login %q: %+v %v", name, m, err)
	}
	ch := &chatter{t: t, c: c, player: m.Player, id: m.Session}
	ch.fr.R = c
	// The session's chat starts just after its login: wait for it, so
	// that no line of the test goes out before.
	if version == 21 {
		testutil.WaitFor(t, wait, name+"'s chat", func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			ss := s.sessions[m.Session]
			return ss != nil && ss.chat != nil
		})
	}
	return ch
}

func (c *chatter) say(text string) {
	c.t.Helper()
	writeAll(c.t, c.c, wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: text}))
}

// next reads the next message.
func (c *chatter) next() wire.Message {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(wait))
	f, err := c.fr.ReadFrame()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	m, err := wire2.ParseMessage(f)
	if err != nil {
		c.t.Fatalf("message % X: %v", f, err)
	}
	return m
}

// line reads the next message, which must be the ChatMessage of player
// (name) with text.
func (c *chatter) line(player uint8, name, text string) wire.Message {
	c.t.Helper()
	m := c.next()
	if m.Type != wire.MsgChatMessage || m.Player != player || m.Name != name || m.Text != text {
		c.t.Fatalf("want ChatMessage %d %q %q, got %+v", player, name, text, m)
	}
	return m
}

// refused reads the next message, which must be ChatRefused(reason).
func (c *chatter) refused(reason uint8) wire.Message {
	c.t.Helper()
	m := c.next()
	if m.Type != wire.MsgChatRefused || m.Reason != reason {
		c.t.Fatalf("want ChatRefused(%d), got %+v", reason, m)
	}
	return m
}

// onlyLogout reads until the connection closes and checks that all it
// got was Logout(reason).
func (c *chatter) onlyLogout(reason uint8) {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(wait))
	f, err := c.fr.ReadFrame()
	if err != nil {
		c.t.Fatalf("want Logout(%d): %v", reason, err)
	}
	if m, err := wire2.ParseMessage(f); err != nil || m.Type != wire.MsgLogout || m.Reason != reason {
		c.t.Fatalf("want Logout(%d), got % X", reason, f)
	}
	expectClosed(c.t, c.c, wait)
}

func TestChatNormalizesAndBounds(t *testing.T) {
	s := startServer(t, testConfig())
	clk := useClock(s)
	a := chatLogin(t, s, "Ripley", 2, wire.ModeStage)
	b := chatLogin(t, s, "Hicks", 2, wire.ModeStage)
	for _, c := range []struct{ in, want string }{
		{"hello", "hello"},
		{"ｇｏ！", "go!"},
		{"  lots   of\t\tspace \n ", "lots of space"},
		{"a\u202Eevil\u202C ok", "aevil ok"},
		{"zero\u200bwidth\u2066iso\u2069\u200e", "zerowidthiso"},
		{"bell\x07 and esc\x1b[2J\x00", "bell and esc[2J"},
		{"e\u200d\u0301", "é"},
		{"\ue000👾\U000F0000", "👾"},
		{strings.Repeat("x", wire.MaxChatLen), strings.Repeat("x", wire.MaxChatLen)},
		{strings.Repeat("\u200b", 150) + "ok", "ok"}, // 452 bytes: at most 480 are read
	} {
		a.say(c.in)
		a.line(a.player, "Ripley", c.want) // its echo
		b.line(a.player, "Ripley", c.want)
		clk.advance(time.Second)
	}
	for _, c := range []struct {
		in  string
		why uint8
	}{
		{"", wire.ChatEmpty},
		{" \t\n ", wire.ChatEmpty},
		{"\u202e\u200b\x01\ue000", wire.ChatEmpty},
		{strings.Repeat("x", wire.MaxChatLen+1), wire.ChatTooLong},
		{strings.Repeat("ab ", 41), wire.ChatTooLong},
		{strings.Repeat("ﷺ", 7), wire.ChatTooLong},               // 18 characters each after NFKC
		{strings.Repeat("\u200b", 300) + "ok", wire.ChatTooLong}, // 902 bytes: refused unread
	} {
		a.say(c.in)
		if m := a.refused(c.why); m.Wait != 0 {
			t.Fatalf("%q: wait %d", c.in, m.Wait)
		}
		clk.advance(time.Second) // refused lines count toward the limit
	}
	// Nothing of the refused lines reached Hicks: his next message is
	// the next line.
	a.say("still here")
	b.line(a.player, "Ripley", "still here")
}

func TestChatRateLimit(t *testing.T) {
	s := startServer(t, testConfig())
	clk := useClock(s)
	a := chatLogin(t, s, "Ripley", 2, wire.ModeClassic)
	b := chatLogin(t, s, "Hicks", 2, wire.ModeClassic)
	for range 5 {
		a.say("line")
		a.line(a.player, "Ripley", "line")
		b.line(a.player, "Ripley", "line")
		clk.advance(800 * time.Millisecond) // the fifth at 3.2 s
	}
	// At 4 s, the sixth within 5 s: refused until the first is 5 s old.
	a.say("sixth")
	if m := a.refused(wire.ChatRateLimited); m.Wait != 1000 {
		t.Fatalf("wait %d ms, want 1000", m.Wait)
	}
	// Refused lines do not count, and other players have their own limit.
	clk.advance(999 * time.Millisecond)
	a.say("sixth")
	if m := a.refused(wire.ChatRateLimited); m.Wait != 1 {
		t.Fatalf("wait %d ms, want 1", m.Wait)
	}
	b.say("me")
	b.line(b.player, "Hicks", "me")
	a.line(b.player, "Hicks", "me")
	clk.advance(time.Millisecond) // 5 s after the first: taken again
	a.say("sixth")
	a.line(a.player, "Ripley", "sixth")
	b.line(a.player, "Ripley", "sixth")
	// The second line is 4.2 s old: one more is refused for 0.8 s.
	a.say("seventh")
	if m := a.refused(wire.ChatRateLimited); m.Wait != 800 {
		t.Fatalf("wait %d ms, want 800", m.Wait)
	}
}

// TestChatGoesToTheGame: a line goes to every v2 session of the sender's
// game, and to no v1 session, nor to another game; an announcement goes
// to every v2 session of every game.
func TestChatGoesToTheGame(t *testing.T) {
	cfg := testConfig()
	cfg.Mode = wire.ModeClassic
	s := startServer(t, cfg)
	useClock(s)
	// One Classic game of four: v2, v1, v1, v2; the fifth login, v2,
	// opens a second game.
	a := chatLogin(t, s, "Ripley", 2, wire.ModeClassic)
	v1 := chatLogin(t, s, "Bishop", 1, 0)
	v1b := chatLogin(t, s, "Vasquez", 1, 0)
	b := chatLogin(t, s, "Hicks", 2, wire.ModeAny)
	other := chatLogin(t, s, "Newt", 2, wire.ModeClassic)
	ga, _ := gameOf(t, s, a.id)
	if g, _ := gameOf(t, s, v1.id); g != ga {
		t.Fatalf("Bishop in game %d, Ripley in %d", g, ga)
	}
	if g, _ := gameOf(t, s, v1b.id); g != ga {
		t.Fatalf("Vasquez in game %d, Ripley in %d", g, ga)
	}
	if g, _ := gameOf(t, s, b.id); g != ga {
		t.Fatalf("Hicks in game %d, Ripley in %d", g, ga)
	}
	if g, _ := gameOf(t, s, other.id); g == ga {
		t.Fatal("Newt in Ripley's game")
	}

	a.say("hello team")
	for _, c := range []*chatter{a, b} {
		m := c.line(a.player, "Ripley", "hello team")
		if m.Tick > 60*60 {
			t.Fatalf("tick %d", m.Tick)
		}
	}
	other.say("other game")
	other.line(other.player, "Newt", "other game")
	if n := s.Metrics().ChatMessages; n != 2 { // rtype_chat_messages_total
		t.Errorf("%d chat messages counted, want 2", n)
	}

	s.Announce("  Restart\u202e in 5 min  ")
	for _, c := range []*chatter{a, b, other} {
		// Newt's first message is the announcement: Ripley's line did
		// not reach it; Ripley's and Hicks's next is the announcement:
		// Newt's line did not reach them.
		c.line(wire.ServerPlayer, "", "Restart in 5 min")
	}
	// v1 sessions got nothing of it: their first message is
	// the Logout of the shutdown.
	s.Close()
	v1.onlyLogout(wire.LogoutServerShutdown)
	v1b.onlyLogout(wire.LogoutServerShutdown)
}

func TestAnnounceCutsAndSkipsEmpty(t *testing.T) {
	s := startServer(t, testConfig())
	a := chatLogin(t, s, "Ripley", 2, wire.ModeStage)
	s.Announce("\u200b \x00")                                    // empty: not sent
	s.Announce(strings.Repeat("long ", 40))                      // 200 characters: cut
	want := strings.Repeat("long ", 23) + "long" + wire.Ellipsis // 119 and the ellipsis
	a.line(wire.ServerPlayer, "", want)
}

func TestChatMalformedKicks(t *testing.T) {
	s := startServer(t, testConfig())
	a := chatLogin(t, s, "Ripley", 2, wire.ModeStage)
	b := chatLogin(t, s, "Hicks", 2, wire.ModeStage)
	writeAll(t, a.c, []byte{4, 0, byte(wire.MsgChat), 1, 0, 0xFF}) // text not UTF-8
	a.onlyLogout(wire.LogoutKicked)
	// A client sending a server's message breaks 3.1 too.
	writeAll(t, b.c, wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChatRefused, Reason: 1}))
	b.onlyLogout(wire.LogoutKicked)
	// In v1, a Chat is an unknown type: a protocol error (3.1).
	v1 := chatLogin(t, s, "Bishop", 1, 0)
	writeAll(t, v1.c, wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: "hi"}))
	v1.onlyLogout(wire.LogoutKicked)
}

func TestChatIsLogged(t *testing.T) {
	var logs lockedBuffer
	cfg := testConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	s := startServer(t, cfg)
	a := chatLogin(t, s, "Ripley", 2, wire.ModeStage)
	a.say("ｇｏ！")
	a.line(a.player, "Ripley", "go!")
	g, _ := gameOf(t, s, a.id)
	want := "msg=chat game=" + strconv.Itoa(g) + " player=0 name=Ripley text=go!"
	testutil.WaitFor(t, wait, "the chat's log line", func() bool { return strings.Contains(logs.String(), want) })
	s.Announce("bye")
	a.line(wire.ServerPlayer, "", "bye")
	testutil.WaitFor(t, wait, "the announcement's log line", func() bool {
		return strings.Contains(logs.String(), "msg=announcement text=bye games=1")
	})
}

// TestChatOutboxIsBounded: what does not fit in a session's outbox is
// dropped; the outbox never grows.
func TestChatOutboxIsBounded(t *testing.T) {
	o := chatOut{pending: make([]byte, 0, chatOutbox), writing: make([]byte, 0, chatOutbox), wake: make(chan struct{}, 1)}
	frame := wire.AppendChatMessage(nil, 1, 0, "Ripley", []byte(strings.Repeat("é", wire.MaxChatLen)))
	fit := chatOutbox / len(frame)
	for i := range 1000 {
		if dropped := o.push(frame); dropped != max(0, i-fit+1) {
			t.Fatalf("push %d: %d dropped", i, dropped)
		}
	}
	if cap(o.pending) != chatOutbox || len(o.pending) != fit*len(frame) || o.dropped != 1000-fit {
		t.Fatalf("pending %d of %d, dropped %d", len(o.pending), cap(o.pending), o.dropped)
	}
}

// TestChatFlood: a client that floods lines and reads nothing holds no
// one else: the others' lines still come. (Its refused lines count
// toward its limit: of its bursts of 201 lines, hardly any goes out.)
func TestChatFlood(t *testing.T) {
	s := startServer(t, testConfig())
	clk := useClock(s)
	a := chatLogin(t, s, "Ripley", 2, wire.ModeStage)
	b := chatLogin(t, s, "Hicks", 2, wire.ModeStage) // reads nothing
	frame := wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: strings.Repeat("é", wire.MaxChatLen+1)})
	var flood []byte
	for range 200 {
		flood = append(flood, frame...)
	}
	flood = append(flood, wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: "flood"})...)
	for i := range 20 {
		writeAll(t, b.c, flood) // 5 refused TooLong, then RateLimited
		line := "line " + strconv.Itoa(i)
		a.say(line)
		for { // a "flood" of Hicks may go out when the clock moves
			m := a.next()
			if m.Type == wire.MsgChatMessage && m.Player == b.player && m.Text == "flood" {
				continue
			}
			if m.Type != wire.MsgChatMessage || m.Player != a.player || m.Text != line {
				t.Fatalf("want %q, got %+v", line, m)
			}
			break
		}
		if i%5 == 4 {
			clk.advance(chatWindow)
		}
	}
	a.say("still here")
	a.line(a.player, "Ripley", "still here")
}

// TestChatNoAllocs: a line taken and sent to the game allocates nothing
// but its log record (off here).
func TestChatNoAllocs(t *testing.T) {
	cfg := testConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(&lockedBuffer{}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := startServer(t, cfg)
	clk := useClock(s)
	a := chatLogin(t, s, "Ripley", 2, wire.ModeStage)
	chatLogin(t, s, "Hicks", 2, wire.ModeStage)
	s.mu.Lock()
	ss := s.sessions[a.id]
	s.mu.Unlock()
	frame := wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: "ｇｏ  team\u202e!"})[2:]
	testutil.NoAllocs(t, 100, "a chat line", func() {
		clk.advance(time.Second)
		if err := s.chatHub.line(ss, frame); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkChatLine: a line taken from a session of a game of four v2
// players, normalized and queued to the four (logging off, the clients
// reading all).
func BenchmarkChatLine(b *testing.B) {
	cfg := testConfig()
	cfg.Logger = testutil.Discard()
	s := startServer(b, cfg)
	clk := useClock(s)
	var cs []*chatter
	for _, name := range []string{"Ripley", "Hicks", "Vasquez", "Bishop"} {
		c := chatLogin(b, s, name, 2, wire.ModeStage)
		cs = append(cs, c)
		go func() {
			for {
				c.c.SetReadDeadline(time.Now().Add(time.Minute))
				if _, err := c.fr.ReadFrame(); err != nil {
					return
				}
			}
		}()
	}
	s.mu.Lock()
	ss := s.sessions[cs[0].id]
	s.mu.Unlock()
	frame := wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: "Ｂｏｓｓ incoming, everyone to the ceiling! \u202e"})[2:]
	b.ReportAllocs()
	for b.Loop() {
		clk.advance(time.Second)
		if err := s.chatHub.line(ss, frame); err != nil {
			b.Fatal(err)
		}
	}
}

// TestChatFromLoginAccepted: a session with chat has it from its
// LoginAccepted, before its reader runs, so that nothing sent to it in
// between (a line of its game, the Spectators message of its join) goes
// to no chat. A v1 session has none.
func TestChatFromLoginAccepted(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	player2(t, s, "Ripley", wire.ModeClassic)
	for _, tc := range []struct {
		what string
		req  []byte
		chat bool
	}{
		{"a v2 player", loginMode2("Hicks", wire.ModeClassic), true},
		{"a spectator", spectateRequest("Newt", wire.ModeAny, wire.RoomCode{}), true},
		{"a lobby session", wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2,
			Name: "Bishop", Revision: wire.Revision, Mode: wire.ModeClassic, Flags: wire.LoginLobby}), true},
		{"a v1 player", rawLoginRequest(wire.Version, []byte("Vasquez")), false},
	} {
		// The server's goroutine holds s.mu from the login's checks to
		// its LoginAccepted; the test looks as soon as it reads it.
		_, f := rawLogin(t, s.Addr(), tc.req)
		var m wire.Message
		var err error
		if tc.chat {
			m, err = wire2.ParseMessage(f)
		} else {
			m, err = wire.ParseMessage(f)
		}
		if err != nil || m.Type != wire.MsgLoginAccepted {
			t.Fatalf("%s: % X: %+v %v", tc.what, f, m, err)
		}
		s.mu.Lock()
		ss := s.sessions[m.Session]
		has := ss != nil && ss.chat != nil
		s.mu.Unlock()
		if has != tc.chat {
			t.Errorf("%s: chat at its LoginAccepted %v, want %v", tc.what, has, tc.chat)
		}
	}
}
