package server

import (
	"net"
	"strings"
	"testing"
	"time"

	"rtype/net/wire"
)

// The limits of rooms, the lobby and chat (issue 27): the rate of
// RoomList, refused chat lines, the normalizer's work, and quick join by
// humans.

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

// lobbyFrom logs name in for the lobby (v2.1) from ip, sending the room
// requests then in the same write.
func lobbyFrom(t testing.TB, s *Server, ip, name string, then ...wire.Room) *rawLobby {
	t.Helper()
	c := dialFrom(t, s, ip)
	req := wire.AppendMessage2(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2,
		Name: name, Minor: 1, Mode: wire.ModeClassic, Flags: wire.LoginLobby})
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
	m, err := wire.ParseMessage2(f)
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
	a := chatLogin(t, s, "Ripley", 21, wire.ModeClassic)
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
	a := chatLogin(t, s, "Ripley", 21, wire.ModeClassic)
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
