package wire2

import (
	"bytes"
	"fmt"
	"rtype/net/wire"
	"slices"
)

// The worked examples of 7.1 (the v2 login) and 7.12 (Stage mode). The
// story goes on: the client of Part II logs in and plays.

var (
	exLoginReq  = wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: "Ripley", Revision: wire.Revision, Mode: wire.ModeClassic}
	exStageBoss = wire.Event{Type: wire.EventStage, Tick: 9000, What: wire.StageBoss, Value: 0x31, Name: "Dobkeratops"}
	exHealth    = wire.Event{Type: wire.EventHealth, Tick: 9001, ID: 0x31, HP: 750, MaxHP: 800}
	exArms      = wire.Event{Type: wire.EventArms, Tick: 617, Player: 0,
		Arms: wire.Arms{Force: 2, Laser: wire.LaserBlue, Speed: 1, Bits: 2, ForceAt: wire.ForceFront}}
)

// docMessage2 checks that a frame decodes, in a v2 session, to want.
func docMessage(want wire.Message) func(b []byte) error {
	return func(b []byte) error {
		fr := wire.FrameReader{R: bytes.NewReader(b)}
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		m, err := ParseMessage(f)
		if err != nil || m != want {
			return fmt.Errorf("decoded %+v %v", m, err)
		}
		return nil
	}
}

func docExamplesMore() []docExample {
	message := docMessage
	event := func(want wire.Event) func(b []byte) error {
		return func(b []byte) error {
			var ev wire.Event
			if err := ParseEvent(b, &ev); err != nil || ev != want {
				return fmt.Errorf("decoded %+v %v", ev, err)
			}
			return nil
		}
	}
	return append([]docExample{
		{
			Name:   "v2-login-request",
			Want:   "0C 00 01 02 06 00 52 69 70 6C 65 79 04 01",
			Encode: func() []byte { return AppendMessage(nil, &exLoginReq) },
			Decode: message(exLoginReq),
		},
		{
			Name:   "v2-stage",
			Want:   "07 28 23 00 00 05 31 00 00 00 0B 44 6F 62 6B 65 72 61 74 6F 70 73",
			Encode: func() []byte { return AppendEvent(nil, &exStageBoss) },
			Decode: event(exStageBoss),
		},
		{
			Name:   "v2-health",
			Want:   "08 29 23 00 00 31 00 00 00 EE 02 20 03",
			Encode: func() []byte { return AppendEvent(nil, &exHealth) },
			Decode: event(exHealth),
		},
		{
			Name:   "v2-arms",
			Want:   "09 69 02 00 00 00 02 01 01 02 01",
			Encode: func() []byte { return AppendEvent(nil, &exArms) },
			Decode: event(exArms),
		},
	}, slices.Concat(docExamplesChat(), docExamplesRoom(), docExamplesScores(), docExamplesSpectate())...)
}
