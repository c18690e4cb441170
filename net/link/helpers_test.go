package link

import (
	"testing"
	"time"

	"rtype/net/wire"
)

// The tests drive time by hand: t0 is an arbitrary origin and at(ms) a
// moment after it.
var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

const testSession = 0xDEADBEEF

// peerHeader is a header from the peer acknowledging ack and ack_bits.
func peerHeader(t wire.Type, seq, ack uint16, bits uint32) wire.Header {
	return wire.Header{Type: t, Seq: seq, Ack: ack, AckBits: bits, Session: testSession}
}

// mustParse parses a datagram this package produced.
func mustParse(tb testing.TB, b []byte, d wire.Direction) (wire.Header, []byte) {
	tb.Helper()
	h, p, err := wire.ParseHeader(b, d)
	if err != nil {
		tb.Fatalf("ParseHeader(%d bytes): %v", len(b), err)
	}
	return h, p
}

// ackFields returns the ack and ack_bits a Link puts in its next datagram.
func ackFields(tb testing.TB, l *Link) (uint16, uint32) {
	tb.Helper()
	a, b := l.recv.ack()
	return a, b
}

// sendOne makes l send an Ack datagram at now and returns its sequence.
func sendOne(l *Link, now time.Time) uint16 {
	_, seq := l.AppendDatagram(nil, wire.TypeAck, nil, now)
	return seq
}

// spawn returns a Spawn event whose fields are derived from i, so that a
// receiver can check what it got.
func spawn(i int) *wire.Event {
	return &wire.Event{Type: wire.EventSpawn, Tick: uint32(i), ID: uint32(i), Kind: wire.KindBydosSlave,
		X: float32(i % 1280), Y: float32(i % 720), VX: -120, VY: float32(i % 7), Owner: wire.NoPlayer}
}

// eventFor returns event number i of a varied stream: every type, and
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

// eventPayload builds an Event payload of the given frames.
func eventPayload(ids []uint16, data [][]byte) []byte {
	p := []byte{byte(len(ids))}
	for k, id := range ids {
		p = wire.AppendEventFrame(p, id, data[k])
	}
	return p
}

// ent returns an entity with distinct field values.
func ent(index uint32, gen uint8, kind uint8, x, y float32) wire.Entity {
	return wire.MakeEntity(wire.MakeID(index, gen), kind, x, y, float32(index%50), -float32(index%30), int(index%16))
}

// world returns n entities at indices 1, 3, 5... sorted by wire.Less.
func world(n int, shift float32) []wire.Entity {
	out := make([]wire.Entity, n)
	for i := range out {
		idx := uint32(2*i + 1)
		out[i] = ent(idx, uint8(i%3), uint8(1+i%4), float32(idx)+shift, float32(i%700)+shift/2)
	}
	return out
}

// encode encodes cur against base (nil: full) and decodes each payload, as
// a client would receive them.
func encode(tb testing.TB, tick uint32, players []wire.PlayerState, base []wire.Entity, baseTick uint32, cur []wire.Entity, maxPayload int) []*wire.Snapshot {
	tb.Helper()
	enc := wire.SnapshotEncoder{MaxPayload: maxPayload}
	var out []*wire.Snapshot
	for _, p := range enc.Encode(tick, players, base, baseTick, cur) {
		s := new(wire.Snapshot)
		if err := s.Decode(p); err != nil {
			tb.Fatalf("Decode of an encoded payload: %v", err)
		}
		out = append(out, s)
	}
	return out
}

func equalEntities(a, b []wire.Entity) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
