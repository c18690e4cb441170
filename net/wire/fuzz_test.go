package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"rtype/internal/protodoc"
	"rtype/vocab/vocabtest"
	"slices"
	"testing"
)

// Fuzz targets, one per decoder. Besides the seeds added here, each has a
// committed corpus under testdata/fuzz/<FuzzName>/. Every target checks
// that the decoder does not panic and, when it accepts an input, that the
// encoder gives the same bytes (or the same value) back.

// fuzzDatagrams and the functions after it return valid and near-valid
// inputs of each kind.
func fuzzDatagrams(tb testing.TB) [][]byte {
	var out [][]byte
	for typ, p := range validPayloads() {
		out = append(out, datagram(typ, p))
	}
	h48 := Header{Type: TypeSnapshot, Seq: 0x25, Ack: 0x40, AckBits: 0xFFFFFFFF, Session: 0xDEADBEEF}
	p48 := protodoc.Unhex(tb, seed48p)
	out = append(out, append(AppendHeader(nil, h48), p48...))
	bad := datagram(TypeInput, []byte{0x20})
	out = append(out, bad, datagram(TypeAck, nil)[:HeaderSize-1])
	return out
}

func fuzzSnapshots(tb testing.TB) [][]byte {
	out := [][]byte{protodoc.Unhex(tb, seed47), protodoc.Unhex(tb, seed48p)}
	for _, s := range []rawSnap{rawFull47(), rawFull(), rawDelta()} {
		out = append(out, s.bytes())
	}
	return out
}

func fuzzEvents() [][]byte {
	var out [][]byte
	for _, ev := range vocabtest.ValidEvents() {
		out = append(out, AppendEvent(nil, &ev))
	}
	return out
}

func fuzzMessages() [][]byte {
	ms := []Message{
		{Type: MsgLoginRequest, Version: 1, Name: "Ripley"},
		{Type: MsgLoginAccepted, Player: 0, Session: 0xDEADBEEF, Token: Token{1, 2, 3, 4, 5, 6, 7, 8}, Tick: 600},
		{Type: MsgLoginRejected, Reason: RejectNameTaken, Text: "name taken"},
		{Type: MsgLogout, Reason: LogoutKicked},
	}
	var out [][]byte
	for i := range ms {
		out = append(out, AppendMessage(nil, &ms[i]))
	}
	return out
}

func FuzzParseHeader(f *testing.F) {
	for _, b := range fuzzDatagrams(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, d := range []Direction{ToServer, ToClient} {
			h, p, err := ParseHeader(b, d)
			if err != nil {
				continue
			}
			if len(b) < HeaderSize || len(b) > MaxDatagram || h.Session == 0 || !h.Type.Allowed(d) {
				t.Fatalf("accepted %+v from %d bytes", h, len(b))
			}
			if got := append(AppendHeader(nil, h), p...); !bytes.Equal(got, b) {
				t.Fatalf("re-encoded % X\n        from % X", got, b)
			}
			switch h.Type {
			case TypeAccept:
				a, err := ParseAccept(p)
				if err == nil && !bytes.Equal(AppendAccept(nil, a), p) {
					t.Fatalf("accept % X", p)
				}
			case TypeInput:
				if len(p) != 1 || p[0]&^ActionsMask != 0 {
					t.Fatalf("input % X", p)
				}
			case TypeSnapshot:
				var s Snapshot
				_ = s.Decode(p)
			case TypeEvent:
				_, _ = ParseEventFrames(p, nil)
			}
		}
	})
}

// fuzzBase is a fixed baseline for the records of fuzzed snapshots.
var fuzzBase = []Entity{
	MakeEntity(0, KindPlayerShip, 0, 0, 0, 0, 0),
	MakeEntity(2, KindPlayerShip, 100, 360, 0, 0, 0),
	MakeEntity(5, KindBydosSlave, 1300, 200, -120, 0, 1),
	MakeEntity(MakeID(5, 1), KindEnemyMissile, 1, 2, 3, 4, 5),
	MakeEntity(7, KindEnemyMissile, 500, 500, -200, 0, 0),
	MakeEntity(0xFFFFFF, KindBydosSlave, -5, -5, 0, 0, 15),
}

func FuzzSnapshotDecode(f *testing.F) {
	for _, b := range fuzzSnapshots(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var s Snapshot
		if err := s.Decode(p); err != nil {
			return
		}
		if s.NumPlayers > MaxPlayers || (s.HasBaseline && (s.BaselineAge == 0 || s.BaselineAge > s.Tick)) {
			t.Fatalf("accepted %+v", s)
		}
		for i, rec := range s.Records {
			if rec.Change > Removed || (rec.Change == Updated && rec.Fields == 0) || (!s.HasBaseline && rec.Change != Added) {
				t.Fatalf("accepted record %d %+v", i, rec)
			}
			if i > 0 && Index(rec.ID) < Index(s.Records[i-1].ID) {
				t.Fatalf("record %d goes back", i)
			}
		}
		players := slices.Clone(s.PlayerStates())

		// Onto an empty base, then onto a fixed one.
		world, err := ApplyRecords(nil, []Entity{}, slices.Clone(s.Records))
		if err == nil {
			checkSorted(t, world)
			if len(world) != len(s.Records) {
				t.Fatalf("%d records made %d entities", len(s.Records), len(world))
			}
		} else if !errors.Is(err, ErrMissingBase) {
			t.Fatal(err)
		}
		rebuilt, err := ApplyRecords(nil, fuzzBase, slices.Clone(s.Records))
		if err == nil {
			checkSorted(t, rebuilt)
		} else if !errors.Is(err, ErrMissingBase) {
			t.Fatal(err)
		}

		// Encode what was decoded again, decode that: the same world.
		var enc SnapshotEncoder
		var payloads [][]byte
		var base, want []Entity
		switch {
		case !s.HasBaseline:
			base, want = nil, world
			payloads = enc.Encode(s.Tick, players, nil, 0, world)
		case err == nil:
			base, want = fuzzBase, rebuilt
			payloads = enc.Encode(s.Tick, players, fuzzBase, s.Tick-s.BaselineAge, rebuilt)
		default:
			return
		}
		got := base
		var s2 Snapshot
		for _, q := range payloads {
			if len(q) > MaxPayload {
				t.Fatalf("re-encoded payload of %d bytes", len(q))
			}
			if err := s2.Decode(q); err != nil {
				t.Fatalf("re-encoded payload: %v", err)
			}
			if s2.Tick != s.Tick || s2.HasBaseline != s.HasBaseline || s2.BaselineAge != s.BaselineAge ||
				!slices.Equal(s2.PlayerStates(), players) {
				t.Fatalf("re-encoded %+v, was %+v", s2, s)
			}
			if got, err = ApplyRecords(nil, got, s2.Records); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("re-encoded world\n got %+v\nwant %+v", got, want)
		}
	})
}

func checkSorted(t *testing.T, w []Entity) {
	t.Helper()
	for i := 1; i < len(w); i++ {
		if !Less(w[i-1].ID, w[i].ID) {
			t.Fatalf("entities %d and %d out of order: %#x %#x", i-1, i, w[i-1].ID, w[i].ID)
		}
	}
}

func FuzzParseEvent(f *testing.F) {
	for _, b := range fuzzEvents() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ev Event
		if err := ParseEvent(b, &ev); err != nil {
			return
		}
		if got := AppendEvent(nil, &ev); !bytes.Equal(got, b) {
			t.Fatalf("re-encoded % X\n        from % X", got, b)
		}
		if !finite(ev.X, ev.Y, ev.VX, ev.VY) {
			t.Fatalf("accepted %+v", ev)
		}
	})
}

func FuzzParseEventFrames(f *testing.F) {
	var p []byte
	for i, b := range fuzzEvents() {
		f.Add(AppendEventFrame([]byte{1}, uint16(i), b))
		p = AppendEventFrame(p, uint16(0xFFFE+i), b)
	}
	f.Add(append([]byte{byte(len(fuzzEvents()))}, p...))
	f.Fuzz(func(t *testing.T, p []byte) {
		frames, err := ParseEventFrames(p, nil)
		if err != nil {
			if len(frames) != 0 {
				t.Fatalf("%d frames on error", len(frames))
			}
			return
		}
		got := []byte{byte(len(frames))}
		for _, fr := range frames {
			if len(fr.Data) == 0 || len(fr.Data) > MaxEventSize {
				t.Fatalf("frame of %d bytes", len(fr.Data))
			}
			got = AppendEventFrame(got, uint16(fr.ID), fr.Data)
			var ev Event
			_ = ParseEvent(fr.Data, &ev)
		}
		if len(frames) == 0 || len(frames) > 255 || !bytes.Equal(got, p) {
			t.Fatalf("re-framed % X\n      from % X", got, p)
		}
	})
}

func FuzzParseMessage(f *testing.F) {
	for _, b := range fuzzMessages() {
		f.Add(b[2:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMessage(b)
		if err != nil {
			return
		}
		if got := AppendMessage(nil, &m); !bytes.Equal(got[2:], b) || int(binary.LittleEndian.Uint16(got)) != len(b) {
			t.Fatalf("re-encoded % X\n        from % X", got, b)
		}
	})
}

func FuzzFrameReader(f *testing.F) {
	var stream []byte
	for _, b := range fuzzMessages() {
		f.Add(b)
		stream = append(stream, b...)
	}
	f.Add(stream)
	f.Add(append(slices.Clone(stream), 0, 4, 4))
	f.Fuzz(func(t *testing.T, b []byte) {
		// The same messages whether the stream arrives whole or a byte at
		// a time.
		read := func(r io.Reader) (out []Message, last error) {
			fr := FrameReader{R: r}
			for i := 0; i <= len(b); i++ {
				raw, err := fr.ReadFrame()
				if err != nil {
					return out, err
				}
				if len(raw) == 0 || len(raw) > MaxFrame {
					t.Fatalf("frame of %d bytes", len(raw))
				}
				m, err := ParseMessage(raw)
				if err == nil {
					if got := AppendMessage(nil, &m); !bytes.Equal(got[2:], raw) {
						t.Fatalf("re-encoded % X\n        from % X", got, raw)
					}
				} else if !errors.Is(err, ErrMessageType) && !errors.Is(err, ErrMessageBody) {
					t.Fatalf("ParseMessage: %v", err)
				}
				out = append(out, m)
			}
			t.Fatal("more frames than bytes")
			return
		}
		m1, err1 := read(bytes.NewReader(b))
		m2, err2 := read(oneByteReader{bytes.NewReader(b)})
		if !slices.Equal(m1, m2) || err1 != err2 {
			t.Fatalf("whole: %d messages, %v; byte by byte: %d, %v", len(m1), err1, len(m2), err2)
		}
		if err1 != io.EOF && err1 != io.ErrUnexpectedEOF && !errors.Is(err1, ErrFrameLength) {
			t.Fatalf("stream ends with %v", err1)
		}
	})
}

func FuzzBitReader(f *testing.F) {
	f.Add(protodoc.Unhex(f, seed47), []byte{32, 3, 2, 1, 0x88, 8, 0x88, 1, 0x40 | 16})
	f.Add(protodoc.Unhex(f, seed48p), []byte{0x80 | 32, 0xC0, 0xC0, 0xC0, 0x40 | 15, 0x40 | 12})
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0x10}, []byte{0x80})
	f.Add([]byte{}, []byte{0, 1, 32})
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		var r BitReader
		r.Reset(data)
		pos := 0 // the reference reader's position
		bit := func(i int) uint32 { return uint32(data[i>>3]>>(i&7)) & 1 }
		ref := func(n int) (uint32, bool) {
			if pos+n > len(data)*8 {
				return 0, false
			}
			var v uint32
			for i := 0; i < n; i++ {
				v |= bit(pos+i) << i
			}
			pos += n
			return v, true
		}
		failed := false
		for _, op := range ops {
			n := int(op&63) % 33
			switch op >> 6 {
			case 0, 1: // bits, signed
				var got uint32
				if op>>6 == 0 {
					got = r.ReadBits(n)
				} else {
					got = uint32(r.ReadSigned(n))
				}
				want, ok := ref(n)
				if failed || !ok {
					failed, want = true, 0
				} else if op>>6 == 1 && n > 0 {
					want = uint32(int32(want<<(32-n)) >> (32 - n))
				}
				if got != want {
					t.Fatalf("read %d bits (op %#x) = %#x, want %#x", n, op, got, want)
				}
			case 2: // varint
				got := r.ReadVarint()
				if r.Err() == nil && failed {
					t.Fatal("error cleared")
				}
				if r.Err() != nil {
					failed = true
					if got != 0 {
						t.Fatalf("varint %#x with an error", got)
					}
					continue
				}
				var want uint32
				for g := 0; g < 5; g++ {
					v, _ := ref(8)
					want |= (v & 0x7F) << (7 * g)
					if v&0x80 == 0 {
						break
					}
				}
				if got != want {
					t.Fatalf("ReadVarint = %#x, want %#x", got, want)
				}
			case 3: // finish
				err := r.Finish()
				var want error
				switch rem := len(data)*8 - pos; {
				case failed:
					want = r.Err()
				case rem >= 8:
					want = ErrTrailing
				case rem > 0 && data[len(data)-1]>>(8-rem) != 0:
					want = ErrPadding
				}
				if err != want {
					t.Fatalf("Finish = %v, want %v", err, want)
				}
			}
			if (r.Err() != nil) != failed {
				t.Fatalf("Err %v, failed %v", r.Err(), failed)
			}
			if !failed && r.Remaining() != len(data)*8-pos {
				t.Fatalf("Remaining %d, want %d", r.Remaining(), len(data)*8-pos)
			}
			if r.Remaining() < 0 {
				t.Fatal("negative Remaining")
			}
		}
	})
}
