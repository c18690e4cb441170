package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"rtype/internal/protodoc"
	"rtype/vocab/vocabtest"
	"slices"
	"strings"
	"testing"
)

// Each test of this file takes a valid input, changes exactly one thing,
// and checks the decoder rejects it with the exported error of the rule
// (PROTOCOL.md sections 1.4, 3.1, 5.2 and 6).

// ---- 6.1 and 6.2: the datagram header -----------------------------------

func TestHeaderValid(t *testing.T) {
	for typ, p := range validPayloads() {
		for _, d := range []Direction{ToServer, ToClient} {
			if !typ.Allowed(d) {
				continue
			}
			b := datagram(typ, p)
			h, payload, err := ParseHeader(b, d)
			if err != nil {
				t.Fatalf("%v dir %d: %v", typ, d, err)
			}
			want := Header{Type: typ, Seq: 7, Ack: 6, AckBits: 0x55, Session: 0xDEADBEEF}
			if h != want || !bytes.Equal(payload, p) {
				t.Fatalf("%v: got %+v % X", typ, h, payload)
			}
			if len(payload) > 0 && &payload[0] != &b[HeaderSize] {
				t.Fatalf("%v: payload does not alias the datagram", typ)
			}
		}
	}
}

func TestHeaderShort(t *testing.T) {
	full := datagram(TypeAck, nil)
	for n := 0; n < HeaderSize; n++ {
		for _, d := range []Direction{ToServer, ToClient} {
			if _, _, err := ParseHeader(full[:n], d); !errors.Is(err, ErrShort) {
				t.Errorf("%d bytes: got %v, want ErrShort", n, err)
			}
		}
	}
	if _, _, err := ParseHeader(nil, ToServer); !errors.Is(err, ErrShort) {
		t.Errorf("nil: got %v", err)
	}
}

func TestHeaderTooLarge(t *testing.T) {
	// A Snapshot datagram of exactly 1200 bytes passes the header checks;
	// one more byte is too large.
	b := datagram(TypeSnapshot, make([]byte, MaxPayload))
	if len(b) != MaxDatagram {
		t.Fatal(len(b))
	}
	if _, p, err := ParseHeader(b, ToClient); err != nil || len(p) != MaxPayload {
		t.Fatalf("1200 bytes: %v", err)
	}
	for _, n := range []int{MaxDatagram + 1, MaxDatagram + 2, 65507} {
		b := datagram(TypeSnapshot, make([]byte, n-HeaderSize))
		if _, _, err := ParseHeader(b, ToClient); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%d bytes: got %v, want ErrTooLarge", n, err)
		}
	}
	// Even an Event datagram, allowed both ways.
	b = datagram(TypeEvent, make([]byte, MaxPayload+1))
	if _, _, err := ParseHeader(b, ToServer); !errors.Is(err, ErrTooLarge) {
		t.Errorf("event: got %v", err)
	}
}

func TestHeaderMagic(t *testing.T) {
	for i := 0; i < 4; i++ {
		for _, v := range []byte{0, 'r', 0xFF} {
			b := datagram(TypeAck, nil)
			b[i] = v
			if _, _, err := ParseHeader(b, ToServer); !errors.Is(err, ErrMagic) {
				t.Errorf("magic byte %d = %#x: got %v, want ErrMagic", i, v, err)
			}
		}
	}
}

func TestHeaderVersion(t *testing.T) {
	for _, v := range []byte{0, 2, 255} {
		b := datagram(TypeAck, nil)
		b[4] = v
		if _, _, err := ParseHeader(b, ToServer); !errors.Is(err, ErrVersion) {
			t.Errorf("version %d: got %v, want ErrVersion", v, err)
		}
	}
}

func TestHeaderReservedType(t *testing.T) {
	for _, typ := range []byte{0, 7, 8, 128, 255} {
		for _, d := range []Direction{ToServer, ToClient} {
			b := datagram(TypeAck, nil)
			b[5] = typ
			if _, _, err := ParseHeader(b, d); !errors.Is(err, ErrType) {
				t.Errorf("type %d dir %d: got %v, want ErrType", typ, d, err)
			}
		}
	}
}

func TestHeaderDirection(t *testing.T) {
	// Each type sent the wrong way round; Event and Ack travel both ways.
	tests := []struct {
		typ   Type
		wrong []Direction
	}{
		{TypeBind, []Direction{ToClient}},
		{TypeAccept, []Direction{ToServer}},
		{TypeInput, []Direction{ToClient}},
		{TypeSnapshot, []Direction{ToServer}},
		{TypeEvent, nil},
		{TypeAck, nil},
	}
	payloads := validPayloads()
	for _, tc := range tests {
		for _, d := range []Direction{ToServer, ToClient} {
			_, _, err := ParseHeader(datagram(tc.typ, payloads[tc.typ]), d)
			if slices.Contains(tc.wrong, d) {
				if !errors.Is(err, ErrDirection) {
					t.Errorf("%v dir %d: got %v, want ErrDirection", tc.typ, d, err)
				}
			} else if err != nil {
				t.Errorf("%v dir %d: got %v, want nil", tc.typ, d, err)
			}
		}
	}
}

func TestHeaderSessionZero(t *testing.T) {
	for typ, p := range validPayloads() {
		d := ToServer
		if !typ.Allowed(d) {
			d = ToClient
		}
		b := datagram(typ, p)
		binary.LittleEndian.PutUint32(b[14:], 0)
		if _, _, err := ParseHeader(b, d); !errors.Is(err, ErrSession) {
			t.Errorf("%v: got %v, want ErrSession", typ, err)
		}
	}
}

func TestHeaderPayloadSize(t *testing.T) {
	tests := []struct {
		typ  Type
		d    Direction
		good int
	}{
		{TypeBind, ToServer, 8},
		{TypeAccept, ToClient, 5},
		{TypeInput, ToServer, 1},
		{TypeAck, ToServer, 0},
		{TypeAck, ToClient, 0},
	}
	for _, tc := range tests {
		for _, n := range []int{0, tc.good - 1, tc.good + 1, 100} {
			if n < 0 || n == tc.good {
				continue
			}
			if _, _, err := ParseHeader(datagram(tc.typ, make([]byte, n)), tc.d); !errors.Is(err, ErrPayloadSize) {
				t.Errorf("%v with %d bytes: got %v, want ErrPayloadSize", tc.typ, n, err)
			}
		}
		if _, _, err := ParseHeader(datagram(tc.typ, make([]byte, tc.good)), tc.d); err != nil {
			t.Errorf("%v with %d bytes: %v", tc.typ, tc.good, err)
		}
	}
}

// 6.2: Input is exactly one byte, bits 5 to 7 clear.
func TestInputBits(t *testing.T) {
	for bit := 5; bit < 8; bit++ {
		b := datagram(TypeInput, []byte{ActionFire | 1<<bit})
		if _, _, err := ParseHeader(b, ToServer); !errors.Is(err, ErrInputBits) {
			t.Errorf("bit %d: got %v, want ErrInputBits", bit, err)
		}
	}
	for a := 0; a <= int(ActionsMask); a++ {
		if _, p, err := ParseHeader(datagram(TypeInput, []byte{byte(a)}), ToServer); err != nil || p[0] != byte(a) {
			t.Errorf("actions %#x: %v", a, err)
		}
	}
	for _, n := range []int{0, 2} {
		if _, _, err := ParseHeader(datagram(TypeInput, make([]byte, n)), ToServer); !errors.Is(err, ErrPayloadSize) {
			t.Errorf("%d bytes: got %v, want ErrPayloadSize", n, err)
		}
	}
}

func TestParseAccept(t *testing.T) {
	for p := uint8(0); p < MaxPlayers; p++ {
		a, err := ParseAccept(AppendAccept(nil, Accept{Player: p, Tick: 0xCAFEBABE}))
		if err != nil || a != (Accept{Player: p, Tick: 0xCAFEBABE}) {
			t.Fatalf("player %d: %+v %v", p, a, err)
		}
	}
	for _, p := range []uint8{4, NoPlayer} {
		if _, err := ParseAccept(AppendAccept(nil, Accept{Player: p, Tick: 1})); !errors.Is(err, ErrPlayer) {
			t.Errorf("player %d: got %v, want ErrPlayer", p, err)
		}
	}
	for _, n := range []int{0, 4, 6} {
		if _, err := ParseAccept(make([]byte, n)); !errors.Is(err, ErrPayloadSize) {
			t.Errorf("%d bytes: got %v, want ErrPayloadSize", n, err)
		}
	}
}

func TestSeqNewer(t *testing.T) {
	tests := []struct {
		a, b uint16
		want bool
	}{
		{1, 0, true},
		{0, 1, false},
		{0, 65535, true}, // around the wrap
		{65535, 0, false},
		{5, 65530, true},
		{65530, 5, false},
		{32768, 0, true}, // a - b = 32768: newer
		{0, 32768, false},
		{32769, 0, false}, // a - b > 32768: older, b wrapped
		{0, 32769, true},
		{65535, 32767, true},
		{32767, 65535, false},
		{7, 7, false},
		{0, 0, false},
	}
	for _, tc := range tests {
		if got := SeqNewer(tc.a, tc.b); got != tc.want {
			t.Errorf("SeqNewer(%d, %d) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	// Antisymmetric except at distance 0 and 32768 (where exactly one is newer).
	for a := 0; a < 65536; a += 97 {
		for _, d := range []int{1, 2, 100, 32767, 32768, 32769, 65535} {
			b := uint16(a + d)
			x, y := SeqNewer(uint16(a), b), SeqNewer(b, uint16(a))
			if x == y {
				t.Fatalf("SeqNewer(%d,%d)=%v and reverse %v", a, b, x, y)
			}
		}
	}
}

func TestIDs(t *testing.T) {
	id := MakeID(0x123456, 0x9A)
	if id != 0x9A123456 || Index(id) != 0x123456 || Generation(id) != 0x9A {
		t.Fatalf("MakeID: %#x %#x %#x", id, Index(id), Generation(id))
	}
	if MakeID(0xFF123456, 1) != 0x01123456 {
		t.Fatalf("MakeID keeps only 24 bits of the index: %#x", MakeID(0xFF123456, 1))
	}
	if Index(NoEntity) != 0xFFFFFF || Generation(NoEntity) != 0xFF || MakeID(0xFFFFFF, 0xFF) != NoEntity {
		t.Fatal("NoEntity")
	}
	ordered := []uint32{
		MakeID(0, 0), MakeID(0, 1), MakeID(0, 255),
		MakeID(1, 0), MakeID(1, 200), MakeID(2, 0),
		MakeID(0xFFFFFE, 255), MakeID(0xFFFFFF, 0), NoEntity,
	}
	for i, a := range ordered {
		for j, b := range ordered {
			if Less(a, b) != (i < j) {
				t.Errorf("Less(%#x, %#x) = %v, want %v", a, b, Less(a, b), i < j)
			}
		}
	}
}

// ---- 1.4: packed payloads ------------------------------------------------

func TestRawBuilderReproduces47(t *testing.T) {
	s := rawFull47()
	if got, want := s.bytes(), protodoc.Unhex(t, seed47); !bytes.Equal(got, want) {
		t.Fatalf("raw builder:\n got % X\nwant % X", got, want)
	}
	for name, s := range map[string]rawSnap{"full": rawFull(), "delta": rawDelta()} {
		var snap Snapshot
		if err := snap.Decode(s.bytes()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func TestPackedTruncated(t *testing.T) {
	for name, s := range map[string]rawSnap{"4.7": rawFull47(), "full": rawFull(), "delta": rawDelta()} {
		p := s.bytes()
		var snap Snapshot
		if err := snap.Decode(p[:len(p)-1]); !errors.Is(err, ErrTruncated) {
			t.Errorf("%s: last byte cut: got %v, want ErrTruncated", name, err)
		}
		// Any shorter prefix is either truncated, or so short that
		// entity_count no longer fits: it never names another rule.
		for n := 0; n < len(p); n++ {
			err := snap.Decode(p[:n])
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrEntityCount) {
				t.Errorf("%s: %d of %d bytes: got %v, want ErrTruncated", name, n, len(p), err)
			}
		}
	}
	// entity_count one more than the records present, still small enough
	// for the payload: the reader runs out of bits.
	s := rawFull()
	s.count++
	var snap Snapshot
	if err := snap.Decode(s.bytes()); !errors.Is(err, ErrTruncated) {
		t.Errorf("count+1: got %v, want ErrTruncated", err)
	}
}

func TestPackedExtraByte(t *testing.T) {
	// 104 bits, whole bytes: no padding before the extra byte.
	aligned := rawSnap{tick: 10, hasBase: true, age: 1, count: 2, recs: []rawRec{
		{gap: 1, change: uint32(Removed)},
		{gap: 1, change: uint32(Updated), fields: uint32(MaskFrame), f: [NumFields]int32{FieldFrame: 9}},
	}}
	var snap Snapshot
	if p := aligned.bytes(); len(p) != 13 || snap.Decode(p) != nil {
		t.Fatalf("aligned payload: %d bytes, %v", len(p), snap.Decode(p))
	}
	for name, s := range map[string]rawSnap{"4.7": rawFull47(), "full": rawFull(), "delta": rawDelta(), "aligned": aligned} {
		for _, extra := range []byte{0, 1, 0x80} {
			p := append(s.bytes(), extra)
			var snap Snapshot
			if err := snap.Decode(p); !errors.Is(err, ErrTrailing) {
				t.Errorf("%s + %#x: got %v, want ErrTrailing", name, extra, err)
			}
		}
	}
}

func TestPackedPadding(t *testing.T) {
	// 4.7 uses 158 bits: bits 6 and 7 of the last byte are padding.
	for bit := 6; bit < 8; bit++ {
		p := protodoc.Unhex(t, seed47)
		p[len(p)-1] |= 1 << bit
		var snap Snapshot
		if err := snap.Decode(p); !errors.Is(err, ErrPadding) {
			t.Errorf("padding bit %d: got %v, want ErrPadding", bit, err)
		}
	}
	// 4.8 uses 227 bits: bits 3 to 7 of the last byte are padding.
	for bit := 3; bit < 8; bit++ {
		p := protodoc.Unhex(t, seed48p)
		p[len(p)-1] |= 1 << bit
		var snap Snapshot
		if err := snap.Decode(p); !errors.Is(err, ErrPadding) {
			t.Errorf("4.8 padding bit %d: got %v, want ErrPadding", bit, err)
		}
	}
}

func TestPackedVarint(t *testing.T) {
	tests := []struct {
		name   string
		groups []uint32
		want   error
		score  uint32
	}{
		{"largest", []uint32{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, nil, 0xFFFFFFFF},
		{"fifth group 16", []uint32{0xFF, 0xFF, 0xFF, 0xFF, 0x10}, ErrVarint, 0},
		{"fifth group 127", []uint32{0x80, 0x80, 0x80, 0x80, 0x7F}, ErrVarint, 0},
		{"fifth group continues", []uint32{0xFF, 0xFF, 0xFF, 0xFF, 0x8F}, ErrVarint, 0},
		{"fifth group continues with 0", []uint32{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, ErrVarint, 0},
	}
	for _, tc := range tests {
		s := rawFull47()
		s.players[0].scoreGroups = tc.groups
		var snap Snapshot
		err := snap.Decode(s.bytes())
		if tc.want == nil {
			if err != nil || snap.Players[0].Score != tc.score {
				t.Errorf("%s: got %v score %#x", tc.name, err, snap.Players[0].Score)
			}
		} else if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
		// The same groups read alone.
		var w BitWriter
		for _, g := range tc.groups {
			w.WriteBits(g, 8)
		}
		var r BitReader
		r.Reset(w.Bytes())
		v := r.ReadVarint()
		if tc.want == nil {
			if r.Err() != nil || v != tc.score {
				t.Errorf("%s: ReadVarint = %#x, %v", tc.name, v, r.Err())
			}
		} else if !errors.Is(r.Err(), tc.want) || v != 0 {
			t.Errorf("%s: ReadVarint = %#x, %v; want %v", tc.name, v, r.Err(), tc.want)
		}
	}
}

// ---- 6.3: snapshots ------------------------------------------------------

func TestSnapshotRules(t *testing.T) {
	tests := []struct {
		name   string
		base   func() rawSnap
		mutate func(s *rawSnap)
		want   error
	}{
		{"player_count 5", rawFull, func(s *rawSnap) { s.playerCount = 5 }, ErrPlayerCount},
		{"player_count 6", rawFull, func(s *rawSnap) { s.playerCount = 6 }, ErrPlayerCount},
		{"player_count 7", rawFull, func(s *rawSnap) { s.playerCount = 7 }, ErrPlayerCount},
		{"player twice", rawFull, func(s *rawSnap) { s.players[1].player = 0 }, ErrPlayerTwice},
		{"player twice, delta", rawDelta, func(s *rawSnap) {
			s.players = append(s.players, s.players[0])
			s.playerCount++
		}, ErrPlayerTwice},
		{"change 3, full", rawFull, func(s *rawSnap) { s.recs[1].change = 3 }, ErrChange},
		{"change 3, delta", rawDelta, func(s *rawSnap) { s.recs[3].change = 3 }, ErrChange},
		{"fields 0", rawDelta, func(s *rawSnap) { s.recs[0].fields = 0 }, ErrFields},
		{"index past 24 bits by its gap, first record", rawDelta, func(s *rawSnap) { s.recs[0].gap = 1 << 24 }, ErrIndex},
		{"index past 24 bits by a huge gap", rawDelta, func(s *rawSnap) { s.recs[4].gap = 0xFFFFFFFF }, ErrIndex},
		{"index past 24 bits by a gap", rawDelta, func(s *rawSnap) { s.recs[4].gap = 1 << 24 }, ErrIndex},
		{"index past 24 bits by accumulation", rawDelta, func(s *rawSnap) {
			s.recs[0].gap = 0xFFFFF0 // then 0xFFFFF3, 0xFFFFF3, 0xFFFFF5
			s.recs[4].gap = 11       // 0xFFFFF5 + 11 = 0x1000000
		}, ErrIndex},
		{"same id twice, adjacent", rawDelta, func(s *rawSnap) { s.recs[2].gen = 0 }, ErrIDTwice},
		{"same id twice, generations 1 2 1", rawFull, func(s *rawSnap) {
			r := s.recs[2]
			r.gap, r.gen = 0, 2
			r2 := r
			r2.gen = 1
			s.recs = append(s.recs, r, r2)
			s.count = len(s.recs)
		}, ErrIDTwice},
		{"full snapshot with an updated record", rawFull, func(s *rawSnap) {
			s.recs[1] = rawRec{gap: 3, change: uint32(Updated), fields: uint32(MaskFrame), f: [NumFields]int32{FieldFrame: 2}}
		}, ErrFullDelta},
		{"full snapshot with a removed record", rawFull, func(s *rawSnap) {
			s.recs[2] = rawRec{gap: 0, gen: 1, change: uint32(Removed)}
		}, ErrFullDelta},
		{"delta as full", rawDelta, func(s *rawSnap) { s.hasBase = false }, ErrFullDelta},
		{"baseline_age 0", rawDelta, func(s *rawSnap) { s.age = 0 }, ErrBaselineAge},
		{"baseline_age > tick", rawDelta, func(s *rawSnap) { s.age = 604 }, ErrBaselineAge},
		{"baseline_age huge", rawDelta, func(s *rawSnap) { s.age = 0xFFFFFFFF }, ErrBaselineAge},
		{"entity_count 65535", rawDelta, func(s *rawSnap) { s.count = 0xFFFF }, ErrEntityCount},
		{"entity_count just too large", rawDelta, func(s *rawSnap) {
			// 87 bits come before the records: what follows cannot
			// hold one more removed record of 18 bits.
			s.count = (len(s.bytes())*8-87)/minRecordBits + 1
		}, ErrEntityCount},
		{"entity_count fits but records are missing", rawDelta, func(s *rawSnap) {
			s.count = (len(s.bytes())*8 - 87) / minRecordBits
		}, ErrTruncated},
	}
	for _, tc := range tests {
		s := tc.base()
		tc.mutate(&s)
		var snap Snapshot
		if err := snap.Decode(s.bytes()); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestSnapshotLegalEdges(t *testing.T) {
	tests := []struct {
		name   string
		base   func() rawSnap
		mutate func(s *rawSnap)
	}{
		{"player_count 4", rawFull, func(s *rawSnap) {
			s.players = append(s.players, rawPlayer{player: 1, lives: 9}, rawPlayer{player: 3, hasShip: true, ship: NoEntity - 1})
			s.playerCount = 4
		}},
		{"player_count 0", rawFull, func(s *rawSnap) { s.players, s.playerCount = nil, 0 }},
		{"no record", rawDelta, func(s *rawSnap) { s.recs, s.count = nil, 0 }},
		{"no record, full", rawFull, func(s *rawSnap) { s.recs, s.count = nil, 0 }},
		{"index 0xFFFFFF", rawDelta, func(s *rawSnap) { s.recs[4].gap = 0xFFFFFF - 7 }},
		{"first index 0xFFFFFF", rawFull, func(s *rawSnap) { s.recs = s.recs[:1]; s.count = 1; s.recs[0].gap = 0xFFFFFF }},
		{"baseline_age = tick", rawDelta, func(s *rawSnap) { s.age = 603 }},
		{"kinds 0 and 7", rawFull, func(s *rawSnap) { s.recs[0].kind = 0; s.recs[1].kind = 7 }},
		{"every fields mask", rawDelta, func(s *rawSnap) { s.recs[0].fields = 15 }},
		{"one generation per value", rawFull, func(s *rawSnap) {
			s.recs = s.recs[:1]
			for g := 1; g < 256; g++ {
				r := s.recs[0]
				r.gap, r.gen = 0, uint32(g)
				s.recs = append(s.recs, r)
			}
			s.count = len(s.recs)
		}},
	}
	for _, tc := range tests {
		s := tc.base()
		tc.mutate(&s)
		var snap Snapshot
		if err := snap.Decode(s.bytes()); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// An index reused with another generation is another network id: removed
// then added at gap 0 is legal, and rebuilds the new entity in place of
// the old one.
func TestSnapshotReusedIndex(t *testing.T) {
	s := rawDelta()
	p := s.bytes()
	var snap Snapshot
	if err := snap.Decode(p); err != nil {
		t.Fatal(err)
	}
	if snap.Records[1].ID != 5 || snap.Records[1].Change != Removed ||
		snap.Records[2].ID != MakeID(5, 1) || snap.Records[2].Change != Added {
		t.Fatalf("records %+v", snap.Records)
	}
	got, err := ApplyRecords(nil, deltaBase(), snap.Records)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, deltaWorld()) {
		t.Fatalf("rebuilt\n got %+v\nwant %+v", got, deltaWorld())
	}
	// The same in the other order on the wire (added generation 1 first).
	s.recs[1], s.recs[2] = s.recs[2], s.recs[1]
	s.recs[1].gap, s.recs[2].gap = 3, 0
	if err := snap.Decode(s.bytes()); err != nil {
		t.Fatal(err)
	}
	got, err = ApplyRecords(got[:0], deltaBase(), snap.Records)
	if err != nil || !slices.Equal(got, deltaWorld()) {
		t.Fatalf("rebuilt, other order: %v\n got %+v", err, got)
	}
}

// 4.8 step 2: an updated or removed record of an id the baseline lacks.
func TestApplyMissingBase(t *testing.T) {
	s := rawDelta()
	var snap Snapshot
	if err := snap.Decode(s.bytes()); err != nil {
		t.Fatal(err)
	}
	for _, drop := range []uint32{2, 5, 7} { // updated, removed, removed
		base := slices.DeleteFunc(deltaBase(), func(e Entity) bool { return e.ID == drop })
		recs := slices.Clone(snap.Records)
		if _, err := ApplyRecords(nil, base, recs); !errors.Is(err, ErrMissingBase) {
			t.Errorf("base without %d: got %v, want ErrMissingBase", drop, err)
		}
	}
	// A removed record of another generation than the base's.
	base := deltaBase()
	base[2].ID = MakeID(7, 3)
	if _, err := ApplyRecords(nil, base, slices.Clone(snap.Records)); !errors.Is(err, ErrMissingBase) {
		t.Errorf("generation 3 in base: got %v, want ErrMissingBase", err)
	}
}

// ---- 6.4: events ---------------------------------------------------------

func TestEventValid(t *testing.T) {
	for _, ev := range vocabtest.ValidEvents() {
		b := AppendEvent(nil, &ev)
		var got Event
		if err := ParseEvent(b, &got); err != nil || got != ev {
			t.Errorf("%v: %v\n got %+v\nwant %+v", ev.Type, err, got, ev)
		}
	}
}

func TestEventUnknownType(t *testing.T) {
	for _, typ := range []byte{0, 7, 8, 255} {
		for _, n := range []int{5, 7, 15, 27} {
			b := make([]byte, n)
			b[0] = typ
			var ev Event
			if err := ParseEvent(b, &ev); !errors.Is(err, ErrEventType) {
				t.Errorf("type %d, %d bytes: got %v, want ErrEventType", typ, n, err)
			}
		}
	}
}

func TestEventLength(t *testing.T) {
	for _, ev := range vocabtest.ValidEvents() {
		b := AppendEvent(nil, &ev)
		for _, n := range []int{len(b) - 1, len(b) + 1, len(b) + 5} {
			c := append(slices.Clone(b), make([]byte, 8)...)[:n]
			var got Event
			if err := ParseEvent(c, &got); !errors.Is(err, ErrEventLength) {
				t.Errorf("%v, %d bytes instead of %d: got %v, want ErrEventLength", ev.Type, n, len(b), err)
			}
		}
		// Every prefix shorter than the event.
		for n := 0; n < len(b); n++ {
			var got Event
			if err := ParseEvent(b[:n], &got); !errors.Is(err, ErrEventLength) {
				t.Errorf("%v, prefix of %d bytes: got %v, want ErrEventLength", ev.Type, n, err)
			}
		}
	}
}

func TestEventNonFinite(t *testing.T) {
	for _, ev := range vocabtest.ValidEvents() {
		for _, off := range f32At[ev.Type] {
			for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), math.Float32frombits(0xFFC00001)} {
				b := AppendEvent(nil, &ev)
				putF32(b, off, v)
				var got Event
				if err := ParseEvent(b, &got); !errors.Is(err, ErrEventValue) {
					t.Errorf("%v with %v at %d: got %v, want ErrEventValue", ev.Type, v, off, err)
				}
			}
			// The largest finite values and -0 are fine.
			for _, v := range []float32{math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Copysign(0, -1))} {
				b := AppendEvent(nil, &ev)
				putF32(b, off, v)
				var got Event
				if err := ParseEvent(b, &got); err != nil {
					t.Errorf("%v with %v at %d: %v", ev.Type, v, off, err)
				}
			}
		}
	}
}

func TestEventPlayer(t *testing.T) {
	for _, ev := range vocabtest.ValidEvents() {
		switch ev.Type {
		case EventDeath, EventPlayerJoined, EventPlayerLeft:
		default:
			continue
		}
		for _, p := range []uint8{4, 5, 254, NoPlayer} {
			e := ev
			e.Player = p
			var got Event
			if err := ParseEvent(AppendEvent(nil, &e), &got); !errors.Is(err, ErrEventValue) {
				t.Errorf("%v player %d: got %v, want ErrEventValue", ev.Type, p, err)
			}
		}
		for p := uint8(0); p < MaxPlayers; p++ {
			e := ev
			e.Player = p
			var got Event
			if err := ParseEvent(AppendEvent(nil, &e), &got); err != nil || got != e {
				t.Errorf("%v player %d: %v", ev.Type, p, err)
			}
		}
	}
}

func TestEventSpawnOwner(t *testing.T) {
	ev := vocabtest.ValidEvents()[0]
	for o := 0; o < 256; o++ {
		ev.Owner = uint8(o)
		var got Event
		err := ParseEvent(AppendEvent(nil, &ev), &got)
		if o < MaxPlayers || o == int(NoPlayer) {
			if err != nil || got != ev {
				t.Errorf("owner %d: %v", o, err)
			}
		} else if !errors.Is(err, ErrEventValue) {
			t.Errorf("owner %d: got %v, want ErrEventValue", o, err)
		}
	}
}

func TestEventPlayerJoinedName(t *testing.T) {
	ev := vocabtest.ValidEvents()[3]
	for _, name := range []string{"\xff", "Rip\xc3", "\xed\xa0\x80", "a\xc0\xafb", "Ripley\x80"} {
		ev.Name = name
		var got Event
		if err := ParseEvent(AppendEvent(nil, &ev), &got); !errors.Is(err, ErrEventValue) {
			t.Errorf("name %q: got %v, want ErrEventValue", name, err)
		}
	}
	for _, name := range []string{"", "Ana", "Zoë", "日本語", "😀😀", strings.Repeat("é", 123) + "a"} {
		ev.Name = name
		var got Event
		if err := ParseEvent(AppendEvent(nil, &ev), &got); err != nil || got != ev {
			t.Errorf("name %q: %v", name, err)
		}
	}
	// The name's length disagrees with the event's.
	ev.Name = "Ripley"
	b := AppendEvent(nil, &ev)
	for _, l := range []uint16{0, 5, 7, 0xFFFF} {
		c := slices.Clone(b)
		binary.LittleEndian.PutUint16(c[6:], l)
		var got Event
		if err := ParseEvent(c, &got); !errors.Is(err, ErrEventLength) {
			t.Errorf("name length %d for 6 bytes: got %v, want ErrEventLength", l, err)
		}
	}
}

func TestEventGameOver(t *testing.T) {
	ev := vocabtest.ValidEvents()[5]
	b := AppendEvent(nil, &ev)
	// count disagrees with the length.
	for _, c := range []byte{0, 1, 3, 4, 255} {
		d := slices.Clone(b)
		d[5] = c
		var got Event
		if err := ParseEvent(d, &got); !errors.Is(err, ErrEventLength) {
			t.Errorf("count %d for 2 scores: got %v, want ErrEventLength", c, err)
		}
	}
	// count 5 with five scores: a length that agrees, but too many players.
	d := append([]byte{byte(EventGameOver), 0, 0, 0, 0, 5}, make([]byte, 25)...)
	for i := 0; i < 5; i++ {
		d[6+5*i] = byte(i % 4)
	}
	var got Event
	if err := ParseEvent(d, &got); !errors.Is(err, ErrEventValue) {
		t.Errorf("count 5: got %v, want ErrEventValue", err)
	}
	// A player above 3, in either position.
	for i := 0; i < 2; i++ {
		for _, p := range []byte{4, 255} {
			d := slices.Clone(b)
			d[6+5*i] = p
			if err := ParseEvent(d, &got); !errors.Is(err, ErrEventValue) {
				t.Errorf("score %d of player %d: got %v, want ErrEventValue", i, p, err)
			}
		}
	}
	// Four scores are fine.
	ev.NumScores = 4
	ev.Scores = [MaxPlayers]Score{{Player: 0, Score: 1}, {Player: 1, Score: 2}, {Player: 2, Score: 3}, {Player: 3, Score: 4}}
	if err := ParseEvent(AppendEvent(nil, &ev), &got); err != nil || got != ev {
		t.Errorf("4 scores: %v %+v", err, got)
	}
}

// Unknown Destroy and PlayerLeft reasons are read as they are: the client
// treats them as Killed and Left.
func TestEventUnknownReasons(t *testing.T) {
	evs := vocabtest.ValidEvents()
	for _, ev := range []Event{evs[1], evs[4]} {
		for r := 0; r < 256; r++ {
			ev.Reason = uint8(r)
			var got Event
			if err := ParseEvent(AppendEvent(nil, &ev), &got); err != nil || got != ev {
				t.Errorf("%v reason %d: %v", ev.Type, r, err)
			}
		}
	}
}

// ---- 5.2: event framing --------------------------------------------------

func TestEventFraming(t *testing.T) {
	spawn := AppendEvent(nil, &vocabtest.ValidEvents()[0])
	left := AppendEvent(nil, &vocabtest.ValidEvents()[4])
	good := AppendEventFrame(AppendEventFrame([]byte{2}, 7, spawn), 8, left)
	frames, err := ParseEventFrames(good, nil)
	if err != nil || len(frames) != 2 || frames[0].ID != 7 || frames[1].ID != 8 ||
		!bytes.Equal(frames[0].Data, spawn) || !bytes.Equal(frames[1].Data, left) {
		t.Fatalf("valid framing: %v %+v", err, frames)
	}
	// The largest frame: 255 bytes.
	big := AppendEventFrame([]byte{1}, 0xFFFF, make([]byte, 255))
	if frames, err := ParseEventFrames(big, nil); err != nil || len(frames) != 1 || frames[0].ID != 0xFFFF || len(frames[0].Data) != 255 {
		t.Fatalf("255-byte frame: %v", err)
	}

	zeroLen := slices.Clone(good)
	zeroLen[1+2] = 0
	tests := []struct {
		name string
		p    []byte
	}{
		{"empty payload", nil},
		{"count 0", []byte{0}},
		{"count 0 with a frame", append([]byte{0}, good[1:]...)},
		{"frame length 0", zeroLen},
		{"frame length 0 alone", []byte{1, 7, 0, 0}},
		{"frame length 0 alone, with a byte", []byte{1, 7, 0, 0, 5}},
		{"truncated frame", good[:len(good)-1]},
		{"truncated frame header", good[:1+FrameOverhead+len(spawn)+2]},
		{"truncated first frame", good[:1+FrameOverhead+len(spawn)-3]},
		{"count only", []byte{1}},
		{"trailing byte", append(slices.Clone(good), 0)},
		{"trailing frame", AppendEventFrame(slices.Clone(good), 9, left)},
		{"count 3, 2 frames", append([]byte{3}, good[1:]...)},
		{"count 255, 2 frames", append([]byte{255}, good[1:]...)},
		{"count 1, 2 frames", append([]byte{1}, good[1:]...)},
	}
	for _, tc := range tests {
		prev := []EventFrame{{ID: 1}}
		frames, err := ParseEventFrames(tc.p, prev)
		if !errors.Is(err, ErrEventFraming) {
			t.Errorf("%s: got %v, want ErrEventFraming", tc.name, err)
		}
		if len(frames) != 1 {
			t.Errorf("%s: appended %d frames on error", tc.name, len(frames)-1)
		}
	}
	// A frame whose bytes are a bad event is still framed: the datagram is
	// valid and only that event is ignored (6.4).
	bad := AppendEventFrame(AppendEventFrame([]byte{2}, 1, []byte{0xEE}), 2, left)
	frames, err = ParseEventFrames(bad, frames[:0])
	if err != nil || len(frames) != 2 {
		t.Fatalf("bad event in good framing: %v", err)
	}
	var ev Event
	if err := ParseEvent(frames[0].Data, &ev); err == nil {
		t.Fatal("0xEE parsed")
	}
	if err := ParseEvent(frames[1].Data, &ev); err != nil || ev != vocabtest.ValidEvents()[4] {
		t.Fatalf("second event: %v", err)
	}
}

// ---- 3.1: TCP frames -----------------------------------------------------

func TestFrameLength(t *testing.T) {
	logout := []byte{byte(MsgLogout), LogoutLeft}
	for _, n := range []int{0, MaxFrame + 1, 0xFFFF} {
		stream := binary.LittleEndian.AppendUint16(nil, uint16(n))
		stream = append(stream, make([]byte, n)...)
		fr := FrameReader{R: bytes.NewReader(stream)}
		if _, err := fr.ReadMessage(); !errors.Is(err, ErrFrameLength) {
			t.Errorf("length %d: got %v, want ErrFrameLength", n, err)
		}
		if _, err := ParseMessage(make([]byte, n)); !errors.Is(err, ErrFrameLength) {
			t.Errorf("ParseMessage of %d bytes: got %v, want ErrFrameLength", n, err)
		}
	}
	// The largest frame: 1024 bytes.
	m := Message{Type: MsgLoginRejected, Reason: RejectGameFull, Text: strings.Repeat("x", MaxFrame-4)}
	b := AppendMessage(nil, &m)
	if len(b) != 2+MaxFrame {
		t.Fatalf("largest frame is %d bytes", len(b))
	}
	fr := FrameReader{R: bytes.NewReader(append(b, frame(logout)...))}
	if got, err := fr.ReadMessage(); err != nil || got != m {
		t.Fatalf("1024-byte frame: %v", err)
	}
	if got, err := fr.ReadMessage(); err != nil || got.Type != MsgLogout {
		t.Fatalf("frame after: %v", err)
	}
	if _, err := fr.ReadMessage(); err != io.EOF {
		t.Fatalf("end of stream: got %v, want io.EOF", err)
	}
}

func TestFrameTruncated(t *testing.T) {
	good := frame([]byte{byte(MsgLogout), LogoutLeft})
	for n := 1; n < len(good); n++ {
		fr := FrameReader{R: bytes.NewReader(good[:n])}
		if _, err := fr.ReadMessage(); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%d of %d bytes: got %v, want io.ErrUnexpectedEOF", n, len(good), err)
		}
	}
	// A length that promises more than the stream holds.
	fr := FrameReader{R: bytes.NewReader(append(binary.LittleEndian.AppendUint16(nil, 1024), 4, 0))}
	if _, err := fr.ReadFrame(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("1024 promised: got %v", err)
	}
	fr = FrameReader{R: bytes.NewReader(nil)}
	if _, err := fr.ReadFrame(); err != io.EOF {
		t.Errorf("empty stream: got %v, want io.EOF", err)
	}
}

func TestMessageUnknownType(t *testing.T) {
	for _, typ := range []byte{0, 5, 0x10, 0x81, 255} {
		fr := FrameReader{R: bytes.NewReader(frame([]byte{typ, 0}))}
		if _, err := fr.ReadMessage(); !errors.Is(err, ErrMessageType) {
			t.Errorf("type %#x: got %v, want ErrMessageType", typ, err)
		}
	}
}

func TestMessageBody(t *testing.T) {
	valid := []Message{
		{Type: MsgLoginRequest, Version: 1, Name: "Ripley"},
		{Type: MsgLoginAccepted, Player: 3, Session: 0xDEADBEEF, Token: Token{1, 2, 3, 4, 5, 6, 7, 8}, Tick: 600},
		{Type: MsgLoginRejected, Reason: RejectNameTaken, Text: "name taken"},
		{Type: MsgLogout, Reason: LogoutGameOver},
	}
	for _, m := range valid {
		b := AppendMessage(nil, &m)[2:]
		if got, err := ParseMessage(b); err != nil || got != m {
			t.Fatalf("%v: %v %+v", m.Type, err, got)
		}
		// Too short: every prefix that keeps the type.
		for n := 1; n < len(b); n++ {
			if _, err := ParseMessage(b[:n]); !errors.Is(err, ErrMessageBody) {
				t.Errorf("%v cut to %d of %d bytes: got %v, want ErrMessageBody", m.Type, n, len(b), err)
			}
		}
		// Too long.
		for _, extra := range [][]byte{{0}, {'x'}, {0, 0, 0}} {
			c := append(slices.Clone(b), extra...)
			fr := FrameReader{R: bytes.NewReader(frame(c))}
			if _, err := fr.ReadMessage(); !errors.Is(err, ErrMessageBody) {
				t.Errorf("%v with %d extra bytes: got %v, want ErrMessageBody", m.Type, len(extra), err)
			}
		}
	}
	accepted := AppendMessage(nil, &valid[1])[2:]
	for _, p := range []byte{4, 255} {
		c := slices.Clone(accepted)
		c[1] = p
		if _, err := ParseMessage(c); !errors.Is(err, ErrMessageBody) {
			t.Errorf("LoginAccepted player %d: got %v, want ErrMessageBody", p, err)
		}
	}
	c := slices.Clone(accepted)
	binary.LittleEndian.PutUint32(c[2:], 0)
	if _, err := ParseMessage(c); !errors.Is(err, ErrMessageBody) {
		t.Errorf("LoginAccepted session 0: got %v, want ErrMessageBody", err)
	}
	// The strings of LoginRequest and LoginRejected.
	for _, m := range []Message{valid[0], valid[2]} {
		for _, s := range []string{"\xff", "Rip\xc3", "\xed\xa0\x80", "ok\xc0\xaf"} {
			mm := m
			mm.Name, mm.Text = s, s
			if _, err := ParseMessage(AppendMessage(nil, &mm)[2:]); !errors.Is(err, ErrMessageBody) {
				t.Errorf("%v string %q: got %v, want ErrMessageBody", m.Type, s, err)
			}
		}
		b := AppendMessage(nil, &m)[2:]
		for _, l := range []uint16{0, 5, 7, 11, 0xFFFF} {
			c := slices.Clone(b)
			binary.LittleEndian.PutUint16(c[2:], l)
			if int(l) == len(c)-4 {
				continue
			}
			if _, err := ParseMessage(c); !errors.Is(err, ErrMessageBody) {
				t.Errorf("%v string length %d for %d bytes: got %v, want ErrMessageBody", m.Type, l, len(c)-4, err)
			}
		}
		// An empty string is well formed (the server then rejects the name).
		mm := m
		mm.Name, mm.Text = "", ""
		if got, err := ParseMessage(AppendMessage(nil, &mm)[2:]); err != nil || got != mm {
			t.Errorf("%v empty string: %v", m.Type, err)
		}
	}
}
