package wire2

import (
	"bytes"
	"errors"
	"rtype/net/wire"
	"strings"
	"testing"
)

// The events of Stage mode (PROTOCOL.md 7.12) and the v2 login.

// validStageEvents is one valid event of each Stage mode type and of each Stage what.
func validStageEvents() []wire.Event {
	return []wire.Event{
		{Type: wire.EventStage, Tick: 60, What: wire.StageIntro, Value: 1, Name: "Bydo Frontier"},
		{Type: wire.EventStage, Tick: 3600, What: wire.StageMarker, Name: "checkpoint 1"},
		{Type: wire.EventStage, Tick: 9000, What: wire.StageWarning, Value: 90, Name: "wave"},
		{Type: wire.EventStage, Tick: 9100, What: wire.StageMusic, Name: ""},
		{Type: wire.EventStage, Tick: 9200, What: wire.StageBoss, Value: 0x1234, Name: "Dobkeratops"},
		{Type: wire.EventStage, Tick: 12000, What: wire.StageClear, Value: 2},
		{Type: wire.EventStage, Tick: 4000, What: wire.StageContinue, Value: 3},
		{Type: wire.EventHealth, Tick: 9300, ID: 0x1234, HP: 0, MaxHP: 1},
		{Type: wire.EventHealth, Tick: 9300, ID: 7, HP: 65535, MaxHP: 65535},
		{Type: wire.EventArms, Tick: 700, Player: 3, Arms: wire.Arms{Force: 3, Laser: wire.LaserYellow, Speed: 3, Bits: 2, ForceAt: wire.ForceLoose}},
		{Type: wire.EventArms, Tick: 700, Player: 0},
	}
}

func TestEvents21RoundTrip(t *testing.T) {
	sizes := map[wire.EventType]int{wire.EventHealth: HealthSize, wire.EventArms: ArmsSize}
	for _, ev := range validStageEvents() {
		b := AppendEvent(nil, &ev)
		want, ok := sizes[ev.Type]
		if !ok {
			want = StageEventSize + len(ev.Name)
		}
		if len(b) != want {
			t.Errorf("%+v: %d bytes, want %d", ev, len(b), want)
		}
		var got wire.Event
		if err := ParseEvent(b, &got); err != nil || got != ev {
			t.Errorf("% X: parsed %+v %v, want %+v", b, got, err, ev)
		}
		// Room to grow (7.6): bytes after the fields are ignored.
		got = wire.Event{}
		if err := ParseEvent(append(bytes.Clone(b), 1, 2, 3), &got); err != nil || got != ev {
			t.Errorf("% X and 3 more bytes: parsed %+v %v", b, got, err)
		}
		// Shorter than its type needs: ignored.
		for n := 5; n < len(b); n++ {
			if err := ParseEvent(b[:n], &got); !errors.Is(err, wire.ErrEventLength) {
				t.Errorf("%v cut to %d bytes: %v, want ErrEventLength", ev.Type, n, err)
			}
		}
		// A v1 session never carries them: v1's parser does not know them.
		if err := wire.ParseEvent(b, &got); !errors.Is(err, wire.ErrEventType) {
			t.Errorf("v1 ParseEvent of %v: %v, want ErrEventType", ev.Type, err)
		}
	}
}

// TestEvents21Bytes checks the layout of each event field by field (7.12).
func TestEvents21Bytes(t *testing.T) {
	for _, c := range []struct {
		ev   wire.Event
		want []byte
	}{
		{wire.Event{Type: wire.EventStage, Tick: 0x04030201, What: wire.StageBoss, Value: 0x0A090807, Name: "é"},
			[]byte{7, 1, 2, 3, 4, 5, 7, 8, 9, 10, 2, 0xC3, 0xA9}},
		{wire.Event{Type: wire.EventHealth, Tick: 0x04030201, ID: 0x08070605, HP: 0x0A09, MaxHP: 0x0C0B},
			[]byte{8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{wire.Event{Type: wire.EventArms, Tick: 0x04030201, Player: 1, Arms: wire.Arms{Force: 2, Laser: 1, Speed: 3, Bits: 2, ForceAt: 1}},
			[]byte{9, 1, 2, 3, 4, 1, 2, 1, 3, 2, 1}},
	} {
		if got := AppendEvent(nil, &c.ev); !bytes.Equal(got, c.want) {
			t.Errorf("%v: % X, want % X", c.ev.Type, got, c.want)
		}
	}
}

func TestStageNameCut(t *testing.T) {
	long := strings.Repeat("a", 63) + "é" + "tail" // the 64-byte limit falls inside é
	ev := wire.Event{Type: wire.EventStage, What: wire.StageBoss, Name: long}
	b := AppendEvent(nil, &ev)
	var got wire.Event
	if err := ParseEvent(b, &got); err != nil || got.Name != strings.Repeat("a", 63) {
		t.Fatalf("name %q %v, want 63 a's (cut before the rune that crosses 64 bytes)", got.Name, err)
	}
	ev.Name = strings.Repeat("b", MaxStageName)
	if err := ParseEvent(AppendEvent(nil, &ev), &got); err != nil || got.Name != ev.Name {
		t.Fatalf("a 64-byte name: %q %v", got.Name, err)
	}
}

// TestStageEventsInvalid: each invalid value makes the event ignored
// (ErrEventValue), as 6.4 and 7.10 say (7.12).
func TestStageEventsInvalid(t *testing.T) {
	stage := func(what uint8, value uint32, name string) []byte {
		b := []byte{byte(wire.EventStage), 1, 0, 0, 0, what, byte(value), byte(value >> 8), byte(value >> 16), byte(value >> 24), byte(len(name))}
		return append(b, name...)
	}
	arms := func(p, force, laser, speed, bits, at byte) []byte {
		return []byte{byte(wire.EventArms), 1, 0, 0, 0, p, force, laser, speed, bits, at}
	}
	health := func(hp, max uint16) []byte {
		return []byte{byte(wire.EventHealth), 1, 0, 0, 0, 5, 0, 0, 0, byte(hp), byte(hp >> 8), byte(max), byte(max >> 8)}
	}
	for _, c := range []struct {
		why string
		b   []byte
	}{
		{"what 0", stage(0, 1, "x")},
		{"what 9", stage(9, 1, "x")},
		{"File without a name", stage(wire.StageFile, 0x12345678, "")},
		{"what 255", stage(255, 1, "x")},
		{"Intro of loop 0", stage(wire.StageIntro, 0, "Title")},
		{"Clear of loop 0", stage(wire.StageClear, 0, "")},
		{"Marker without a name", stage(wire.StageMarker, 0, "")},
		{"Continue of player 4", stage(wire.StageContinue, 4, "")},
		{"name of 65 bytes", stage(wire.StageBoss, 1, strings.Repeat("x", 65))},
		{"name not UTF-8", stage(wire.StageBoss, 1, "\xff\xfe")},
		{"hp above max", health(11, 10)},
		{"max 0", health(0, 0)},
		{"player 4", arms(4, 0, 0, 0, 0, 0)},
		{"player 255", arms(255, 0, 0, 0, 0, 0)},
		{"force 4", arms(0, 4, 0, 0, 0, 1)},
		{"laser 3", arms(0, 1, 3, 0, 0, 1)},
		{"speed 4", arms(0, 0, 0, 4, 0, 0)},
		{"bits 3", arms(0, 0, 0, 0, 3, 0)},
		{"force_at 4", arms(0, 1, 0, 0, 0, 4)},
	} {
		var ev wire.Event
		if err := ParseEvent(c.b, &ev); !errors.Is(err, wire.ErrEventValue) {
			t.Errorf("%s (% X): %v, want ErrEventValue", c.why, c.b, err)
		}
	}
	// The limits themselves are valid.
	for _, b := range [][]byte{stage(wire.StageContinue, 3, ""), stage(wire.StageIntro, 1, ""), stage(wire.StageMarker, 0, "m"), stage(wire.StageFile, 0xFFFFFFFF, "1"),
		stage(wire.StageBoss, 1, strings.Repeat("x", 64)), health(10, 10), arms(3, 3, 2, 3, 2, 3)} {
		var ev wire.Event
		if err := ParseEvent(b, &ev); err != nil {
			t.Errorf("% X: %v", b, err)
		}
	}
	// A name that runs past the event's end: shorter than it needs.
	b := stage(wire.StageBoss, 1, "abc")
	var ev wire.Event
	if err := ParseEvent(b[:len(b)-1], &ev); !errors.Is(err, wire.ErrEventLength) {
		t.Errorf("name past the end: %v", err)
	}
	// Unknown event types stay unknown (ignored, 4.4).
	if err := ParseEvent([]byte{10, 0, 0, 0, 0, 1, 2, 3}, &ev); !errors.Is(err, wire.ErrEventType) {
		t.Errorf("type 10: %v", err)
	}
}

func TestEvents21NoAllocs(t *testing.T) {
	bs := [][]byte{}
	for _, ev := range validStageEvents() {
		if ev.Type != wire.EventStage {
			bs = append(bs, AppendEvent(nil, &ev))
		}
	}
	bs = append(bs, AppendEvent(nil, &wire.Event{Type: wire.EventStage, What: wire.StageClear, Value: 1}))
	var ev wire.Event
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		for _, b := range bs {
			ParseEvent(b, &ev)
			buf = AppendEvent(buf[:0], &ev)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per parse and append of Health, Arms and an unnamed Stage", n)
	}
}

// TestLogin2 checks the one layout of a v2 LoginRequest (name, revision,
// mode) and LoginAccepted (extension, mode, revision: L = 31), and that a
// request without a revision, or of a revision below Revision, is
// ErrRevision.
func TestLogin(t *testing.T) {
	req := wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: "Ripley", Revision: wire.Revision, Mode: wire.ModeStage}
	b := AppendMessage(nil, &req)
	want := []byte{0x0C, 0x00, 0x01, 0x02, 0x06, 0x00, 'R', 'i', 'p', 'l', 'e', 'y', 0x04, 0x02}
	if !bytes.Equal(b, want) {
		t.Fatalf("v2 LoginRequest % X, want % X", b, want)
	}
	parse := func(b []byte) (wire.Message, error) { return ParseMessage(b[2:]) }
	if m, err := parse(b); err != nil || m != req {
		t.Fatalf("parsed %+v %v", m, err)
	}
	// No revision (v1's layout), one byte after the name, or a revision
	// below 4: ErrRevision.
	bare := wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: "Ripley"}
	for _, tail := range [][]byte{{}, {4}, {0, 2}, {1, 2}, {3, 2, 0}} {
		f := append(wire.AppendMessage(nil, &bare)[2:], tail...)
		if _, err := ParseMessage(f); !errors.Is(err, wire.ErrRevision) {
			t.Errorf("tail % X: %v, want ErrRevision", tail, err)
		}
	}
	// A later revision and an unknown mode are given as they are (the
	// server decides), and bytes after the flags ignored.
	f := append(wire.AppendMessage(nil, &bare)[2:], 5, 7, 0, 0xAA)
	if m, err := ParseMessage(f); err != nil || m.Revision != 5 || m.Mode != 7 {
		t.Errorf("revision 5 mode 7: %+v %v", m, err)
	}
	// A v1 parser is not fooled: the v1 layout has nothing after the name.
	if _, err := wire.ParseMessage(AppendMessage(nil, &req)[2:]); err == nil {
		t.Error("v1 ParseMessage accepted a v2 LoginRequest")
	}
	// The longest name still fits the frame with the revision and mode.
	long := wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: strings.Repeat("n", wire.MaxFrame), Revision: wire.Revision, Mode: wire.ModeAny}
	if b := AppendMessage(nil, &long); len(b) != 2+wire.MaxFrame {
		t.Errorf("longest request: %d bytes", len(b))
	} else if m, err := parse(b); err != nil || m.Revision != wire.Revision || len(m.Name) != wire.MaxFrame-6 {
		t.Errorf("longest request parsed: revision %d, name of %d bytes, %v", m.Revision, len(m.Name), err)
	}

	acc := wire.Message{Type: wire.MsgLoginAccepted, Player: 1, Session: 9, Tick: 5, Ext: exExt, Revision: wire.Revision, Mode: wire.ModeStage}
	b = AppendMessage(nil, &acc)
	if len(b) != 2+31 || b[0] != 31 || b[len(b)-2] != wire.ModeStage || b[len(b)-1] != wire.Revision {
		t.Fatalf("v2 LoginAccepted % X", b)
	}
	if m, err := parse(b); err != nil || m != acc {
		t.Fatalf("parsed %+v %v", m, err)
	}
	// Bytes after the revision are ignored; a lobby session's player is
	// NoPlayer.
	if m, err := ParseMessage(append(bytes.Clone(b[2:]), 7, 7)); err != nil || m != acc {
		t.Fatalf("with 2 more bytes: %+v %v", m, err)
	}
	lobby := acc
	lobby.Player = wire.NoPlayer
	if m, err := parse(AppendMessage(nil, &lobby)); err != nil || m != lobby {
		t.Fatalf("lobby LoginAccepted parsed %+v %v", m, err)
	}
	// A revision below 4, a player of 4 to 254, a mode that is neither
	// Classic nor Stage, or a LoginAccepted without mode or revision
	// (L = 29 or 30) is malformed.
	for _, rev := range []byte{0, 1, 2, 3} {
		bad := bytes.Clone(b[2:])
		bad[len(bad)-1] = rev
		if _, err := ParseMessage(bad); !errors.Is(err, wire.ErrMessageBody) {
			t.Errorf("a revision of %d: %v, want ErrMessageBody", rev, err)
		}
	}
	for _, player := range []byte{4, 254} {
		bad := bytes.Clone(b[2:])
		bad[1] = player
		if _, err := ParseMessage(bad); !errors.Is(err, wire.ErrMessageBody) {
			t.Errorf("player %d: %v, want ErrMessageBody", player, err)
		}
	}
	for _, mode := range []uint8{wire.ModeAny, 3, 255} {
		bad := bytes.Clone(b[2:])
		bad[len(bad)-2] = mode
		if _, err := ParseMessage(bad); !errors.Is(err, wire.ErrMessageBody) {
			t.Errorf("LoginAccepted of mode %d: %v, want ErrMessageBody", mode, err)
		}
	}
	for _, cut := range []int{1, 2} {
		if _, err := ParseMessage(b[2 : len(b)-cut]); !errors.Is(err, wire.ErrMessageBody) {
			t.Errorf("LoginAccepted cut by %d: %v, want ErrMessageBody", cut, err)
		}
	}
}

// BenchmarkEvents21 encodes and parses one event of each Stage mode type (a
// Stage event with a name: its parse allocates the name).
func BenchmarkEvents(b *testing.B) {
	evs := []wire.Event{
		{Type: wire.EventStage, Tick: 9000, What: wire.StageBoss, Value: 0x31, Name: "Dobkeratops"},
		{Type: wire.EventHealth, Tick: 9001, ID: 0x31, HP: 750, MaxHP: 800},
		{Type: wire.EventArms, Tick: 617, Player: 0, Arms: wire.Arms{Force: 2, Laser: wire.LaserBlue, Speed: 1, Bits: 2, ForceAt: wire.ForceFront}},
	}
	buf := make([]byte, 0, 128)
	var ev wire.Event
	b.ReportAllocs()
	for b.Loop() {
		for i := range evs {
			buf = AppendEvent(buf[:0], &evs[i])
			if err := ParseEvent(buf, &ev); err != nil {
				b.Fatal(err)
			}
		}
	}
}
