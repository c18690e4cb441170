package link

import (
	"encoding/binary"
	"testing"
	"time"

	"rtype/net/link/linktest"
	"rtype/net/wire"
)

// BenchmarkReceive is the per-datagram cost of a receiver: Seen, then
// Accept of a header whose ack names one new datagram of ours (an RTT
// sample) and whose ack_bits name 32 already acknowledged, as in steady
// traffic. About one datagram in 6 is a duplicate (an older one, or the
// previous one again).
func BenchmarkReceive(b *testing.B) {
	l := New(testSession, t0)
	for i := 0; i < sentRing; i++ {
		sendOne(l, t0)
	}
	l.Accept(linktest.PeerHeader(wire.TypeAck, 0, sentRing-1, 0xFFFFFFFF), wire.HeaderSize, t0)
	h := linktest.PeerHeader(wire.TypeSnapshot, 0, 0, 0xFFFFFFFF)
	now := t0.Add(time.Second)
	seq := uint16(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ours := l.begin(now) // a datagram of ours for this one to acknowledge
		h.Seq = seq
		switch {
		case i%8 == 3:
			h.Seq -= 5
		case i%16 == 9:
			h.Seq--
		default:
			seq++
		}
		if l.Seen(h.Seq) {
			continue
		}
		h.Ack = ours
		l.Accept(h, 200, now)
	}
}

// BenchmarkAppendDatagram is the cost of sending: header with our
// acknowledgements, and a 200-byte payload.
func BenchmarkAppendDatagram(b *testing.B) {
	l := New(testSession, t0)
	for s := uint16(0); s < 300; s += 2 {
		l.Accept(linktest.PeerHeader(wire.TypeAck, s, 0xFFFF, 0), wire.HeaderSize, t0)
	}
	payload := make([]byte, 200)
	buf := make([]byte, 0, wire.MaxDatagram)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf, _ = l.AppendDatagram(buf[:0], wire.TypeSnapshot, payload, t0)
	}
	if len(buf) != wire.HeaderSize+200 {
		b.Fatal(len(buf))
	}
}

// BenchmarkAppendEvents packs 10 pending events (a mix of 4.4's types),
// all due for resending, into one datagram.
func BenchmarkAppendEvents(b *testing.B) { benchAppendEvents(b, New) }

// BenchmarkAppendEvents2 is BenchmarkAppendEvents for a v2 link (7.7).
func BenchmarkAppendEvents2(b *testing.B) { benchAppendEvents(b, NewV2) }

func benchAppendEvents(b *testing.B, newLink func(uint32, time.Time) *Link) {
	l := newLink(testSession, t0)
	for i := 0; i < 10; i++ {
		if err := l.QueueEvent(linktest.EventFor(i)); err != nil {
			b.Fatal(err)
		}
	}
	buf := make([]byte, 0, wire.MaxDatagram)
	now := t0
	step := func() {
		now = now.Add(101 * time.Millisecond) // every event is due again
		var ok bool
		buf, ok = l.AppendEvents(buf[:0], now)
		if !ok {
			b.Fatal("nothing sent")
		}
	}
	// Warm up: each entry of the ring of sent datagrams gets room for
	// the ids of its events once.
	for i := 0; i < sentRing; i++ {
		step()
	}
	if n := buf[l.HeaderSize()]; n != 10 {
		b.Fatalf("%d events in the datagram", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
}

// BenchmarkReceiveEvents delivers a datagram of 10 new events.
func BenchmarkReceiveEvents(b *testing.B) {
	l := New(testSession, t0)
	var ids []uint16
	var data [][]byte
	for i := 0; i < 10; i++ {
		ids = append(ids, uint16(i))
		data = append(data, wire.AppendEvent(nil, linktest.EventFor(i)))
	}
	payload := eventPayload(ids, data)
	// Offsets of the ids, to renumber the payload in place.
	var offs []int
	for off, k := 1, 0; k < 10; k++ {
		offs = append(offs, off)
		off += wire.FrameOverhead + int(payload[off+2])
	}
	fresh := make([]wire.EventFrame, 0, 16)
	next := uint16(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, off := range offs {
			binary.LittleEndian.PutUint16(payload[off:], next)
			next++
		}
		var err error
		fresh, err = l.ReceiveEvents(payload, fresh[:0])
		if err != nil || len(fresh) != 10 {
			b.Fatalf("%v, %d delivered", err, len(fresh))
		}
	}
}

// BenchmarkHistory is the server's per-snapshot bookkeeping for one client
// with 120 entities: Add, the datagram's acknowledgement, Baseline.
func BenchmarkHistory(b *testing.B) {
	var h History
	w := world(120, 0)
	tick := uint32(0)
	step := func() {
		tick += 3
		h.Add(tick, w)
		h.Carried(tick)
		h.Acked(tick-3, 0) // the previous one, as if acknowledged since
		if bt, ents, ok := h.Baseline(); tick > 3 && (!ok || bt != tick-3 || len(ents) != 120) {
			b.Fatalf("Baseline = %d %d %v", bt, len(ents), ok)
		}
	}
	for i := 0; i < 2*Snapshots; i++ {
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
}

// BenchmarkRebuild rebuilds a 120-entity delta: every entity moved
// (updated x and y) against the previous snapshot.
func BenchmarkRebuild(b *testing.B) {
	base := world(120, 0)
	var rb Rebuilder
	rebuildAll(b, &rb, encode(b, 1, testPlayers, nil, 0, base, 0))
	// Two record sets, alternately applied: x and y moved forth, then
	// back.
	moved := world(120, 3)
	var recs [2][]wire.Record
	for k, pair := range [2][2][]wire.Entity{{base, moved}, {moved, base}} {
		snaps := encode(b, 2, testPlayers, pair[0], 1, pair[1], 0)
		if len(snaps) != 1 || len(snaps[0].Records) != 120 {
			b.Fatalf("%d datagrams, %d records", len(snaps), len(snaps[0].Records))
		}
		recs[k] = snaps[0].Records
	}
	s := wire.Snapshot{NumPlayers: len(testPlayers), HasBaseline: true, BaselineAge: 1}
	copy(s.Players[:], testPlayers)
	tick := uint32(1)
	step := func() {
		tick++
		s.Tick, s.Records = tick, recs[tick%2]
		r, err := rb.Rebuild(&s)
		if err != nil || len(r.Entities) != 120 {
			b.Fatalf("%v", err)
		}
	}
	for i := 0; i < 2*Kept; i++ {
		step()
	}
	if !equalEntities(rb.Get(tick).Entities, base) && !equalEntities(rb.Get(tick).Entities, moved) {
		b.Fatal("rebuilt state is neither")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
}
