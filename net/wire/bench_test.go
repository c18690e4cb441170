package wire

import (
	"math/rand/v2"
	"rtype/internal/protodoc"
	"rtype/vocab/vocabtest"
	"slices"
	"testing"
)

// Benchmarks of the hot paths. In steady state, nothing allocates but the
// name of a parsed PlayerJoined.

// benchPlayers are four players in the middle of a game.
var benchPlayers = []PlayerState{
	{Player: 0, HasShip: true, Ship: 0, Lives: 3, Score: 12500},
	{Player: 1, HasShip: true, Ship: 1, Lives: 1, Score: 98000},
	{Player: 2, HasShip: false, Ship: NoEntity, Lives: 0, Score: 4300},
	{Player: 3, HasShip: true, Ship: 3, Lives: 2, Score: 150},
}

// benchWorld is n entities in dense slots, as Aegis2D numbers them, with
// a few generations above 0: ships, missiles, Bydos and their shots.
func benchWorld(n int) []Entity {
	r := rand.New(rand.NewPCG(42, 0))
	w := make([]Entity, n)
	for i := range w {
		kind := uint8(1 + r.IntN(4))
		w[i] = MakeEntity(MakeID(uint32(i), uint8(r.IntN(3))), kind,
			float32(r.Float64()*1280), float32(r.Float64()*720),
			float32(r.IntN(1000)-500), float32(r.IntN(200)-100), r.IntN(4))
	}
	slices.SortFunc(w, cmpID)
	return w
}

// benchDelta is the world of base a snapshot later (3 ticks): 60% of the
// entities moved in x, 10% changed velocity, 5 removed, 5 added.
func benchDelta(base []Entity) []Entity {
	r := rand.New(rand.NewPCG(43, 0))
	cur := make([]Entity, 0, len(base)+5)
	removed := map[int]bool{}
	for len(removed) < 5 {
		removed[r.IntN(len(base))] = true
	}
	for i, e := range base {
		if removed[i] {
			continue
		}
		switch k := r.IntN(10); {
		case k < 6:
			e.F[FieldX] += int32(r.IntN(60) - 30)
		case k == 6:
			e.F[FieldVX], e.F[FieldVY] = int32(r.IntN(1000)-500), int32(r.IntN(200)-100)
		}
		cur = append(cur, e)
	}
	for i := 0; i < 5; i++ {
		cur = append(cur, MakeEntity(uint32(len(base)+i), KindEnemyMissile, 1280, float32(100*i), -300, 0, 0))
	}
	slices.SortFunc(cur, cmpID)
	return cur
}

func reportSize(b *testing.B, payloads [][]byte) {
	n := 0
	for _, p := range payloads {
		n += len(p)
	}
	b.ReportMetric(float64(n), "bytes/snapshot")
	b.ReportMetric(float64(len(payloads)), "datagrams/snapshot")
}

func clonePayloads(ps [][]byte) [][]byte {
	out := make([][]byte, len(ps))
	for i, p := range ps {
		out[i] = slices.Clone(p)
	}
	return out
}

func BenchmarkEncodeFull120(b *testing.B) {
	world := benchWorld(120)
	var enc SnapshotEncoder
	payloads := enc.Encode(600, benchPlayers, nil, 0, world) // warm: buffers grown
	b.ReportAllocs()
	for b.Loop() {
		payloads = enc.Encode(600, benchPlayers, nil, 0, world)
	}
	reportSize(b, payloads)
}

func BenchmarkDecodeFull120(b *testing.B) {
	var enc SnapshotEncoder
	benchDecode(b, clonePayloads(enc.Encode(600, benchPlayers, nil, 0, benchWorld(120))))
}

// benchDecode measures Snapshot.Decode of every payload, with the records'
// buffer warm, as after the first snapshot.
func benchDecode(b *testing.B, payloads [][]byte) {
	var s Snapshot
	s.Records = make([]Record, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range payloads {
			if err := s.Decode(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportSize(b, payloads)
}

func BenchmarkEncodeDelta(b *testing.B) {
	base := benchWorld(120)
	cur := benchDelta(base)
	var enc SnapshotEncoder
	payloads := enc.Encode(603, benchPlayers, base, 600, cur) // warm: buffers grown
	b.ReportAllocs()
	for b.Loop() {
		payloads = enc.Encode(603, benchPlayers, base, 600, cur)
	}
	reportSize(b, payloads)
}

func BenchmarkDecodeDelta(b *testing.B) {
	base := benchWorld(120)
	var enc SnapshotEncoder
	benchDecode(b, clonePayloads(enc.Encode(603, benchPlayers, base, 600, benchDelta(base))))
}

func BenchmarkApplyRecords(b *testing.B) {
	base := benchWorld(120)
	cur := benchDelta(base)
	var enc SnapshotEncoder
	payloads := enc.Encode(603, benchPlayers, base, 600, cur)
	if len(payloads) != 1 {
		b.Fatalf("%d payloads", len(payloads))
	}
	var s Snapshot
	if err := s.Decode(payloads[0]); err != nil {
		b.Fatal(err)
	}
	dst := make([]Entity, 0, len(cur))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = ApplyRecords(dst[:0], base, s.Records); err != nil {
			b.Fatal(err)
		}
	}
	if !slices.Equal(dst, cur) {
		b.Fatal("rebuilt world differs")
	}
	b.ReportMetric(float64(len(s.Records)), "records/op")
}

func BenchmarkParseHeader(b *testing.B) {
	h := Header{Type: TypeSnapshot, Seq: 0x25, Ack: 0x40, AckBits: 0xFFFFFFFF, Session: 0xDEADBEEF}
	dg := append(AppendHeader(nil, h), protodoc.Unhex(b, seed48p)...)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParseHeader(dg, ToClient); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendHeader(b *testing.B) {
	h := Header{Type: TypeSnapshot, Seq: 0x25, Ack: 0x40, AckBits: 0xFFFFFFFF, Session: 0xDEADBEEF}
	buf := make([]byte, 0, MaxDatagram)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendHeader(buf[:0], h)
	}
}

func BenchmarkEventEncode(b *testing.B) {
	for _, ev := range vocabtest.ValidEvents() {
		b.Run(ev.Type.String(), func(b *testing.B) {
			buf := make([]byte, 0, MaxEventSize)
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendEvent(buf[:0], &ev)
			}
			b.ReportMetric(float64(len(buf)), "bytes/event")
		})
	}
}

func BenchmarkEventParse(b *testing.B) {
	for _, ev := range vocabtest.ValidEvents() {
		b.Run(ev.Type.String(), func(b *testing.B) {
			data := AppendEvent(nil, &ev)
			var got Event
			b.ReportAllocs()
			for b.Loop() {
				if err := ParseEvent(data, &got); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseEventFrames(b *testing.B) {
	p := []byte{0}
	for i, ev := range vocabtest.ValidEvents() {
		p = AppendEventFrame(p, uint16(100+i), AppendEvent(nil, &ev))
		p[0]++
	}
	frames := make([]EventFrame, 0, 16)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if frames, err = ParseEventFrames(p, frames[:0]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(frames)), "events/op")
}

func BenchmarkFrameReader(b *testing.B) {
	m := Message{Type: MsgLogout, Reason: LogoutLeft}
	frame := AppendMessage(nil, &m)
	var r loopReader
	r.b = frame
	fr := FrameReader{R: &r}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fr.ReadMessage(); err != nil {
			b.Fatal(err)
		}
	}
}

// loopReader repeats b forever.
type loopReader struct {
	b   []byte
	off int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.b[l.off:])
	l.off = (l.off + n) % len(l.b)
	return n, nil
}
