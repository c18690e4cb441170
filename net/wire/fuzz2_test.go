package wire

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Fuzz targets of the v2 decoders (Part II of PROTOCOL.md), each with a
// committed corpus under testdata/fuzz/<FuzzName>/.

func fuzzDatagrams2() [][]byte {
	var out [][]byte
	for typ, p := range validPayloads2() {
		out = append(out, datagram2(typ, p))
	}
	return append(out, datagram2(TypeBind, make([]byte, 16)), datagram2(TypeInput, []byte{1, 0, 0, 0, 2, 0x40, 0}), datagram(TypeAck, nil))
}

func FuzzParseHeader2(f *testing.F) {
	for _, b := range fuzzDatagrams2() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, d := range []Direction{ToServer, ToClient} {
			h, p, err := ParseHeader2(b, d)
			if err != nil {
				continue
			}
			if len(b) < HeaderSize2 || len(b) > MaxDatagram || h.Session == 0 || !allowed(h.Type, d) {
				t.Fatalf("accepted %+v from %d bytes", h, len(b))
			}
			if got := append(AppendHeader2(nil, h), p...); !bytes.Equal(got, b) {
				t.Fatalf("re-encoded % X\n        from % X", got, b)
			}
			switch h.Type {
			case TypeBind:
				bd, err := ParseBind2(p)
				if err != nil || !bytes.Equal(AppendBind2(nil, bd), p) {
					t.Fatalf("bind % X: %v", p, err)
				}
			case TypeChallenge:
				c, err := ParseChallenge(p)
				if err != nil || !bytes.Equal(c[:], p) {
					t.Fatalf("challenge % X: %v", p, err)
				}
			case TypeInput:
				var in Input2
				if err := ParseInput2(p, &in); err != nil || !bytes.Equal(AppendInput2(nil, &in), p) {
					t.Fatalf("input % X: %v", p, err)
				}
			case TypeSnapshot:
				var s Snapshot2
				_ = s.Decode(p)
			case TypeEvent:
				_, _ = ParseEventFrames2(p, nil)
			}
		}
	})
}

func fuzzSnapshots2() [][]byte {
	var out [][]byte
	for _, s := range []rawSnap2{rawFull2(), rawDelta2()} {
		out = append(out, s.bytes())
	}
	bp, be := deltaBase2()
	var enc Snapshot2Encoder
	for _, p := range enc.Encode(603, bp, bp, be, 600, []Entity2{exShip2(2, 602, 100, 360, 360)}) {
		out = append(out, slices.Clone(p))
	}
	return out
}

// fuzzBase2 is a fixed baseline for the records of fuzzed snapshots. Its
// base ticks are 0, as a real baseline's are at most its own tick, which
// is at most the snapshot's.
var fuzzBase2 = func() []Entity2 {
	_, be := deltaBase2()
	be = append([]Entity2{exShip2(0, 0, 0, 0, 0)}, append(be, exBydos2(0xFFFFFF, 1))...)
	for i := range be {
		be[i].F[F2T0] = 0
	}
	return be
}()

func FuzzSnapshot2Decode(f *testing.F) {
	for _, b := range fuzzSnapshots2() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var s Snapshot2
		if err := s.Decode(p); err != nil {
			return
		}
		if s.NumPlayers > MaxPlayers || (s.HasBaseline && (s.BaselineAge == 0 || s.BaselineAge > s.Tick)) {
			t.Fatalf("accepted %+v", s)
		}
		for i, rec := range s.Records {
			if rec.Change > Removed || (rec.Change == Updated && rec.Mask == 0) || (!s.HasBaseline && rec.Change != Added) ||
				rec.Mask>>NumFields2 != 0 || (rec.Mask&(1<<F2T0) != 0 && rec.F[F2T0] > s.Tick) {
				t.Fatalf("accepted record %d %+v", i, rec)
			}
		}
		basePlayers := []Player2{{PlayerState: PlayerState{Player: 0, Ship: NoEntity}}, {PlayerState: PlayerState{Player: 1, Ship: NoEntity}},
			{PlayerState: PlayerState{Player: 2, Ship: NoEntity}}, {PlayerState: PlayerState{Player: 3, Ship: NoEntity}}}
		players, err := ApplyPlayers2(nil, basePlayers, s.PlayerRecords())
		if err != nil {
			t.Fatal(err)
		}
		var base []Entity2
		if s.HasBaseline {
			base = fuzzBase2
		}
		world, err := ApplyRecords2(nil, base, slices.Clone(s.Records))
		if err != nil {
			if !errors.Is(err, ErrMissingBase2) {
				t.Fatal(err)
			}
			return
		}
		// Encode what was decoded again, decode that: the same world.
		var enc Snapshot2Encoder
		bp := basePlayers
		if !s.HasBaseline {
			bp = nil
		}
		got := base
		var s2 Snapshot2
		for _, q := range enc.Encode(s.Tick, players, bp, base, s.Tick-s.BaselineAge, world) {
			if len(q) > MaxPayload2 {
				t.Fatalf("re-encoded payload of %d bytes", len(q))
			}
			if err := s2.Decode(q); err != nil {
				t.Fatalf("re-encoded payload: %v", err)
			}
			pl, err := ApplyPlayers2(nil, basePlayers, s2.PlayerRecords())
			if err != nil || !slices.Equal(pl, players) {
				t.Fatalf("re-encoded players %+v, want %+v", pl, players)
			}
			if got, err = ApplyRecords2(nil, got, s2.Records); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, world) && !(len(got) == 0 && len(world) == 0) {
			t.Fatalf("re-encoded world\n got %+v\nwant %+v", got, world)
		}
	})
}

// fuzzSnapshots24 is the seeds of FuzzSnapshot24Decode: v2 snapshots
// with event tails (7.8), empty, of one and of two events, and broken.
func fuzzSnapshots24() [][]byte {
	ev := exSpawn2Event()
	tails := [][]byte{
		{0},
		AppendEventFrame2([]byte{1}, 70000, AppendEvent2(nil, &ev)),
		AppendEventFrame2(AppendEventFrame2([]byte{2}, 1, []byte{9}), 2, []byte{7, 7}),
		AppendEventFrame2([]byte{2}, 1, []byte{9}), // a frame short
		{},
	}
	var out [][]byte
	for i, p := range fuzzSnapshots2() {
		out = append(out, append(slices.Clone(p), tails[i%len(tails)]...))
	}
	for _, t := range tails {
		out = append(out, append(slices.Clone(fuzzSnapshots2()[1]), t...))
	}
	return out
}

// FuzzSnapshot24Decode: a v2 Snapshot payload (7.8) that DecodeTail
// accepts is a packed part that Decode accepts alone, as the same
// snapshot, and a tail of count frames of 1 to 255 bytes that re-encode
// to it.
func FuzzSnapshot24Decode(f *testing.F) {
	for _, b := range fuzzSnapshots24() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var s Snapshot2
		tail, err := s.DecodeTail(p)
		if err != nil {
			return
		}
		if len(tail) < 1 || len(tail) > len(p) {
			t.Fatalf("tail of %d bytes from %d", len(tail), len(p))
		}
		var s2 Snapshot2
		if err := s2.Decode(p[:len(p)-len(tail)]); err != nil {
			t.Fatalf("the packed part alone: %v", err)
		}
		if s2.Tick != s.Tick || s2.HasBaseline != s.HasBaseline || s2.BaselineAge != s.BaselineAge ||
			!slices.Equal(s2.PlayerRecords(), s.PlayerRecords()) || !slices.Equal(s2.Records, s.Records) {
			t.Fatalf("the packed part alone decodes to %+v, with its tail to %+v", s2, s)
		}
		frames := TailFrames(tail, nil)
		if len(frames) != int(tail[0]) {
			t.Fatalf("%d frames of a count of %d", len(frames), tail[0])
		}
		re := []byte{tail[0]}
		for _, fr := range frames {
			if len(fr.Data) < 1 || len(fr.Data) > 255 {
				t.Fatalf("frame of %d bytes", len(fr.Data))
			}
			re = AppendEventFrame2(re, fr.ID, fr.Data)
		}
		if !bytes.Equal(re, tail) {
			t.Fatalf("re-encoded tail % X\n          from % X", re, tail)
		}
		if tail[0] > 0 {
			if _, err := ParseEventFrames2(tail, nil); err != nil {
				t.Fatalf("a tail of %d events is no Event payload: %v", tail[0], err)
			}
		}
	})
}

func fuzzEvents2() [][]byte {
	ev := exSpawn2Event()
	out := [][]byte{AppendEvent2(nil, &ev), append(AppendEvent2(nil, &ev), 1, 2)}
	for _, e := range validEvents()[1:] {
		out = append(out, append(AppendEvent2(nil, &e), 0xAA))
	}
	for _, e := range validEvents21() { // Stage mode (7.12)
		out = append(out, AppendEvent2(nil, &e), append(AppendEvent2(nil, &e), 0xAA))
	}
	return out
}

func FuzzParseEvent2(f *testing.F) {
	for _, b := range fuzzEvents2() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ev Event
		if err := ParseEvent2(b, &ev); err != nil {
			return
		}
		if ev.Type == EventSpawn && ev.Motion.Model > 15 {
			t.Fatalf("accepted model %d", ev.Motion.Model)
		}
		switch { // 7.12
		case ev.Type == EventArms && (ev.Player >= MaxPlayers || !validArms(&ev.Arms)),
			ev.Type == EventHealth && (ev.HP > ev.MaxHP || ev.MaxHP == 0),
			ev.Type == EventStage && (len(ev.Name) > MaxStageName || !validStage(ev.What, ev.Value, len(ev.Name))):
			t.Fatalf("accepted %+v", ev)
		}
		// Re-encoded, the event is a prefix of the input (extra bytes are
		// ignored) and parses to the same event.
		got := AppendEvent2(nil, &ev)
		if !bytes.HasPrefix(b, got) {
			t.Fatalf("re-encoded % X\n is no prefix of % X", got, b)
		}
		var ev2 Event
		if err := ParseEvent2(got, &ev2); err != nil || !sameEvent(ev, ev2) || ev.Motion != ev2.Motion || ev.Anim != ev2.Anim {
			t.Fatalf("re-parsed %+v %v", ev2, err)
		}
	})
}

func FuzzParseEventFrames2(f *testing.F) {
	ev := exSpawn2Event()
	f.Add(AppendEventFrame2([]byte{1}, 70000, AppendEvent2(nil, &ev)))
	f.Add(AppendEventFrame2(AppendEventFrame2([]byte{2}, 1, []byte{9}), 2, []byte{7, 7}))
	f.Fuzz(func(t *testing.T, p []byte) {
		frames, err := ParseEventFrames2(p, nil)
		if err != nil {
			if len(frames) != 0 {
				t.Fatal("frames appended on error")
			}
			return
		}
		got := []byte{byte(len(frames))}
		for _, fr := range frames {
			got = AppendEventFrame2(got, fr.ID, fr.Data)
		}
		if !bytes.Equal(got, p) {
			t.Fatalf("re-encoded % X\n        from % X", got, p)
		}
	})
}

// The LoginRequest and LoginAccepted of the v2 seeds.
var (
	fuzzLoginReq = Message{Type: MsgLoginRequest, Version: 2, Name: "Ripley", Revision: Revision, Mode: ModeStage}
	fuzzLoginOK  = Message{Type: MsgLoginAccepted, Player: 0, Session: 0xDEADBEEF, Token: Token{1, 2, 3, 4, 5, 6, 7, 8}, Tick: 600,
		Ext: exExt, Revision: Revision, Mode: ModeStage}
)

func FuzzParseMessage2(f *testing.F) {
	for _, m := range []Message{
		{Type: MsgLoginRejected, Reason: RejectVersionMismatch, Text: "version"},
		{Type: MsgLogout, Reason: LogoutKicked},
		fuzzLoginReq, fuzzLoginOK,
		exLoginLobby, exLoginOKLobby, exLoginSpectate,
	} {
		b := AppendMessage2(nil, &m)[2:]
		f.Add(b)
		f.Add(append(slices.Clone(b), 1, 2, 3))
	}
	f.Add([]byte{0x42, 1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) { reencodes2(t, b) })
}

// reencodes2 decodes a v2 TCP frame and, when it is valid, checks that it
// encodes to a prefix of b (what follows the known fields is ignored,
// 7.1) that decodes to the same message.
func reencodes2(t *testing.T, b []byte) (Message, bool) {
	m, err := ParseMessage2(b)
	if err != nil {
		return m, false
	}
	got := AppendMessage2(nil, &m)[2:]
	if !bytes.HasPrefix(b, got) {
		t.Fatalf("re-encoded % X\n is no prefix of % X", got, b)
	}
	m2, err := ParseMessage2(got)
	if err != nil || m2 != m {
		t.Fatalf("re-parsed %+v %v", m2, err)
	}
	return m, true
}

// TestWriteFuzzCorpus2 writes the seeds of the v2 fuzz targets as their
// committed corpus, when RTYPE_WRITE_CORPUS is set.
func TestWriteFuzzCorpus2(t *testing.T) {
	if os.Getenv("RTYPE_WRITE_CORPUS") == "" {
		t.Skip("set RTYPE_WRITE_CORPUS=1 to rewrite the v2 seed corpus")
	}
	ev := exSpawn2Event()
	frames := [][]byte{
		AppendEventFrame2([]byte{1}, 70000, AppendEvent2(nil, &ev)),
		AppendEventFrame2(AppendEventFrame2([]byte{2}, 1, []byte{9}), 2, []byte{7, 7}),
		{1, 0, 0, 0, 0, 0},
	}
	var msgs [][]byte
	for _, m := range []Message{fuzzLoginReq, fuzzLoginOK, {Type: MsgLogout, Reason: LogoutKicked}} {
		msgs = append(msgs, append(AppendMessage2(nil, &m)[2:], 9))
	}
	msgs = append(msgs, []byte{0x42, 1, 2, 3})
	for _, m := range []Message{fuzzLoginReq, fuzzLoginOK, exLoginLobby, exLoginOKLobby, exLoginSpectate} {
		msgs = append(msgs, AppendMessage2(nil, &m)[2:])
	}
	for name, seeds := range map[string][][]byte{
		"FuzzParseHeader2":      fuzzDatagrams2(),
		"FuzzSnapshot2Decode":   fuzzSnapshots2(),
		"FuzzSnapshot24Decode":  fuzzSnapshots24(), // the event tail (7.8)
		"FuzzParseEvent2":       fuzzEvents2(),
		"FuzzParseEventFrames2": frames,
		"FuzzParseMessage2":     msgs,
		"FuzzParseInput2":       fuzzInputs2(),
		"FuzzParseChat":         fuzzChats(), // 7.13
		"FuzzParseRoom":         fuzzRooms(), // 7.14
	} {
		dir := filepath.Join("testdata", "fuzz", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, b := range seeds {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
