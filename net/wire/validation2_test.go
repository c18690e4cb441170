package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"slices"
	"testing"
)

// Each test takes a valid v2 input, changes exactly one thing, and checks
// the decoder rejects it with the error of the rule (PROTOCOL.md Part II).

// ---- 7.2: the v2 header ----------------------------------------------------

func datagram2(t Type, p []byte) []byte {
	h := Header2{Header: Header{Type: t, Seq: 7, Ack: 6, AckBits: 0x55, Session: 0xDEADBEEF}, AckDelay: 0x1234}
	return append(AppendHeader2(nil, h), p...)
}

func validPayloads2() map[Type][]byte {
	return map[Type][]byte{
		TypeBind:      {1, 2, 3, 4, 5, 6, 7, 8},
		TypeAccept:    AppendAccept(nil, Accept{Player: 1, Tick: 600}),
		TypeInput:     AppendInput2(nil, &Input2{Step: 70, Count: 2, Actions: [MaxInputActions2]uint8{ActionRight | ActionFire | ActionForce, ActionRight}}),
		TypeSnapshot:  func() []byte { s := rawFull2(); return s.bytes() }(),
		TypeEvent:     {1, 7, 0, 0, 0, 7, 5, 0x20, 0x03, 0, 0, 2, 1},
		TypeAck:       {},
		TypeChallenge: {9, 8, 7, 6, 5, 4, 3, 2},
	}
}

func TestHeader2Valid(t *testing.T) {
	for typ, p := range validPayloads2() {
		for _, d := range []Direction{ToServer, ToClient} {
			b := datagram2(typ, p)
			h, payload, err := ParseHeader2(b, d)
			if !allowed(typ, d) {
				if !errors.Is(err, ErrDirection) {
					t.Errorf("%v dir %d: got %v, want ErrDirection", typ, d, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v dir %d: %v", typ, d, err)
			}
			want := Header2{Header: Header{Type: typ, Seq: 7, Ack: 6, AckBits: 0x55, Session: 0xDEADBEEF}, AckDelay: 0x1234}
			if h != want || !bytes.Equal(payload, p) {
				t.Fatalf("%v: got %+v % X", typ, h, payload)
			}
			if v, ok := DatagramVersion(b); !ok || v != 2 {
				t.Fatalf("DatagramVersion %d %v", v, ok)
			}
		}
	}
	// A 16-byte Bind (token and cookie) too.
	if _, _, err := ParseHeader2(datagram2(TypeBind, make([]byte, 16)), ToServer); err != nil {
		t.Fatal(err)
	}
}

func TestHeader2Short(t *testing.T) {
	full := datagram2(TypeAck, nil)
	for n := 0; n < HeaderSize2; n++ {
		if _, _, err := ParseHeader2(full[:n], ToServer); !errors.Is(err, ErrShort) {
			t.Errorf("%d bytes: got %v, want ErrShort", n, err)
		}
	}
}

func TestHeader2TooLarge(t *testing.T) {
	b := datagram2(TypeSnapshot, make([]byte, MaxPayload2))
	if _, _, err := ParseHeader2(b, ToClient); err != nil || len(b) != MaxDatagram {
		t.Fatalf("1200 bytes: %v", err)
	}
	if _, _, err := ParseHeader2(append(b, 0), ToClient); !errors.Is(err, ErrTooLarge) {
		t.Errorf("1201 bytes: %v", err)
	}
}

func TestHeader2Magic(t *testing.T) {
	b := datagram2(TypeAck, nil)
	b[2] = 'X'
	if _, _, err := ParseHeader2(b, ToServer); !errors.Is(err, ErrMagic) {
		t.Errorf("got %v", err)
	}
	if _, ok := DatagramVersion(b); ok {
		t.Error("DatagramVersion of a bad magic")
	}
}

// A session's datagrams carry its version: v1 bytes in a v2 session, and
// v2 bytes in a v1 session, are dropped (7.1, 6.1).
func TestHeader2Version(t *testing.T) {
	v1 := datagram(TypeAck, nil)
	if _, _, err := ParseHeader2(append(v1, 0, 0), ToServer); !errors.Is(err, ErrVersion2) {
		t.Errorf("v1 datagram to a v2 parser: %v", err)
	}
	if _, _, err := ParseHeader(datagram2(TypeAck, nil), ToServer); !errors.Is(err, ErrVersion) {
		t.Errorf("v2 datagram to a v1 parser: %v", err)
	}
	for _, v := range []byte{0, 3, 255} {
		b := datagram2(TypeAck, nil)
		b[4] = v
		if _, _, err := ParseHeader2(b, ToServer); !errors.Is(err, ErrVersion2) {
			t.Errorf("version %d: %v", v, err)
		}
	}
}

func TestHeader2Type(t *testing.T) {
	for _, typ := range []Type{0, 8, 9, 255} {
		if _, _, err := ParseHeader2(datagram2(typ, nil), ToClient); !errors.Is(err, ErrType) {
			t.Errorf("type %d: %v", typ, err)
		}
	}
}

func TestHeader2Direction(t *testing.T) {
	cases := []struct {
		typ Type
		d   Direction
	}{{TypeChallenge, ToServer}, {TypeBind, ToClient}, {TypeInput, ToClient}, {TypeAccept, ToServer}, {TypeSnapshot, ToServer}}
	for _, c := range cases {
		if _, _, err := ParseHeader2(datagram2(c.typ, validPayloads2()[c.typ]), c.d); !errors.Is(err, ErrDirection) {
			t.Errorf("%v dir %d: %v", c.typ, c.d, err)
		}
	}
}

func TestHeader2Session(t *testing.T) {
	b := datagram2(TypeAck, nil)
	binary.LittleEndian.PutUint32(b[14:], 0)
	if _, _, err := ParseHeader2(b, ToServer); !errors.Is(err, ErrSession) {
		t.Errorf("got %v", err)
	}
}

func TestHeader2PayloadSizes(t *testing.T) {
	for _, n := range []int{0, 7, 9, 15, 17, 24} {
		if _, _, err := ParseHeader2(datagram2(TypeBind, make([]byte, n)), ToServer); !errors.Is(err, ErrBindSize2) {
			t.Errorf("Bind of %d bytes: %v", n, err)
		}
	}
	bad := map[Type][]int{TypeAccept: {4, 6}, TypeInput: {0, 1, 2, 5, 14, 20}, TypeAck: {1}, TypeChallenge: {7, 9, 16}}
	for typ, sizes := range bad {
		d := ToServer
		if allowed(typ, ToClient) && !allowed(typ, ToServer) {
			d = ToClient
		}
		for _, n := range sizes {
			if _, _, err := ParseHeader2(datagram2(typ, make([]byte, n)), d); !errors.Is(err, ErrPayloadSize2) {
				t.Errorf("%v of %d bytes: %v", typ, n, err)
			}
		}
	}
}

// 7.4: bit 5 is the Force; bits 6 and 7 must be 0.
func TestInput2Bits(t *testing.T) {
	for b := 0; b < 256; b++ {
		for k := 0; k < 3; k++ { // the bad byte newest, in the middle, oldest
			in := Input2{Step: 9, Count: 3}
			in.Actions[k] = byte(b)
			_, _, err := ParseHeader2(datagram2(TypeInput, AppendInput2(nil, &in)), ToServer)
			if want := b&0xC0 != 0; want != errors.Is(err, ErrInputBits2) || (!want && err != nil) {
				t.Errorf("actions %#x at %d: %v", b, k, err)
			}
		}
	}
	// v1 still drops bit 5.
	if _, _, err := ParseHeader(datagram(TypeInput, []byte{ActionForce}), ToServer); !errors.Is(err, ErrInputBits) {
		t.Errorf("v1 Input with the Force bit: %v", err)
	}
}

func TestAckDelayUnits(t *testing.T) {
	for _, c := range []struct {
		us   int64
		want uint16
	}{{-5, 0}, {0, 0}, {99, 0}, {100, 1}, {17000, 170}, {6553500, 65535}, {1 << 40, 65535}} {
		if got := AckDelayUnits(c.us); got != c.want {
			t.Errorf("%d µs: %d, want %d", c.us, got, c.want)
		}
	}
}

// ---- 7.3: binding --------------------------------------------------------

func TestBind2Payload(t *testing.T) {
	b := Bind2{Token: Token{1, 2, 3, 4, 5, 6, 7, 8}}
	p := AppendBind2(nil, b)
	if got, err := ParseBind2(p); err != nil || got != b || len(p) != 8 {
		t.Fatalf("token only: %+v %v", got, err)
	}
	b.HasCookie, b.Cookie = true, Cookie{9, 9, 9, 9, 9, 9, 9, 9}
	p = AppendBind2(nil, b)
	if got, err := ParseBind2(p); err != nil || got != b || len(p) != 16 {
		t.Fatalf("with cookie: %+v %v", got, err)
	}
	for _, n := range []int{0, 7, 9, 15, 17} {
		if _, err := ParseBind2(make([]byte, n)); !errors.Is(err, ErrBindSize2) {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	if _, err := ParseChallenge(make([]byte, 7)); !errors.Is(err, ErrPayloadSize2) {
		t.Errorf("short Challenge: %v", err)
	}
}

// The Challenge answers a Bind with no more bytes than the Bind (7.3).
func TestChallengeNotLarger(t *testing.T) {
	bind := datagram2(TypeBind, make([]byte, TokenSize))
	ch := datagram2(TypeChallenge, make([]byte, CookieSize))
	acc := datagram2(TypeAccept, make([]byte, 5))
	bindC := datagram2(TypeBind, make([]byte, TokenSize+CookieSize))
	if len(ch) > len(bind) || len(acc) > len(bindC) {
		t.Fatalf("Challenge %d vs Bind %d; Accept %d vs Bind with cookie %d", len(ch), len(bind), len(acc), len(bindC))
	}
}

func TestCookie(t *testing.T) {
	mac := NewCookieMAC([]byte("0123456789abcdef0123456789abcdef"))
	addr := netip.MustParseAddrPort("192.0.2.7:40000")
	const now = 1_800_000_005
	c := mac.Cookie(CookieEpoch(now), addr, 0xDEADBEEF)
	if !mac.Check(now, addr, 0xDEADBEEF, c) {
		t.Fatal("fresh cookie refused")
	}
	if !mac.Check(now+CookieEpochSeconds, addr, 0xDEADBEEF, c) {
		t.Fatal("cookie of the previous epoch refused")
	}
	if mac.Check(now+2*CookieEpochSeconds, addr, 0xDEADBEEF, c) {
		t.Fatal("cookie two epochs old accepted")
	}
	if mac.Check(now-CookieEpochSeconds, addr, 0xDEADBEEF, c) {
		t.Fatal("cookie of a future epoch accepted")
	}
	for _, other := range []netip.AddrPort{
		netip.MustParseAddrPort("192.0.2.8:40000"),
		netip.MustParseAddrPort("192.0.2.7:40001"),
		netip.MustParseAddrPort("[2001:db8::7]:40000"),
	} {
		if mac.Check(now, other, 0xDEADBEEF, c) {
			t.Errorf("cookie of %v accepted from %v", addr, other)
		}
	}
	if mac.Check(now, addr, 0xDEADBEF0, c) {
		t.Error("cookie accepted for another session")
	}
	if NewCookieMAC([]byte("another secret")).Check(now, addr, 0xDEADBEEF, c) {
		t.Error("cookie accepted under another secret")
	}
	if n := testing.AllocsPerRun(100, func() { mac.Check(now, addr, 1, c) }); n != 0 {
		t.Errorf("Check allocates %v", n)
	}
}

// ---- 7.1: TCP messages of v2 ---------------------------------------------

var exExt = LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8}

func TestMessage2LoginAccepted(t *testing.T) {
	m := Message{Type: MsgLoginAccepted, Player: 1, Session: 7, Token: Token{1}, Tick: 9, Ext: exExt, Mode: ModeClassic, Revision: Revision}
	b := AppendMessage2(nil, &m)
	if len(b) != 2+1+17+LoginExtSize+2 {
		t.Fatalf("%d bytes", len(b))
	}
	got, err := ParseMessage2(b[2:])
	if err != nil || got != m {
		t.Fatalf("got %+v %v", got, err)
	}
	// Bytes after the revision are ignored.
	if got, err := ParseMessage2(append(slices.Clone(b[2:]), 3, 4, 5)); err != nil || got != m {
		t.Fatalf("with 3 more bytes: %+v %v", got, err)
	}
	// A LoginAccepted without the whole extension, mode and revision is
	// malformed.
	for n := 18; n < 18+LoginExtSize+2; n++ {
		if _, err := ParseMessage2(b[2 : 2+n]); !errors.Is(err, ErrMessageBody) {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	// v1 stays strict: its parser refuses the extension.
	if _, err := ParseMessage(b[2:]); !errors.Is(err, ErrMessageBody) {
		t.Errorf("v1 parser: %v", err)
	}
	// The v1 fields still obey v1's rules.
	bad := slices.Clone(b[2:])
	bad[1] = 4 // player 4
	if _, err := ParseMessage2(bad); !errors.Is(err, ErrMessageBody) {
		t.Errorf("player 4: %v", err)
	}
}

func TestMessage2Extensible(t *testing.T) {
	for _, m := range []Message{
		{Type: MsgLoginRequest, Version: 2, Name: "Ripley", Revision: Revision, Mode: ModeClassic, Flags: LoginLobby},
		{Type: MsgLoginRejected, Reason: RejectVersionMismatch, Text: "no"},
		{Type: MsgLogout, Reason: LogoutKicked},
	} {
		b := AppendMessage2(nil, &m)[2:]
		more := []byte{0xAA, 0xBB}
		if got, err := ParseMessage2(append(slices.Clone(b), more...)); err != nil || got != m {
			t.Errorf("%v with 2 more bytes: %+v %v", m.Type, got, err)
		}
		if _, err := ParseMessage2(b[:len(b)-1]); m.Type != MsgLoginRequest && !errors.Is(err, ErrMessageBody) {
			t.Errorf("%v one byte short: %v", m.Type, err) // a LoginRequest's: TestLogin2
		}
	}
	for _, typ := range []byte{0, 8, 0x80, 0xFF} { // 5 to 7 are chat (7.13)
		if _, err := ParseMessage2([]byte{typ, 1, 2}); !errors.Is(err, ErrUnknownMessage) {
			t.Errorf("type %#x: %v", typ, err)
		}
	}
	if _, err := ParseMessage2(nil); !errors.Is(err, ErrFrameLength) {
		t.Errorf("empty: %v", err)
	}
}

// ---- 7.6 and 7.7: events -------------------------------------------------

func exSpawn2Event() Event {
	return Event{Type: EventSpawn, Tick: 612, ID: 5, Kind: KindBydosSlave, Owner: NoPlayer,
		Motion: Sine(612, 1300, 200, -120, 40, 120, 0.25*2*3.141592653589793), Anim: Anim{Ticks: 6, Count: 8}}
}

func TestEvent2Spawn(t *testing.T) {
	ev := exSpawn2Event()
	b := AppendEvent2(nil, &ev)
	if len(b) != SpawnSize2 {
		t.Fatalf("%d bytes", len(b))
	}
	var got Event
	if err := ParseEvent2(b, &got); err != nil || got != ev {
		t.Fatalf("got %+v %v", got, err)
	}
	if err := ParseEvent2(append(slices.Clone(b), 1, 2, 3), &got); err != nil || got != ev {
		t.Fatalf("with 3 more bytes: %+v %v", got, err)
	}
	for n := 5; n < SpawnSize2; n++ {
		if err := ParseEvent2(b[:n], &got); !errors.Is(err, ErrEventLength) {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	bad := slices.Clone(b)
	bad[10] = 4 // owner
	if err := ParseEvent2(bad, &got); !errors.Is(err, ErrEventValue) {
		t.Errorf("owner 4: %v", err)
	}
	bad = slices.Clone(b)
	bad[11] = 16 // model
	if err := ParseEvent2(bad, &got); !errors.Is(err, ErrModel) {
		t.Errorf("model 16: %v", err)
	}
	bad[11] = 15 // a reserved model is well formed
	if err := ParseEvent2(bad, &got); err != nil {
		t.Errorf("model 15: %v", err)
	}
}

func TestEvent2OtherTypes(t *testing.T) {
	for _, ev := range validEvents()[1:] {
		b := AppendEvent2(nil, &ev)
		if !bytes.Equal(b, AppendEvent(nil, &ev)) {
			t.Fatalf("%v: v2 bytes differ from v1", ev.Type)
		}
		var got Event
		if err := ParseEvent2(append(slices.Clone(b), 0xEE), &got); err != nil || !sameEvent(got, ev) {
			t.Errorf("%v with one more byte: %+v %v", ev.Type, got, err)
		}
		if err := ParseEvent2(b[:len(b)-1], &got); err == nil {
			t.Errorf("%v one byte short accepted", ev.Type)
		}
	}
	var got Event
	for _, typ := range []byte{0, 10, 255} { // 7 to 9 are Stage mode's (7.12)
		if err := ParseEvent2([]byte{typ, 0, 0, 0, 0, 1}, &got); !errors.Is(err, ErrEventType) {
			t.Errorf("type %d: %v", typ, err)
		}
	}
	bad := AppendEvent(nil, &validEvents()[2]) // Death
	putF32(bad, 7, float32(nanF()))
	if err := ParseEvent2(bad, &got); !errors.Is(err, ErrEventValue) {
		t.Errorf("Death with NaN: %v", err)
	}
}

func nanF() float64 { var z float64; return z / z }

func TestEventFrames2(t *testing.T) {
	p := AppendEventFrame2([]byte{2}, 70000, []byte{5, 1, 2, 3, 4, 7, 0})
	p = AppendEventFrame2(p, 70001, []byte{9})
	frames, err := ParseEventFrames2(p, nil)
	if err != nil || len(frames) != 2 || frames[0].ID != 70000 || frames[1].ID != 70001 || !bytes.Equal(frames[1].Data, []byte{9}) {
		t.Fatalf("%+v %v", frames, err)
	}
	bad := [][]byte{
		nil,
		{0},
		p[:len(p)-1],
		append(slices.Clone(p), 0),
		{1, 0, 0, 0, 0, 0},          // length 0
		{1, 0, 0, 0, 0, 2, 1},       // runs past the end
		{2, 0, 0, 0, 0, 1, 1},       // one frame missing
		{1, 0, 0, 0, 1, 1, 1, 0xFF}, // a byte after the last frame
	}
	for i, b := range bad {
		if got, err := ParseEventFrames2(b, nil); !errors.Is(err, ErrEventFraming) || len(got) != 0 {
			t.Errorf("case %d % X: %v", i, b, err)
		}
	}
}

// ---- 7.8: the v2 snapshot ------------------------------------------------

func decodeErr2(t *testing.T, name string, s rawSnap2, want error) {
	t.Helper()
	var d Snapshot2
	if err := d.Decode(s.bytes()); !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %v", name, err, want)
	}
}

func TestSnapshot2Valid(t *testing.T) {
	for name, s := range map[string]rawSnap2{"full": rawFull2(), "delta": rawDelta2()} {
		var d Snapshot2
		if err := d.Decode(s.bytes()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var d Snapshot2
	s := rawDelta2()
	if err := d.Decode(s.bytes()); err != nil {
		t.Fatal(err)
	}
	bp, be := deltaBase2()
	pl, err := ApplyPlayers2(nil, bp, d.PlayerRecords())
	bp[0].HasStep, bp[0].LastStep = true, 20000 // the record's own step (7.8)
	if err != nil || !slices.Equal(pl, bp) {
		t.Fatalf("players %+v %v", pl, err)
	}
	world, err := ApplyRecords2(nil, be, d.Records)
	if err != nil {
		t.Fatal(err)
	}
	ship := be[0]
	ship.F[F2T0], ship.F[F2X0], ship.F[F2VX] = 602, 800, 5760
	want := []Entity2{ship, exBydos2(MakeID(5, 1), 601)}
	if !slices.Equal(world, want) {
		t.Fatalf("rebuilt\n %+v\nwant %+v", world, want)
	}
}

func TestSnapshot2PlayerCount(t *testing.T) {
	s := rawFull2()
	s.playerCount = 5
	decodeErr2(t, "player_count 5", s, ErrPlayerCount)
}

func TestSnapshot2PlayerTwice(t *testing.T) {
	s := rawFull2()
	s.players[1].player = 0
	decodeErr2(t, "player 0 twice", s, ErrPlayerTwice)
}

func TestSnapshot2PlayerSameInFull(t *testing.T) {
	s := rawFull2()
	s.players[0] = rawPlayer2{player: 0, same: true}
	decodeErr2(t, "unchanged player in a full snapshot", s, ErrPlayerSame)
}

func TestSnapshot2InvulnAge(t *testing.T) {
	s := rawFull2()
	s.players[1].age = s.tick + 1
	decodeErr2(t, "invulnerability after the tick", s, ErrInvulnAge)
	s.players[1].age = s.tick
	var d Snapshot2
	if err := d.Decode(s.bytes()); err != nil || d.Players[1].InvulnStart != 0 {
		t.Errorf("invulnerability from tick 0: %v %+v", err, d.Players[1])
	}
}

func TestSnapshot2InvulnTicks(t *testing.T) {
	s := rawFull2()
	s.players[1].ticks = 0
	decodeErr2(t, "invulnerability of 0 ticks", s, ErrInvulnTicks)
}

func TestSnapshot2BaselineAge(t *testing.T) {
	s := rawDelta2()
	s.age = 0
	decodeErr2(t, "age 0", s, ErrBaselineAge)
	s.age = s.tick + 1
	decodeErr2(t, "age past tick 0", s, ErrBaselineAge)
}

func TestSnapshot2EntityCount(t *testing.T) {
	s := rawFull2()
	s.count = 1000
	decodeErr2(t, "entity_count 1000", s, ErrEntityCount)
}

func TestSnapshot2Change3(t *testing.T) {
	s := rawDelta2()
	s.recs[1].change = 3
	decodeErr2(t, "change 3", s, ErrChange)
}

func TestSnapshot2FullDelta(t *testing.T) {
	s := rawFull2()
	s.recs[0] = rawRec2{gap: 2, change: uint32(Updated), nf: 2, mask: 2, f: [NumFields2]uint32{F2X0: 8}}
	decodeErr2(t, "updated record in a full snapshot", s, ErrFullDelta)
	s = rawFull2()
	s.recs[0] = rawRec2{gap: 2, change: uint32(Removed)}
	decodeErr2(t, "removed record in a full snapshot", s, ErrFullDelta)
}

func TestSnapshot2FieldCount(t *testing.T) {
	for _, nf := range []uint32{14, 15} {
		s := rawDelta2()
		s.recs[0].nf, s.recs[0].mask = nf, 1<<(nf-1)
		decodeErr2(t, "field count above 13", s, ErrFieldCount)
	}
}

func TestSnapshot2UpdatedNoField(t *testing.T) {
	s := rawDelta2()
	s.recs[0].nf, s.recs[0].mask = 0, 0
	decodeErr2(t, "updated record with no field", s, ErrFields)
}

func TestSnapshot2LastField(t *testing.T) {
	s := rawDelta2()
	s.recs[0].nf = 5 // bit 4 (vy) is 0
	decodeErr2(t, "last counted field unchanged", s, ErrLastField)
	s = rawFull2()
	s.recs[0].nf++
	decodeErr2(t, "added record counting one field too many", s, ErrLastField)
}

func TestSnapshot2T0Age(t *testing.T) {
	s := rawDelta2()
	s.recs[0].t0age = s.tick + 1
	decodeErr2(t, "base tick after the snapshot", s, ErrT0Age)
	s.recs[0].t0age = s.tick
	var d Snapshot2
	if err := d.Decode(s.bytes()); err != nil || d.Records[0].F[F2T0] != 0 {
		t.Errorf("base tick 0: %v", err)
	}
}

func TestSnapshot2Index(t *testing.T) {
	s := rawDelta2()
	s.recs[1].gap = 0xFFFFFF
	decodeErr2(t, "index past 24 bits", s, ErrIndex)
}

func TestSnapshot2IDTwice(t *testing.T) {
	s := rawFull2()
	s.recs[2].gen = 0
	decodeErr2(t, "id twice", s, ErrIDTwice)
}

func TestSnapshot2Packing(t *testing.T) {
	s := rawFull2()
	b := s.bytes()
	var d Snapshot2
	if err := d.Decode(append(slices.Clone(b), 0)); !errors.Is(err, ErrTrailing) {
		t.Errorf("a byte after: %v", err)
	}
	for n := 0; n < len(b); n++ {
		if err := d.Decode(b[:n]); err == nil {
			t.Errorf("%d of %d bytes accepted", n, len(b))
		}
	}
	s.trailer = func(w *BitWriter) { w.WriteBits(1, 1) }
	if b2 := s.bytes(); len(b2) == len(b) {
		if err := d.Decode(b2); !errors.Is(err, ErrPadding) {
			t.Errorf("padding bit: %v", err)
		}
	}
}

func TestApplyRecords2MissingBase(t *testing.T) {
	var d Snapshot2
	s := rawDelta2()
	if err := d.Decode(s.bytes()); err != nil {
		t.Fatal(err)
	}
	_, be := deltaBase2()
	if _, err := ApplyRecords2(nil, be[1:], slices.Clone(d.Records)); !errors.Is(err, ErrMissingBase2) {
		t.Errorf("updated record without its entity: %v", err)
	}
	if _, err := ApplyRecords2(nil, be[:2], slices.Clone(d.Records)); !errors.Is(err, ErrMissingBase2) {
		t.Errorf("removed record without its entity: %v", err)
	}
	if _, err := ApplyPlayers2(nil, nil, d.PlayerRecords()); !errors.Is(err, ErrMissingBase2) {
		t.Errorf("unchanged player without a baseline record: %v", err)
	}
}
