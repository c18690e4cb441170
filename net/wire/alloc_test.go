package wire

import (
	"testing"

	"rtype/internal/testutil"
	"rtype/vocab/vocabtest"
)

// The codec's hot paths allocate nothing once their buffers are at their
// size: the server's encoding of every snapshot, the client's decoding
// and rebuilding, the headers and the events. The counts are exact
// (testutil.AllocsPerRun): one allocation in a hundred calls fails, where
// testing.AllocsPerRun would say 0.
func TestHotPathsNoAllocs(t *testing.T) {
	base := benchWorld(120)
	cur := benchDelta(base)
	var enc SnapshotEncoder
	var s Snapshot
	full := clonePayloads(enc.Encode(600, benchPlayers, nil, 0, base))
	delta := clonePayloads(enc.Encode(603, benchPlayers, base, 600, cur))
	both := append(append([][]byte(nil), full...), delta...)
	dst := make([]Entity, 0, len(cur))
	h := Header{Type: TypeSnapshot, Seq: 0x25, Ack: 0x40, AckBits: 0xFFFFFFFF, Session: 0xDEADBEEF}
	buf := make([]byte, 0, MaxDatagram)
	dg := append(AppendHeader(nil, h), delta[0]...)
	evs := vocabtest.ValidEvents()
	var got Event
	p := []byte{0}
	for i := range evs {
		p = AppendEventFrame(p, uint16(100+i), AppendEvent(nil, &evs[i]))
		p[0]++
	}
	frames := make([]EventFrame, 0, 16)

	for _, c := range []struct {
		name string
		f    func()
	}{
		{"SnapshotEncoder.Encode full", func() { enc.Encode(600, benchPlayers, nil, 0, base) }},
		{"SnapshotEncoder.Encode delta", func() { enc.Encode(603, benchPlayers, base, 600, cur) }},
		{"Snapshot.Decode", func() {
			for _, pl := range both {
				if err := s.Decode(pl); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"ApplyRecords", func() {
			if err := s.Decode(delta[0]); err != nil {
				t.Fatal(err)
			}
			var err error
			if dst, err = ApplyRecords(dst[:0], base, s.Records); err != nil {
				t.Fatal(err)
			}
		}},
		{"AppendHeader and ParseHeader", func() {
			buf = AppendHeader(buf[:0], h)
			if _, _, err := ParseHeader(dg, ToClient); err != nil {
				t.Fatal(err)
			}
		}},
		{"AppendEvent and ParseEvent (but PlayerJoined)", func() {
			for i := range evs {
				if evs[i].Type == EventPlayerJoined {
					continue // its Name is a new string: once per join
				}
				buf = AppendEvent(buf[:0], &evs[i])
				if err := ParseEvent(buf, &got); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"ParseEventFrames", func() {
			var err error
			if frames, err = ParseEventFrames(p, frames[:0]); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		testutil.NoAllocs(t, 100, c.name, c.f)
	}
}
