package server

import (
	"net"
	"strings"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// The limits of rooms, the lobby and chat (issue 27): rooms waiting in
// the lobby hold no game, rooms per address, idle lobby sessions, the
// rate of RoomList, refused chat lines, the normalizer's work, and quick
// join by humans.

// rawLobby is a lobby session on a raw TCP connection from a chosen
// loopback address (127.0.0.x), without UDP: an idle lobby player.
type rawLobby struct {
	t  testing.TB
	c  net.Conn
	fr wire.FrameReader
	id uint32
}

// dialFrom dials the server's TCP port from the loopback address ip.
func dialFrom(t testing.TB, s *Server, ip string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: wait, LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c, err := d.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatalf("dial from %s: %v", ip, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// lobbyFrom logs name in for the lobby from ip, sending the room
// requests then in the same write.
func lobbyFrom(t testing.TB, s *Server, ip, name string, then ...wire.Room) *rawLobby {
	t.Helper()
	c := dialFrom(t, s, ip)
	req := wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2,
		Name: name, Revision: wire.Revision, Mode: wire.ModeClassic, Flags: wire.LoginLobby})
	for i := range then {
		req = wire.AppendRoom(req, &then[i])
	}
	writeAll(t, c, req)
	l := &rawLobby{t: t, c: c, fr: wire.FrameReader{R: c}}
	c.SetReadDeadline(time.Now().Add(wait))
	f, err := l.fr.ReadFrame()
	if err != nil {
		t.Fatalf("%s from %s: login: %v", name, ip, err)
	}
	m, err := wire2.ParseMessage(f)
	if err != nil || m.Type != wire.MsgLoginAccepted {
		t.Fatalf("%s from %s: login answered %+v %v", name, ip, m, err)
	}
	l.id = m.Session
	return l
}

func (l *rawLobby) room(r wire.Room) {
	l.t.Helper()
	writeAll(l.t, l.c, wire.AppendRoom(nil, &r))
}

// frame reads the next frame.
func (l *rawLobby) frame() []byte {
	l.t.Helper()
	l.c.SetReadDeadline(time.Now().Add(wait))
	f, err := l.fr.ReadFrame()
	if err != nil {
		l.t.Fatalf("reading TCP: %v", err)
	}
	return f
}

// next returns the next room message.
func (l *rawLobby) next() wire.Room {
	l.t.Helper()
	for {
		f := l.frame()
		if !wire.IsRoomMessage(wire.MsgType(f[0])) {
			continue
		}
		var r wire.Room
		if err := wire.ParseRoom(f, &r); err != nil {
			l.t.Fatalf("% X: %v", f, err)
		}
		return r
	}
}

// Eight lobby sessions of one address each create a private room: the
// first MaxRoomsPerIP are created, the others refused TooMany; and the
// rooms waiting hold no game, so an ordinary login of another address
// starts one even with MaxGames 1.
func TestLobbyRoomsPerAddressHoldNoGame(t *testing.T) {
	t.Parallel()
	cfg := roomConfig()
	cfg.MaxGames, cfg.MaxSessions, cfg.MaxRoomsPerIP = 1, 32, 0 // the default: 2
	s := startServer(t, cfg)
	created := 0
	for i := range 8 {
		l := lobbyFrom(t, s, "127.0.0.2", "Idle"+string(rune('A'+i)))
		l.room(wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic})
		switch r := l.next(); {
		case r.Type == wire.MsgRoomState:
			created++
		case r.Type != wire.MsgRoomRefused || r.Reason != wire.RoomTooMany:
			t.Fatalf("create %d: %+v", i, r)
		}
	}
	// Quick join too creates a room: refused as well.
	q := lobbyFrom(t, s, "127.0.0.2", "Quick")
	q.room(wire.Room{Type: wire.MsgRoomQuick})
	if r := q.next(); r.Type != wire.MsgRoomRefused || r.Reason != wire.RoomTooMany {
		t.Fatalf("quick join past the cap: %+v", r)
	}
	rooms, games, _, _ := roomCounts(s)
	t.Logf("rooms created by one address: %d of 8; rooms %d, games %d", created, rooms, games)
	if created != 2 || rooms != 2 {
		t.Fatalf("rooms created by one address: %d (%d in all), want 2", created, rooms)
	}
	c, m := loginAs(t, s.Addr(), wire.Version, "Ripley")
	if m.Type != wire.MsgLoginAccepted {
		t.Fatalf("ordinary login with %d rooms waiting, MaxGames 1: %+v", rooms, m)
	}
	c.Close()
}

// 4 addresses x 8 idle lobby sessions, each trying to make a room, fill
// the server's sessions (MaxSessions 32); idle past LobbyIdle they are
// ended with Logout(TimedOut), and a fifth address logs in and plays.
func TestIdleLobbySessionsEnd(t *testing.T) {
	t.Parallel()
	cfg := roomConfig()
	cfg.MaxSessionsPerIP, cfg.MaxRoomsPerIP = 8, 0 // the defaults
	cfg.LobbyIdle = 300 * time.Millisecond
	s := startServer(t, cfg)
	var idle []*rawLobby
	for a := range 4 {
		ip := "127.0.0." + string(rune('2'+a))
		for i := range 8 {
			l := lobbyFrom(t, s, ip, "Idle"+string(rune('A'+a))+string(rune('A'+i)),
				wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic})
			idle = append(idle, l)
		}
	}
	rooms, games, _, _ := roomCounts(s)
	t.Logf("32 idle lobby sessions: %d rooms, %d games", rooms, games)
	if rooms > 8 {
		t.Fatalf("%d rooms from 4 addresses, want at most 8", rooms)
	}
	// Each ends with Logout(TimedOut), having sent nothing more.
	for i, l := range idle {
		for {
			f := l.frame()
			if wire.IsRoomMessage(wire.MsgType(f[0])) {
				continue
			}
			m, err := wire2.ParseMessage(f)
			if err != nil || m.Type != wire.MsgLogout || m.Reason != wire.LogoutTimedOut {
				t.Fatalf("idle session %d: got % X, want Logout(TimedOut)", i, f)
			}
			break
		}
	}
	c := dialFrom(t, s, "127.0.0.6")
	writeAll(t, c, loginRequest(wire.Version, "Ripley"))
	if m, err := readMsg(c, wait); err != nil || m.Type != wire.MsgLoginAccepted {
		t.Fatalf("the fifth address after the idle sessions: %+v %v", m, err)
	}
	if rooms, _, sessions, _ := roomCounts(s); rooms != 0 || sessions != 1 {
		t.Fatalf("after the idle sessions: %d rooms, %d sessions", rooms, sessions)
	}
}

// A burst of RoomList gets at most roomListBurst listings; a second
// later (the chat's clock), one more.
func TestRoomListRateLimited(t *testing.T) {
	t.Parallel()
	s := startServer(t, roomConfig())
	clk := useClock(s)
	l := lobbyFrom(t, s, "127.0.0.1", "Lister")
	count := func(n int) int {
		var burst []byte
		for range n {
			burst = wire.AppendRoom(burst, &wire.Room{Type: wire.MsgRoomList})
		}
		// A request that is always answered marks the end of the burst.
		burst = wire.AppendRoom(burst, &wire.Room{Type: wire.MsgRoomLeave})
		writeAll(t, l.c, burst)
		listings := 0
		for {
			switch r := l.next(); r.Type {
			case wire.MsgRoomListing:
				listings++
			case wire.MsgRoomRefused:
				if r.Reason != wire.RoomNotInRoom {
					t.Fatalf("refused %s", wire.RoomReason(r.Reason))
				}
				return listings
			}
		}
	}
	n := count(20)
	t.Logf("20 RoomList in a burst: %d listings", n)
	if n != roomListBurst {
		t.Fatalf("20 RoomList in a burst: %d listings, want %d", n, roomListBurst)
	}
	if n := count(5); n != 0 {
		t.Fatalf("RoomList with an empty bucket: %d listings", n)
	}
	clk.advance(time.Second)
	if n := count(5); n != 1 {
		t.Fatalf("a second later: %d listings, want 1", n)
	}
}

// Refused lines count toward the chat limit: after 5 empty lines, a good
// one is refused RateLimited.
func TestChatRefusedLinesCount(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	useClock(s)
	a := chatLogin(t, s, "Ripley", 2, wire.ModeClassic)
	for range chatLimit {
		a.say("\u200d\u200d")
		a.refused(wire.ChatEmpty)
	}
	a.say("hello")
	a.refused(wire.ChatRateLimited)
}

// A 1 KB line of zero-width joiners is refused without being normalized
// whole: the normalizer reads at most chatMaxInput bytes of a line.
func TestChatNormalizerWorkBounded(t *testing.T) {
	t.Parallel()
	s := startServer(t, testConfig())
	useClock(s)
	a := chatLogin(t, s, "Ripley", 2, wire.ModeClassic)
	a.say(strings.Repeat("\u200d", 342)) // 1,026 bytes
	m := a.next()
	s.mu.Lock()
	ss := s.sessions[a.id]
	s.mu.Unlock()
	scanned := ss.chat.scanned.Load()
	t.Logf("a 1 KB line of zero-width joiners: %+v, %d bytes normalized", m, scanned)
	if m.Type != wire.MsgChatRefused || m.Reason != wire.ChatTooLong {
		t.Fatalf("got %+v, want ChatRefused(TooLong)", m)
	}
	if scanned > wire.MaxChatBytes {
		t.Fatalf("%d bytes normalized, want at most %d", scanned, wire.MaxChatBytes)
	}
	// A line of the most bytes still goes through.
	a.say(strings.Repeat("\u200d", 150) + "hi")
	a.line(a.player, "Ripley", "hi")
}

// Quick join ranks rooms by their human players: a room of one human and
// two bots draws nobody from an older room of one human.
func TestQuickJoinCountsHumans(t *testing.T) {
	t.Parallel()
	s := startServer(t, roomConfig())
	pub := wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 4, Flags: wire.RoomPublic}
	h := lobbyLogin(t, s, "Ripley", wire.ModeClassic)
	h.room(wire.Room{Type: wire.MsgRoomCreate, Settings: pub})
	human := h.expect(wire.MsgRoomState)
	b := lobbyLogin(t, s, "Bishop", wire.ModeClassic)
	b.room(wire.Room{Type: wire.MsgRoomCreate, Settings: pub})
	b.expect(wire.MsgRoomState)
	b.room(wire.Room{Type: wire.MsgRoomBot, Value: 1})
	b.room(wire.Room{Type: wire.MsgRoomBot, Value: 1})
	b.state("two bots", members(3))
	q := lobbyLogin(t, s, "Hicks", wire.ModeClassic)
	q.room(wire.Room{Type: wire.MsgRoomQuick})
	got := q.expect(wire.MsgRoomState)
	t.Logf("quick join: room of %d members, %s (the human room is %s)", got.Count, got.Code, human.Code)
	if got.Code != human.Code {
		t.Fatalf("quick join went to %s (%d members), want the room of one human %s", got.Code, got.Count, human.Code)
	}
}
