package client

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"rtype/internal/evilserver"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
	"rtype/vocab"
)

// Stage mode on the client (PROTOCOL.md 7.12): the v2 login, the mode of
// the game, the Stage, Health and Arms events.

func dialCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	t.Cleanup(cancel)
	return ctx
}

// TestDialModes: a v2 client logs in with Config.Mode and Mode
// tells the game's mode: the one asked for, the server's default for Any;
// a v1 session plays Classic whatever it asks (real server, 7.12).
func TestDialModes(t *testing.T) {
	for _, def := range []uint8{wire.ModeStage, wire.ModeClassic} {
		srv := testserver.Start(t, server.Config{Mode: def, LoginLimit: 100})
		for _, c := range []struct {
			version, mode, want uint8
		}{
			{0, wire.ModeAny, def},
			{2, wire.ModeAny, def},
			{0, wire.ModeClassic, wire.ModeClassic},
			{2, wire.ModeStage, wire.ModeStage},
			{1, wire.ModeStage, wire.ModeClassic},
			{1, wire.ModeAny, wire.ModeClassic},
		} {
			cl, err := Dial(dialCtx(t), Config{Addr: srv.Addr(), Name: "modes", Version: c.version, Mode: c.mode, Logger: testLogger()})
			if err != nil {
				t.Fatalf("server mode %d, version %d mode %d: %v", def, c.version, c.mode, err)
			}
			if got := cl.Mode(); got != c.want {
				t.Errorf("server mode %d, version %d mode %d: Mode() %d, want %d", def, c.version, c.mode, got, c.want)
			}
			cl.Close()
		}
	}
	if _, err := Dial(dialCtx(t), Config{Addr: "127.0.0.1:1", Name: "modes", Mode: 3}); err == nil {
		t.Fatal("Config.Mode 3 accepted")
	}
}

// TestModeOfTheServer: a client that asks for Stage plays the mode the
// server's LoginAccepted says, here Classic.
func TestModeOfTheServer(t *testing.T) {
	s := startEvil(t, evilV2())
	c, err := Dial(dialCtx(t), Config{Addr: s.Addr(), Name: "old", Mode: wire.ModeStage, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Version() != wire.Version2 || c.Mode() != wire.ModeClassic {
		t.Fatalf("version %d, mode %d: want 2 and Classic", c.Version(), c.Mode())
	}
}

// TestBadModeAccepted: a v2 LoginAccepted whose mode is neither Classic
// nor Stage is a protocol error (7.12).
func TestBadModeAccepted(t *testing.T) {
	for _, mode := range []uint8{wire.ModeAny, 3, 255} {
		acc := wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginAccepted, Session: 7, Revision: wire.Revision, Mode: wire.ModeStage,
			Ext: wire.LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8}})
		acc[len(acc)-2] = mode // the revision is last
		cfg := evilV2()
		cfg.Login = acc
		s := startEvil(t, cfg)
		_, err := Dial(dialCtx(t), Config{Addr: s.Addr(), Name: "victim", Logger: testLogger()})
		if !errors.Is(err, ErrProtocol) {
			t.Errorf("LoginAccepted of mode %d: %v, want ErrProtocol", mode, err)
		}
	}
	// A LoginAccepted without the revision, or without mode and
	// revision (L = 30 or 29), or of revision 3, is malformed too.
	acc := wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginAccepted, Session: 7, Revision: wire.Revision, Mode: wire.ModeStage,
		Ext: wire.LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8}})
	old := bytes.Clone(acc)
	old[len(old)-1] = 3
	for _, bad := range [][]byte{acc[:len(acc)-1], acc[:len(acc)-2], old} {
		bad = bytes.Clone(bad)
		bad[0] = byte(len(bad) - 2)
		cfg := evilV2()
		cfg.Login = bad
		s := startEvil(t, cfg)
		if _, err := Dial(dialCtx(t), Config{Addr: s.Addr(), Name: "victim", Logger: testLogger()}); !errors.Is(err, ErrProtocol) {
			t.Errorf("LoginAccepted % X: %v, want ErrProtocol", bad, err)
		}
	}
}

// TestStageEventsDrained: the events of Stage mode reach DrainEvents with
// the others, in order; invalid ones (7.12's validation) and late ones
// (an Arms or a Health older than the last applied for its player or id)
// do not.
func TestStageEventsDrained(t *testing.T) {
	s := startEvil(t, evilV2())
	c, err := Dial(dialCtx(t), Config{Addr: s.Addr(), Name: "drain", Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tick := s.Tick()
	intro := wire.Event{Type: wire.EventStage, Tick: tick, What: wire.StageIntro, Value: 1, Name: "Stage 1"}
	arms := wire.Event{Type: wire.EventArms, Tick: tick + 2, Player: 0, Arms: wire.Arms{Force: 1, ForceAt: wire.ForceFront}}
	health := wire.Event{Type: wire.EventHealth, Tick: tick + 2, ID: 40, HP: 10, MaxHP: 20}
	boss := wire.Event{Type: wire.EventStage, Tick: tick + 3, What: wire.StageBoss, Value: 40, Name: "Dobkeratops"}
	s.Events(
		intro,
		wire.Event{Type: wire.EventArms, Tick: tick, Player: 4},                   // invalid
		wire.Event{Type: wire.EventStage, Tick: tick, What: 9},                    // invalid
		wire.Event{Type: wire.EventHealth, Tick: tick, ID: 40, HP: 21, MaxHP: 20}, // invalid
		arms,
		wire.Event{Type: wire.EventArms, Tick: tick + 1, Player: 0, Arms: wire.Arms{}}, // late
		health,
		wire.Event{Type: wire.EventHealth, Tick: tick + 1, ID: 40, HP: 20, MaxHP: 20}, // late
		boss,
	)
	want := []wire.Event{intro, arms, health, boss}
	var got []wire.Event
	deadline := time.Now().Add(testutil.Wait)
	for len(got) < len(want) && time.Now().Before(deadline) {
		for _, ev := range c.DrainEvents(nil) {
			if ev.Type >= wire.EventStage {
				got = append(got, ev)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Nothing more comes: a PlayerJoined sent after them is drained
	// after any of them would be.
	s.Names("Marker")
	for marked := false; !marked && time.Now().Before(deadline); {
		for _, ev := range c.DrainEvents(nil) {
			if ev.Type >= wire.EventStage {
				got = append(got, ev)
			}
			marked = marked || (ev.Type == wire.EventPlayerJoined && ev.Name == "Marker")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(got) != len(want) {
		t.Fatalf("drained %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestWorldStageOrder: the order rules of 7.12 on the World, and a v1
// world, which never gets these events, applies none.
func TestWorldStageOrder(t *testing.T) {
	w := NewWorld(wire.NewFeatures(wire.Version2, wire.Revision))
	arms := func(p uint8, tick uint32) *wire.Event {
		return &wire.Event{Type: wire.EventArms, Tick: tick, Player: p}
	}
	health := func(id, tick uint32) *wire.Event {
		return &wire.Event{Type: wire.EventHealth, Tick: tick, ID: id, HP: 1, MaxHP: 1}
	}
	for _, c := range []struct {
		ev   *wire.Event
		want bool
	}{
		{arms(0, 10), true},
		{arms(0, 10), true}, // the same tick: applied
		{arms(0, 9), false},
		{arms(1, 5), true}, // another player
		{arms(0, 11), true},
		{arms(4, 20), false},
		{health(1, 10), true},
		{health(1, 9), false},
		{health(2, 3), true},
		{&wire.Event{Type: wire.EventStage, Tick: 1, What: wire.StageMusic}, true},
	} {
		if got := w.ApplyEvent(c.ev); got != c.want {
			t.Errorf("%+v: applied %v, want %v", *c.ev, got, c.want)
		}
	}
	// Health ids: the last 8 heard of are remembered (1, 2 and 6 more);
	// one more forgets id 1, whose late Health is then applied.
	for id := uint32(100); id < 106; id++ {
		w.ApplyEvent(health(id, 50))
	}
	if w.ApplyEvent(health(1, 8)) {
		t.Fatal("id 1 forgotten among the last 8 ids")
	}
	w.ApplyEvent(health(106, 50))
	if !w.ApplyEvent(health(1, 8)) {
		t.Fatal("id 1 still ordered after 8 other ids")
	}

	v1 := NewWorld(wire.Features{})
	for _, ev := range []*wire.Event{arms(0, 1), health(1, 1), {Type: wire.EventStage, What: wire.StageMusic}} {
		if v1.ApplyEvent(ev) {
			t.Errorf("a v1 world applied %v", ev.Type)
		}
	}
}

// TestWorldStageKinds: a v2 world shows the kinds of Stage mode; a v1
// world does not (4.1).
func TestWorldStageKinds(t *testing.T) {
	for k := wire.KindForce; k <= vocab.KindStageLast; k++ {
		ev := &wire.Event{Type: wire.EventSpawn, Tick: 10, ID: uint32(k), Kind: k, Owner: wire.NoPlayer,
			Motion: wire.Linear(10, 100, 100, 0, 0)}
		if !NewWorld(wire.NewFeatures(wire.Version2, wire.Revision)).ApplyEvent(ev) {
			t.Errorf("a v2 world hid kind %d", k)
		}
		if NewWorld(wire.Features{}).ApplyEvent(ev) {
			t.Errorf("a v1 world showed kind %d", k)
		}
	}
	if NewWorld(wire.NewFeatures(wire.Version2, wire.Revision)).ApplyEvent(&wire.Event{Type: wire.EventSpawn, Tick: 10, ID: 1, Kind: vocab.KindStageLast + 1, Owner: wire.NoPlayer}) {
		t.Errorf("a v2 world showed kind %d", vocab.KindStageLast+1)
	}
}

// evilV2 is the configuration of a hostile v2 server.
func evilV2() evilserver.Config { return evilserver.Config{Version2: true} }
