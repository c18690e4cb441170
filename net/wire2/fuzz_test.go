package wire2

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"rtype/net/wire"
	"rtype/vocab/vocabtest"
	"slices"
	"testing"
)

// Fuzz targets of the v2 decoders (Part II of PROTOCOL.md), each with a
// committed corpus under testdata/fuzz/<FuzzName>/.

func fuzzDatagrams() [][]byte {
	var out [][]byte
	for typ, p := range validPayloads() {
		out = append(out, datagram(typ, p))
	}
	return append(out, datagram(wire.TypeBind, make([]byte, 16)), datagram(wire.TypeInput, []byte{1, 0, 0, 0, 2, 0x40, 0}), datagramV1(wire.TypeAck, nil))
}

func FuzzParseHeader(f *testing.F) {
	for _, b := range fuzzDatagrams() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, d := range []wire.Direction{wire.ToServer, wire.ToClient} {
			h, p, err := ParseHeader(b, d)
			if err != nil {
				continue
			}
			if len(b) < HeaderSize || len(b) > wire.MaxDatagram || h.Session == 0 || !allowed(h.Type, d) {
				t.Fatalf("accepted %+v from %d bytes", h, len(b))
			}
			if got := append(AppendHeader(nil, h), p...); !bytes.Equal(got, b) {
				t.Fatalf("re-encoded % X\n        from % X", got, b)
			}
			switch h.Type {
			case wire.TypeBind:
				bd, err := ParseBind(p)
				if err != nil || !bytes.Equal(AppendBind(nil, bd), p) {
					t.Fatalf("bind % X: %v", p, err)
				}
			case wire.TypeChallenge:
				c, err := ParseChallenge(p)
				if err != nil || !bytes.Equal(c[:], p) {
					t.Fatalf("challenge % X: %v", p, err)
				}
			case wire.TypeInput:
				var in Input
				if err := ParseInput(p, &in); err != nil || !bytes.Equal(AppendInput(nil, &in), p) {
					t.Fatalf("input % X: %v", p, err)
				}
			case wire.TypeSnapshot:
				var s Snapshot
				_ = s.Decode(p)
			case wire.TypeEvent:
				_, _ = ParseEventFrames(p, nil)
			}
		}
	})
}

func fuzzSnapshots() [][]byte {
	var out [][]byte
	for _, s := range []rawSnap{rawFull(), rawDelta()} {
		out = append(out, s.bytes())
	}
	bp, be := deltaBase()
	var enc SnapshotEncoder
	for _, p := range enc.Encode(603, bp, bp, be, 600, []Entity{exShip(2, 602, 100, 360, 360)}) {
		out = append(out, slices.Clone(p))
	}
	return out
}

// fuzzBase2 is a fixed baseline for the records of fuzzed snapshots. Its
// base ticks are 0, as a real baseline's are at most its own tick, which
// is at most the snapshot's.
var fuzzBase = func() []Entity {
	_, be := deltaBase()
	be = append([]Entity{exShip(0, 0, 0, 0, 0)}, append(be, exBydos(0xFFFFFF, 1))...)
	for i := range be {
		be[i].F[FieldT0] = 0
	}
	return be
}()

func FuzzSnapshotDecode(f *testing.F) {
	for _, b := range fuzzSnapshots() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var s Snapshot
		if err := s.Decode(p); err != nil {
			return
		}
		if s.NumPlayers > wire.MaxPlayers || (s.HasBaseline && (s.BaselineAge == 0 || s.BaselineAge > s.Tick)) {
			t.Fatalf("accepted %+v", s)
		}
		for i, rec := range s.Records {
			if rec.Change > wire.Removed || (rec.Change == wire.Updated && rec.Mask == 0) || (!s.HasBaseline && rec.Change != wire.Added) ||
				rec.Mask>>NumFields != 0 || (rec.Mask&(1<<FieldT0) != 0 && rec.F[FieldT0] > s.Tick) {
				t.Fatalf("accepted record %d %+v", i, rec)
			}
		}
		basePlayers := []Player{{PlayerState: wire.PlayerState{Player: 0, Ship: wire.NoEntity}}, {PlayerState: wire.PlayerState{Player: 1, Ship: wire.NoEntity}},
			{PlayerState: wire.PlayerState{Player: 2, Ship: wire.NoEntity}}, {PlayerState: wire.PlayerState{Player: 3, Ship: wire.NoEntity}}}
		players, err := ApplyPlayers(nil, basePlayers, s.PlayerRecords())
		if err != nil {
			t.Fatal(err)
		}
		var base []Entity
		if s.HasBaseline {
			base = fuzzBase
		}
		world, err := ApplyRecords(nil, base, slices.Clone(s.Records))
		if err != nil {
			if !errors.Is(err, ErrMissingBase) {
				t.Fatal(err)
			}
			return
		}
		// Encode what was decoded again, decode that: the same world.
		var enc SnapshotEncoder
		bp := basePlayers
		if !s.HasBaseline {
			bp = nil
		}
		got := base
		var s2 Snapshot
		for _, q := range enc.Encode(s.Tick, players, bp, base, s.Tick-s.BaselineAge, world) {
			if len(q) > MaxPayload {
				t.Fatalf("re-encoded payload of %d bytes", len(q))
			}
			if err := s2.Decode(q); err != nil {
				t.Fatalf("re-encoded payload: %v", err)
			}
			pl, err := ApplyPlayers(nil, basePlayers, s2.PlayerRecords())
			if err != nil || !slices.Equal(pl, players) {
				t.Fatalf("re-encoded players %+v, want %+v", pl, players)
			}
			if got, err = ApplyRecords(nil, got, s2.Records); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, world) && !(len(got) == 0 && len(world) == 0) {
			t.Fatalf("re-encoded world\n got %+v\nwant %+v", got, world)
		}
	})
}

// fuzzSnapshotTails is the seeds of FuzzSnapshotTailDecode: v2 snapshots
// with event tails (7.8), empty, of one and of two events, and broken.
func fuzzSnapshotTails() [][]byte {
	ev := exSpawn2Event()
	tails := [][]byte{
		{0},
		AppendEventFrame([]byte{1}, 70000, AppendEvent(nil, &ev)),
		AppendEventFrame(AppendEventFrame([]byte{2}, 1, []byte{9}), 2, []byte{7, 7}),
		AppendEventFrame([]byte{2}, 1, []byte{9}), // a frame short
		{},
	}
	var out [][]byte
	for i, p := range fuzzSnapshots() {
		out = append(out, append(slices.Clone(p), tails[i%len(tails)]...))
	}
	for _, t := range tails {
		out = append(out, append(slices.Clone(fuzzSnapshots()[1]), t...))
	}
	return out
}

// FuzzSnapshotTailDecode: a v2 Snapshot payload (7.8) that DecodeTail
// accepts is a packed part that Decode accepts alone, as the same
// snapshot, and a tail of count frames of 1 to 255 bytes that re-encode
// to it.
func FuzzSnapshotTailDecode(f *testing.F) {
	for _, b := range fuzzSnapshotTails() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		var s Snapshot
		tail, err := s.DecodeTail(p)
		if err != nil {
			return
		}
		if len(tail) < 1 || len(tail) > len(p) {
			t.Fatalf("tail of %d bytes from %d", len(tail), len(p))
		}
		var s2 Snapshot
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
			re = AppendEventFrame(re, fr.ID, fr.Data)
		}
		if !bytes.Equal(re, tail) {
			t.Fatalf("re-encoded tail % X\n          from % X", re, tail)
		}
		if tail[0] > 0 {
			if _, err := ParseEventFrames(tail, nil); err != nil {
				t.Fatalf("a tail of %d events is no Event payload: %v", tail[0], err)
			}
		}
	})
}

func fuzzEvents() [][]byte {
	ev := exSpawn2Event()
	out := [][]byte{AppendEvent(nil, &ev), append(AppendEvent(nil, &ev), 1, 2)}
	for _, e := range vocabtest.ValidEvents()[1:] {
		out = append(out, append(AppendEvent(nil, &e), 0xAA))
	}
	for _, e := range validStageEvents() { // Stage mode (7.12)
		out = append(out, AppendEvent(nil, &e), append(AppendEvent(nil, &e), 0xAA))
	}
	return out
}

func FuzzParseEvent(f *testing.F) {
	for _, b := range fuzzEvents() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ev wire.Event
		if err := ParseEvent(b, &ev); err != nil {
			return
		}
		if ev.Type == wire.EventSpawn && ev.Motion.Model > 15 {
			t.Fatalf("accepted model %d", ev.Motion.Model)
		}
		switch { // 7.12
		case ev.Type == wire.EventArms && (ev.Player >= wire.MaxPlayers || !validArms(&ev.Arms)),
			ev.Type == wire.EventHealth && (ev.HP > ev.MaxHP || ev.MaxHP == 0),
			ev.Type == wire.EventStage && (len(ev.Name) > MaxStageName || !validStage(ev.What, ev.Value, len(ev.Name))):
			t.Fatalf("accepted %+v", ev)
		}
		// Re-encoded, the event is a prefix of the input (extra bytes are
		// ignored) and parses to the same event.
		got := AppendEvent(nil, &ev)
		if !bytes.HasPrefix(b, got) {
			t.Fatalf("re-encoded % X\n is no prefix of % X", got, b)
		}
		var ev2 wire.Event
		if err := ParseEvent(got, &ev2); err != nil || !vocabtest.SameEvent(ev, ev2) || ev.Motion != ev2.Motion || ev.Anim != ev2.Anim {
			t.Fatalf("re-parsed %+v %v", ev2, err)
		}
	})
}

func FuzzParseEventFrames(f *testing.F) {
	ev := exSpawn2Event()
	f.Add(AppendEventFrame([]byte{1}, 70000, AppendEvent(nil, &ev)))
	f.Add(AppendEventFrame(AppendEventFrame([]byte{2}, 1, []byte{9}), 2, []byte{7, 7}))
	f.Fuzz(func(t *testing.T, p []byte) {
		frames, err := ParseEventFrames(p, nil)
		if err != nil {
			if len(frames) != 0 {
				t.Fatal("frames appended on error")
			}
			return
		}
		got := []byte{byte(len(frames))}
		for _, fr := range frames {
			got = AppendEventFrame(got, fr.ID, fr.Data)
		}
		if !bytes.Equal(got, p) {
			t.Fatalf("re-encoded % X\n        from % X", got, p)
		}
	})
}

// The LoginRequest and LoginAccepted of the v2 seeds.
var (
	fuzzLoginReq = wire.Message{Type: wire.MsgLoginRequest, Version: 2, Name: "Ripley", Revision: wire.Revision, Mode: wire.ModeStage}
	fuzzLoginOK  = wire.Message{Type: wire.MsgLoginAccepted, Player: 0, Session: 0xDEADBEEF, Token: wire.Token{1, 2, 3, 4, 5, 6, 7, 8}, Tick: 600,
		Ext: exExt, Revision: wire.Revision, Mode: wire.ModeStage}
)

func FuzzParseMessage(f *testing.F) {
	for _, m := range []wire.Message{
		{Type: wire.MsgLoginRejected, Reason: wire.RejectVersionMismatch, Text: "version"},
		{Type: wire.MsgLogout, Reason: wire.LogoutKicked},
		fuzzLoginReq, fuzzLoginOK,
		exLoginLobby, exLoginOKLobby, exLoginSpectate,
	} {
		b := AppendMessage(nil, &m)[2:]
		f.Add(b)
		f.Add(append(slices.Clone(b), 1, 2, 3))
	}
	f.Add([]byte{0x42, 1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) { reencodes(t, b) })
}

// reencodes2 decodes a v2 TCP frame and, when it is valid, checks that it
// encodes to a prefix of b (what follows the known fields is ignored,
// 7.1) that decodes to the same message.
func reencodes(t *testing.T, b []byte) (wire.Message, bool) {
	m, err := ParseMessage(b)
	if err != nil {
		return m, false
	}
	got := AppendMessage(nil, &m)[2:]
	if !bytes.HasPrefix(b, got) {
		t.Fatalf("re-encoded % X\n is no prefix of % X", got, b)
	}
	m2, err := ParseMessage(got)
	if err != nil || m2 != m {
		t.Fatalf("re-parsed %+v %v", m2, err)
	}
	return m, true
}

// TestWriteFuzzCorpus2 writes the seeds of the v2 fuzz targets as their
// committed corpus, when RTYPE_WRITE_CORPUS is set.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("RTYPE_WRITE_CORPUS") == "" {
		t.Skip("set RTYPE_WRITE_CORPUS=1 to rewrite the v2 seed corpus")
	}
	ev := exSpawn2Event()
	frames := [][]byte{
		AppendEventFrame([]byte{1}, 70000, AppendEvent(nil, &ev)),
		AppendEventFrame(AppendEventFrame([]byte{2}, 1, []byte{9}), 2, []byte{7, 7}),
		{1, 0, 0, 0, 0, 0},
	}
	var msgs [][]byte
	for _, m := range []wire.Message{fuzzLoginReq, fuzzLoginOK, {Type: wire.MsgLogout, Reason: wire.LogoutKicked}} {
		msgs = append(msgs, append(AppendMessage(nil, &m)[2:], 9))
	}
	msgs = append(msgs, []byte{0x42, 1, 2, 3})
	for _, m := range []wire.Message{fuzzLoginReq, fuzzLoginOK, exLoginLobby, exLoginOKLobby, exLoginSpectate} {
		msgs = append(msgs, AppendMessage(nil, &m)[2:])
	}
	for name, seeds := range map[string][][]byte{
		"FuzzParseHeader":        fuzzDatagrams(),
		"FuzzSnapshotDecode":     fuzzSnapshots(),
		"FuzzSnapshotTailDecode": fuzzSnapshotTails(), // the event tail (7.8)
		"FuzzParseEvent":         fuzzEvents(),
		"FuzzParseEventFrames":   frames,
		"FuzzParseMessage":       msgs,
		"FuzzParseInput":         fuzzInputs(),
		"FuzzParseChat":          fuzzChats(), // 7.13
		"FuzzParseRoom":          fuzzRooms(), // 7.14
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
