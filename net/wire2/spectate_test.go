package wire2

import (
	"bytes"
	"errors"
	"rtype/net/wire"
	"slices"
	"strings"
	"testing"
)

// The worked examples of 7.17 (spectators): Newt watches the game
// of room K7MX2Q at tick 9000; Burke watches with her.
var (
	exLoginSpectate = wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: "Newt", Revision: wire.Revision, Mode: wire.ModeAny,
		Flags: wire.LoginSpectate, Code: exRoomCode}
	exLoginSpectateAny = wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: "Newt", Revision: wire.Revision, Mode: wire.ModeAny,
		Flags: wire.LoginSpectate}
	exLoginOKSpectate = func() wire.Message {
		m := exLoginOK
		m.Player, m.Tick, m.Revision, m.Mode = wire.NoPlayer, 9000, wire.Revision, wire.ModeStage
		return m
	}()
	exSpectatorAccept = wire.Accept{Player: wire.NoPlayer, Tick: 9000}
	exSpectators      = wire.Spectators{Count: 2, Names: [wire.MaxSpectators]string{"Newt", "Burke"}}
)

// docSpectators checks that a frame decodes to want.
func docSpectators(want wire.Spectators) func(b []byte) error {
	return func(b []byte) error {
		fr := wire.FrameReader{R: bytes.NewReader(b)}
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		var sp wire.Spectators
		if err := wire.ParseSpectators(f, &sp); err != nil || sp != want {
			return errors.New("decoded differently: " + err2s(err))
		}
		return nil
	}
}

func docExamplesSpectate() []docExample {
	return []docExample{
		{
			Name:   "v2-login-spectate",
			Want:   "11 00 01 02 04 00 4E 65 77 74 04 00 02 4B 37 4D 58 32 51",
			Encode: func() []byte { return AppendMessage(nil, &exLoginSpectate) },
			Decode: docMessage(exLoginSpectate),
		},
		{
			Name:   "v2-login-spectate-any",
			Want:   "0B 00 01 02 04 00 4E 65 77 74 04 00 02",
			Encode: func() []byte { return AppendMessage(nil, &exLoginSpectateAny) },
			Decode: docMessage(exLoginSpectateAny),
		},
		{
			Name:   "v2-login-accepted-spectate",
			Want:   "1F 00 02 FF EF BE AD DE 01 02 03 04 05 06 07 08 28 23 00 00 68 01 21 11 00 05 D0 02 3C 03 08 02 04",
			Encode: func() []byte { return AppendMessage(nil, &exLoginOKSpectate) },
			Decode: docMessage(exLoginOKSpectate),
		},
		{
			Name:   "v2-spectator-accept",
			Want:   "FF 28 23 00 00",
			Encode: func() []byte { return wire.AppendAccept(nil, exSpectatorAccept) },
			Decode: func(b []byte) error {
				if a, err := wire.ParseSpectatorAccept(b); err != nil || a != exSpectatorAccept {
					return errors.New("decoded differently: " + err2s(err))
				}
				return nil
			},
		},
		{
			Name:   "v2-spectators",
			Want:   "0F 00 18 02 04 00 4E 65 77 74 05 00 42 75 72 6B 65",
			Encode: func() []byte { return wire.AppendSpectators(nil, &exSpectators) },
			Decode: docSpectators(exSpectators),
		},
	}
}

func TestSpectatorsRoundTrip(t *testing.T) {
	full := wire.Spectators{Count: wire.MaxSpectators}
	for i := range full.Names {
		full.Names[i] = strings.Repeat("ω", wire.MaxNameLen)
	}
	for _, sp := range []wire.Spectators{{}, exSpectators, full} {
		b := wire.AppendSpectators(nil, &sp)
		if len(b) > wire.MaxFrame+2 {
			t.Fatalf("frame of %d bytes", len(b))
		}
		var got wire.Spectators
		if err := wire.ParseSpectators(b[2:], &got); err != nil || got != sp {
			t.Errorf("round trip %+v %v", got, err)
		}
		if err := wire.ParseSpectators(append(b[2:], 7, 7), &got); err != nil || got != sp {
			t.Errorf("with a tail (7.1): %+v %v", got, err)
		}
		for n := 1; n < len(b)-2; n++ {
			if err := wire.ParseSpectators(b[2:2+n], &got); err == nil {
				t.Errorf("cut to %d bytes: no error", n)
			}
		}
	}
	// A count past the bound is cut on the way out.
	over := exSpectators
	over.Count = 200
	var got wire.Spectators
	if err := wire.ParseSpectators(wire.AppendSpectators(nil, &over)[2:], &got); err != nil || got.Count != wire.MaxSpectators {
		t.Errorf("count 200 encoded as %d %v", got.Count, err)
	}
}

func TestSpectatorsRejects(t *testing.T) {
	var sp wire.Spectators
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, wire.ErrFrameLength},
		{"another type", []byte{byte(wire.MsgRoomState)}, wire.ErrUnknownMessage},
		{"no count", []byte{byte(wire.MsgSpectators)}, wire.ErrMessageBody},
		{"9 spectators", append([]byte{byte(wire.MsgSpectators), 9}, make([]byte, 18)...), wire.ErrMessageBody},
		{"name past the frame", []byte{byte(wire.MsgSpectators), 1, 9, 0, 'a'}, wire.ErrMessageBody},
		{"name not UTF-8", []byte{byte(wire.MsgSpectators), 1, 1, 0, 0xFF}, wire.ErrMessageBody},
		{"name over 80 bytes", append([]byte{byte(wire.MsgSpectators), 1, 81, 0}, bytes.Repeat([]byte{'a'}, 81)...), wire.ErrMessageBody},
	} {
		if err := wire.ParseSpectators(c.b, &sp); !errors.Is(err, c.want) || sp != (wire.Spectators{}) {
			t.Errorf("%s: %v %+v, want %v and nothing", c.name, err, sp, c.want)
		}
	}
	if _, err := wire.ParseSpectatorAccept([]byte{0, 0, 0, 0, 0}); !errors.Is(err, wire.ErrPlayer) {
		t.Errorf("a spectator's Accept of player 0: %v", err)
	}
	if _, err := wire.ParseSpectatorAccept([]byte{wire.NoPlayer, 0, 0, 0}); !errors.Is(err, wire.ErrPayloadSize) {
		t.Errorf("a short spectator's Accept: %v", err)
	}
	// A player's Accept of 255 stays invalid (2.3).
	if _, err := wire.ParseAccept([]byte{wire.NoPlayer, 0, 0, 0, 0}); err == nil {
		t.Error("ParseAccept took player 255")
	}
}

// TestLoginSpectateTail: the code follows the flags only with
// LoginSpectate; without it, six bytes after the flags are ignored (7.1),
// and a lobby request's bytes are those without a code.
func TestLoginSpectateTail(t *testing.T) {
	lobby := exLoginSpectate
	lobby.Flags = wire.LoginLobby
	b := AppendMessage(nil, &lobby)
	if !bytes.Equal(b, AppendMessage(nil, &exLoginLobbyStage4)) {
		t.Errorf("a Lobby request with a Code carries it: % X", b)
	}
	m, err := ParseMessage(append(slices.Clone(b[2:]), exRoomCode[:]...))
	if err != nil || m.Code != (wire.RoomCode{}) {
		t.Errorf("code read without LoginSpectate: %+v %v", m, err)
	}
	short, err := ParseMessage(AppendMessage(nil, &exLoginSpectate)[2:17])
	if err != nil || short.Code != (wire.RoomCode{}) || short.Flags != wire.LoginSpectate {
		t.Errorf("a cut code: %+v %v", short, err)
	}
}

var exLoginLobbyStage4 = wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: "Newt", Revision: wire.Revision, Mode: wire.ModeAny, Flags: wire.LoginLobby}

// fuzzSpectators are the seeds of FuzzParseSpectators.
func fuzzSpectators() [][]byte {
	var seeds [][]byte
	for _, sp := range []wire.Spectators{{}, exSpectators} {
		b := wire.AppendSpectators(nil, &sp)[2:]
		seeds = append(seeds, b, append(slices.Clone(b), 9))
	}
	return append(seeds, []byte{byte(wire.MsgSpectators), 1, 9, 0, 'a'}, []byte{byte(wire.MsgSpectators), 200})
}

// FuzzParseSpectators decodes any frame as a Spectators message: a
// decoded one encodes to a prefix of the frame, and decodes again to
// itself.
func FuzzParseSpectators(f *testing.F) {
	for _, b := range fuzzSpectators() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || len(b) > wire.MaxFrame {
			return
		}
		b[0] = byte(wire.MsgSpectators)
		var sp wire.Spectators
		if err := wire.ParseSpectators(b, &sp); err != nil {
			return
		}
		got := wire.AppendSpectators(nil, &sp)[2:]
		if !bytes.HasPrefix(b, got) {
			t.Fatalf("re-encoded % X\n is no prefix of % X", got, b)
		}
		var sp2 wire.Spectators
		if err := wire.ParseSpectators(got, &sp2); err != nil || sp2 != sp {
			t.Fatalf("re-parsed %+v %v", sp2, err)
		}
	})
}
