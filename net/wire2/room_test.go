package wire2

import (
	"bytes"
	"errors"
	"rtype/net/wire"
	"slices"
	"strings"
	"testing"
)

// The worked examples of 7.14 (rooms): Ripley logs in for the lobby,
// creates a public Stage room that takes players while it plays and
// starts at stage 2, adds a bot, and Hicks joins it by its code K7MX2Q; a guesser's sixth wrong code
// is refused.
var (
	exLoginLobby   = wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: "Ripley", Revision: wire.Revision, Mode: wire.ModeStage, Flags: wire.LoginLobby}
	exLoginOKLobby = func() wire.Message {
		m := exLoginOK
		m.Player, m.Tick, m.Revision, m.Mode = wire.NoPlayer, 0, wire.Revision, wire.ModeStage
		return m
	}()
	exRoomSettings = wire.RoomSettings{Mode: wire.ModeStage, Difficulty: wire.DifficultyNormal, MaxPlayers: 4, Flags: wire.RoomPublic | wire.RoomJoinLate, Stage: 2}
	exRoomCode     = wire.RoomCode{'K', '7', 'M', 'X', '2', 'Q'}
	exRoomCreate   = wire.Room{Type: wire.MsgRoomCreate, Settings: exRoomSettings}
	exRoomJoin     = wire.Room{Type: wire.MsgRoomJoin, Code: exRoomCode}
	exRoomBot      = wire.Room{Type: wire.MsgRoomBot, Value: 1, Player: wire.NoPlayer}
	exRoomState    = wire.Room{Type: wire.MsgRoomState, Code: exRoomCode, State: wire.RoomLobby, Owner: 0, You: 2, Settings: exRoomSettings, Count: 3,
		Members: [wire.MaxPlayers]wire.RoomMember{
			{Player: 0, Colour: 0, Flags: wire.MemberReady, Name: "Ripley"},
			{Player: 1, Colour: 1, Flags: wire.MemberReady | wire.MemberBot, Name: "Bot 2"},
			{Player: 2, Colour: 2, Name: "Hicks"},
		}}
	exRoomListing = func() wire.Room {
		r := wire.Room{Type: wire.MsgRoomListing, Count: 1}
		r.Rooms[0] = wire.RoomInfo{Code: exRoomCode, Mode: wire.ModeStage, State: wire.RoomLobby, Players: 3, Max: 4, Flags: wire.RoomPublic | wire.RoomJoinLate, Stage: 2}
		return r
	}()
	exRoomRefused = wire.Room{Type: wire.MsgRoomRefused, Reason: wire.RoomRateLimited, Wait: 30000}
)

// docRoom checks that a frame decodes to want.
func docRoom(want wire.Room) func(b []byte) error {
	return func(b []byte) error {
		fr := wire.FrameReader{R: bytes.NewReader(b)}
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		var r wire.Room
		if err := wire.ParseRoom(f, &r); err != nil || r != want {
			return errors.New("decoded differently: " + err2s(err))
		}
		return nil
	}
}

func err2s(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

func docExamplesRoom() []docExample {
	room := func(name, want string, r wire.Room) docExample {
		return docExample{Name: name, Want: want, Encode: func() []byte { return wire.AppendRoom(nil, &r) }, Decode: docRoom(r)}
	}
	return []docExample{
		{
			Name:   "v2-login-lobby",
			Want:   "0D 00 01 02 06 00 52 69 70 6C 65 79 04 02 01",
			Encode: func() []byte { return AppendMessage(nil, &exLoginLobby) },
			Decode: docMessage(exLoginLobby),
		},
		{
			Name:   "v2-login-accepted-lobby",
			Want:   "1F 00 02 FF EF BE AD DE 01 02 03 04 05 06 07 08 00 00 00 00 68 01 21 11 00 05 D0 02 3C 03 08 02 04",
			Encode: func() []byte { return AppendMessage(nil, &exLoginOKLobby) },
			Decode: docMessage(exLoginOKLobby),
		},
		room("v2-room-create", "06 00 09 02 01 04 03 02", exRoomCreate),
		room("v2-room-bot", "03 00 10 01 FF", exRoomBot),
		room("v2-room-join", "07 00 0A 4B 37 4D 58 32 51", exRoomJoin),
		room("v2-room-state", "2F 00 14 4B 37 4D 58 32 51 01 00 02 02 01 04 03 02 03 "+
			"00 00 01 06 00 52 69 70 6C 65 79 "+
			"01 01 03 05 00 42 6F 74 20 32 "+
			"02 02 00 05 00 48 69 63 6B 73", exRoomState),
		room("v2-room-listing", "0E 00 13 01 4B 37 4D 58 32 51 02 01 03 04 03 02", exRoomListing),
		room("v2-room-refused", "04 00 15 05 30 75", exRoomRefused),
	}
}

func TestRoomRoundTrip(t *testing.T) {
	full := wire.Room{Type: wire.MsgRoomListing, Count: wire.MaxListedRooms}
	for i := range full.Rooms {
		full.Rooms[i] = wire.RoomInfo{Code: exRoomCode, Mode: wire.ModeClassic, State: wire.RoomOver, Players: 4, Max: 4}
	}
	long := exRoomState
	long.Count = wire.MaxPlayers
	for i := range long.Members {
		long.Members[i] = wire.RoomMember{Player: uint8(i), Colour: uint8(i), Name: strings.Repeat("ω", wire.MaxNameLen)}
	}
	for _, r := range []wire.Room{
		{Type: wire.MsgRoomList}, {Type: wire.MsgRoomStart}, {Type: wire.MsgRoomAgain}, {Type: wire.MsgRoomLeave},
		exRoomCreate, {Type: wire.MsgRoomSettings, Settings: wire.RoomSettings{Mode: wire.ModeClassic, MaxPlayers: 2, Flags: wire.RoomLocked}},
		{Type: wire.MsgRoomSettings, Settings: wire.RoomSettings{Mode: wire.ModeStage, MaxPlayers: 1, Stage: 255}},
		exRoomJoin, {Type: wire.MsgRoomQuick, Mode: wire.ModeClassic}, {Type: wire.MsgRoomReady, Value: 1}, {Type: wire.MsgRoomKick, Value: 3},
		exRoomBot, {Type: wire.MsgRoomBot, Value: 0, Player: 2}, exRoomState, long, exRoomListing, full,
		{Type: wire.MsgRoomListing}, exRoomRefused, {Type: wire.MsgRoomRefused, Reason: wire.RoomKicked},
	} {
		b := wire.AppendRoom(nil, &r)
		if len(b) > wire.MaxFrame+2 {
			t.Fatalf("%v: frame of %d bytes", r.Type, len(b))
		}
		var got wire.Room
		if err := wire.ParseRoom(b[2:], &got); err != nil || got != r {
			t.Errorf("%#x: round trip %+v %v", r.Type, got, err)
		}
		// Bytes after the fields are ignored (7.1).
		if err := wire.ParseRoom(append(b[2:], 1, 2, 3), &got); err != nil || got != r {
			t.Errorf("%#x with a tail: %v", r.Type, err)
		}
		// Every cut short body is refused, never a crash.
		for n := 1; n < len(b)-2; n++ {
			if err := wire.ParseRoom(b[2:2+n], &got); err == nil && r.Type >= wire.MsgRoomListing {
				t.Errorf("%#x cut to %d bytes: no error", r.Type, n)
			}
		}
	}
}

func TestRoomRejects(t *testing.T) {
	var r wire.Room
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, wire.ErrFrameLength},
		{"not a room message", []byte{byte(wire.MsgChat)}, wire.ErrUnknownMessage},
		{"listing of 33", append([]byte{byte(wire.MsgRoomListing), 33}, make([]byte, 33*wire.RoomInfoSize)...), wire.ErrMessageBody},
		{"listing state 0", []byte{byte(wire.MsgRoomListing), 1, 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 1, 4, 0, 0}, wire.ErrMessageBody},
		{"listing cut in its stage", []byte{byte(wire.MsgRoomListing), 1, 'A', 'A', 'A', 'A', 'A', 'A', 1, 1, 1, 4, 0}, wire.ErrMessageBody},
		{"state of 5 members", append([]byte{byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 5}, make([]byte, 40)...), wire.ErrMessageBody},
		{"state 4", []byte{byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 4, 0, 0, 1, 1, 4, 0, 0, 0}, wire.ErrMessageBody},
		{"owner 4", []byte{byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 4, 0, 1, 1, 4, 0, 0, 0}, wire.ErrMessageBody},
		{"you 255", []byte{byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 255, 1, 1, 4, 0, 0, 0}, wire.ErrMessageBody},
		{"member 4", []byte{byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 1, 4, 0, 0, 0, 0}, wire.ErrMessageBody},
		{"name not UTF-8", []byte{byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 1, 0, 0, 0, 1, 0, 0xFF}, wire.ErrMessageBody},
		{"name past the frame", []byte{byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 1, 0, 0, 0, 9, 0, 'a'}, wire.ErrMessageBody},
		{"name over 80 bytes", append([]byte{byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 1, 0, 0, 0, 81, 0}, bytes.Repeat([]byte{'a'}, 81)...), wire.ErrMessageBody},
		{"state with settings of 4 bytes", []byte{byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0}, wire.ErrMessageBody},
		{"settings cut in its stage", []byte{byte(wire.MsgRoomSettings), 2, 1, 4, 0}, wire.ErrMessageBody},
		{"refused reason 0", []byte{byte(wire.MsgRoomRefused), 0, 0, 0}, wire.ErrMessageBody},
		{"join short", []byte{byte(wire.MsgRoomJoin), 'A', 'B'}, wire.ErrMessageBody},
	} {
		if err := wire.ParseRoom(c.b, &r); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestRoomCodes(t *testing.T) {
	for _, b := range []byte("0O1IL") {
		if strings.IndexByte(wire.RoomCodeAlphabet, b) >= 0 {
			t.Errorf("alphabet has the confusable %q", b)
		}
	}
	if len(wire.RoomCodeAlphabet) != 31 {
		t.Errorf("alphabet of %d characters, want 31", len(wire.RoomCodeAlphabet))
	}
	for in, want := range map[string]string{"k7mx2q": "K7MX2Q", "K7M-X2Q": "K7MX2Q", " k7m x2q ": "K7MX2Q"} {
		if c, ok := wire.ParseRoomCode(in); !ok || c.String() != want || !c.Valid() {
			t.Errorf("ParseRoomCode(%q) = %q %v", in, c, ok)
		}
	}
	for _, in := range []string{"", "K7MX2", "K7MX2QQ", "K7MX2O", "K7MX20", "K7MX21", "K7MX2I", "K7MX2L", "K7MX2é"} {
		if _, ok := wire.ParseRoomCode(in); ok {
			t.Errorf("ParseRoomCode(%q) accepted", in)
		}
	}
	if (wire.RoomCode{'A', 'B', 'C', 'D', 'E', '0'}).Valid() {
		t.Error("a code with 0 is valid")
	}
}

func TestRoomSettingsValid(t *testing.T) {
	if !exRoomSettings.Valid() {
		t.Error("the example's settings are not valid")
	}
	for _, s := range []wire.RoomSettings{
		{Mode: wire.ModeAny, MaxPlayers: 4}, {Mode: 3, MaxPlayers: 4}, {Mode: wire.ModeStage, MaxPlayers: 0},
		{Mode: wire.ModeStage, MaxPlayers: 5}, {Mode: wire.ModeStage, MaxPlayers: 4, Difficulty: 3}, {Mode: wire.ModeStage, MaxPlayers: 4, Flags: 8},
		{Mode: wire.ModeClassic, MaxPlayers: 4, Stage: 1}, // a Classic room has no stage
	} {
		if s.Valid() {
			t.Errorf("%+v valid", s)
		}
	}
	// Any stage of a Stage room is the codec's: the server knows its
	// campaign. 0 is the server's first stage.
	for _, n := range []uint8{0, 1, 2, 255} {
		if s := (wire.RoomSettings{Mode: wire.ModeStage, MaxPlayers: 4, Stage: n}); !s.Valid() {
			t.Errorf("%+v not valid", s)
		}
	}
}

// fuzzRooms are the seeds of FuzzParseRoom: the examples, with a tail, and
// nearly-valid frames.
func fuzzRooms() [][]byte {
	var seeds [][]byte
	for _, r := range []wire.Room{exRoomCreate, exRoomJoin, exRoomBot, exRoomState, exRoomListing, exRoomRefused,
		{Type: wire.MsgRoomList}, {Type: wire.MsgRoomQuick, Mode: 1}, {Type: wire.MsgRoomReady, Value: 1}, {Type: wire.MsgRoomKick, Value: 1}} {
		b := wire.AppendRoom(nil, &r)[2:]
		seeds = append(seeds, b, append(slices.Clone(b), 9))
	}
	return append(seeds, []byte{byte(wire.MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 1, 0, 0, 0, 9, 0, 'a'},
		[]byte{byte(wire.MsgRoomListing), 200})
}

// FuzzParseRoom decodes any frame as a room message: a decoded message
// encodes to a prefix of the frame, and decodes again to itself.
func FuzzParseRoom(f *testing.F) {
	for _, b := range fuzzRooms() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || len(b) > wire.MaxFrame {
			return
		}
		b[0] = byte(wire.MsgRoomList) + b[0]%14
		var r wire.Room
		if err := wire.ParseRoom(b, &r); err != nil {
			return
		}
		got := wire.AppendRoom(nil, &r)[2:]
		if !bytes.HasPrefix(b, got) {
			t.Fatalf("re-encoded % X\n is no prefix of % X", got, b)
		}
		var r2 wire.Room
		if err := wire.ParseRoom(got, &r2); err != nil || r2 != r {
			t.Fatalf("re-parsed %+v %v", r2, err)
		}
	})
}
