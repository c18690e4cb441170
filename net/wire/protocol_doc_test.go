package wire

import (
	"bytes"
	"fmt"
	"io"
	"rtype/internal/protodoc"
	"slices"
	"testing"
)

// docExample is one worked example of PROTOCOL.md (protodoc.Example):
// how our codec encodes it, the bytes the rules give (worked out by hand,
// independently of the codec), and a check that decoding the bytes gives
// the example back.
type docExample = protodoc.Example

var (
	exToken   = Token{1, 2, 3, 4, 5, 6, 7, 8}
	exSpawn   = Event{Type: EventSpawn, Tick: 612, ID: 9, Kind: KindPlayerMissile, X: 120, Y: 360, VX: 900, Owner: 0}
	exDestroy = Event{Type: EventDestroy, Tick: 650, ID: 9, Reason: DestroyConsumed, X: 1000, Y: 360}
	exH48     = Header{Type: TypeSnapshot, Seq: 0x25, Ack: 0x40, AckBits: 0xFFFFFFFF, Session: 0xDEADBEEF}
	exInputH  = Header{Type: TypeInput, Seq: 0x0102, Ack: 0x0025, AckBits: 1, Session: 0xDEADBEEF}
	exBindH   = Header{Type: TypeBind, Seq: 0, Ack: 0xFFFF, AckBits: 0, Session: 0xDEADBEEF}
	exAcceptH = Header{Type: TypeAccept, Seq: 0, Ack: 0, AckBits: 0, Session: 0xDEADBEEF}
	exLogin   = Message{Type: MsgLoginRequest, Version: 1, Name: "Ripley"}
	exLoginOK = Message{Type: MsgLoginAccepted, Player: 0, Session: 0xDEADBEEF, Token: exToken, Tick: 600}
)

func docExamples() []docExample {
	ship603 := MakeEntity(2, KindPlayerShip, 105, 360, 300, 0, 0)
	bydos := MakeEntity(5, KindBydosSlave, 1300, 200, -120, 0, 1)
	checkHeader := func(b []byte, d Direction, want Header, payload []byte) error {
		h, p, err := ParseHeader(b, d)
		if err != nil {
			return err
		}
		if h != want || !bytes.Equal(p, payload) {
			return fmt.Errorf("decoded %+v payload % X", h, p)
		}
		return nil
	}
	checkMessage := func(b []byte, want Message) error {
		fr := FrameReader{R: bytes.NewReader(b)}
		m, err := fr.ReadMessage()
		if err != nil {
			return err
		}
		if m != want {
			return fmt.Errorf("decoded %+v", m)
		}
		if _, err := fr.ReadMessage(); err != io.EOF {
			return fmt.Errorf("after the frame: %v, want io.EOF", err)
		}
		return nil
	}
	return []docExample{
		{
			Name: "snapshot-4.7",
			Want: seed47,
			Encode: func() []byte {
				var enc SnapshotEncoder
				p := enc.Encode(600, seedPlayers, nil, 0, []Entity{seedShip600})
				if len(p) != 1 {
					return nil
				}
				return p[0]
			},
			Decode: func(b []byte) error {
				var s Snapshot
				if err := s.Decode(b); err != nil {
					return err
				}
				if s.Tick != 600 || !slices.Equal(s.PlayerStates(), seedPlayers) || s.HasBaseline ||
					len(s.Records) != 1 || s.Records[0].Change != Added || s.Records[0].Entity != seedShip600 {
					return fmt.Errorf("decoded %+v", s)
				}
				return nil
			},
		},
		{
			Name:   "spawn-4.7",
			Want:   seedSpwn,
			Encode: func() []byte { return AppendEvent(nil, &exSpawn) },
			Decode: func(b []byte) error {
				var ev Event
				if err := ParseEvent(b, &ev); err != nil {
					return err
				}
				if ev != exSpawn {
					return fmt.Errorf("decoded %+v", ev)
				}
				return nil
			},
		},
		{
			Name:   "header-4.8",
			Want:   seed48h,
			Encode: func() []byte { return AppendHeader(nil, exH48) },
			Decode: func(b []byte) error { return checkHeader(b, ToClient, exH48, nil) },
		},
		{
			Name: "snapshot-4.8",
			Want: seed48p,
			Encode: func() []byte {
				var enc SnapshotEncoder
				p := enc.Encode(603, seedPlayers, []Entity{seedShip600}, 600, []Entity{ship603, bydos})
				if len(p) != 1 {
					return nil
				}
				return p[0]
			},
			Decode: func(b []byte) error {
				var s Snapshot
				if err := s.Decode(b); err != nil {
					return err
				}
				if s.Tick != 603 || !s.HasBaseline || s.BaselineAge != 3 || !slices.Equal(s.PlayerStates(), seedPlayers) {
					return fmt.Errorf("decoded %+v", s)
				}
				w, err := ApplyRecords(nil, []Entity{seedShip600}, s.Records)
				if err != nil {
					return err
				}
				if !slices.Equal(w, []Entity{ship603, bydos}) {
					return fmt.Errorf("rebuilt %+v", w)
				}
				return nil
			},
		},
		{
			Name:   "input",
			Want:   "52 54 59 50 01 03 02 01 25 00 01 00 00 00 EF BE AD DE 18",
			Encode: func() []byte { return append(AppendHeader(nil, exInputH), ActionRight|ActionFire) },
			Decode: func(b []byte) error { return checkHeader(b, ToServer, exInputH, []byte{0x18}) },
		},
		{
			Name: "events",
			Want: "02 07 00 1B" + seedSpwn +
				"08 00 12 02 8A 02 00 00 09 00 00 00 02 00 00 7A 44 00 00 B4 43",
			Encode: func() []byte {
				p := AppendEventFrame([]byte{2}, 7, AppendEvent(nil, &exSpawn))
				return AppendEventFrame(p, 8, AppendEvent(nil, &exDestroy))
			},
			Decode: func(b []byte) error {
				frames, err := ParseEventFrames(b, nil)
				if err != nil {
					return err
				}
				if len(frames) != 2 || frames[0].ID != 7 || frames[1].ID != 8 {
					return fmt.Errorf("frames %+v", frames)
				}
				for i, want := range []Event{exSpawn, exDestroy} {
					var ev Event
					if err := ParseEvent(frames[i].Data, &ev); err != nil {
						return err
					}
					if ev != want {
						return fmt.Errorf("event %d decoded %+v", i, ev)
					}
				}
				return nil
			},
		},
		{
			Name:   "bind",
			Want:   "52 54 59 50 01 01 00 00 FF FF 00 00 00 00 EF BE AD DE 01 02 03 04 05 06 07 08",
			Encode: func() []byte { return append(AppendHeader(nil, exBindH), exToken[:]...) },
			Decode: func(b []byte) error { return checkHeader(b, ToServer, exBindH, exToken[:]) },
		},
		{
			Name: "accept",
			Want: "52 54 59 50 01 02 00 00 00 00 00 00 00 00 EF BE AD DE 00 58 02 00 00",
			Encode: func() []byte {
				return AppendAccept(AppendHeader(nil, exAcceptH), Accept{Player: 0, Tick: 600})
			},
			Decode: func(b []byte) error {
				if err := checkHeader(b, ToClient, exAcceptH, []byte{0, 0x58, 2, 0, 0}); err != nil {
					return err
				}
				a, err := ParseAccept(b[HeaderSize:])
				if err != nil {
					return err
				}
				if a != (Accept{Player: 0, Tick: 600}) {
					return fmt.Errorf("decoded %+v", a)
				}
				return nil
			},
		},
		{
			Name:   "login-request",
			Want:   "0A 00 01 01 06 00 52 69 70 6C 65 79",
			Encode: func() []byte { return AppendMessage(nil, &exLogin) },
			Decode: func(b []byte) error { return checkMessage(b, exLogin) },
		},
		{
			Name:   "login-accepted",
			Want:   "12 00 02 00 EF BE AD DE 01 02 03 04 05 06 07 08 58 02 00 00",
			Encode: func() []byte { return AppendMessage(nil, &exLoginOK) },
			Decode: func(b []byte) error { return checkMessage(b, exLoginOK) },
		},
	}
}

// TestKnownBytes checks the codec against the bytes of each example as
// the rules give them, whether PROTOCOL.md exists or not.
func TestKnownBytes(t *testing.T) { protodoc.CheckBytes(t, docExamples()) }

// TestProtocolDoc checks every worked example of PROTOCOL.md: our codec
// must produce exactly its bytes, and decode them back.
func TestProtocolDoc(t *testing.T) {
	protodoc.CheckDoc(t, "../../PROTOCOL.md", docExamples())
}
