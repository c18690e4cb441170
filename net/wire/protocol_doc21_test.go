package wire

import (
	"bytes"
	"fmt"
	"slices"
)

// The worked examples of 7.12 (Stage mode, v2.1). The story goes on: the
// client of Part II logs in with version 2.1 and plays a Stage game.

var (
	exLoginReq21 = Message{Type: MsgLoginRequest, Version: Version2, Name: "Ripley", Minor: 1, Mode: ModeStage}
	exLoginOK21  = func() Message { m := exLoginOK2; m.Minor, m.Mode = 1, ModeStage; return m }()
	exLoginOK22  = func() Message { m := exLoginOK21; m.Minor = 2; return m }()
	exLoginReq23 = Message{Type: MsgLoginRequest, Version: Version2, Name: "Ripley", Minor: 3, Mode: ModeClassic}
	exLoginOK23  = func() Message { m := exLoginOK21; m.Minor, m.Mode = 3, ModeClassic; return m }()
	exLoginReq24 = Message{Type: MsgLoginRequest, Version: Version2, Name: "Ripley", Minor: 4, Mode: ModeClassic}
	exLoginOK24  = func() Message { m := exLoginOK21; m.Minor, m.Mode = 4, ModeClassic; return m }()
	exStageBoss  = Event{Type: EventStage, Tick: 9000, What: StageBoss, Value: 0x31, Name: "Dobkeratops"}
	exHealth     = Event{Type: EventHealth, Tick: 9001, ID: 0x31, HP: 750, MaxHP: 800}
	exArms       = Event{Type: EventArms, Tick: 617, Player: 0,
		Arms: Arms{Force: 2, Laser: LaserBlue, Speed: 1, Bits: 2, ForceAt: ForceFront}}
)

// docMessage2 checks that a frame decodes, in a v2 session, to want.
func docMessage2(want Message) func(b []byte) error {
	return func(b []byte) error {
		fr := FrameReader{R: bytes.NewReader(b)}
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		m, err := ParseMessage2(f)
		if err != nil || m != want {
			return fmt.Errorf("decoded %+v %v", m, err)
		}
		return nil
	}
}

func docExamples21() []docExample {
	message := docMessage2
	event := func(want Event) func(b []byte) error {
		return func(b []byte) error {
			var ev Event
			if err := ParseEvent2(b, &ev); err != nil || ev != want {
				return fmt.Errorf("decoded %+v %v", ev, err)
			}
			return nil
		}
	}
	return append([]docExample{
		{
			name:   "v21-login-request",
			want:   "0C 00 01 02 06 00 52 69 70 6C 65 79 01 02",
			encode: func() []byte { return AppendMessage2(nil, &exLoginReq21) },
			decode: message(exLoginReq21),
		},
		{
			name:   "v21-login-accepted",
			want:   "1E 00 02 00 EF BE AD DE 01 02 03 04 05 06 07 08 58 02 00 00 68 01 21 11 00 05 D0 02 3C 03 08 02",
			encode: func() []byte { return AppendMessage2(nil, &exLoginOK21) },
			decode: message(exLoginOK21),
		},
		{
			name:   "v22-login-accepted",
			want:   "1F 00 02 00 EF BE AD DE 01 02 03 04 05 06 07 08 58 02 00 00 68 01 21 11 00 05 D0 02 3C 03 08 02 02",
			encode: func() []byte { return AppendMessage2(nil, &exLoginOK22) },
			decode: message(exLoginOK22),
		},
		{
			name:   "v23-login-request",
			want:   "0C 00 01 02 06 00 52 69 70 6C 65 79 03 01",
			encode: func() []byte { return AppendMessage2(nil, &exLoginReq23) },
			decode: message(exLoginReq23),
		},
		{
			name:   "v23-login-accepted",
			want:   "1F 00 02 00 EF BE AD DE 01 02 03 04 05 06 07 08 58 02 00 00 68 01 21 11 00 05 D0 02 3C 03 08 01 03",
			encode: func() []byte { return AppendMessage2(nil, &exLoginOK23) },
			decode: message(exLoginOK23),
		},
		{
			name:   "v24-login-request",
			want:   "0C 00 01 02 06 00 52 69 70 6C 65 79 04 01",
			encode: func() []byte { return AppendMessage2(nil, &exLoginReq24) },
			decode: message(exLoginReq24),
		},
		{
			name:   "v24-login-accepted",
			want:   "1F 00 02 00 EF BE AD DE 01 02 03 04 05 06 07 08 58 02 00 00 68 01 21 11 00 05 D0 02 3C 03 08 01 04",
			encode: func() []byte { return AppendMessage2(nil, &exLoginOK24) },
			decode: message(exLoginOK24),
		},
		{
			name:   "v21-stage",
			want:   "07 28 23 00 00 05 31 00 00 00 0B 44 6F 62 6B 65 72 61 74 6F 70 73",
			encode: func() []byte { return AppendEvent2(nil, &exStageBoss) },
			decode: event(exStageBoss),
		},
		{
			name:   "v21-health",
			want:   "08 29 23 00 00 31 00 00 00 EE 02 20 03",
			encode: func() []byte { return AppendEvent2(nil, &exHealth) },
			decode: event(exHealth),
		},
		{
			name:   "v21-arms",
			want:   "09 69 02 00 00 00 02 01 01 02 01",
			encode: func() []byte { return AppendEvent2(nil, &exArms) },
			decode: event(exArms),
		},
	}, slices.Concat(docExamplesChat(), docExamplesRoom(), docExamplesScores(), docExamplesSpectate())...)
}
