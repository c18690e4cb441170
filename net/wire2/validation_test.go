package wire2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"rtype/net/wire"
	"rtype/vocab/vocabtest"
	"slices"
	"testing"
)

// Each test takes a valid v2 input, changes exactly one thing, and checks
// the decoder rejects it with the error of the rule (PROTOCOL.md Part II).

// ---- 7.2: the v2 header ----------------------------------------------------

func datagram(t wire.Type, p []byte) []byte {
	h := wire.Header{Type: t, Seq: 7, Ack: 6, AckBits: 0x55, Session: 0xDEADBEEF, AckDelay: 0x1234}
	return append(AppendHeader(nil, h), p...)
}

func validPayloads() map[wire.Type][]byte {
	return map[wire.Type][]byte{
		wire.TypeBind:      {1, 2, 3, 4, 5, 6, 7, 8},
		wire.TypeAccept:    wire.AppendAccept(nil, wire.Accept{Player: 1, Tick: 600}),
		wire.TypeInput:     AppendInput(nil, &Input{Step: 70, Count: 2, Actions: [MaxInputActions]uint8{wire.ActionRight | wire.ActionFire | wire.ActionForce, wire.ActionRight}}),
		wire.TypeSnapshot:  func() []byte { s := rawFull(); return s.bytes() }(),
		wire.TypeEvent:     {1, 7, 0, 0, 0, 7, 5, 0x20, 0x03, 0, 0, 2, 1},
		wire.TypeAck:       {},
		wire.TypeChallenge: {9, 8, 7, 6, 5, 4, 3, 2},
	}
}

func TestHeader2Valid(t *testing.T) {
	for typ, p := range validPayloads() {
		for _, d := range []wire.Direction{wire.ToServer, wire.ToClient} {
			b := datagram(typ, p)
			h, payload, err := ParseHeader(b, d)
			if !allowed(typ, d) {
				if !errors.Is(err, wire.ErrDirection) {
					t.Errorf("%v dir %d: got %v, want ErrDirection", typ, d, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v dir %d: %v", typ, d, err)
			}
			want := wire.Header{Type: typ, Seq: 7, Ack: 6, AckBits: 0x55, Session: 0xDEADBEEF, AckDelay: 0x1234}
			if h != want || !bytes.Equal(payload, p) {
				t.Fatalf("%v: got %+v % X", typ, h, payload)
			}
			if v, ok := wire.DatagramVersion(b); !ok || v != 2 {
				t.Fatalf("DatagramVersion %d %v", v, ok)
			}
		}
	}
	// A 16-byte Bind (token and cookie) too.
	if _, _, err := ParseHeader(datagram(wire.TypeBind, make([]byte, 16)), wire.ToServer); err != nil {
		t.Fatal(err)
	}
}

func TestHeader2Short(t *testing.T) {
	full := datagram(wire.TypeAck, nil)
	for n := 0; n < HeaderSize; n++ {
		if _, _, err := ParseHeader(full[:n], wire.ToServer); !errors.Is(err, wire.ErrShort) {
			t.Errorf("%d bytes: got %v, want ErrShort", n, err)
		}
	}
}

func TestHeader2TooLarge(t *testing.T) {
	b := datagram(wire.TypeSnapshot, make([]byte, MaxPayload))
	if _, _, err := ParseHeader(b, wire.ToClient); err != nil || len(b) != wire.MaxDatagram {
		t.Fatalf("1200 bytes: %v", err)
	}
	if _, _, err := ParseHeader(append(b, 0), wire.ToClient); !errors.Is(err, wire.ErrTooLarge) {
		t.Errorf("1201 bytes: %v", err)
	}
}

func TestHeader2Magic(t *testing.T) {
	b := datagram(wire.TypeAck, nil)
	b[2] = 'X'
	if _, _, err := ParseHeader(b, wire.ToServer); !errors.Is(err, wire.ErrMagic) {
		t.Errorf("got %v", err)
	}
	if _, ok := wire.DatagramVersion(b); ok {
		t.Error("DatagramVersion of a bad magic")
	}
}

// A session's datagrams carry its version: v1 bytes in a v2 session, and
// v2 bytes in a v1 session, are dropped (7.1, 6.1).
func TestHeader2Version(t *testing.T) {
	v1 := datagramV1(wire.TypeAck, nil)
	if _, _, err := ParseHeader(append(v1, 0, 0), wire.ToServer); !errors.Is(err, ErrVersion) {
		t.Errorf("v1 datagram to a v2 parser: %v", err)
	}
	if _, _, err := wire.ParseHeader(datagram(wire.TypeAck, nil), wire.ToServer); !errors.Is(err, wire.ErrVersion) {
		t.Errorf("v2 datagram to a v1 parser: %v", err)
	}
	for _, v := range []byte{0, 3, 255} {
		b := datagram(wire.TypeAck, nil)
		b[4] = v
		if _, _, err := ParseHeader(b, wire.ToServer); !errors.Is(err, ErrVersion) {
			t.Errorf("version %d: %v", v, err)
		}
	}
}

func TestHeader2Type(t *testing.T) {
	for _, typ := range []wire.Type{0, 8, 9, 255} {
		if _, _, err := ParseHeader(datagram(typ, nil), wire.ToClient); !errors.Is(err, wire.ErrType) {
			t.Errorf("type %d: %v", typ, err)
		}
	}
}

func TestHeader2Direction(t *testing.T) {
	cases := []struct {
		typ wire.Type
		d   wire.Direction
	}{{wire.TypeChallenge, wire.ToServer}, {wire.TypeBind, wire.ToClient}, {wire.TypeInput, wire.ToClient}, {wire.TypeAccept, wire.ToServer}, {wire.TypeSnapshot, wire.ToServer}}
	for _, c := range cases {
		if _, _, err := ParseHeader(datagram(c.typ, validPayloads()[c.typ]), c.d); !errors.Is(err, wire.ErrDirection) {
			t.Errorf("%v dir %d: %v", c.typ, c.d, err)
		}
	}
}

func TestHeader2Session(t *testing.T) {
	b := datagram(wire.TypeAck, nil)
	binary.LittleEndian.PutUint32(b[14:], 0)
	if _, _, err := ParseHeader(b, wire.ToServer); !errors.Is(err, wire.ErrSession) {
		t.Errorf("got %v", err)
	}
}

func TestHeader2PayloadSizes(t *testing.T) {
	for _, n := range []int{0, 7, 9, 15, 17, 24} {
		if _, _, err := ParseHeader(datagram(wire.TypeBind, make([]byte, n)), wire.ToServer); !errors.Is(err, ErrBindSize) {
			t.Errorf("Bind of %d bytes: %v", n, err)
		}
	}
	bad := map[wire.Type][]int{wire.TypeAccept: {4, 6}, wire.TypeInput: {0, 1, 2, 5, 14, 20}, wire.TypeAck: {1}, wire.TypeChallenge: {7, 9, 16}}
	for typ, sizes := range bad {
		d := wire.ToServer
		if allowed(typ, wire.ToClient) && !allowed(typ, wire.ToServer) {
			d = wire.ToClient
		}
		for _, n := range sizes {
			if _, _, err := ParseHeader(datagram(typ, make([]byte, n)), d); !errors.Is(err, ErrPayloadSize) {
				t.Errorf("%v of %d bytes: %v", typ, n, err)
			}
		}
	}
}

// 7.4: bit 5 is the Force; bits 6 and 7 must be 0.
func TestInput2Bits(t *testing.T) {
	for b := 0; b < 256; b++ {
		for k := 0; k < 3; k++ { // the bad byte newest, in the middle, oldest
			in := Input{Step: 9, Count: 3}
			in.Actions[k] = byte(b)
			_, _, err := ParseHeader(datagram(wire.TypeInput, AppendInput(nil, &in)), wire.ToServer)
			if want := b&0xC0 != 0; want != errors.Is(err, ErrInputBits) || (!want && err != nil) {
				t.Errorf("actions %#x at %d: %v", b, k, err)
			}
		}
	}
	// v1 still drops bit 5.
	if _, _, err := wire.ParseHeader(datagramV1(wire.TypeInput, []byte{wire.ActionForce}), wire.ToServer); !errors.Is(err, wire.ErrInputBits) {
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
	b := Bind{Token: wire.Token{1, 2, 3, 4, 5, 6, 7, 8}}
	p := AppendBind(nil, b)
	if got, err := ParseBind(p); err != nil || got != b || len(p) != 8 {
		t.Fatalf("token only: %+v %v", got, err)
	}
	b.HasCookie, b.Cookie = true, Cookie{9, 9, 9, 9, 9, 9, 9, 9}
	p = AppendBind(nil, b)
	if got, err := ParseBind(p); err != nil || got != b || len(p) != 16 {
		t.Fatalf("with cookie: %+v %v", got, err)
	}
	for _, n := range []int{0, 7, 9, 15, 17} {
		if _, err := ParseBind(make([]byte, n)); !errors.Is(err, ErrBindSize) {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	if _, err := ParseChallenge(make([]byte, 7)); !errors.Is(err, ErrPayloadSize) {
		t.Errorf("short Challenge: %v", err)
	}
}

// The Challenge answers a Bind with no more bytes than the Bind (7.3).
func TestChallengeNotLarger(t *testing.T) {
	bind := datagram(wire.TypeBind, make([]byte, wire.TokenSize))
	ch := datagram(wire.TypeChallenge, make([]byte, CookieSize))
	acc := datagram(wire.TypeAccept, make([]byte, 5))
	bindC := datagram(wire.TypeBind, make([]byte, wire.TokenSize+CookieSize))
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

var exExt = wire.LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8}

func TestMessage2LoginAccepted(t *testing.T) {
	m := wire.Message{Type: wire.MsgLoginAccepted, Player: 1, Session: 7, Token: wire.Token{1}, Tick: 9, Ext: exExt, Mode: wire.ModeClassic, Revision: wire.Revision}
	b := AppendMessage(nil, &m)
	if len(b) != 2+1+17+wire.LoginExtSize+2 {
		t.Fatalf("%d bytes", len(b))
	}
	got, err := ParseMessage(b[2:])
	if err != nil || got != m {
		t.Fatalf("got %+v %v", got, err)
	}
	// Bytes after the revision are ignored.
	if got, err := ParseMessage(append(slices.Clone(b[2:]), 3, 4, 5)); err != nil || got != m {
		t.Fatalf("with 3 more bytes: %+v %v", got, err)
	}
	// A LoginAccepted without the whole extension, mode and revision is
	// malformed.
	for n := 18; n < 18+wire.LoginExtSize+2; n++ {
		if _, err := ParseMessage(b[2 : 2+n]); !errors.Is(err, wire.ErrMessageBody) {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	// v1 stays strict: its parser refuses the extension.
	if _, err := wire.ParseMessage(b[2:]); !errors.Is(err, wire.ErrMessageBody) {
		t.Errorf("v1 parser: %v", err)
	}
	// The v1 fields still obey v1's rules.
	bad := slices.Clone(b[2:])
	bad[1] = 4 // player 4
	if _, err := ParseMessage(bad); !errors.Is(err, wire.ErrMessageBody) {
		t.Errorf("player 4: %v", err)
	}
}

func TestMessage2Extensible(t *testing.T) {
	for _, m := range []wire.Message{
		{Type: wire.MsgLoginRequest, Version: 2, Name: "Ripley", Revision: wire.Revision, Mode: wire.ModeClassic, Flags: wire.LoginLobby},
		{Type: wire.MsgLoginRejected, Reason: wire.RejectVersionMismatch, Text: "no"},
		{Type: wire.MsgLogout, Reason: wire.LogoutKicked},
	} {
		b := AppendMessage(nil, &m)[2:]
		more := []byte{0xAA, 0xBB}
		if got, err := ParseMessage(append(slices.Clone(b), more...)); err != nil || got != m {
			t.Errorf("%v with 2 more bytes: %+v %v", m.Type, got, err)
		}
		if _, err := ParseMessage(b[:len(b)-1]); m.Type != wire.MsgLoginRequest && !errors.Is(err, wire.ErrMessageBody) {
			t.Errorf("%v one byte short: %v", m.Type, err) // a LoginRequest's: TestLogin2
		}
	}
	for _, typ := range []byte{0, 8, 0x80, 0xFF} { // 5 to 7 are chat (7.13)
		if _, err := ParseMessage([]byte{typ, 1, 2}); !errors.Is(err, wire.ErrUnknownMessage) {
			t.Errorf("type %#x: %v", typ, err)
		}
	}
	if _, err := ParseMessage(nil); !errors.Is(err, wire.ErrFrameLength) {
		t.Errorf("empty: %v", err)
	}
}

// ---- 7.6 and 7.7: events -------------------------------------------------

func exSpawn2Event() wire.Event {
	return wire.Event{Type: wire.EventSpawn, Tick: 612, ID: 5, Kind: wire.KindBydosSlave, Owner: wire.NoPlayer,
		Motion: wire.Sine(612, 1300, 200, -120, 40, 120, 0.25*2*3.141592653589793), Anim: wire.Anim{Ticks: 6, Count: 8}}
}

func TestEvent2Spawn(t *testing.T) {
	ev := exSpawn2Event()
	b := AppendEvent(nil, &ev)
	if len(b) != SpawnSize {
		t.Fatalf("%d bytes", len(b))
	}
	var got wire.Event
	if err := ParseEvent(b, &got); err != nil || got != ev {
		t.Fatalf("got %+v %v", got, err)
	}
	if err := ParseEvent(append(slices.Clone(b), 1, 2, 3), &got); err != nil || got != ev {
		t.Fatalf("with 3 more bytes: %+v %v", got, err)
	}
	for n := 5; n < SpawnSize; n++ {
		if err := ParseEvent(b[:n], &got); !errors.Is(err, wire.ErrEventLength) {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	bad := slices.Clone(b)
	bad[10] = 4 // owner
	if err := ParseEvent(bad, &got); !errors.Is(err, wire.ErrEventValue) {
		t.Errorf("owner 4: %v", err)
	}
	bad = slices.Clone(b)
	bad[11] = 16 // model
	if err := ParseEvent(bad, &got); !errors.Is(err, ErrModel) {
		t.Errorf("model 16: %v", err)
	}
	bad[11] = 15 // a reserved model is well formed
	if err := ParseEvent(bad, &got); err != nil {
		t.Errorf("model 15: %v", err)
	}
}

func TestEvent2OtherTypes(t *testing.T) {
	for _, ev := range vocabtest.ValidEvents()[1:] {
		b := AppendEvent(nil, &ev)
		if !bytes.Equal(b, wire.AppendEvent(nil, &ev)) {
			t.Fatalf("%v: v2 bytes differ from v1", ev.Type)
		}
		var got wire.Event
		if err := ParseEvent(append(slices.Clone(b), 0xEE), &got); err != nil || !vocabtest.SameEvent(got, ev) {
			t.Errorf("%v with one more byte: %+v %v", ev.Type, got, err)
		}
		if err := ParseEvent(b[:len(b)-1], &got); err == nil {
			t.Errorf("%v one byte short accepted", ev.Type)
		}
	}
	var got wire.Event
	for _, typ := range []byte{0, 10, 255} { // 7 to 9 are Stage mode's (7.12)
		if err := ParseEvent([]byte{typ, 0, 0, 0, 0, 1}, &got); !errors.Is(err, wire.ErrEventType) {
			t.Errorf("type %d: %v", typ, err)
		}
	}
	bad := wire.AppendEvent(nil, &vocabtest.ValidEvents()[2]) // Death
	putF32(bad, 7, float32(nanF()))
	if err := ParseEvent(bad, &got); !errors.Is(err, wire.ErrEventValue) {
		t.Errorf("Death with NaN: %v", err)
	}
}

func nanF() float64 { var z float64; return z / z }

func TestEventFrames(t *testing.T) {
	p := AppendEventFrame([]byte{2}, 70000, []byte{5, 1, 2, 3, 4, 7, 0})
	p = AppendEventFrame(p, 70001, []byte{9})
	frames, err := ParseEventFrames(p, nil)
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
		if got, err := ParseEventFrames(b, nil); !errors.Is(err, wire.ErrEventFraming) || len(got) != 0 {
			t.Errorf("case %d % X: %v", i, b, err)
		}
	}
}

// ---- 7.8: the v2 snapshot ------------------------------------------------

func decodeErr(t *testing.T, name string, s rawSnap, want error) {
	t.Helper()
	var d Snapshot
	if err := d.Decode(s.bytes()); !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %v", name, err, want)
	}
}

func TestSnapshot2Valid(t *testing.T) {
	for name, s := range map[string]rawSnap{"full": rawFull(), "delta": rawDelta()} {
		var d Snapshot
		if err := d.Decode(s.bytes()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var d Snapshot
	s := rawDelta()
	if err := d.Decode(s.bytes()); err != nil {
		t.Fatal(err)
	}
	bp, be := deltaBase()
	pl, err := ApplyPlayers(nil, bp, d.PlayerRecords())
	bp[0].HasStep, bp[0].LastStep = true, 20000 // the record's own step (7.8)
	if err != nil || !slices.Equal(pl, bp) {
		t.Fatalf("players %+v %v", pl, err)
	}
	world, err := ApplyRecords(nil, be, d.Records)
	if err != nil {
		t.Fatal(err)
	}
	ship := be[0]
	ship.F[FieldT0], ship.F[FieldX0], ship.F[FieldVX] = 602, 800, 5760
	want := []Entity{ship, exBydos(wire.MakeID(5, 1), 601)}
	if !slices.Equal(world, want) {
		t.Fatalf("rebuilt\n %+v\nwant %+v", world, want)
	}
}

func TestSnapshot2PlayerCount(t *testing.T) {
	s := rawFull()
	s.playerCount = 5
	decodeErr(t, "player_count 5", s, wire.ErrPlayerCount)
}

func TestSnapshot2PlayerTwice(t *testing.T) {
	s := rawFull()
	s.players[1].player = 0
	decodeErr(t, "player 0 twice", s, wire.ErrPlayerTwice)
}

func TestSnapshot2PlayerSameInFull(t *testing.T) {
	s := rawFull()
	s.players[0] = rawPlayer{player: 0, same: true}
	decodeErr(t, "unchanged player in a full snapshot", s, ErrPlayerSame)
}

func TestSnapshot2InvulnAge(t *testing.T) {
	s := rawFull()
	s.players[1].age = s.tick + 1
	decodeErr(t, "invulnerability after the tick", s, ErrInvulnAge)
	s.players[1].age = s.tick
	var d Snapshot
	if err := d.Decode(s.bytes()); err != nil || d.Players[1].InvulnStart != 0 {
		t.Errorf("invulnerability from tick 0: %v %+v", err, d.Players[1])
	}
}

func TestSnapshot2InvulnTicks(t *testing.T) {
	s := rawFull()
	s.players[1].ticks = 0
	decodeErr(t, "invulnerability of 0 ticks", s, ErrInvulnTicks)
}

func TestSnapshot2BaselineAge(t *testing.T) {
	s := rawDelta()
	s.age = 0
	decodeErr(t, "age 0", s, wire.ErrBaselineAge)
	s.age = s.tick + 1
	decodeErr(t, "age past tick 0", s, wire.ErrBaselineAge)
}

func TestSnapshot2EntityCount(t *testing.T) {
	s := rawFull()
	s.count = 1000
	decodeErr(t, "entity_count 1000", s, wire.ErrEntityCount)
}

func TestSnapshot2Change3(t *testing.T) {
	s := rawDelta()
	s.recs[1].change = 3
	decodeErr(t, "change 3", s, wire.ErrChange)
}

func TestSnapshot2FullDelta(t *testing.T) {
	s := rawFull()
	s.recs[0] = rawRec{gap: 2, change: uint32(wire.Updated), nf: 2, mask: 2, f: [NumFields]uint32{FieldX0: 8}}
	decodeErr(t, "updated record in a full snapshot", s, wire.ErrFullDelta)
	s = rawFull()
	s.recs[0] = rawRec{gap: 2, change: uint32(wire.Removed)}
	decodeErr(t, "removed record in a full snapshot", s, wire.ErrFullDelta)
}

func TestSnapshot2FieldCount(t *testing.T) {
	for _, nf := range []uint32{14, 15} {
		s := rawDelta()
		s.recs[0].nf, s.recs[0].mask = nf, 1<<(nf-1)
		decodeErr(t, "field count above 13", s, ErrFieldCount)
	}
}

func TestSnapshot2UpdatedNoField(t *testing.T) {
	s := rawDelta()
	s.recs[0].nf, s.recs[0].mask = 0, 0
	decodeErr(t, "updated record with no field", s, wire.ErrFields)
}

func TestSnapshot2LastField(t *testing.T) {
	s := rawDelta()
	s.recs[0].nf = 5 // bit 4 (vy) is 0
	decodeErr(t, "last counted field unchanged", s, ErrLastField)
	s = rawFull()
	s.recs[0].nf++
	decodeErr(t, "added record counting one field too many", s, ErrLastField)
}

func TestSnapshot2T0Age(t *testing.T) {
	s := rawDelta()
	s.recs[0].t0age = s.tick + 1
	decodeErr(t, "base tick after the snapshot", s, ErrT0Age)
	s.recs[0].t0age = s.tick
	var d Snapshot
	if err := d.Decode(s.bytes()); err != nil || d.Records[0].F[FieldT0] != 0 {
		t.Errorf("base tick 0: %v", err)
	}
}

func TestSnapshot2Index(t *testing.T) {
	s := rawDelta()
	s.recs[1].gap = 0xFFFFFF
	decodeErr(t, "index past 24 bits", s, wire.ErrIndex)
}

func TestSnapshot2IDTwice(t *testing.T) {
	s := rawFull()
	s.recs[2].gen = 0
	decodeErr(t, "id twice", s, wire.ErrIDTwice)
}

func TestSnapshot2Packing(t *testing.T) {
	s := rawFull()
	b := s.bytes()
	var d Snapshot
	if err := d.Decode(append(slices.Clone(b), 0)); !errors.Is(err, wire.ErrTrailing) {
		t.Errorf("a byte after: %v", err)
	}
	for n := 0; n < len(b); n++ {
		if err := d.Decode(b[:n]); err == nil {
			t.Errorf("%d of %d bytes accepted", n, len(b))
		}
	}
	s.trailer = func(w *wire.BitWriter) { w.WriteBits(1, 1) }
	if b2 := s.bytes(); len(b2) == len(b) {
		if err := d.Decode(b2); !errors.Is(err, wire.ErrPadding) {
			t.Errorf("padding bit: %v", err)
		}
	}
}

func TestApplyRecords2MissingBase(t *testing.T) {
	var d Snapshot
	s := rawDelta()
	if err := d.Decode(s.bytes()); err != nil {
		t.Fatal(err)
	}
	_, be := deltaBase()
	if _, err := ApplyRecords(nil, be[1:], slices.Clone(d.Records)); !errors.Is(err, ErrMissingBase) {
		t.Errorf("updated record without its entity: %v", err)
	}
	if _, err := ApplyRecords(nil, be[:2], slices.Clone(d.Records)); !errors.Is(err, ErrMissingBase) {
		t.Errorf("removed record without its entity: %v", err)
	}
	if _, err := ApplyPlayers(nil, nil, d.PlayerRecords()); !errors.Is(err, ErrMissingBase) {
		t.Errorf("unchanged player without a baseline record: %v", err)
	}
}
