package wire

import (
	"bytes"
	"fmt"
	"math"
	"net/netip"
	"slices"
)

// The worked examples of Part II (protocol v2) of PROTOCOL.md. The story
// continues v1's: session 0xDEADBEEF, player 0 "Ripley", token 01...08.

var (
	exH2 = Header2{Header: Header{Type: TypeSnapshot, Seq: 0x25, Ack: 0x40, AckBits: 0xFFFFFFFF, Session: 0xDEADBEEF}, AckDelay: 170}

	exLoginOK2 = Message{Type: MsgLoginAccepted, Player: 0, Session: 0xDEADBEEF, Token: exToken, Tick: 600,
		Ext:  LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8},
		Mode: ModeClassic, Revision: Revision}

	// The cookie example: the server's secret is the bytes 00 to 1F, the
	// client's address 192.0.2.7:40000, the time 1 800 000 005 s (epoch
	// 180 000 000).
	exSecret = func() []byte {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}()
	exAddr    = netip.MustParseAddrPort("192.0.2.7:40000")
	exNow     = int64(1_800_000_005)
	exCookieH = Header2{Header: Header{Type: TypeChallenge, Seq: 0, Ack: 0xFFFF, Session: 0xDEADBEEF}}
	exBindCH  = Header2{Header: Header{Type: TypeBind, Seq: 1, Ack: 0, Session: 0xDEADBEEF}, AckDelay: 3}

	exSineBydos = Sine(612, 1300, 200, -120, 40, 120, math.Pi/2)
	exBydosAnim = Anim{Ticks: 6, Count: 8}
	exSpawn2    = Event{Type: EventSpawn, Tick: 612, ID: 5, Kind: KindBydosSlave, Owner: NoPlayer, Motion: exSineBydos, Anim: exBydosAnim}

	exPlayers2 = []Player2{{PlayerState: PlayerState{Player: 0, HasShip: true, Ship: 2, Lives: 3, Score: 0},
		InvulnStart: 600, InvulnTicks: 120, HasStep: true, LastStep: 14}}
	exPlayers618 = []Player2{{PlayerState: exPlayers2[0].PlayerState, InvulnStart: 600, InvulnTicks: 120, HasStep: true, LastStep: 17}}
	exShipM615   = Linear(611, 100, 180, 360, 0)
	exShipM618   = Motion{Model: ModelLinear, T0: 616, X0: QuantizePos(130), Y0: QuantizePos(180), VX: 4073, VY: -4073}
	exMissileM   = Linear(617, 154.25, 175.75, 900, 0)
	exWorld615   = []Entity2{MakeEntity2(2, KindPlayerShip, &exShipM615, Anim{}), MakeEntity2(5, KindBydosSlave, &exSineBydos, exBydosAnim)}
	exWorld618   = []Entity2{MakeEntity2(2, KindPlayerShip, &exShipM618, Anim{Frame0: 1}), exWorld615[1], MakeEntity2(9, KindPlayerMissile, &exMissileM, Anim{})}
	exEventH2    = Header2{Header: Header{Type: TypeEvent, Seq: 0x26, Ack: 0x41, AckBits: 0xFFFFFFFF, Session: 0xDEADBEEF}, AckDelay: 40}
	exSpawnM2    = Event{Type: EventSpawn, Tick: 617, ID: 9, Kind: KindPlayerMissile, Owner: 0, Motion: exMissileM}
	exInputH2    = Header2{Header: Header{Type: TypeInput, Seq: 0x0102, Ack: 0x0025, AckBits: 1, Session: 0xDEADBEEF}, AckDelay: 25}
	exInput2     = Input2{Step: 17, Count: 4, Actions: [MaxInputActions2]uint8{ActionUp | ActionRight | ActionFire, ActionRight, ActionRight, ActionRight}}
	exDestroyB2  = Event{Type: EventDestroy, Tick: 650, ID: 5, Reason: DestroyKilled, X: 900, Y: 240}
)

func docExamples2() []docExample {
	checkHeader2 := func(b []byte, d Direction, want Header2, payload []byte) error {
		h, p, err := ParseHeader2(b, d)
		if err != nil {
			return err
		}
		if h != want || !bytes.Equal(p, payload) {
			return fmt.Errorf("decoded %+v payload % X", h, p)
		}
		return nil
	}
	cookie := func() Cookie { return NewCookieMAC(exSecret).Cookie(CookieEpoch(exNow), exAddr, 0xDEADBEEF) }
	snapshot := func(tick uint32, players, basePlayers []Player2, base []Entity2, baseTick uint32, cur []Entity2) []byte {
		var enc Snapshot2Encoder
		p := enc.Encode(tick, players, basePlayers, base, baseTick, cur)
		if len(p) != 1 {
			return nil
		}
		return p[0]
	}
	decodeSnapshot := func(b []byte, tick uint32, players, basePlayers []Player2, base []Entity2, want []Entity2) error {
		var s Snapshot2
		if err := s.Decode(b); err != nil {
			return err
		}
		if s.Tick != tick || s.HasBaseline != (base != nil) {
			return fmt.Errorf("decoded %+v", s)
		}
		pl, err := ApplyPlayers2(nil, basePlayers, s.PlayerRecords())
		if err != nil || !slices.Equal(pl, players) {
			return fmt.Errorf("players %+v %v", pl, err)
		}
		w, err := ApplyRecords2(nil, base, s.Records)
		if err != nil {
			return err
		}
		if !slices.Equal(w, want) {
			return fmt.Errorf("rebuilt %+v", w)
		}
		return nil
	}
	return append([]docExample{
		{
			name:   "v2-header",
			want:   "52 54 59 50 02 04 25 00 40 00 FF FF FF FF EF BE AD DE AA 00",
			encode: func() []byte { return AppendHeader2(nil, exH2) },
			decode: func(b []byte) error { return checkHeader2(b, ToClient, exH2, nil) },
		},
		{
			name:   "v2-login-accepted",
			want:   "1F 00 02 00 EF BE AD DE 01 02 03 04 05 06 07 08 58 02 00 00 68 01 21 11 00 05 D0 02 3C 03 08 01 04",
			encode: func() []byte { return AppendMessage2(nil, &exLoginOK2) },
			decode: func(b []byte) error {
				fr := FrameReader{R: bytes.NewReader(b)}
				f, err := fr.ReadFrame()
				if err != nil {
					return err
				}
				m, err := ParseMessage2(f)
				if err != nil || m != exLoginOK2 {
					return fmt.Errorf("decoded %+v %v", m, err)
				}
				return nil
			},
		},
		{
			name: "v2-challenge",
			want: "52 54 59 50 02 07 00 00 FF FF 00 00 00 00 EF BE AD DE 00 00 7F 7D 54 AF 74 77 F3 3E",
			encode: func() []byte {
				c := cookie()
				return append(AppendHeader2(nil, exCookieH), c[:]...)
			},
			decode: func(b []byte) error {
				c := cookie()
				if !NewCookieMAC(exSecret).Check(exNow, exAddr, 0xDEADBEEF, Cookie(b[HeaderSize2:])) {
					return fmt.Errorf("cookie refused")
				}
				return checkHeader2(b, ToClient, exCookieH, c[:])
			},
		},
		{
			name: "v2-bind-cookie",
			want: "52 54 59 50 02 01 01 00 00 00 00 00 00 00 EF BE AD DE 03 00 01 02 03 04 05 06 07 08 7F 7D 54 AF 74 77 F3 3E",
			encode: func() []byte {
				return AppendBind2(AppendHeader2(nil, exBindCH), Bind2{Token: exToken, HasCookie: true, Cookie: cookie()})
			},
			decode: func(b []byte) error {
				if err := checkHeader2(b, ToServer, exBindCH, AppendBind2(nil, Bind2{Token: exToken, HasCookie: true, Cookie: cookie()})); err != nil {
					return err
				}
				bd, err := ParseBind2(b[HeaderSize2:])
				if err != nil || bd.Token != exToken || !bd.HasCookie || !NewCookieMAC(exSecret).Check(exNow+3, exAddr, 0xDEADBEEF, bd.Cookie) {
					return fmt.Errorf("bind %+v %v", bd, err)
				}
				return nil
			},
		},
		{
			name:   "v2-input",
			want:   "52 54 59 50 02 03 02 01 25 00 01 00 00 00 EF BE AD DE 19 00 11 00 00 00 04 19 08 08 08",
			encode: func() []byte { return AppendInput2(AppendHeader2(nil, exInputH2), &exInput2) },
			decode: func(b []byte) error {
				if err := checkHeader2(b, ToServer, exInputH2, AppendInput2(nil, &exInput2)); err != nil {
					return err
				}
				var in Input2
				if err := ParseInput2(b[HeaderSize2:], &in); err != nil || in != exInput2 {
					return fmt.Errorf("input %+v %v", in, err)
				}
				if a, ok := in.At(15); !ok || a != ActionRight {
					return fmt.Errorf("step 15: %#x %v", a, ok)
				}
				return nil
			},
		},
		{
			name:   "v2-spawn",
			want:   "01 64 02 00 00 05 00 00 00 03 FF 02 64 02 00 00 A0 28 40 06 80 F8 00 00 40 01 78 00 00 40 00 06 08",
			encode: func() []byte { return AppendEvent2(nil, &exSpawn2) },
			decode: func(b []byte) error {
				var ev Event
				if err := ParseEvent2(b, &ev); err != nil || ev != exSpawn2 {
					return fmt.Errorf("decoded %+v %v", ev, err)
				}
				return nil
			},
		},
		{
			name:   "v2-snapshot-full",
			want:   "67 02 00 00 61 81 01 80 0F 78 1D 08 00 08 00 84 CF 04 20 03 A0 05 80 16 11 30 00 50 3F FF 01 50 14 20 03 40 7C 19 30 40 00 0A C0 03 00 00 02",
			encode: func() []byte { return snapshot(615, exPlayers2, nil, nil, 0, exWorld615) },
			decode: func(b []byte) error { return decodeSnapshot(b, 615, exPlayers2, nil, nil, exWorld615) },
		},
		{
			name:   "v2-snapshot-delta",
			want:   "6A 02 00 00 C1 88 03 02 00 02 00 D8 2E 00 41 90 FE 70 01 1F 70 00 10 3E 07 48 13 F8 15 00 E1 84 00",
			encode: func() []byte { return snapshot(618, exPlayers618, exPlayers2, exWorld615, 615, exWorld618) },
			decode: func(b []byte) error { return decodeSnapshot(b, 618, exPlayers618, exPlayers2, exWorld615, exWorld618) },
		},
		{
			name: "v2-events",
			want: "52 54 59 50 02 05 26 00 41 00 FF FF FF FF EF BE AD DE 28 00 02 70 11 01 00 21 01 69 02 00 00 09 00 00 00 02 00 01 69 02 00 00 D2 04 7E 05 40 38 00 00 00 00 00 00 00 00 00 00 00 71 11 01 00 12 02 8A 02 00 00 05 00 00 00 01 00 00 61 44 00 00 70 43",
			encode: func() []byte {
				p := AppendEventFrame2(append(AppendHeader2(nil, exEventH2), 2), 70000, AppendEvent2(nil, &exSpawnM2))
				return AppendEventFrame2(p, 70001, AppendEvent2(nil, &exDestroyB2))
			},
			decode: func(b []byte) error {
				h, p, err := ParseHeader2(b, ToClient)
				if err != nil || h != exEventH2 {
					return fmt.Errorf("header %+v %v", h, err)
				}
				frames, err := ParseEventFrames2(p, nil)
				if err != nil || len(frames) != 2 || frames[0].ID != 70000 || frames[1].ID != 70001 {
					return fmt.Errorf("frames %+v %v", frames, err)
				}
				for i, want := range []Event{exSpawnM2, exDestroyB2} {
					var ev Event
					if err := ParseEvent2(frames[i].Data, &ev); err != nil || ev != want {
						return fmt.Errorf("event %d: %+v %v", i, ev, err)
					}
				}
				return nil
			},
		},
		{
			// 7.8: the delta snapshot with the missile's Spawn (event
			// 70000 of 7.7) in its tail.
			name: "v2-snapshot-events",
			want: "52 54 59 50 02 04 25 00 40 00 FF FF FF FF EF BE AD DE AA 00 " +
				"6A 02 00 00 C1 88 03 02 00 02 00 D8 2E 00 41 90 FE 70 01 1F 70 00 10 3E 07 48 13 F8 15 00 E1 84 00 " +
				"01 70 11 01 00 21 01 69 02 00 00 09 00 00 00 02 00 01 69 02 00 00 D2 04 7E 05 40 38 00 00 00 00 00 00 00 00 00 00 00",
			encode: func() []byte {
				b := append(AppendHeader2(nil, exH2), snapshot(618, exPlayers618, exPlayers2, exWorld615, 615, exWorld618)...)
				return AppendEventFrame2(append(b, 1), 70000, AppendEvent2(nil, &exSpawnM2))
			},
			decode: func(b []byte) error {
				h, p, err := ParseHeader2(b, ToClient)
				if err != nil || h != exH2 {
					return fmt.Errorf("header %+v %v", h, err)
				}
				var s Snapshot2
				tail, err := s.DecodeTail(p)
				if err != nil {
					return err
				}
				if err := decodeSnapshot(p[:len(p)-len(tail)], 618, exPlayers618, exPlayers2, exWorld615, exWorld618); err != nil {
					return err
				}
				frames := TailFrames(tail, nil)
				if len(frames) != 1 || frames[0].ID != 70000 {
					return fmt.Errorf("tail frames %+v", frames)
				}
				var ev Event
				if err := ParseEvent2(frames[0].Data, &ev); err != nil || ev != exSpawnM2 {
					return fmt.Errorf("event %+v %v", ev, err)
				}
				// Without 7.8, the same bytes are a malformed snapshot.
				if err := s.Decode(p); err == nil {
					return fmt.Errorf("a decoder without tails accepts the tail")
				}
				return nil
			},
		},
		{
			name:   "v2-snapshot-empty-tail",
			want:   "6A 02 00 00 C1 88 03 02 00 02 00 D8 2E 00 41 90 FE 70 01 1F 70 00 10 3E 07 48 13 F8 15 00 E1 84 00 00",
			encode: func() []byte { return append(snapshot(618, exPlayers618, exPlayers2, exWorld615, 615, exWorld618), 0) },
			decode: func(b []byte) error {
				var s Snapshot2
				tail, err := s.DecodeTail(b)
				if err != nil || len(tail) != 1 || len(TailFrames(tail, nil)) != 0 {
					return fmt.Errorf("tail % X %v", tail, err)
				}
				return nil
			},
		},
	}, docExamples21()...)
}
