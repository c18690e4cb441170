package wire2

import (
	"bytes"
	"fmt"
	"math"
	"net/netip"
	"rtype/internal/protodoc"
	"rtype/net/wire"
	"slices"
	"testing"
)

// The worked examples of Part II (protocol v2) of PROTOCOL.md. The story
// continues v1's: session 0xDEADBEEF, player 0 "Ripley", token 01...08.

var (
	exH = wire.Header{Type: wire.TypeSnapshot, Seq: 0x25, Ack: 0x40, AckBits: 0xFFFFFFFF, Session: 0xDEADBEEF, AckDelay: 170}

	exLoginOK = wire.Message{Type: wire.MsgLoginAccepted, Player: 0, Session: 0xDEADBEEF, Token: exToken, Tick: 600,
		Ext:  wire.LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8},
		Mode: wire.ModeClassic, Revision: wire.Revision}

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
	exCookieH = wire.Header{Type: wire.TypeChallenge, Seq: 0, Ack: 0xFFFF, Session: 0xDEADBEEF}
	exBindCH  = wire.Header{Type: wire.TypeBind, Seq: 1, Ack: 0, Session: 0xDEADBEEF, AckDelay: 3}

	exSineBydos = wire.Sine(612, 1300, 200, -120, 40, 120, math.Pi/2)
	exBydosAnim = wire.Anim{Ticks: 6, Count: 8}
	exSpawn     = wire.Event{Type: wire.EventSpawn, Tick: 612, ID: 5, Kind: wire.KindBydosSlave, Owner: wire.NoPlayer, Motion: exSineBydos, Anim: exBydosAnim}

	exPlayers = []Player{{PlayerState: wire.PlayerState{Player: 0, HasShip: true, Ship: 2, Lives: 3, Score: 0},
		InvulnStart: 600, InvulnTicks: 120, HasStep: true, LastStep: 14}}
	exPlayers618 = []Player{{PlayerState: exPlayers[0].PlayerState, InvulnStart: 600, InvulnTicks: 120, HasStep: true, LastStep: 17}}
	exShipM615   = wire.Linear(611, 100, 180, 360, 0)
	exShipM618   = wire.Motion{Model: wire.ModelLinear, T0: 616, X0: wire.QuantizePos(130), Y0: wire.QuantizePos(180), VX: 4073, VY: -4073}
	exMissileM   = wire.Linear(617, 154.25, 175.75, 900, 0)
	exWorld615   = []Entity{MakeEntity(2, wire.KindPlayerShip, &exShipM615, wire.Anim{}), MakeEntity(5, wire.KindBydosSlave, &exSineBydos, exBydosAnim)}
	exWorld618   = []Entity{MakeEntity(2, wire.KindPlayerShip, &exShipM618, wire.Anim{Frame0: 1}), exWorld615[1], MakeEntity(9, wire.KindPlayerMissile, &exMissileM, wire.Anim{})}
	exEventH     = wire.Header{Type: wire.TypeEvent, Seq: 0x26, Ack: 0x41, AckBits: 0xFFFFFFFF, Session: 0xDEADBEEF, AckDelay: 40}
	exSpawnM     = wire.Event{Type: wire.EventSpawn, Tick: 617, ID: 9, Kind: wire.KindPlayerMissile, Owner: 0, Motion: exMissileM}
	exInputH     = wire.Header{Type: wire.TypeInput, Seq: 0x0102, Ack: 0x0025, AckBits: 1, Session: 0xDEADBEEF, AckDelay: 25}
	exInput      = Input{Step: 17, Count: 4, Actions: [MaxInputActions]uint8{wire.ActionUp | wire.ActionRight | wire.ActionFire, wire.ActionRight, wire.ActionRight, wire.ActionRight}}
	exDestroyB   = wire.Event{Type: wire.EventDestroy, Tick: 650, ID: 5, Reason: wire.DestroyKilled, X: 900, Y: 240}
)

func docExamples() []docExample {
	checkHeader := func(b []byte, d wire.Direction, want wire.Header, payload []byte) error {
		h, p, err := ParseHeader(b, d)
		if err != nil {
			return err
		}
		if h != want || !bytes.Equal(p, payload) {
			return fmt.Errorf("decoded %+v payload % X", h, p)
		}
		return nil
	}
	cookie := func() Cookie { return NewCookieMAC(exSecret).Cookie(CookieEpoch(exNow), exAddr, 0xDEADBEEF) }
	snapshot := func(tick uint32, players, basePlayers []Player, base []Entity, baseTick uint32, cur []Entity) []byte {
		var enc SnapshotEncoder
		p := enc.Encode(tick, players, basePlayers, base, baseTick, cur)
		if len(p) != 1 {
			return nil
		}
		return p[0]
	}
	decodeSnapshot := func(b []byte, tick uint32, players, basePlayers []Player, base []Entity, want []Entity) error {
		var s Snapshot
		if err := s.Decode(b); err != nil {
			return err
		}
		if s.Tick != tick || s.HasBaseline != (base != nil) {
			return fmt.Errorf("decoded %+v", s)
		}
		pl, err := ApplyPlayers(nil, basePlayers, s.PlayerRecords())
		if err != nil || !slices.Equal(pl, players) {
			return fmt.Errorf("players %+v %v", pl, err)
		}
		w, err := ApplyRecords(nil, base, s.Records)
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
			Name:   "v2-header",
			Want:   "52 54 59 50 02 04 25 00 40 00 FF FF FF FF EF BE AD DE AA 00",
			Encode: func() []byte { return AppendHeader(nil, exH) },
			Decode: func(b []byte) error { return checkHeader(b, wire.ToClient, exH, nil) },
		},
		{
			Name:   "v2-login-accepted",
			Want:   "1F 00 02 00 EF BE AD DE 01 02 03 04 05 06 07 08 58 02 00 00 68 01 21 11 00 05 D0 02 3C 03 08 01 04",
			Encode: func() []byte { return AppendMessage(nil, &exLoginOK) },
			Decode: func(b []byte) error {
				fr := wire.FrameReader{R: bytes.NewReader(b)}
				f, err := fr.ReadFrame()
				if err != nil {
					return err
				}
				m, err := ParseMessage(f)
				if err != nil || m != exLoginOK {
					return fmt.Errorf("decoded %+v %v", m, err)
				}
				return nil
			},
		},
		{
			Name: "v2-challenge",
			Want: "52 54 59 50 02 07 00 00 FF FF 00 00 00 00 EF BE AD DE 00 00 7F 7D 54 AF 74 77 F3 3E",
			Encode: func() []byte {
				c := cookie()
				return append(AppendHeader(nil, exCookieH), c[:]...)
			},
			Decode: func(b []byte) error {
				c := cookie()
				if !NewCookieMAC(exSecret).Check(exNow, exAddr, 0xDEADBEEF, Cookie(b[HeaderSize:])) {
					return fmt.Errorf("cookie refused")
				}
				return checkHeader(b, wire.ToClient, exCookieH, c[:])
			},
		},
		{
			Name: "v2-bind-cookie",
			Want: "52 54 59 50 02 01 01 00 00 00 00 00 00 00 EF BE AD DE 03 00 01 02 03 04 05 06 07 08 7F 7D 54 AF 74 77 F3 3E",
			Encode: func() []byte {
				return AppendBind(AppendHeader(nil, exBindCH), Bind{Token: exToken, HasCookie: true, Cookie: cookie()})
			},
			Decode: func(b []byte) error {
				if err := checkHeader(b, wire.ToServer, exBindCH, AppendBind(nil, Bind{Token: exToken, HasCookie: true, Cookie: cookie()})); err != nil {
					return err
				}
				bd, err := ParseBind(b[HeaderSize:])
				if err != nil || bd.Token != exToken || !bd.HasCookie || !NewCookieMAC(exSecret).Check(exNow+3, exAddr, 0xDEADBEEF, bd.Cookie) {
					return fmt.Errorf("bind %+v %v", bd, err)
				}
				return nil
			},
		},
		{
			Name:   "v2-input",
			Want:   "52 54 59 50 02 03 02 01 25 00 01 00 00 00 EF BE AD DE 19 00 11 00 00 00 04 19 08 08 08",
			Encode: func() []byte { return AppendInput(AppendHeader(nil, exInputH), &exInput) },
			Decode: func(b []byte) error {
				if err := checkHeader(b, wire.ToServer, exInputH, AppendInput(nil, &exInput)); err != nil {
					return err
				}
				var in Input
				if err := ParseInput(b[HeaderSize:], &in); err != nil || in != exInput {
					return fmt.Errorf("input %+v %v", in, err)
				}
				if a, ok := in.At(15); !ok || a != wire.ActionRight {
					return fmt.Errorf("step 15: %#x %v", a, ok)
				}
				return nil
			},
		},
		{
			Name:   "v2-spawn",
			Want:   "01 64 02 00 00 05 00 00 00 03 FF 02 64 02 00 00 A0 28 40 06 80 F8 00 00 40 01 78 00 00 40 00 06 08",
			Encode: func() []byte { return AppendEvent(nil, &exSpawn) },
			Decode: func(b []byte) error {
				var ev wire.Event
				if err := ParseEvent(b, &ev); err != nil || ev != exSpawn {
					return fmt.Errorf("decoded %+v %v", ev, err)
				}
				return nil
			},
		},
		{
			Name:   "v2-snapshot-full",
			Want:   "67 02 00 00 61 81 01 80 0F 78 1D 08 00 08 00 84 CF 04 20 03 A0 05 80 16 11 30 00 50 3F FF 01 50 14 20 03 40 7C 19 30 40 00 0A C0 03 00 00 02",
			Encode: func() []byte { return snapshot(615, exPlayers, nil, nil, 0, exWorld615) },
			Decode: func(b []byte) error { return decodeSnapshot(b, 615, exPlayers, nil, nil, exWorld615) },
		},
		{
			Name:   "v2-snapshot-delta",
			Want:   "6A 02 00 00 C1 88 03 02 00 02 00 D8 2E 00 41 90 FE 70 01 1F 70 00 10 3E 07 48 13 F8 15 00 E1 84 00",
			Encode: func() []byte { return snapshot(618, exPlayers618, exPlayers, exWorld615, 615, exWorld618) },
			Decode: func(b []byte) error { return decodeSnapshot(b, 618, exPlayers618, exPlayers, exWorld615, exWorld618) },
		},
		{
			Name: "v2-events",
			Want: "52 54 59 50 02 05 26 00 41 00 FF FF FF FF EF BE AD DE 28 00 02 70 11 01 00 21 01 69 02 00 00 09 00 00 00 02 00 01 69 02 00 00 D2 04 7E 05 40 38 00 00 00 00 00 00 00 00 00 00 00 71 11 01 00 12 02 8A 02 00 00 05 00 00 00 01 00 00 61 44 00 00 70 43",
			Encode: func() []byte {
				p := AppendEventFrame(append(AppendHeader(nil, exEventH), 2), 70000, AppendEvent(nil, &exSpawnM))
				return AppendEventFrame(p, 70001, AppendEvent(nil, &exDestroyB))
			},
			Decode: func(b []byte) error {
				h, p, err := ParseHeader(b, wire.ToClient)
				if err != nil || h != exEventH {
					return fmt.Errorf("header %+v %v", h, err)
				}
				frames, err := ParseEventFrames(p, nil)
				if err != nil || len(frames) != 2 || frames[0].ID != 70000 || frames[1].ID != 70001 {
					return fmt.Errorf("frames %+v %v", frames, err)
				}
				for i, want := range []wire.Event{exSpawnM, exDestroyB} {
					var ev wire.Event
					if err := ParseEvent(frames[i].Data, &ev); err != nil || ev != want {
						return fmt.Errorf("event %d: %+v %v", i, ev, err)
					}
				}
				return nil
			},
		},
		{
			// 7.8: the delta snapshot with the missile's Spawn (event
			// 70000 of 7.7) in its tail.
			Name: "v2-snapshot-events",
			Want: "52 54 59 50 02 04 25 00 40 00 FF FF FF FF EF BE AD DE AA 00 " +
				"6A 02 00 00 C1 88 03 02 00 02 00 D8 2E 00 41 90 FE 70 01 1F 70 00 10 3E 07 48 13 F8 15 00 E1 84 00 " +
				"01 70 11 01 00 21 01 69 02 00 00 09 00 00 00 02 00 01 69 02 00 00 D2 04 7E 05 40 38 00 00 00 00 00 00 00 00 00 00 00",
			Encode: func() []byte {
				b := append(AppendHeader(nil, exH), snapshot(618, exPlayers618, exPlayers, exWorld615, 615, exWorld618)...)
				return AppendEventFrame(append(b, 1), 70000, AppendEvent(nil, &exSpawnM))
			},
			Decode: func(b []byte) error {
				h, p, err := ParseHeader(b, wire.ToClient)
				if err != nil || h != exH {
					return fmt.Errorf("header %+v %v", h, err)
				}
				var s Snapshot
				tail, err := s.DecodeTail(p)
				if err != nil {
					return err
				}
				if err := decodeSnapshot(p[:len(p)-len(tail)], 618, exPlayers618, exPlayers, exWorld615, exWorld618); err != nil {
					return err
				}
				frames := TailFrames(tail, nil)
				if len(frames) != 1 || frames[0].ID != 70000 {
					return fmt.Errorf("tail frames %+v", frames)
				}
				var ev wire.Event
				if err := ParseEvent(frames[0].Data, &ev); err != nil || ev != exSpawnM {
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
			Name:   "v2-snapshot-empty-tail",
			Want:   "6A 02 00 00 C1 88 03 02 00 02 00 D8 2E 00 41 90 FE 70 01 1F 70 00 10 3E 07 48 13 F8 15 00 E1 84 00 00",
			Encode: func() []byte { return append(snapshot(618, exPlayers618, exPlayers, exWorld615, 615, exWorld618), 0) },
			Decode: func(b []byte) error {
				var s Snapshot
				tail, err := s.DecodeTail(b)
				if err != nil || len(tail) != 1 || len(TailFrames(tail, nil)) != 0 {
					return fmt.Errorf("tail % X %v", tail, err)
				}
				return nil
			},
		},
	}, docExamplesMore()...)
}

// TestKnownBytes checks the codec against the bytes of each example of
// Part II as the rules give them, whether PROTOCOL.md exists or not.
func TestKnownBytes(t *testing.T) { protodoc.CheckBytes(t, docExamples()) }

// TestProtocolDoc checks every worked example of Part II of PROTOCOL.md:
// our codec must produce exactly its bytes, and decode them back.
func TestProtocolDoc(t *testing.T) {
	protodoc.CheckDoc(t, "../../PROTOCOL.md", docExamples())
}
