package wire

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// The worked examples of 7.17 (spectators): Newt watches the game
// of room K7MX2Q at tick 9000; Burke watches with her.
var (
	exLoginSpectate = Message{Type: MsgLoginRequest, Version: Version2, Name: "Newt", Revision: Revision, Mode: ModeAny,
		Flags: LoginSpectate, Code: exRoomCode}
	exLoginSpectateAny = Message{Type: MsgLoginRequest, Version: Version2, Name: "Newt", Revision: Revision, Mode: ModeAny,
		Flags: LoginSpectate}
	exLoginOKSpectate = func() Message {
		m := exLoginOK2
		m.Player, m.Tick, m.Revision, m.Mode = NoPlayer, 9000, Revision, ModeStage
		return m
	}()
	exSpectatorAccept = Accept{Player: NoPlayer, Tick: 9000}
	exSpectators      = Spectators{Count: 2, Names: [MaxSpectators]string{"Newt", "Burke"}}
)

// docSpectators checks that a frame decodes to want.
func docSpectators(want Spectators) func(b []byte) error {
	return func(b []byte) error {
		fr := FrameReader{R: bytes.NewReader(b)}
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		var sp Spectators
		if err := ParseSpectators(f, &sp); err != nil || sp != want {
			return errors.New("decoded differently: " + err2s(err))
		}
		return nil
	}
}

func docExamplesSpectate() []docExample {
	return []docExample{
		{
			name:   "v2-login-spectate",
			want:   "11 00 01 02 04 00 4E 65 77 74 04 00 02 4B 37 4D 58 32 51",
			encode: func() []byte { return AppendMessage2(nil, &exLoginSpectate) },
			decode: docMessage2(exLoginSpectate),
		},
		{
			name:   "v2-login-spectate-any",
			want:   "0B 00 01 02 04 00 4E 65 77 74 04 00 02",
			encode: func() []byte { return AppendMessage2(nil, &exLoginSpectateAny) },
			decode: docMessage2(exLoginSpectateAny),
		},
		{
			name:   "v2-login-accepted-spectate",
			want:   "1F 00 02 FF EF BE AD DE 01 02 03 04 05 06 07 08 28 23 00 00 68 01 21 11 00 05 D0 02 3C 03 08 02 04",
			encode: func() []byte { return AppendMessage2(nil, &exLoginOKSpectate) },
			decode: docMessage2(exLoginOKSpectate),
		},
		{
			name:   "v2-spectator-accept",
			want:   "FF 28 23 00 00",
			encode: func() []byte { return AppendAccept(nil, exSpectatorAccept) },
			decode: func(b []byte) error {
				if a, err := ParseSpectatorAccept(b); err != nil || a != exSpectatorAccept {
					return errors.New("decoded differently: " + err2s(err))
				}
				return nil
			},
		},
		{
			name:   "v2-spectators",
			want:   "0F 00 18 02 04 00 4E 65 77 74 05 00 42 75 72 6B 65",
			encode: func() []byte { return AppendSpectators(nil, &exSpectators) },
			decode: docSpectators(exSpectators),
		},
	}
}

func TestSpectatorsRoundTrip(t *testing.T) {
	full := Spectators{Count: MaxSpectators}
	for i := range full.Names {
		full.Names[i] = strings.Repeat("ω", MaxNameLen)
	}
	for _, sp := range []Spectators{{}, exSpectators, full} {
		b := AppendSpectators(nil, &sp)
		if len(b) > MaxFrame+2 {
			t.Fatalf("frame of %d bytes", len(b))
		}
		var got Spectators
		if err := ParseSpectators(b[2:], &got); err != nil || got != sp {
			t.Errorf("round trip %+v %v", got, err)
		}
		if err := ParseSpectators(append(b[2:], 7, 7), &got); err != nil || got != sp {
			t.Errorf("with a tail (7.1): %+v %v", got, err)
		}
		for n := 1; n < len(b)-2; n++ {
			if err := ParseSpectators(b[2:2+n], &got); err == nil {
				t.Errorf("cut to %d bytes: no error", n)
			}
		}
	}
	// A count past the bound is cut on the way out.
	over := exSpectators
	over.Count = 200
	var got Spectators
	if err := ParseSpectators(AppendSpectators(nil, &over)[2:], &got); err != nil || got.Count != MaxSpectators {
		t.Errorf("count 200 encoded as %d %v", got.Count, err)
	}
}

func TestSpectatorsRejects(t *testing.T) {
	var sp Spectators
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrFrameLength},
		{"another type", []byte{byte(MsgRoomState)}, ErrUnknownMessage},
		{"no count", []byte{byte(MsgSpectators)}, ErrMessageBody},
		{"9 spectators", append([]byte{byte(MsgSpectators), 9}, make([]byte, 18)...), ErrMessageBody},
		{"name past the frame", []byte{byte(MsgSpectators), 1, 9, 0, 'a'}, ErrMessageBody},
		{"name not UTF-8", []byte{byte(MsgSpectators), 1, 1, 0, 0xFF}, ErrMessageBody},
		{"name over 80 bytes", append([]byte{byte(MsgSpectators), 1, 81, 0}, bytes.Repeat([]byte{'a'}, 81)...), ErrMessageBody},
	} {
		if err := ParseSpectators(c.b, &sp); !errors.Is(err, c.want) || sp != (Spectators{}) {
			t.Errorf("%s: %v %+v, want %v and nothing", c.name, err, sp, c.want)
		}
	}
	if _, err := ParseSpectatorAccept([]byte{0, 0, 0, 0, 0}); !errors.Is(err, ErrPlayer) {
		t.Errorf("a spectator's Accept of player 0: %v", err)
	}
	if _, err := ParseSpectatorAccept([]byte{NoPlayer, 0, 0, 0}); !errors.Is(err, ErrPayloadSize) {
		t.Errorf("a short spectator's Accept: %v", err)
	}
	// A player's Accept of 255 stays invalid (2.3).
	if _, err := ParseAccept([]byte{NoPlayer, 0, 0, 0, 0}); err == nil {
		t.Error("ParseAccept took player 255")
	}
}

// TestLoginSpectateTail: the code follows the flags only with
// LoginSpectate; without it, six bytes after the flags are ignored (7.1),
// and a lobby request's bytes are those without a code.
func TestLoginSpectateTail(t *testing.T) {
	lobby := exLoginSpectate
	lobby.Flags = LoginLobby
	b := AppendMessage2(nil, &lobby)
	if !bytes.Equal(b, AppendMessage2(nil, &exLoginLobbyStage4)) {
		t.Errorf("a Lobby request with a Code carries it: % X", b)
	}
	m, err := ParseMessage2(append(slices.Clone(b[2:]), exRoomCode[:]...))
	if err != nil || m.Code != (RoomCode{}) {
		t.Errorf("code read without LoginSpectate: %+v %v", m, err)
	}
	short, err := ParseMessage2(AppendMessage2(nil, &exLoginSpectate)[2:17])
	if err != nil || short.Code != (RoomCode{}) || short.Flags != LoginSpectate {
		t.Errorf("a cut code: %+v %v", short, err)
	}
}

var exLoginLobbyStage4 = Message{Type: MsgLoginRequest, Version: Version2, Name: "Newt", Revision: Revision, Mode: ModeAny, Flags: LoginLobby}

// fuzzSpectators are the seeds of FuzzParseSpectators.
func fuzzSpectators() [][]byte {
	var seeds [][]byte
	for _, sp := range []Spectators{{}, exSpectators} {
		b := AppendSpectators(nil, &sp)[2:]
		seeds = append(seeds, b, append(slices.Clone(b), 9))
	}
	return append(seeds, []byte{byte(MsgSpectators), 1, 9, 0, 'a'}, []byte{byte(MsgSpectators), 200})
}

// FuzzParseSpectators decodes any frame as a Spectators message: a
// decoded one encodes to a prefix of the frame, and decodes again to
// itself.
func FuzzParseSpectators(f *testing.F) {
	for _, b := range fuzzSpectators() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || len(b) > MaxFrame {
			return
		}
		b[0] = byte(MsgSpectators)
		var sp Spectators
		if err := ParseSpectators(b, &sp); err != nil {
			return
		}
		got := AppendSpectators(nil, &sp)[2:]
		if !bytes.HasPrefix(b, got) {
			t.Fatalf("re-encoded % X\n is no prefix of % X", got, b)
		}
		var sp2 Spectators
		if err := ParseSpectators(got, &sp2); err != nil || sp2 != sp {
			t.Fatalf("re-parsed %+v %v", sp2, err)
		}
	})
}
