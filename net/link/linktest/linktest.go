// Package linktest gives the tests of packages link and link2 the events
// and headers they exchange: a varied stream of events, the headers of a
// peer, and parsers that fail the test on a bad datagram. It imports the
// codecs but not link, so that link's own tests can use it.
package linktest

import (
	"testing"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// Session is the session number of the tests' headers.
const Session = 0xDEADBEEF

// EventFor returns event number i of a varied stream: every type, and
// PlayerJoined names of many lengths, each event carrying i.
func EventFor(i int) *wire.Event {
	switch i % 6 {
	case 0:
		return Spawn(i)
	case 1:
		return &wire.Event{Type: wire.EventDestroy, Tick: uint32(i), ID: uint32(i), Reason: wire.DestroyKilled,
			X: float32(i % 100), Y: 3}
	case 2:
		return &wire.Event{Type: wire.EventDeath, Tick: uint32(i), Player: uint8(i % 4), Lives: uint8(i % 5),
			X: 1, Y: float32(i % 300)}
	case 3:
		n := i % 60
		name := make([]byte, n)
		for k := range name {
			name[k] = 'a' + byte((i+k)%26)
		}
		return &wire.Event{Type: wire.EventPlayerJoined, Tick: uint32(i), Player: uint8(i % 4), Name: string(name)}
	case 4:
		return &wire.Event{Type: wire.EventPlayerLeft, Tick: uint32(i), Player: uint8(i % 4), Reason: wire.LeftTimedOut}
	default:
		ev := &wire.Event{Type: wire.EventGameOver, Tick: uint32(i), NumScores: i % 5}
		for k := 0; k < ev.NumScores; k++ {
			ev.Scores[k] = wire.Score{Player: uint8(k), Score: uint32(i * (k + 1))}
		}
		return ev
	}
}

// Spawn returns a Spawn event whose fields are derived from i, so that a
// receiver can check what it got.
func Spawn(i int) *wire.Event {
	return &wire.Event{Type: wire.EventSpawn, Tick: uint32(i), ID: uint32(i), Kind: wire.KindBydosSlave,
		X: float32(i % 1280), Y: float32(i % 720), VX: -120, VY: float32(i % 7), Owner: wire.NoPlayer}
}

// V2Spawn returns a v2 Spawn, with a motion, whose fields come from i.
func V2Spawn(i int) *wire.Event {
	m := wire.Sine(uint32(i), float64(i%1280), 200, -120, 40, 120, 0.25)
	return &wire.Event{Type: wire.EventSpawn, Tick: uint32(i), ID: uint32(i), Kind: wire.KindBydosSlave, Owner: wire.NoPlayer,
		Motion: m, Anim: wire.Anim{Ticks: 6, Count: 8}}
}

// CutStream cuts a fuzzed stream into up to three datagrams at cut1 and
// cut1+cut2, and returns them twice: the second time, duplicates.
func CutStream(stream []byte, cut1, cut2 uint8) [][]byte {
	a, b := int(cut1), int(cut1)+int(cut2)
	parts := [][]byte{stream}
	if a < len(stream) && b < len(stream) {
		parts = [][]byte{stream[:a], stream[a:b], stream[b:]}
	}
	return append(parts, parts...)
}

// MustParse parses a v1 datagram, or fails the test.
func MustParse(tb testing.TB, b []byte, d wire.Direction) (wire.Header, []byte) {
	tb.Helper()
	h, p, err := wire.ParseHeader(b, d)
	if err != nil {
		tb.Fatalf("ParseHeader(%d bytes): %v", len(b), err)
	}
	return h, p
}

// MustParse2 parses a v2 datagram, or fails the test.
func MustParse2(tb testing.TB, b []byte, d wire.Direction) (wire.Header, []byte) {
	tb.Helper()
	h, p, err := wire2.ParseHeader(b, d)
	if err != nil {
		tb.Fatalf("wire2.ParseHeader(%d bytes): %v", len(b), err)
	}
	return h, p
}

// ParseAny parses a datagram of a v2 session (v2) or a v1 one as a v2
// header: a v1 header has ack_delay 0.
func ParseAny(tb testing.TB, v2 bool, b []byte, d wire.Direction) (wire.Header, []byte) {
	tb.Helper()
	if v2 {
		return MustParse2(tb, b, d)
	}
	h, p := MustParse(tb, b, d)
	return h, p
}

// PeerHeader is a header of type t from the peer, with sequence seq,
// acknowledging ack and ack_bits.
func PeerHeader(t wire.Type, seq, ack uint16, bits uint32) wire.Header {
	return wire.Header{Type: t, Seq: seq, Ack: ack, AckBits: bits, Session: Session}
}

// PeerHeader2 is a v2 Ack header from the peer acknowledging ack and
// ack_bits after holding ack for delay units of 100 µs.
func PeerHeader2(seq, ack uint16, bits uint32, delay uint16) wire.Header {
	h := PeerHeader(wire.TypeAck, seq, ack, bits)
	h.AckDelay = delay
	return h
}
