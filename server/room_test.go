package server

import (
	"net/netip"
	"rtype/bot"
	"runtime"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// Rooms (PROTOCOL.md 7.14), over real sockets on 127.0.0.1: lobby logins,
// create, join by code, quick join, ready and start, the owner's controls,
// bots, play again, the rate limit of wrong codes, and rooms that leave
// nothing behind.

// lobby is a test client logged in for rooms: the v2 test client, and its
// TCP frames read by hand.
type lobby struct {
	*tclient2
	fr wire.FrameReader
}

// lobbyLogin logs in name with v2 and the Lobby flag.
func lobbyLogin(t testing.TB, s *Server, name string, mode uint8) *lobby {
	t.Helper()
	req := wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: name,
		Revision: wire.Revision, Mode: mode, Flags: wire.LoginLobby})
	c := connectWith2(t, s, name, req)
	if c.acc.Player != wire.NoPlayer || c.acc.Tick != 0 || c.acc.Revision != wire.Revision {
		t.Fatalf("%s: lobby LoginAccepted %+v", name, c.acc)
	}
	return &lobby{tclient2: c, fr: wire.FrameReader{R: c.tcp}}
}

func (l *lobby) room(r wire.Room) {
	l.t.Helper()
	writeAll(l.t, l.tcp, wire.AppendRoom(nil, &r))
}

// next returns the next room message, skipping chat.
func (l *lobby) next() wire.Room {
	l.t.Helper()
	l.tcp.SetReadDeadline(time.Now().Add(wait))
	for {
		f, err := l.fr.ReadFrame()
		if err != nil {
			l.t.Fatalf("%s: reading TCP: %v", l.name, err)
		}
		if !wire.IsRoomMessage(wire.MsgType(f[0])) {
			continue
		}
		var r wire.Room
		if err := wire.ParseRoom(f, &r); err != nil {
			l.t.Fatalf("%s: % X: %v", l.name, f, err)
		}
		return r
	}
}

// expect returns the next room message, which must be of type typ.
func (l *lobby) expect(typ wire.MsgType) wire.Room {
	l.t.Helper()
	r := l.next()
	if r.Type != typ {
		l.t.Fatalf("%s: got %#x %+v, want %#x", l.name, r.Type, r, typ)
	}
	return r
}

// refused expects RoomRefused(reason).
func (l *lobby) refused(reason uint8) wire.Room {
	l.t.Helper()
	r := l.expect(wire.MsgRoomRefused)
	if r.Reason != reason {
		l.t.Fatalf("%s: refused %d (%s), want %d", l.name, r.Reason, wire.RoomReason(r.Reason), reason)
	}
	return r
}

// state reads RoomStates until one satisfies cond.
func (l *lobby) state(what string, cond func(r *wire.Room) bool) wire.Room {
	l.t.Helper()
	for {
		r := l.next()
		if r.Type == wire.MsgRoomRefused {
			l.t.Fatalf("%s: waiting for %s: refused %s", l.name, what, wire.RoomReason(r.Reason))
		}
		if r.Type == wire.MsgRoomState && cond(&r) {
			return r
		}
	}
}

// members returns the number of members of a RoomState.
func members(n int) func(r *wire.Room) bool {
	return func(r *wire.Room) bool { return int(r.Count) == n }
}

func inState(st uint8) func(r *wire.Room) bool {
	return func(r *wire.Room) bool { return r.State == st }
}

// fresh gives the client a new link and UDP socket for its room's next
// game, as after a login (7.14).
func (l *lobby) fresh() {
	old := l.tclient2
	l.tclient2 = &tclient2{rawClient: rawClient{t: old.t, tcp: old.tcp, acc: old.acc, link: link.NewV2(old.acc.Session, time.Now()),
		buf: make([]byte, 2048)}, srv: old.srv, name: old.name, types: map[wire.Type]int{}, keepAlive: true, tail: old.tail}
}

// roomConfig is testConfig with the bots of rtype-bot.
func roomConfig() Config {
	cfg := testConfig()
	cfg.Bots = func(mode uint8, seed uint64) Bots { return bot.NewRoomBots(mode, seed) }
	return cfg
}

var privateClassic = wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 4}

// roomCounts returns the server's rooms, games and sessions.
func roomCounts(s *Server) (rooms, games, sessions, wrong int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rooms.byCode), len(s.games), len(s.sessions), len(s.rooms.wrong)
}

func TestRoomCreateJoinReadyStart(t *testing.T) {
	t.Parallel()
	cfg := roomConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	a := lobbyLogin(t, s, "Ripley", wire.ModeClassic)
	a.room(wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic})
	st := a.expect(wire.MsgRoomState)
	if !st.Code.Valid() || st.State != wire.RoomLobby || st.Owner != 0 || st.You != 0 || st.Count != 1 ||
		st.Members[0].Name != "Ripley" || st.Settings != privateClassic {
		t.Fatalf("created: %+v", st)
	}
	b := lobbyLogin(t, s, "Hicks", wire.ModeStage)
	b.room(wire.Room{Type: wire.MsgRoomJoin, Code: st.Code})
	bs := b.expect(wire.MsgRoomState)
	if bs.You != 1 || bs.Count != 2 || bs.Members[1].Name != "Hicks" || bs.Members[1].Flags != 0 {
		t.Fatalf("joined: %+v", bs)
	}
	a.state("Hicks in", members(2))
	// Waiting, nobody loses anything: there is no world yet.
	if _, games, _, _ := roomCounts(s); games != 0 {
		t.Fatalf("%d games before the start", games)
	}
	// A private room is not listed.
	b.room(wire.Room{Type: wire.MsgRoomList})
	if l := b.expect(wire.MsgRoomListing); l.Count != 0 {
		t.Fatalf("listing %+v", l)
	}
	// A Bind before the start is ignored.
	b.udp = b.newUDP()
	b.send(wire.TypeBind, b.acc.Token[:])
	silentFor(t, b.udp, 200*time.Millisecond, "an answer to a Bind in the lobby")
	b.room(wire.Room{Type: wire.MsgRoomReady, Value: 1})
	a.state("Hicks ready", func(r *wire.Room) bool { return r.Members[1].Flags&wire.MemberReady != 0 })
	a.room(wire.Room{Type: wire.MsgRoomReady, Value: 1})
	for _, l := range []*lobby{a, b} {
		l.state("Playing", inState(wire.RoomPlaying))
	}
	for i, l := range []*lobby{a, b} {
		if acc := l.bind(); acc.Player != uint8(i) {
			t.Fatalf("%s: Accept %+v", l.name, acc)
		}
	}
	a.waitEvent("Hicks joined", func(ev *wire.Event) bool { return ev.Type == wire.EventPlayerJoined && ev.Player == 1 })
	// The game is the room's: an open login does not land in it.
	o := connect2(t, s, "Vasquez")
	if o.acc.Tick != 0 {
		t.Fatalf("an open login joined the room's game: %+v", o.acc)
	}
}

func TestRoomQuickJoinAndListing(t *testing.T) {
	t.Parallel()
	s := startServer(t, roomConfig())
	a := lobbyLogin(t, s, "Ripley", wire.ModeClassic)
	a.room(wire.Room{Type: wire.MsgRoomQuick}) // mode 0: the login's
	st := a.expect(wire.MsgRoomState)
	want := wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: 4, Flags: wire.RoomPublic | wire.RoomJoinLate}
	if st.Settings != want || st.Owner != 0 {
		t.Fatalf("quick join created %+v", st)
	}
	c := lobbyLogin(t, s, "Bishop", wire.ModeClassic)
	c.room(wire.Room{Type: wire.MsgRoomCreate, Settings: wire.RoomSettings{Mode: wire.ModeClassic, MaxPlayers: 2, Flags: wire.RoomPublic}})
	small := c.expect(wire.MsgRoomState)
	// Quick join takes the room with the most players: the first, equal,
	// is the oldest.
	b := lobbyLogin(t, s, "Hicks", wire.ModeStage)
	b.room(wire.Room{Type: wire.MsgRoomQuick, Mode: wire.ModeClassic})
	if bs := b.expect(wire.MsgRoomState); bs.Code != st.Code || bs.You != 1 {
		t.Fatalf("quick join: %+v, want room %s", bs, st.Code)
	}
	// Another mode: a new room.
	d := lobbyLogin(t, s, "Vasquez", wire.ModeStage)
	d.room(wire.Room{Type: wire.MsgRoomQuick})
	if ds := d.expect(wire.MsgRoomState); ds.Code == st.Code || ds.Settings.Mode != wire.ModeStage {
		t.Fatalf("quick join of Stage: %+v", ds)
	}
	e := lobbyLogin(t, s, "Newt", wire.ModeClassic)
	e.room(wire.Room{Type: wire.MsgRoomList})
	l := e.expect(wire.MsgRoomListing)
	if l.Count != 3 || l.Rooms[0].Code != st.Code || l.Rooms[0].Players != 2 || l.Rooms[0].State != wire.RoomLobby ||
		l.Rooms[1].Code != small.Code || l.Rooms[2].Mode != wire.ModeStage {
		t.Fatalf("listing %+v", l.Rooms[:l.Count])
	}
	// In a room, another is refused.
	b.room(wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic})
	b.refused(wire.RoomInRoom)
	e.room(wire.Room{Type: wire.MsgRoomReady, Value: 1})
	e.refused(wire.RoomNotInRoom)
	e.room(wire.Room{Type: wire.MsgRoomCreate, Settings: wire.RoomSettings{Mode: 3, MaxPlayers: 4}})
	e.refused(wire.RoomInvalid)
}

func TestRoomOwnerControls(t *testing.T) {
	t.Parallel()
	cfg := roomConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	a := lobbyLogin(t, s, "Ripley", wire.ModeClassic)
	a.room(wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic})
	code := a.expect(wire.MsgRoomState).Code
	b := lobbyLogin(t, s, "Hicks", wire.ModeClassic)
	b.room(wire.Room{Type: wire.MsgRoomJoin, Code: code})
	b.expect(wire.MsgRoomState)
	a.state("Hicks in", members(2))
	for _, r := range []wire.Room{{Type: wire.MsgRoomStart}, {Type: wire.MsgRoomKick, Value: 0},
		{Type: wire.MsgRoomBot, Value: 1}, {Type: wire.MsgRoomSettings, Settings: privateClassic}} {
		b.room(r)
		b.refused(wire.RoomNotOwner)
	}
	// A name taken in the room.
	h2 := lobbyLogin(t, s, "hicks", wire.ModeClassic)
	h2.room(wire.Room{Type: wire.MsgRoomJoin, Code: code})
	h2.refused(wire.RoomNameTaken)
	// Kick.
	a.room(wire.Room{Type: wire.MsgRoomKick, Value: 0})
	a.refused(wire.RoomInvalid)
	a.room(wire.Room{Type: wire.MsgRoomKick, Value: 1})
	b.refused(wire.RoomKicked)
	a.state("Hicks out", members(1))
	b.room(wire.Room{Type: wire.MsgRoomReady, Value: 1})
	b.refused(wire.RoomNotInRoom)
	// Lock.
	locked := privateClassic
	locked.Flags = wire.RoomLocked
	a.room(wire.Room{Type: wire.MsgRoomSettings, Settings: locked})
	a.state("locked", func(r *wire.Room) bool { return r.Settings.Flags == wire.RoomLocked })
	b.room(wire.Room{Type: wire.MsgRoomJoin, Code: code})
	b.refused(wire.RoomIsLocked)
	a.room(wire.Room{Type: wire.MsgRoomSettings, Settings: privateClassic})
	a.state("unlocked", func(r *wire.Room) bool { return r.Settings.Flags == 0 })
	// Bots: three fill the room; a fourth is refused; one goes.
	for range 3 {
		a.room(wire.Room{Type: wire.MsgRoomBot, Value: 1, Player: wire.NoPlayer})
	}
	st := a.state("three bots", members(4))
	for p := 1; p < 4; p++ {
		if m := st.Members[p]; m.Flags != wire.MemberBot|wire.MemberReady || m.Player != uint8(p) {
			t.Fatalf("bot %d: %+v", p, m)
		}
	}
	a.room(wire.Room{Type: wire.MsgRoomBot, Value: 1})
	a.refused(wire.RoomFull)
	b.room(wire.Room{Type: wire.MsgRoomJoin, Code: code})
	b.refused(wire.RoomFull)
	a.room(wire.Room{Type: wire.MsgRoomBot, Value: 0, Player: 0})
	a.refused(wire.RoomInvalid) // not a bot
	a.room(wire.Room{Type: wire.MsgRoomBot, Value: 0, Player: 2})
	a.state("bot 3 gone", func(r *wire.Room) bool { return r.Count == 3 && r.Members[1].Player == 1 && r.Members[2].Player == 3 })
	// max below a member's number: refused.
	two := privateClassic
	two.MaxPlayers = 2
	a.room(wire.Room{Type: wire.MsgRoomSettings, Settings: two})
	a.refused(wire.RoomInvalid)
}

// The bots play: after the start, their ships move with nobody's input
// but their brains'.
func TestRoomBotsPlay(t *testing.T) {
	t.Parallel()
	cfg := roomConfig()
	s := startServer(t, cfg)
	a := lobbyLogin(t, s, "Ripley", wire.ModeStage)
	a.room(wire.Room{Type: wire.MsgRoomCreate, Settings: wire.RoomSettings{Mode: wire.ModeStage, Difficulty: wire.DifficultyEasy, MaxPlayers: 3}})
	a.expect(wire.MsgRoomState)
	a.room(wire.Room{Type: wire.MsgRoomBot, Value: 1})
	a.room(wire.Room{Type: wire.MsgRoomBot, Value: 1})
	a.state("two bots", members(3))
	a.room(wire.Room{Type: wire.MsgRoomStart})
	a.state("Playing", inState(wire.RoomPlaying))
	a.bind()
	var first [3]float64
	var acted [3]bool
	moved := a.pumpUntil(wait, func() bool {
		sn := a.lastSnap()
		if sn == nil {
			return false
		}
		for p := uint8(1); p < 3; p++ {
			ps, ok := sn.player(p)
			if !ok || ps.Lives != 5 {
				continue
			}
			e, ok := sn.entity(ps.Ship)
			if !ok {
				continue
			}
			m := e.Motion()
			x, _, vx, vy := m.At(float64(sn.tick))
			switch {
			case first[p] == 0:
				first[p] = x
			case x != first[p] || vx != 0 || vy != 0 || ps.Score > 0:
				acted[p] = true // it moved, or shot something down
			}
		}
		return acted[1] && acted[2]
	})
	if !moved {
		t.Fatalf("the bots did not move nor score (Easy: 5 lives): %+v", a.lastSnap())
	}
}

func TestRoomPlayAgain(t *testing.T) {
	t.Parallel()
	cfg := roomConfig()
	cfg.Rules = quickDeath()
	cfg.GameOverLinger = 300 * time.Millisecond
	s := startServer(t, cfg)
	a := lobbyLogin(t, s, "Ripley", wire.ModeClassic)
	a.room(wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic})
	code := a.expect(wire.MsgRoomState).Code
	b := lobbyLogin(t, s, "Hicks", wire.ModeClassic)
	b.room(wire.Room{Type: wire.MsgRoomJoin, Code: code})
	b.expect(wire.MsgRoomState)
	for round := range 2 {
		b.room(wire.Room{Type: wire.MsgRoomReady, Value: 1})
		a.room(wire.Room{Type: wire.MsgRoomReady, Value: 1})
		for _, l := range []*lobby{a, b} {
			l.state("Playing", inState(wire.RoomPlaying))
			l.bind()
		}
		for _, l := range []*lobby{a, b} {
			l.waitEvent("GameOver", func(ev *wire.Event) bool { return ev.Type == wire.EventGameOver })
		}
		for _, l := range []*lobby{a, b} {
			st := l.state("Over", inState(wire.RoomOver))
			if st.Count != 2 || st.Code != code {
				t.Fatalf("round %d: %s: %+v", round, l.name, st)
			}
			l.fresh()
		}
		a.room(wire.Room{Type: wire.MsgRoomAgain})
		for _, l := range []*lobby{a, b} {
			if st := l.state("Lobby", inState(wire.RoomLobby)); st.Count != 2 || st.Members[0].Flags != 0 {
				t.Fatalf("round %d: %s: back in the lobby %+v", round, l.name, st)
			}
		}
	}
	// Still logged in, the same sessions.
	if rooms, _, sessions, _ := roomCounts(s); rooms != 1 || sessions != 2 {
		t.Fatalf("%d rooms, %d sessions", rooms, sessions)
	}
	a.room(wire.Room{Type: wire.MsgRoomAgain})
	a.refused(wire.RoomInvalid)
}

func TestRoomWrongCodesRateLimited(t *testing.T) {
	t.Parallel()
	cfg := roomConfig()
	cfg.WrongCodes = 5
	cfg.WrongCodeWindow = time.Minute
	s := startServer(t, cfg)
	a := lobbyLogin(t, s, "Ripley", wire.ModeClassic)
	a.room(wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic})
	code := a.expect(wire.MsgRoomState).Code
	g := lobbyLogin(t, s, "Guesser", wire.ModeClassic)
	for i := range 5 {
		c := wire.RoomCode{'2', '2', '2', '2', '2', wire.RoomCodeAlphabet[i]}
		g.room(wire.Room{Type: wire.MsgRoomJoin, Code: c})
		g.refused(wire.RoomNoSuchRoom)
	}
	// The sixth, even the right code, is refused for most of a minute.
	g.room(wire.Room{Type: wire.MsgRoomJoin, Code: code})
	if r := g.refused(wire.RoomRateLimited); r.Wait < 50000 || r.Wait > 60000 {
		t.Fatalf("wait %d ms", r.Wait)
	}
	// Another session of the same address is limited too.
	h := lobbyLogin(t, s, "Hudson", wire.ModeClassic)
	h.room(wire.Room{Type: wire.MsgRoomJoin, Code: code})
	h.refused(wire.RoomRateLimited)
	// Codes that are not of the alphabet are wrong codes, not protocol
	// errors: the session lives on.
	h.room(wire.Room{Type: wire.MsgRoomList})
	h.expect(wire.MsgRoomListing)
}

// A lobby session that sends a server's message, or a malformed one,
// breaks 3.1; an open session skips room messages (7.1).
func TestRoomMessagesMalformed(t *testing.T) {
	t.Parallel()
	s := startServer(t, roomConfig())
	o := connect2(t, s, "Open")
	writeAll(t, o.tcp, wire.AppendRoom(nil, &wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic}))
	writeAll(t, o.tcp, wire.AppendRoom(nil, &wire.Room{Type: wire.MsgRoomState}))
	if _, err := readMsg(o.tcp, 300*time.Millisecond); !isTimeout(err) {
		t.Fatalf("open session: %v", err)
	}
	for _, f := range [][]byte{
		wire.AppendRoom(nil, &wire.Room{Type: wire.MsgRoomRefused, Reason: 1}),
		{2, 0, byte(wire.MsgRoomJoin), 'A'},
	} {
		l := lobbyLogin(t, s, "Bad", wire.ModeClassic)
		writeAll(t, l.tcp, f)
		expectKickedFrames(t, l.tcp, &l.fr, f)
	}
}

// A thousand rooms created, filled with bots, played and abandoned leave
// nothing behind: no room, game, address or session, and no heap.
func TestRoomsLeaveNoMemory(t *testing.T) {
	cfg := roomConfig()
	cfg.Rules = noWaveRules()
	cfg.MaxGames = 1000
	s := startServer(t, cfg)
	a := lobbyLogin(t, s, "Ripley", wire.ModeClassic)
	g := lobbyLogin(t, s, "Guesser", wire.ModeClassic)
	round := func(i int) {
		a.room(wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic})
		a.expect(wire.MsgRoomState)
		a.room(wire.Room{Type: wire.MsgRoomBot, Value: 1})
		a.expect(wire.MsgRoomState)
		if i%4 == 0 {
			a.room(wire.Room{Type: wire.MsgRoomStart})
			a.state("Playing", inState(wire.RoomPlaying))
		}
		a.room(wire.Room{Type: wire.MsgRoomLeave})
		if i%200 == 0 {
			g.room(wire.Room{Type: wire.MsgRoomJoin, Code: wire.RoomCode{'Z', 'Z', 'Z', 'Z', 'Z', 'Z'}})
			g.next()
		}
	}
	settle := func() {
		deadline := time.Now().Add(wait)
		for {
			rooms, games, _, _ := roomCounts(s)
			if rooms == 0 && games == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d rooms, %d games left", rooms, games)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for i := range 100 { // warm up buffers
		round(i)
	}
	settle()
	before := heap()
	for i := range 1000 {
		round(i)
	}
	settle()
	after := heap()
	rooms, games, sessions, _ := roomCounts(s)
	t.Logf("1000 rooms: heap %d → %d bytes (%+d); rooms %d, games %d, sessions %d", before, after, int64(after)-int64(before), rooms, games, sessions)
	if sessions != 2 {
		t.Fatalf("%d sessions", sessions)
	}
	if int64(after)-int64(before) > 256<<10 {
		t.Fatalf("heap grew by %d bytes over 1000 rooms", after-before)
	}
	s.mu.Lock()
	s.cfg.WrongCodeWindow = time.Nanosecond
	for i := range 1100 { // past the pruning threshold, all stale
		s.rooms.wrong[netip.AddrFrom4([4]byte{127, 1, byte(i >> 8), byte(i)})] = &wrongCodes{at: []time.Time{time.Now().Add(-time.Hour)}}
	}
	s.rooms.pruneWrongLocked(time.Now())
	n := len(s.rooms.wrong)
	s.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d addresses of stale wrong codes kept", n)
	}
}

// 7.14: a v1 login quick joins the running game of a public room that
// takes players in, with v1's LoginAccepted; it shows in the room as a
// ready member. While the room waits it runs no game, so with MaxGames 1
// another login opens a game of its own, and the room's start is refused
// TooMany until that game ends.
func TestRoomV1LoginJoinsAPublicRoom(t *testing.T) {
	t.Parallel()
	cfg := roomConfig()
	cfg.Rules = noWaveRules()
	cfg.MaxGames = 1
	s := startServer(t, cfg)
	a := lobbyLogin(t, s, "Ripley", wire.ModeClassic)
	a.room(wire.Room{Type: wire.MsgRoomCreate, Settings: wire.RoomSettings{Mode: wire.ModeClassic, MaxPlayers: 4,
		Flags: wire.RoomPublic | wire.RoomJoinLate}})
	a.expect(wire.MsgRoomState)
	early, m := loginAs(t, s.Addr(), wire.Version, "Early")
	if m.Type != wire.MsgLoginAccepted {
		t.Fatalf("login with a room waiting, MaxGames 1: %+v", m)
	}
	a.room(wire.Room{Type: wire.MsgRoomReady, Value: 1})
	a.refused(wire.RoomTooMany)
	early.Close()
	testutil.WaitFor(t, wait, "Early's game to empty", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, g := range s.games {
			if !g.empty() {
				return false
			}
		}
		return true
	})
	a.room(wire.Room{Type: wire.MsgRoomReady, Value: 1})
	a.state("Playing", inState(wire.RoomPlaying))
	a.bind()
	c, m := loginAs(t, s.Addr(), wire.Version, "Hicks")
	defer c.Close()
	if m.Type != wire.MsgLoginAccepted || m.Player != 1 {
		t.Fatalf("v1 login: %+v", m)
	}
	st := a.state("Hicks in", members(2))
	if mb := st.Members[1]; mb.Name != "Hicks" || mb.Flags != wire.MemberReady || mb.Player != 1 {
		t.Fatalf("member %+v", mb)
	}
	// The owner kicks it: a login without rooms is logged out.
	a.room(wire.Room{Type: wire.MsgRoomKick, Value: 1})
	expectLogout(t, c, wire.LogoutKicked)
	a.state("Hicks out", members(1))
}
