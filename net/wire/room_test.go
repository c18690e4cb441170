package wire

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// The worked examples of 7.14 (rooms): Ripley logs in for the lobby,
// creates a public Stage room that takes players while it plays and
// starts at stage 2, adds a bot, and Hicks joins it by its code K7MX2Q; a guesser's sixth wrong code
// is refused.
var (
	exLoginLobby   = Message{Type: MsgLoginRequest, Version: Version2, Name: "Ripley", Revision: Revision, Mode: ModeStage, Flags: LoginLobby}
	exLoginOKLobby = func() Message {
		m := exLoginOK2
		m.Player, m.Tick, m.Revision, m.Mode = NoPlayer, 0, Revision, ModeStage
		return m
	}()
	exRoomSettings = RoomSettings{Mode: ModeStage, Difficulty: DifficultyNormal, MaxPlayers: 4, Flags: RoomPublic | RoomJoinLate, Stage: 2}
	exRoomCode     = RoomCode{'K', '7', 'M', 'X', '2', 'Q'}
	exRoomCreate   = Room{Type: MsgRoomCreate, Settings: exRoomSettings}
	exRoomJoin     = Room{Type: MsgRoomJoin, Code: exRoomCode}
	exRoomBot      = Room{Type: MsgRoomBot, Value: 1, Player: NoPlayer}
	exRoomState    = Room{Type: MsgRoomState, Code: exRoomCode, State: RoomLobby, Owner: 0, You: 2, Settings: exRoomSettings, Count: 3,
		Members: [MaxPlayers]RoomMember{
			{Player: 0, Colour: 0, Flags: MemberReady, Name: "Ripley"},
			{Player: 1, Colour: 1, Flags: MemberReady | MemberBot, Name: "Bot 2"},
			{Player: 2, Colour: 2, Name: "Hicks"},
		}}
	exRoomListing = func() Room {
		r := Room{Type: MsgRoomListing, Count: 1}
		r.Rooms[0] = RoomInfo{Code: exRoomCode, Mode: ModeStage, State: RoomLobby, Players: 3, Max: 4, Flags: RoomPublic | RoomJoinLate, Stage: 2}
		return r
	}()
	exRoomRefused = Room{Type: MsgRoomRefused, Reason: RoomRateLimited, Wait: 30000}
)

// docRoom checks that a frame decodes to want.
func docRoom(want Room) func(b []byte) error {
	return func(b []byte) error {
		fr := FrameReader{R: bytes.NewReader(b)}
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		var r Room
		if err := ParseRoom(f, &r); err != nil || r != want {
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
	room := func(name, want string, r Room) docExample {
		return docExample{name: name, want: want, encode: func() []byte { return AppendRoom(nil, &r) }, decode: docRoom(r)}
	}
	return []docExample{
		{
			name:   "v2-login-lobby",
			want:   "0D 00 01 02 06 00 52 69 70 6C 65 79 04 02 01",
			encode: func() []byte { return AppendMessage2(nil, &exLoginLobby) },
			decode: docMessage2(exLoginLobby),
		},
		{
			name:   "v2-login-accepted-lobby",
			want:   "1F 00 02 FF EF BE AD DE 01 02 03 04 05 06 07 08 00 00 00 00 68 01 21 11 00 05 D0 02 3C 03 08 02 04",
			encode: func() []byte { return AppendMessage2(nil, &exLoginOKLobby) },
			decode: docMessage2(exLoginOKLobby),
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
	full := Room{Type: MsgRoomListing, Count: MaxListedRooms}
	for i := range full.Rooms {
		full.Rooms[i] = RoomInfo{Code: exRoomCode, Mode: ModeClassic, State: RoomOver, Players: 4, Max: 4}
	}
	long := exRoomState
	long.Count = MaxPlayers
	for i := range long.Members {
		long.Members[i] = RoomMember{Player: uint8(i), Colour: uint8(i), Name: strings.Repeat("ω", MaxNameLen)}
	}
	for _, r := range []Room{
		{Type: MsgRoomList}, {Type: MsgRoomStart}, {Type: MsgRoomAgain}, {Type: MsgRoomLeave},
		exRoomCreate, {Type: MsgRoomSettings, Settings: RoomSettings{Mode: ModeClassic, MaxPlayers: 2, Flags: RoomLocked}},
		{Type: MsgRoomSettings, Settings: RoomSettings{Mode: ModeStage, MaxPlayers: 1, Stage: 255}},
		exRoomJoin, {Type: MsgRoomQuick, Mode: ModeClassic}, {Type: MsgRoomReady, Value: 1}, {Type: MsgRoomKick, Value: 3},
		exRoomBot, {Type: MsgRoomBot, Value: 0, Player: 2}, exRoomState, long, exRoomListing, full,
		{Type: MsgRoomListing}, exRoomRefused, {Type: MsgRoomRefused, Reason: RoomKicked},
	} {
		b := AppendRoom(nil, &r)
		if len(b) > MaxFrame+2 {
			t.Fatalf("%v: frame of %d bytes", r.Type, len(b))
		}
		var got Room
		if err := ParseRoom(b[2:], &got); err != nil || got != r {
			t.Errorf("%#x: round trip %+v %v", r.Type, got, err)
		}
		// Bytes after the fields are ignored (7.1).
		if err := ParseRoom(append(b[2:], 1, 2, 3), &got); err != nil || got != r {
			t.Errorf("%#x with a tail: %v", r.Type, err)
		}
		// Every cut short body is refused, never a crash.
		for n := 1; n < len(b)-2; n++ {
			if err := ParseRoom(b[2:2+n], &got); err == nil && r.Type >= MsgRoomListing {
				t.Errorf("%#x cut to %d bytes: no error", r.Type, n)
			}
		}
	}
}

func TestRoomRejects(t *testing.T) {
	var r Room
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrFrameLength},
		{"not a room message", []byte{byte(MsgChat)}, ErrUnknownMessage},
		{"listing of 33", append([]byte{byte(MsgRoomListing), 33}, make([]byte, 33*roomInfoSize)...), ErrMessageBody},
		{"listing state 0", []byte{byte(MsgRoomListing), 1, 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 1, 4, 0, 0}, ErrMessageBody},
		{"listing cut in its stage", []byte{byte(MsgRoomListing), 1, 'A', 'A', 'A', 'A', 'A', 'A', 1, 1, 1, 4, 0}, ErrMessageBody},
		{"state of 5 members", append([]byte{byte(MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 5}, make([]byte, 40)...), ErrMessageBody},
		{"state 4", []byte{byte(MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 4, 0, 0, 1, 1, 4, 0, 0, 0}, ErrMessageBody},
		{"owner 4", []byte{byte(MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 4, 0, 1, 1, 4, 0, 0, 0}, ErrMessageBody},
		{"you 255", []byte{byte(MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 255, 1, 1, 4, 0, 0, 0}, ErrMessageBody},
		{"member 4", []byte{byte(MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 1, 4, 0, 0, 0, 0}, ErrMessageBody},
		{"name not UTF-8", []byte{byte(MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 1, 0, 0, 0, 1, 0, 0xFF}, ErrMessageBody},
		{"name past the frame", []byte{byte(MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 1, 0, 0, 0, 9, 0, 'a'}, ErrMessageBody},
		{"name over 80 bytes", append([]byte{byte(MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 1, 0, 0, 0, 81, 0}, bytes.Repeat([]byte{'a'}, 81)...), ErrMessageBody},
		{"state with settings of 4 bytes", []byte{byte(MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0}, ErrMessageBody},
		{"settings cut in its stage", []byte{byte(MsgRoomSettings), 2, 1, 4, 0}, ErrMessageBody},
		{"refused reason 0", []byte{byte(MsgRoomRefused), 0, 0, 0}, ErrMessageBody},
		{"join short", []byte{byte(MsgRoomJoin), 'A', 'B'}, ErrMessageBody},
	} {
		if err := ParseRoom(c.b, &r); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestRoomCodes(t *testing.T) {
	for _, b := range []byte("0O1IL") {
		if strings.IndexByte(RoomCodeAlphabet, b) >= 0 {
			t.Errorf("alphabet has the confusable %q", b)
		}
	}
	if len(RoomCodeAlphabet) != 31 {
		t.Errorf("alphabet of %d characters, want 31", len(RoomCodeAlphabet))
	}
	for in, want := range map[string]string{"k7mx2q": "K7MX2Q", "K7M-X2Q": "K7MX2Q", " k7m x2q ": "K7MX2Q"} {
		if c, ok := ParseRoomCode(in); !ok || c.String() != want || !c.Valid() {
			t.Errorf("ParseRoomCode(%q) = %q %v", in, c, ok)
		}
	}
	for _, in := range []string{"", "K7MX2", "K7MX2QQ", "K7MX2O", "K7MX20", "K7MX21", "K7MX2I", "K7MX2L", "K7MX2é"} {
		if _, ok := ParseRoomCode(in); ok {
			t.Errorf("ParseRoomCode(%q) accepted", in)
		}
	}
	if (RoomCode{'A', 'B', 'C', 'D', 'E', '0'}).Valid() {
		t.Error("a code with 0 is valid")
	}
}

func TestRoomSettingsValid(t *testing.T) {
	if !exRoomSettings.Valid() {
		t.Error("the example's settings are not valid")
	}
	for _, s := range []RoomSettings{
		{Mode: ModeAny, MaxPlayers: 4}, {Mode: 3, MaxPlayers: 4}, {Mode: ModeStage, MaxPlayers: 0},
		{Mode: ModeStage, MaxPlayers: 5}, {Mode: ModeStage, MaxPlayers: 4, Difficulty: 3}, {Mode: ModeStage, MaxPlayers: 4, Flags: 8},
		{Mode: ModeClassic, MaxPlayers: 4, Stage: 1}, // a Classic room has no stage
	} {
		if s.Valid() {
			t.Errorf("%+v valid", s)
		}
	}
	// Any stage of a Stage room is the codec's: the server knows its
	// campaign. 0 is the server's first stage.
	for _, n := range []uint8{0, 1, 2, 255} {
		if s := (RoomSettings{Mode: ModeStage, MaxPlayers: 4, Stage: n}); !s.Valid() {
			t.Errorf("%+v not valid", s)
		}
	}
}

// fuzzRooms are the seeds of FuzzParseRoom: the examples, with a tail, and
// nearly-valid frames.
func fuzzRooms() [][]byte {
	var seeds [][]byte
	for _, r := range []Room{exRoomCreate, exRoomJoin, exRoomBot, exRoomState, exRoomListing, exRoomRefused,
		{Type: MsgRoomList}, {Type: MsgRoomQuick, Mode: 1}, {Type: MsgRoomReady, Value: 1}, {Type: MsgRoomKick, Value: 1}} {
		b := AppendRoom(nil, &r)[2:]
		seeds = append(seeds, b, append(slices.Clone(b), 9))
	}
	return append(seeds, []byte{byte(MsgRoomState), 'A', 'A', 'A', 'A', 'A', 'A', 1, 0, 0, 1, 1, 4, 0, 0, 1, 0, 0, 0, 9, 0, 'a'},
		[]byte{byte(MsgRoomListing), 200})
}

// FuzzParseRoom decodes any frame as a room message: a decoded message
// encodes to a prefix of the frame, and decodes again to itself.
func FuzzParseRoom(f *testing.F) {
	for _, b := range fuzzRooms() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || len(b) > MaxFrame {
			return
		}
		b[0] = byte(MsgRoomList) + b[0]%14
		var r Room
		if err := ParseRoom(b, &r); err != nil {
			return
		}
		got := AppendRoom(nil, &r)[2:]
		if !bytes.HasPrefix(b, got) {
			t.Fatalf("re-encoded % X\n is no prefix of % X", got, b)
		}
		var r2 Room
		if err := ParseRoom(got, &r2); err != nil || r2 != r {
			t.Fatalf("re-parsed %+v %v", r2, err)
		}
	})
}
