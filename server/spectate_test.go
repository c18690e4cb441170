package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// Spectators (PROTOCOL.md 7.17), over real sockets on 127.0.0.1: no ship,
// no slot, at most 8 per game, the busiest game or a room's by its code,
// Inputs dropped, the Spectators message, and the end of the watch.

// spectateRequest is a v2 LoginRequest with LoginSpectate, for the
// room of code (zero: the busiest game).
func spectateRequest(name string, mode uint8, code wire.RoomCode) []byte {
	return wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: name,
		Revision: wire.Revision, Mode: mode, Flags: wire.LoginSpectate, Code: code})
}

// player2 logs in a v2 player (a ship, and the Spectators messages).
func player2(t testing.TB, s *Server, name string, mode uint8) *tclient2 {
	t.Helper()
	c := connectWith2(t, s, name, loginMode2(name, mode))
	c.bind()
	return c
}

// spectate logs in a spectator and binds it.
func spectate(t testing.TB, s *Server, name string, mode uint8, code wire.RoomCode) *tclient2 {
	t.Helper()
	c := connectWith2(t, s, name, spectateRequest(name, mode, code))
	c.spectator = true
	if c.acc.Player != wire.NoPlayer || c.acc.Revision != wire.Revision {
		t.Fatalf("%s: spectator's LoginAccepted %+v", name, c.acc)
	}
	if a := c.bind(); a.Player != wire.NoPlayer {
		t.Fatalf("%s: spectator's Accept %+v", name, a)
	}
	return c
}

// spectatorsOf waits for a Spectators message on c's TCP stream that
// satisfies cond, skipping other messages.
func spectatorsOf(t testing.TB, c *tclient2, cond func(sp *wire.Spectators) bool) wire.Spectators {
	t.Helper()
	fr := wire.FrameReader{R: c.tcp}
	c.tcp.SetReadDeadline(time.Now().Add(wait))
	defer c.tcp.SetReadDeadline(time.Time{})
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("%s: no Spectators message: %v", c.name, err)
		}
		if wire.MsgType(f[0]) != wire.MsgSpectators {
			continue
		}
		var sp wire.Spectators
		if err := wire.ParseSpectators(f, &sp); err != nil {
			t.Fatalf("%s: % X: %v", c.name, f, err)
		}
		if cond(&sp) {
			return sp
		}
	}
}

func spectatorCount(s *Server) (players, spectators int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.games {
		players += wire.MaxPlayers - g.freePlayerCount()
		spectators += len(g.spectators)
	}
	return
}

func TestSpectatorHasNoShipNorSlot(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	cfg.Mode = wire.ModeClassic
	s := startServer(t, cfg)
	a := player2(t, s, "Ripley", wire.ModeClassic)
	a.shipID()
	v := spectate(t, s, "Newt", wire.ModeAny, wire.RoomCode{})
	if v.acc.Mode != wire.ModeClassic {
		t.Fatalf("spectator in a %d game", v.acc.Mode)
	}
	// It sees the player's ship and the players in the snapshots, and
	// nothing of its own.
	v.waitEvent("Ripley's ship", func(ev *wire.Event) bool {
		return ev.Type == wire.EventSpawn && ev.Kind == wire.KindPlayerShip && ev.Owner == 0
	})
	v.pumpUntil(wait, func() bool { return len(v.snaps) >= 3 })
	for _, sn := range v.snaps {
		for _, p := range sn.players {
			if p.Player != 0 || p.HasStep {
				t.Fatalf("spectator's snapshot has player record %+v", p)
			}
		}
	}
	if i := v.findEvent(func(ev *wire.Event) bool { return ev.Type == wire.EventPlayerJoined && ev.Player != 0 }); i >= 0 {
		t.Fatalf("a PlayerJoined other than Ripley's: %+v", v.events[i])
	}
	// The slot it did not take goes to the next player: number 1.
	b := player2(t, s, "Hicks", wire.ModeClassic)
	if b.acc.Player != 1 {
		t.Fatalf("second player got %d", b.acc.Player)
	}
	if p, sp := spectatorCount(s); p != 2 || sp != 1 {
		t.Fatalf("%d players, %d spectators", p, sp)
	}
	// Both players hear of the spectator.
	for _, c := range []*tclient2{a, b} {
		spectatorsOf(t, c, func(sp *wire.Spectators) bool { return sp.Count == 1 && sp.Names[0] == "Newt" })
	}
	// The operator sees it apart from the players.
	if gs := s.Games(); len(gs) != 1 || len(gs[0].Players) != 2 || len(gs[0].Spectators) != 1 || gs[0].Spectators[0].Name != "Newt" {
		t.Fatalf("Games() = %+v", gs)
	}
	// The spectator leaves: the list empties.
	v.logout()
	spectatorsOf(t, a, func(sp *wire.Spectators) bool { return sp.Count == 0 })
}

func (c *tclient2) findEvent(match func(*wire.Event) bool) int {
	for i := range c.events {
		if match(&c.events[i]) {
			return i
		}
	}
	return -1
}

func TestSpectatorsAtMostEight(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	a := player2(t, s, "Ripley", wire.ModeStage)
	var vs []*tclient2
	for i := range wire.MaxSpectators {
		vs = append(vs, spectate(t, s, fmt.Sprintf("Watcher %d", i), wire.ModeAny, wire.RoomCode{}))
	}
	spectatorsOf(t, a, func(sp *wire.Spectators) bool { return sp.Count == wire.MaxSpectators })
	if m := s.Metrics(); m.Spectators != wire.MaxSpectators || m.Sessions[wire.Version2] != 1+wire.MaxSpectators {
		t.Errorf("metrics: %d spectators of %d v2 sessions, want %d of %d", m.Spectators, m.Sessions[wire.Version2],
			wire.MaxSpectators, 1+wire.MaxSpectators)
	}
	_, f := rawLogin(t, s.Addr(), spectateRequest("Ninth", wire.ModeAny, wire.RoomCode{}))
	m, err := wire2.ParseMessage(f)
	if err != nil || m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectGameFull || !strings.Contains(m.Text, "8 spectators") {
		t.Fatalf("ninth spectator: %+v %v", m, err)
	}
	// One leaves: a place is free again.
	vs[0].logout()
	waitFor(t, "a spectator's place freed", func() bool { _, sp := spectatorCount(s); return sp == wire.MaxSpectators-1 })
	spectate(t, s, "Ninth", wire.ModeAny, wire.RoomCode{})
}

func TestSpectatorRefusals(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.WrongCodes = 2
	s := startServer(t, cfg)
	reject := func(name string, mode uint8, code wire.RoomCode, reason uint8, text string) {
		t.Helper()
		_, f := rawLogin(t, s.Addr(), spectateRequest(name, mode, code))
		m, err := wire2.ParseMessage(f)
		if err != nil || m.Type != wire.MsgLoginRejected || m.Reason != reason || !strings.Contains(m.Text, text) {
			t.Fatalf("%s: %+v %v, want LoginRejected(%d) %q", name, m, err, reason, text)
		}
	}
	reject("Early", wire.ModeAny, wire.RoomCode{}, wire.RejectGameFull, "no game to watch")
	player2(t, s, "Ripley", wire.ModeClassic)
	reject("Picky", wire.ModeStage, wire.RoomCode{}, wire.RejectGameFull, "no game to watch") // no Stage game
	code, _ := wire.ParseRoomCode("K7MX2Q")
	reject("Guess1", wire.ModeAny, code, wire.RejectGameFull, "no room has the code")
	reject("Guess2", wire.ModeAny, code, wire.RejectGameFull, "no room has the code")
	reject("Guess3", wire.ModeAny, code, wire.RejectRateLimited, "wrong room codes")
	if p, sp := spectatorCount(s); p != 1 || sp != 0 {
		t.Fatalf("%d players, %d spectators after the refusals", p, sp)
	}
}

func TestSpectatorInputsDropped(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	a := player2(t, s, "Ripley", wire.ModeClassic)
	a.shipID()
	v := spectate(t, s, "Mallory", wire.ModeAny, wire.RoomCode{})
	v.keepAlive = false
	before := s.stats.dropped[DropStale].Load()
	// Inputs, fire held: none reaches the world, each is dropped.
	for i := range 50 {
		in := wire2.Input{Step: uint32(i), Count: 1}
		in.Actions[0] = wire.ActionFire | wire.ActionUp
		v.send(wire.TypeInput, wire2.AppendInput(nil, &in))
	}
	waitFor(t, "the spectator's Inputs dropped", func() bool { return s.stats.dropped[DropStale].Load()-before >= 50 })
	v.pumpUntil(300*time.Millisecond, nil)
	for _, sn := range v.snaps {
		for _, e := range sn.entities {
			if e.Kind() == wire.KindPlayerMissile {
				t.Fatalf("a missile in the game of a player that never fired: %+v", e)
			}
		}
	}
	// Acks keep it alive; it is still a spectator.
	v.keepAlive = true
	v.pumpUntil(200*time.Millisecond, nil)
	if p, sp := spectatorCount(s); p != 1 || sp != 1 {
		t.Fatalf("%d players, %d spectators", p, sp)
	}
}

func TestSpectatorGameEnds(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	a := player2(t, s, "Ripley", wire.ModeClassic)
	v := spectate(t, s, "Newt", wire.ModeAny, wire.RoomCode{})
	// The only player leaves: the game ends, and with it the watch.
	a.logout()
	v.pumpUntil(wait, func() bool { _, sp := spectatorCount(s); return sp == 0 })
	expectLogout2(t, v, wire.LogoutGameOver)
	_, _, sessions, _ := roomCounts(s)
	if sessions != 0 {
		t.Fatalf("%d sessions left", sessions)
	}
}

func TestSpectatorTimesOut(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.BindTimeout = 300 * time.Millisecond
	s := startServer(t, cfg)
	player2(t, s, "Ripley", wire.ModeClassic)
	v := connectWith2(t, s, "Sleepy", spectateRequest("Sleepy", wire.ModeAny, wire.RoomCode{}))
	expectLogout2(t, v, wire.LogoutTimedOut) // never bound
	if _, sp := spectatorCount(s); sp != 0 {
		t.Fatalf("%d spectators", sp)
	}
}

func TestSpectatorOfRoom(t *testing.T) {
	t.Parallel()
	cfg := roomConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	a := lobbyLogin(t, s, "Ripley", wire.ModeClassic)
	a.room(wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic})
	st := a.expect(wire.MsgRoomState)
	// Not playing yet: a spectator is told to come back.
	_, f := rawLogin(t, s.Addr(), spectateRequest("Early", wire.ModeAny, st.Code))
	if m, _ := wire2.ParseMessage(f); m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectGameEnding {
		t.Fatalf("spectating a waiting room: %+v", m)
	}
	// Private: the busiest game is not it.
	a.room(wire.Room{Type: wire.MsgRoomBot, Value: 1})
	a.state("a bot", members(2))
	a.room(wire.Room{Type: wire.MsgRoomStart})
	a.state("Playing", inState(wire.RoomPlaying))
	a.bind()
	_, f = rawLogin(t, s.Addr(), spectateRequest("Nosy", wire.ModeAny, wire.RoomCode{}))
	if m, _ := wire2.ParseMessage(f); m.Type != wire.MsgLoginRejected {
		t.Fatalf("a private room's game watched without its code: %+v", m)
	}
	// By its code: the room's game, with the bot in it.
	v := spectate(t, s, "Newt", wire.ModeAny, st.Code)
	v.waitEvent("the bot's ship", func(ev *wire.Event) bool {
		return ev.Type == wire.EventSpawn && ev.Kind == wire.KindPlayerShip && ev.Owner == 1
	})
	// The room keeps its slots: the bot and Ripley, nobody else.
	if p, sp := spectatorCount(s); p != 1 || sp != 1 {
		t.Fatalf("%d players (sessions), %d spectators", p, sp)
	}
	// The spectator reads the room's chat.
	writeAll(t, a.tcp, wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: "stay frosty"}))
	fr := wire.FrameReader{R: v.tcp}
	v.tcp.SetReadDeadline(time.Now().Add(wait))
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("the spectator got no chat: %v", err)
		}
		if m, err := wire2.ParseMessage(f); err == nil && m.Type == wire.MsgChatMessage {
			if m.Text != "stay frosty" || m.Name != "Ripley" {
				t.Fatalf("chat %+v", m)
			}
			break
		}
	}
}

// expectLogout2 reads c's TCP messages until a Logout, which must be of
// reason.
func expectLogout2(t testing.TB, c *tclient2, reason uint8) {
	t.Helper()
	fr := wire.FrameReader{R: c.tcp}
	c.tcp.SetReadDeadline(time.Now().Add(wait))
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("%s: no Logout: %v", c.name, err)
		}
		if m, err := wire2.ParseMessage(f); err == nil && m.Type == wire.MsgLogout {
			if m.Reason != reason {
				t.Fatalf("%s: Logout(%d), want %d", c.name, m.Reason, reason)
			}
			return
		}
	}
}

// waitFor waits for cond, failing the test after wait.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("no %s within %v", what, wait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSpectatorHostileTCP: what a spectator may not do on its stream is
// ignored (its Chat, a Spectators message of its own, room requests
// without Lobby), and a malformed message ends its session as any
// session's (3.1), leaving the game alone.
func TestSpectatorHostileTCP(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	a := player2(t, s, "Ripley", wire.ModeClassic)
	v := spectate(t, s, "Mallory", wire.ModeAny, wire.RoomCode{})
	spectatorsOf(t, a, func(sp *wire.Spectators) bool { return sp.Count == 1 })
	writeAll(t, v.tcp, wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: "buy gold"}))
	writeAll(t, v.tcp, wire.AppendSpectators(nil, &wire.Spectators{Count: 1, Names: [wire.MaxSpectators]string{"Ghost"}}))
	writeAll(t, v.tcp, wire.AppendRoom(nil, &wire.Room{Type: wire.MsgRoomCreate, Settings: privateClassic}))
	// Ripley hears none of it: the next thing on its stream is the
	// spectator leaving, once its malformed frame (a LoginRequest in
	// session) ends it.
	writeAll(t, v.tcp, []byte{1, 0, byte(wire.MsgLoginAccepted)})
	expectLogout2(t, v, wire.LogoutKicked)
	fr := wire.FrameReader{R: a.tcp}
	a.tcp.SetReadDeadline(time.Now().Add(wait))
	f, err := fr.ReadFrame()
	if err != nil || wire.MsgType(f[0]) != wire.MsgSpectators || f[1] != 0 {
		t.Fatalf("Ripley read % X %v, want the empty Spectators", f, err)
	}
	if p, sp := spectatorCount(s); p != 1 || sp != 0 {
		t.Fatalf("%d players, %d spectators", p, sp)
	}
}
