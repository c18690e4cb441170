package server

import (
	"sync"
	"testing"

	"rtype/bot"
	"rtype/net/wire"
	"rtype/sim/stage"
)

// The stage a Stage room starts at (PROTOCOL.md 7.14, settings' stage),
// over real sockets on 127.0.0.1.

// noteBots are room bots that keep the events the server gives them.
type noteBots struct {
	Bots
	mu  *sync.Mutex
	evs *[]wire.Event
}

func (b noteBots) Note(evs []wire.Event) {
	b.mu.Lock()
	*b.evs = append(*b.evs, evs...)
	b.mu.Unlock()
	b.Bots.Note(evs)
}

// firstFile returns the first StageFile of evs, or false.
func firstFile(evs []wire.Event) (wire.Event, bool) {
	for _, ev := range evs {
		if ev.Type == wire.EventStage && ev.What == wire.StageFile {
			return ev, true
		}
	}
	return wire.Event{}, false
}

// A Stage room created at stage 2 says so to its members and in the
// listing; its game plays stage 2, the warship, first: its first File
// and Intro name it, for the members and for the bots, which find the
// stage by that File (stage.Find) as rtype-bot's brains do. Stage 0 is
// the server's own stage (1); a Classic room is at 0.
func TestRoomStartStage(t *testing.T) {
	t.Parallel()
	cfg := roomConfig()
	var mu sync.Mutex
	var botEvents []wire.Event
	cfg.Bots = func(mode uint8, seed uint64) Bots {
		return noteBots{Bots: bot.NewRoomBots(mode, seed), mu: &mu, evs: &botEvents}
	}
	s := startServer(t, cfg)
	warship, err := stage.Builtin("2")
	if err != nil {
		t.Fatal(err)
	}

	// Stage 0 is the server's first stage: 1.
	c := lobbyLogin(t, s, "Hicks", wire.ModeStage)
	c.room(wire.Room{Type: wire.MsgRoomCreate, Settings: wire.RoomSettings{Mode: wire.ModeStage, MaxPlayers: 4, Flags: wire.RoomPublic}})
	if r := c.expect(wire.MsgRoomState); r.Settings.Stage != 1 {
		t.Fatalf("a room created at stage 0: %+v, want stage 1", r.Settings)
	}
	// A quick join's room too; a Classic room's is 0.
	q := lobbyLogin(t, s, "Bishop", wire.ModeClassic)
	q.room(wire.Room{Type: wire.MsgRoomQuick, Mode: wire.ModeClassic})
	if r := q.expect(wire.MsgRoomState); r.Settings.Mode != wire.ModeClassic || r.Settings.Stage != 0 {
		t.Fatalf("a Classic quick room: %+v", r.Settings)
	}

	a := lobbyLogin(t, s, "Ripley", wire.ModeStage)
	st := wire.RoomSettings{Mode: wire.ModeStage, Difficulty: wire.DifficultyEasy, MaxPlayers: 2, Flags: wire.RoomPublic, Stage: 2}
	a.room(wire.Room{Type: wire.MsgRoomCreate, Settings: st})
	if r := a.expect(wire.MsgRoomState); r.Settings != st {
		t.Fatalf("created %+v, want %+v", r.Settings, st)
	}
	// Back to 1, then 2 again: the owner changes it in the lobby.
	one := st
	one.Stage = 1
	a.room(wire.Room{Type: wire.MsgRoomSettings, Settings: one})
	if r := a.expect(wire.MsgRoomState); r.Settings != one {
		t.Fatalf("changed to %+v, want %+v", r.Settings, one)
	}
	a.room(wire.Room{Type: wire.MsgRoomSettings, Settings: st})
	a.expect(wire.MsgRoomState)

	// The listing shows each room's stage.
	a.room(wire.Room{Type: wire.MsgRoomList})
	l := a.expect(wire.MsgRoomListing)
	for _, ri := range l.Rooms[:l.Count] {
		if ri.Mode == wire.ModeStage && ri.Max == 2 && ri.Stage != 2 || ri.Mode == wire.ModeStage && ri.Max == 4 && ri.Stage != 1 ||
			ri.Mode == wire.ModeClassic && ri.Stage != 0 {
			t.Errorf("listed %+v", ri)
		}
	}
	if l.Count != 3 {
		t.Fatalf("listing of %d rooms, want 3: %+v", l.Count, l.Rooms[:l.Count])
	}

	a.room(wire.Room{Type: wire.MsgRoomBot, Value: 1})
	a.state("a bot", members(2))
	a.room(wire.Room{Type: wire.MsgRoomStart})
	a.state("Playing", inState(wire.RoomPlaying))
	a.bind()
	if !a.pumpUntil(wait, func() bool { return len(events21(a.tclient2)) >= 2 }) {
		t.Fatalf("no File and Intro: %+v", events21(a.tclient2))
	}
	file, intro := events21(a.tclient2)[0], events21(a.tclient2)[1]
	if file.What != wire.StageFile || file.Name != "2" || file.Value != warship.FileSum() {
		t.Fatalf("the game's first Stage event %+v, want the File of stage 2 (%08x)", file, warship.FileSum())
	}
	if intro.What != wire.StageIntro || intro.Value != 1 || intro.Name != warship.Title {
		t.Fatalf("its Intro %+v, want loop 1 of %q", intro, warship.Title)
	}
	mu.Lock()
	bf, ok := firstFile(botEvents)
	mu.Unlock()
	if !ok || bf != file {
		t.Fatalf("the bots' first File %+v (%v), want %+v", bf, ok, file)
	}
	if found, err := stage.Find(bf.Name, bf.Value); err != nil || found.Title != warship.Title {
		t.Fatalf("the bots find %v, %v: want the warship", found, err)
	}

	// While it plays, the flags change, the stage does not.
	playing := st
	playing.Flags |= wire.RoomJoinLate
	a.room(wire.Room{Type: wire.MsgRoomSettings, Settings: playing})
	if r := a.state("JoinLate", func(r *wire.Room) bool { return r.Settings.Flags&wire.RoomJoinLate != 0 }); r.Settings != playing {
		t.Fatalf("playing: %+v, want %+v", r.Settings, playing)
	}
	playing.Stage = 1
	a.room(wire.Room{Type: wire.MsgRoomSettings, Settings: playing})
	a.refused(wire.RoomInvalid)
}

// A stage the campaign does not have, or whose games cannot start with
// the server's warp, and a Classic room with a stage are refused
// Invalid, at the creation and as a change; the room keeps its stage.
func TestRoomStageRefused(t *testing.T) {
	t.Parallel()
	parse := func(name, marker string) *stage.Stage {
		src := "rtype-stage 1\nname " + name + "\ntitle STAGE " + name + "\nscroll 60px/s\nlength 1:00\nat 0s wave enemy=slave\n"
		if marker != "" {
			src += "at 1s marker " + marker + "\n"
		}
		st, err := stage.Parse(name+".stage", []byte(src+"at 30s boss\n"))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	a, b := parse("a", "late"), parse("b", "")
	cfg := roomConfig()
	cfg.Campaign, cfg.Stage, cfg.Warp = []*stage.Stage{a, b}, a, "late" // b has no marker "late"
	s := startServer(t, cfg)

	c := lobbyLogin(t, s, "Ripley", wire.ModeStage)
	for _, st := range []wire.RoomSettings{
		{Mode: wire.ModeStage, MaxPlayers: 4, Stage: 3},                  // past the campaign
		{Mode: wire.ModeStage, MaxPlayers: 4, Stage: 2},                  // no place for the warp
		{Mode: wire.ModeClassic, MaxPlayers: 4, Stage: 1},                // Classic
		{Mode: wire.ModeStage, MaxPlayers: 4, Stage: 255},                // past the campaign
		{Mode: wire.ModeClassic, MaxPlayers: 4, Stage: 255, Flags: 0x80}, // and bad flags
	} {
		c.room(wire.Room{Type: wire.MsgRoomCreate, Settings: st})
		c.refused(wire.RoomInvalid)
	}
	ok := wire.RoomSettings{Mode: wire.ModeStage, MaxPlayers: 4}
	c.room(wire.Room{Type: wire.MsgRoomCreate, Settings: ok})
	if r := c.expect(wire.MsgRoomState); r.Settings.Stage != 1 {
		t.Fatalf("created %+v, want stage 1", r.Settings)
	}
	for _, n := range []uint8{2, 3} {
		bad := ok
		bad.Stage = n
		c.room(wire.Room{Type: wire.MsgRoomSettings, Settings: bad})
		c.refused(wire.RoomInvalid)
	}
	classic := ok
	classic.Mode = wire.ModeClassic
	c.room(wire.Room{Type: wire.MsgRoomSettings, Settings: classic})
	if r := c.expect(wire.MsgRoomState); r.Settings.Mode != wire.ModeClassic || r.Settings.Stage != 0 {
		t.Fatalf("Classic: %+v", r.Settings)
	}

	// A server whose stage is none of its campaign: its rooms' stage 0
	// stays 0, its own stage.
	cfg = roomConfig()
	cfg.Campaign, cfg.Stage = []*stage.Stage{b}, a
	s2 := startServer(t, cfg)
	d := lobbyLogin(t, s2, "Hicks", wire.ModeStage)
	d.room(wire.Room{Type: wire.MsgRoomCreate, Settings: ok})
	if r := d.expect(wire.MsgRoomState); r.Settings != ok {
		t.Fatalf("created %+v, want %+v", r.Settings, ok)
	}
}

// A quick join's new Stage room starts at the server's stage (1); a
// quick join takes a public room whatever its stage.
func TestRoomQuickStage(t *testing.T) {
	t.Parallel()
	s := startServer(t, roomConfig())
	a := lobbyLogin(t, s, "Ripley", wire.ModeStage)
	a.room(wire.Room{Type: wire.MsgRoomQuick, Mode: wire.ModeStage})
	r := a.expect(wire.MsgRoomState)
	if r.Settings.Mode != wire.ModeStage || r.Settings.Stage != 1 {
		t.Fatalf("a quick join's new room: %+v, want Stage at 1", r.Settings)
	}
	st, code := r.Settings, r.Code
	st.Stage = 2
	a.room(wire.Room{Type: wire.MsgRoomSettings, Settings: st})
	a.state("stage 2", func(r *wire.Room) bool { return r.Settings.Stage == 2 })
	b := lobbyLogin(t, s, "Hicks", wire.ModeStage)
	b.room(wire.Room{Type: wire.MsgRoomQuick, Mode: wire.ModeStage})
	if r := b.expect(wire.MsgRoomState); r.Code != code || r.Count != 2 || r.Settings != st {
		t.Fatalf("Hicks's quick join: %+v, want Ripley's room at stage 2", r)
	}
}
