package link2

import (
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
	"testing"
	"time"
)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// baselinesCp returns l's History, or nil.
func baselines(l *link.Link) *History {
	h, _ := l.Baselines.(*History)
	return h
}

// eventForCp returns event number i of a varied stream: every type, and
// PlayerJoined names of many lengths, each event carrying i.
func eventFor(i int) *wire.Event {
	switch i % 6 {
	case 0:
		return spawn(i)
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

// The tests drive time by hand: t0Cp is an arbitrary origin and atCp(ms) a
// moment after it.
var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

const testSession = 0xDEADBEEF

// cutStreamCp cuts a fuzzed stream into up to three datagrams atCp cut1 and
// cut1+cut2, and returns them twice: the second time, duplicates.
func cutStream(stream []byte, cut1, cut2 uint8) [][]byte {
	a, b := int(cut1), int(cut1)+int(cut2)
	parts := [][]byte{stream}
	if a < len(stream) && b < len(stream) {
		parts = [][]byte{stream[:a], stream[a:b], stream[b:]}
	}
	return append(parts, parts...)
}

// mustParse2Cp parses a datagram a v2 Link produced.
func mustParse2(tb testing.TB, b []byte, d wire.Direction) (wire2.Header, []byte) {
	tb.Helper()
	h, p, err := wire2.ParseHeader(b, d)
	if err != nil {
		tb.Fatalf("ParseHeader2(%d bytes): %v", len(b), err)
	}
	return h, p
}

// peerHeader2Cp is a v2 header from the peer acknowledging ack and ack_bits
// after holding ack for delay units of 100 µs.
func peerHeader2(seq, ack uint16, bits uint32, delay uint16) wire2.Header {
	return wire2.Header{Header: peerHeader(wire.TypeAck, seq, ack, bits), AckDelay: delay}
}

// v2SpawnCp returns a v2 Spawn whose fields come from i.
func v2Spawn(i int) *wire.Event {
	m := wire.Sine(uint32(i), float64(i%1280), 200, -120, 40, 120, 0.25)
	return &wire.Event{Type: wire.EventSpawn, Tick: uint32(i), ID: uint32(i), Kind: wire.KindBydosSlave, Owner: wire.NoPlayer,
		Motion: m, Anim: wire.Anim{Ticks: 6, Count: 8}}
}

// parseAnyCp parses a datagram of l's version as a v2 header (a v1 header
// with ack_delay 0).
func parseAny(tb testing.TB, l *link.Link, b []byte, d wire.Direction) (wire2.Header, []byte) {
	tb.Helper()
	if l.Version() == wire.Version2 {
		h, p, err := wire2.ParseHeader(b, d)
		if err != nil {
			tb.Fatalf("ParseHeader2(%d bytes): %v", len(b), err)
		}
		return h, p
	}
	h, p := mustParse(tb, b, d)
	return wire2.Header{Header: h}, p
}

// sentRing is the size of link's ring of sent datagrams.
const sentRing = 1024

// mustParseCp parses a datagram this package produced.
func mustParse(tb testing.TB, b []byte, d wire.Direction) (wire.Header, []byte) {
	tb.Helper()
	h, p, err := wire.ParseHeader(b, d)
	if err != nil {
		tb.Fatalf("ParseHeader(%d bytes): %v", len(b), err)
	}
	return h, p
}

// peerHeaderCp is a header from the peer acknowledging ack and ack_bits.
func peerHeader(t wire.Type, seq, ack uint16, bits uint32) wire.Header {
	return wire.Header{Type: t, Seq: seq, Ack: ack, AckBits: bits, Session: testSession}
}

// spawnCp returns a Spawn event whose fields are derived from i, so that a
// receiver can check what it got.
func spawn(i int) *wire.Event {
	return &wire.Event{Type: wire.EventSpawn, Tick: uint32(i), ID: uint32(i), Kind: wire.KindBydosSlave,
		X: float32(i % 1280), Y: float32(i % 720), VX: -120, VY: float32(i % 7), Owner: wire.NoPlayer}
}
