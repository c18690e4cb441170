package server

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
	"rtype/sim/stage"
)

// Stage mode on the server (PROTOCOL.md 7.12): which login plays which
// game, the mode of LoginAccepted, the events of a Stage game and what a
// joining session gets of them.

// loginRequestBytes is a v2 LoginRequest frame of name with tail
// appended after the name (the revision, the mode, the flags...).
func loginRequestBytes(name string, tail ...byte) []byte {
	b := wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: name})
	b = append(b, tail...)
	binary.LittleEndian.PutUint16(b, uint16(len(b)-2))
	return b
}

// loginMode2 is a v2 LoginRequest frame of name asking for mode.
func loginMode2(name string, mode uint8) []byte {
	return wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: name,
		Revision: wire.Revision, Mode: mode})
}

// rawLogin sends the LoginRequest frame req and returns the connection and
// the frame of the answer (type and body).
func rawLogin(t testing.TB, addr string, req []byte) (net.Conn, []byte) {
	t.Helper()
	c := dialTCP(t, addr)
	writeAll(t, c, req)
	c.SetReadDeadline(time.Now().Add(wait))
	fr := wire.FrameReader{R: c}
	f, err := fr.ReadFrame()
	if err != nil {
		t.Fatalf("login % X: %v", req, err)
	}
	return c, append([]byte(nil), f...)
}

// gameOf returns the game of the session id, and its mode.
func gameOf(t *testing.T, s *Server, id uint32) (int, uint8) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[id]
	if ss == nil {
		t.Fatalf("no session %#x", id)
	}
	return ss.game.id, ss.game.mode
}

// TestLoginModes: a v1 login plays Classic; a v2 login plays the mode it
// asks for, the server's default for Any or a mode above 2, and its
// LoginAccepted (L = 31) carries its game's mode and revision 4, even
// when it asked for a later revision. A v2 login without a revision, or
// of a revision below 4, is refused with VersionMismatch.
func TestLoginModes(t *testing.T) {
	for _, def := range []uint8{0, wire.ModeStage, wire.ModeClassic} {
		cfg := testConfig()
		cfg.Rules = noWaveRules()
		cfg.Mode = def
		s := startServer(t, cfg)
		server := def
		if server == 0 {
			server = wire.ModeStage // the default
		}
		for i, c := range []struct {
			why  string
			v1   bool
			tail []byte // after the name of a v2 LoginRequest
			mode uint8  // 0: refused
		}{
			{"v1", true, nil, wire.ModeClassic},
			{"v2 without a revision", false, nil, 0},
			{"v2 with one byte after the name", false, []byte{4}, 0},
			{"v2 revision 0", false, []byte{0, wire.ModeStage}, 0},
			{"v2 revision 3", false, []byte{3, wire.ModeStage}, 0},
			{"Classic", false, []byte{4, wire.ModeClassic}, wire.ModeClassic},
			{"Stage", false, []byte{4, wire.ModeStage}, wire.ModeStage},
			{"Any", false, []byte{4, wire.ModeAny}, server},
			{"mode 3", false, []byte{4, 3}, server},
			{"mode 255", false, []byte{4, 255, 8, 9}, server},                               // flags 8: not Lobby (7.14)
			{"Classic, flag 7", false, []byte{4, wire.ModeClassic, 0x80}, wire.ModeClassic}, // bit 7: no flag yet
			{"revision 5 Stage", false, []byte{5, wire.ModeStage}, wire.ModeStage},          // answered as 4
		} {
			name := "Player" + strconv.Itoa(i)
			req := loginRequestBytes(name, c.tail...)
			if c.v1 {
				req = loginRequest(wire.Version, name)
			}
			conn, f := rawLogin(t, s.Addr(), req)
			var m wire.Message
			var err error
			want := 1 + 17
			if c.v1 {
				m, err = wire.ParseMessage(f)
			} else {
				m, err = wire2.ParseMessage(f)
				want += wire.LoginExtSize + 2
			}
			if c.mode == 0 {
				if err != nil || m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectVersionMismatch {
					t.Errorf("default %d, %s: %+v %v, want LoginRejected(VersionMismatch)", def, c.why, m, err)
				}
				conn.Close()
				continue
			}
			if err != nil || m.Type != wire.MsgLoginAccepted || len(f) != want {
				t.Fatalf("default %d, %s: % X (%d bytes, want %d) %v", def, c.why, f, len(f), want, err)
			}
			if !c.v1 && (m.Revision != wire.Revision || m.Mode != c.mode) {
				t.Errorf("default %d, %s: LoginAccepted of revision %d, mode %d, want %d", def, c.why, m.Revision, m.Mode, c.mode)
			}
			if _, mode := gameOf(t, s, m.Session); mode != c.mode {
				t.Errorf("default %d, %s: a game of mode %d, want %d", def, c.why, mode, c.mode)
			}
			conn.Close()
		}
	}
}

// TestStageGamesApart: a Stage game never holds a v1 session, a v2
// session is put only in a game of its mode, and MaxGames counts
// the games of both modes (7.12).
func TestStageGamesApart(t *testing.T) {
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	cfg.MaxGames = 2
	s := startServer(t, cfg)
	login := func(name string, req []byte) (int, uint8) {
		t.Helper()
		c, f := rawLogin(t, s.Addr(), req)
		t.Cleanup(func() { c.Close() })
		parse := wire2.ParseMessage
		if req[3] == wire.Version {
			parse = wire.ParseMessage
		}
		m, err := parse(f)
		if err != nil || m.Type != wire.MsgLoginAccepted {
			t.Fatalf("%s: % X %v", name, f, err)
		}
		return gameOf(t, s, m.Session)
	}
	stageGame, mode := login("AAA", loginMode2("AAA", wire.ModeStage))
	if mode != wire.ModeStage {
		t.Fatalf("A plays mode %d", mode)
	}
	classic, mode := login("BBB", loginRequest(wire.Version, "BBB"))
	if mode != wire.ModeClassic || classic == stageGame {
		t.Fatalf("v1 B in game %d of mode %d; the Stage game is %d", classic, mode, stageGame)
	}
	for _, c := range []struct {
		name string
		req  []byte
		game int
	}{
		{"CCC", loginRequest(wire.Version2, "CCC"), classic},
		{"DDD", loginMode2("DDD", wire.ModeClassic), classic},
		{"EEE", loginMode2("EEE", wire.ModeStage), stageGame},
		{"FFF", loginMode2("FFF", wire.ModeAny), stageGame},
		{"GGG", loginRequest(wire.Version, "GGG"), classic},
		{"HHH", loginMode2("HHH", wire.ModeStage), stageGame},
	} {
		if g, _ := login(c.name, c.req); g != c.game {
			t.Errorf("%s in game %d, want %d", c.name, g, c.game)
		}
	}
	// Both games are full, and MaxGames is reached: no third game.
	expectRejected(t, s.Addr(), "III", wire.RejectGameFull)
	conn, f := rawLogin(t, s.Addr(), loginMode2("JJJ", wire.ModeStage))
	defer conn.Close()
	if m, err := wire2.ParseMessage(f); err != nil || m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectGameFull {
		t.Fatalf("a fifth Stage player: %+v %v", m, err)
	}
}

// TestMaxGamesCountsBothModes: with one game allowed and a Stage game
// running, a v1 login finds no Classic game to join or start.
func TestMaxGamesCountsBothModes(t *testing.T) {
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	cfg.MaxGames = 1
	s := startServer(t, cfg)
	c, f := rawLogin(t, s.Addr(), loginMode2("AAA", wire.ModeStage))
	defer c.Close()
	if m, err := wire2.ParseMessage(f); err != nil || m.Type != wire.MsgLoginAccepted || m.Mode != wire.ModeStage {
		t.Fatalf("A: %+v %v", m, err)
	}
	expectRejected(t, s.Addr(), "BBB", wire.RejectGameFull)
}

// join2Mode logs in with version 2 asking for mode, and binds.
func join2Mode(t *testing.T, s *Server, name string, mode uint8) *tclient2 {
	t.Helper()
	c := connectWith2(t, s, name, loginMode2(name, mode))
	if c.acc.Revision != wire.Revision || c.acc.Mode != mode {
		t.Fatalf("%s: LoginAccepted of revision %d, mode %d", name, c.acc.Revision, c.acc.Mode)
	}
	c.bind()
	return c
}

// inject hands events to the game of c's session as if its world had
// produced them this tick: the tick loop sends them (7.12's events have
// no source in the stage stub yet).
func inject(t *testing.T, s *Server, c *tclient2, evs ...wire.Event) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.sessions[c.acc.Session].game
	tick := g.world.Tick()
	for i := range evs {
		evs[i].Tick = tick
	}
	s.deliver(g, append([]wire.Event(nil), evs...))
}

// events21 returns the Stage, Health and Arms events c received, in order.
func events21(c *tclient2) []wire.Event {
	var out []wire.Event
	for _, ev := range c.events {
		switch ev.Type {
		case wire.EventStage, wire.EventHealth, wire.EventArms:
			out = append(out, ev)
		}
	}
	return out
}

// waitEvents21 plays c until it received want, in that order, as its
// Stage, Health and Arms events from its from-th on.
func waitEvents21(t *testing.T, c *tclient2, from int, want []wire.Event) {
	t.Helper()
	ok := c.pumpUntil(wait, func() bool { return len(events21(c)) >= from+len(want) })
	got := events21(c)
	if !ok || len(got) != from+len(want) {
		t.Fatalf("%s: %d Stage events, want %d: %+v", c.name, len(got), from+len(want), got)
	}
	for i := range want {
		if got[from+i] != want[i] {
			t.Errorf("%s: event %d\n got %+v\nwant %+v", c.name, from+i, got[from+i], want[i])
		}
	}
}

// TestStageGameEvents: a Stage game (a real Stage world of stage 1, whose
// own start comes before the events injected) sends its Stage, Health and Arms events to every
// v2 session, in order with the others, through real sockets; a session
// that joins later gets the present of the game (7.12, Joining): the last
// File and Intro, the last Music, the living boss and its Health, each
// player's Arms.
func TestStageGameEvents(t *testing.T) {
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	a := join2Mode(t, s, "Ripley", wire.ModeStage)
	a.shipID()
	{
		s.mu.Lock()
		stageWorld := s.sessions[a.acc.Session].game.world.Stage()
		s.mu.Unlock()
		if !stageWorld {
			t.Fatal("a Stage game without a Stage world")
		}
	}
	const core = 0x31
	evs := []wire.Event{
		{Type: wire.EventStage, What: wire.StageIntro, Value: 1, Name: "Stage 1"},
		{Type: wire.EventStage, What: wire.StageMusic, Name: "stage"},
		{Type: wire.EventStage, What: wire.StageMarker, Name: "boss"},
		{Type: wire.EventHealth, ID: 0x99, HP: 1, MaxHP: 2}, // another foe
		{Type: wire.EventStage, What: wire.StageBoss, Value: core, Name: "Dobkeratops"},
		{Type: wire.EventHealth, ID: core, HP: 800, MaxHP: 800},
		{Type: wire.EventArms, Player: a.acc.Player, Arms: wire.Arms{Force: 1, Laser: wire.LaserBlue, ForceAt: wire.ForceFront}},
		{Type: wire.EventHealth, ID: core, HP: 750, MaxHP: 800},
		{Type: wire.EventStage, What: wire.StageMusic, Name: "boss"},
		{Type: wire.EventArms, Player: a.acc.Player, Arms: wire.Arms{Force: 2, Laser: wire.LaserBlue, Speed: 1, ForceAt: wire.ForceLoose}},
	}
	// The stage's own start (its File, Intro and Music) comes first.
	if !a.pumpUntil(wait, func() bool { return len(events21(a)) >= 3 }) {
		t.Fatalf("no File, Intro and Music from the stage: %+v", events21(a))
	}
	file := events21(a)[0]
	if st, _ := stage.Builtin("1"); file.What != wire.StageFile || file.Name != "1" || file.Value != st.FileSum() {
		t.Fatalf("the stage's first event %+v, want the File of stage 1 (%08x)", file, st.FileSum())
	}
	from := len(events21(a))
	inject(t, s, a, evs...) // sets their ticks
	waitEvents21(t, a, from, evs)

	// A second player joins: after its PlayerJoined and Spawns, the
	// present of the game.
	b := join2Mode(t, s, "Hicks", wire.ModeStage)
	waitEvents21(t, b, 0, []wire.Event{file, evs[0], evs[8], evs[4], evs[7], evs[9]})
	joined := b.waitEvent("own PlayerJoined", func(ev *wire.Event) bool {
		return ev.Type == wire.EventPlayerJoined && ev.Player == b.acc.Player
	})
	for i, ev := range b.events {
		if (ev.Type == wire.EventStage || ev.Type == wire.EventArms) && i > joined {
			t.Fatalf("a joining event after the own PlayerJoined: %+v", b.events)
		}
	}

	// The boss dies; the second player gets arms; a third player joins:
	// no boss any more, the Arms of both.
	bArms := wire.Event{Type: wire.EventArms, Player: b.acc.Player, Arms: wire.Arms{Bits: 2}}
	inject(t, s, a, wire.Event{Type: wire.EventDestroy, ID: core, Reason: wire.DestroyKilled, X: 900, Y: 300}, bArms)
	b.pumpUntil(wait, func() bool { return len(events21(b)) == 7 })
	bArms = events21(b)[6]
	c := join2Mode(t, s, "Vasquez", wire.ModeStage)
	waitEvents21(t, c, 0, []wire.Event{file, evs[0], evs[8], evs[9], bArms})

	// The second player leaves: its Arms go with it.
	b.logout()
	a.waitEvent("PlayerLeft of Hicks", func(ev *wire.Event) bool {
		return ev.Type == wire.EventPlayerLeft && ev.Player == b.acc.Player
	})
	d := join2Mode(t, s, "Hudson", wire.ModeStage)
	waitEvents21(t, d, 0, []wire.Event{file, evs[0], evs[8], evs[9]})

	// No event type nor kind beyond Stage mode's.
	for _, cl := range []*tclient2{a, b, c, d} {
		for _, ev := range cl.events {
			if ev.Type > wire.EventArms || (ev.Type == wire.EventSpawn && ev.Kind > wire.KindBossBullet) {
				t.Errorf("%s got %+v", cl.name, ev)
			}
		}
	}
}

// TestV1OnlyServerRefusesV2: a v1-only server reads the version byte
// first and answers a v2 LoginRequest with VersionMismatch (7.12, 3.2).
func TestV1OnlyServerRefusesV2(t *testing.T) {
	cfg := testConfig()
	cfg.MaxVersion = wire.Version
	s := startServer(t, cfg)
	c, f := rawLogin(t, s.Addr(), loginMode2("Ripley", wire.ModeStage))
	defer c.Close()
	if m, err := wire.ParseMessage(f); err != nil || m.Type != wire.MsgLoginRejected || m.Reason != wire.RejectVersionMismatch {
		t.Fatalf("% X: %+v %v, want LoginRejected(VersionMismatch)", f, m, err)
	}
}

// TestStageClearEndsTheBoss: a Clear (and a new Intro) ends the boss for
// the joining sessions, even without a Destroy.
func TestStageClearEndsTheBoss(t *testing.T) {
	var st stageState
	for _, ev := range []wire.Event{
		{Type: wire.EventStage, What: wire.StageBoss, Value: 5},
		{Type: wire.EventHealth, ID: 5, HP: 1, MaxHP: 9},
	} {
		st.observe(&ev)
	}
	if n := len(st.appendJoin(nil)); n != 2 {
		t.Fatalf("%d joining events with a boss, want 2", n)
	}
	for _, what := range []uint8{wire.StageClear, wire.StageIntro} {
		st := st
		st.observe(&wire.Event{Type: wire.EventStage, What: what, Value: 1})
		for _, ev := range st.appendJoin(nil) {
			if ev.What == wire.StageBoss || ev.Type == wire.EventHealth {
				t.Errorf("the boss is still there after Stage what %d", what)
			}
		}
	}
	// A Health heard before its Boss is the boss's once the Boss names it.
	var st2 stageState
	st2.observe(&wire.Event{Type: wire.EventHealth, ID: 7, HP: 3, MaxHP: 9})
	st2.observe(&wire.Event{Type: wire.EventStage, What: wire.StageBoss, Value: 7})
	if j := st2.appendJoin(nil); len(j) != 2 || j[1].HP != 3 {
		t.Fatalf("joining events %+v", j)
	}
}

// TestClassicGameSendsNoStageEvents: a v2 session in a Classic game gets
// the world of Part I: kinds 1 to 4, no Stage event (7.12).
func TestClassicGameSendsNoStageEvents(t *testing.T) {
	cfg := testConfig()
	cfg.Rules = busyRules().Rules
	s := startServer(t, cfg)
	a := join2Mode(t, s, "Ripley", wire.ModeClassic)
	a.pumpUntil(2*time.Second, nil)
	for _, ev := range a.events {
		if ev.Type > wire.EventGameOver || ev.Kind > wire.KindEnemyMissile {
			t.Fatalf("a Classic game sent %+v", ev)
		}
	}
	if len(a.events) == 0 {
		t.Fatal("no event at all")
	}
}

// TestConfigModeAndStage: New refuses a mode other than Classic and Stage,
// and checks the stage and warp by starting a Stage world.
func TestConfigModeAndStage(t *testing.T) {
	for _, mode := range []uint8{3, 255} {
		cfg := testConfig()
		cfg.Listen, cfg.Mode = "127.0.0.1:0", mode
		if s, err := New(cfg); err == nil {
			s.Close()
			s.Run(t.Context())
			t.Errorf("New with Mode %d: no error", mode)
		} else if !errors.Is(err, ErrConfig) {
			t.Errorf("New with Mode %d: %v, want ErrConfig", mode, err)
		}
	}
	cfg := testConfig().withDefaults()
	if cfg.Mode != wire.ModeStage || cfg.Stage == nil || cfg.Stage.Name != "1" {
		t.Fatalf("defaults: mode %d, stage %+v", cfg.Mode, cfg.Stage)
	}
	if _, err := sim.NewStage(*cfg.Rules, cfg.Stage, 1, sim.StageOptions{}); err != nil {
		t.Fatalf("the default stage does not start: %v", err)
	}
}

// TestProtocolStageKinds checks 7.12's table of kinds against the wire
// constants and the simulation's boxes.
func TestProtocolStageKinds(t *testing.T) {
	md, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]uint8{"Force": wire.KindForce, "WaveBeam": wire.KindWaveBeam, "ForceShot": wire.KindForceShot,
		"Bit": wire.KindBit, "PowerUp": wire.KindPowerUp, "PowArmor": wire.KindPowArmor, "Chaser": wire.KindChaser,
		"Turret": wire.KindTurret, "Armored": wire.KindArmored, "MidBoss": wire.KindMidBoss, "Boss": wire.KindBoss,
		"BossCore": wire.KindBossCore, "BossBullet": wire.KindBossBullet}
	row := regexp.MustCompile(`(?m)^\| (\d+) +\| (\w+) +\| (\d+) × (\d+)`)
	rules := sim.DefaultRules()
	seen := 0
	for _, m := range row.FindAllStringSubmatch(string(md), -1) {
		k, _ := strconv.Atoi(m[1])
		want, ok := names[m[2]]
		if !ok {
			continue
		}
		seen++
		if int(want) != k {
			t.Errorf("PROTOCOL.md: %s is kind %d, wire says %d", m[2], k, want)
		}
		w, _ := strconv.Atoi(m[3])
		h, _ := strconv.Atoi(m[4])
		if sw, sh := sim.KindSize(&rules, want); float64(w) != sw || float64(h) != sh {
			t.Errorf("PROTOCOL.md: %s's box %d × %d, sim's %v × %v", m[2], w, h, sw, sh)
		}
	}
	if seen != len(names) {
		t.Errorf("PROTOCOL.md's 7.12 lists %d of the %d Stage kinds", seen, len(names))
	}
}
