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
