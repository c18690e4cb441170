package link

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rtype/net/link/linktest"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// sendAt makes l send an Ack at now and returns its header.
func sendAt(tb testing.TB, l *Link, now time.Time) wire.Header {
	tb.Helper()
	d, _ := l.AppendDatagram(nil, wire.TypeAck, nil, now)
	h, _ := linktest.MustParse2(tb, d, wire.ToServer)
	return h
}

// 7.2: a v2 Link writes the 20-byte v2 header, the payload after it; a v1
// parser refuses it; the Stats count the 20 bytes.
func TestV2Header(t *testing.T) {
	l := NewV2(testSession, t0)
	if l.Version() != 2 || l.HeaderSize() != wire2.HeaderSize || New(1, t0).Version() != 1 || New(1, t0).HeaderSize() != wire.HeaderSize {
		t.Fatalf("Version %d, HeaderSize %d", l.Version(), l.HeaderSize())
	}
	payload := []byte{1, 2, 3, 4, 5}
	d, seq := l.AppendDatagram([]byte{0xAA}, wire.TypeSnapshot, payload, t0)
	d = d[1:]
	if len(d) != wire2.HeaderSize+len(payload) {
		t.Fatalf("datagram of %d bytes", len(d))
	}
	h, p := linktest.MustParse2(t, d, wire.ToClient)
	if h.Type != wire.TypeSnapshot || h.Seq != seq || h.Session != testSession || h.Ack != 0xFFFF || h.AckBits != 0 || h.AckDelay != 0 || !bytes.Equal(p, payload) {
		t.Fatalf("header %+v, payload %v", h, p)
	}
	if _, _, err := wire.ParseHeader(d, wire.ToClient); !errors.Is(err, wire.ErrVersion) {
		t.Fatalf("a v1 parser took a v2 datagram: %v", err)
	}
	if st := l.Stats(); st.SentBytes != uint64(len(d)) {
		t.Fatalf("SentBytes %d, want %d", st.SentBytes, len(d))
	}
}

// 7.2: ack_delay is the time since the datagram named by ack arrived, in
// 100 µs units, rounded down and saturating at 65535; 0 before anything
// was recorded.
func TestAckDelayWritten(t *testing.T) {
	l := NewV2(testSession, t0)
	if h := sendAt(t, l, at(5)); h.AckDelay != 0 || h.Ack != 0xFFFF {
		t.Fatalf("nothing recorded: ack %d, ack_delay %d", h.Ack, h.AckDelay)
	}
	l.Accept(linktest.PeerHeader2(10, 0xFFFF, 0, 0), wire2.HeaderSize, at(100))
	if h := sendAt(t, l, at(117)); h.Ack != 10 || h.AckDelay != 170 {
		t.Fatalf("17 ms after the arrival of 10: ack %d, ack_delay %d, want 170", h.Ack, h.AckDelay)
	}
	// An older datagram arriving later does not restart it: ack still
	// names 10.
	l.Accept(linktest.PeerHeader2(8, 0xFFFF, 0, 0), wire2.HeaderSize, at(130))
	if h := sendAt(t, l, at(140)); h.Ack != 10 || h.AckDelay != 400 {
		t.Fatalf("ack %d, ack_delay %d, want 10 and 400", h.Ack, h.AckDelay)
	}
	l.Accept(linktest.PeerHeader2(11, 0xFFFF, 0, 0), wire2.HeaderSize, at(150))
	if h := sendAt(t, l, at(150).Add(199*time.Microsecond)); h.Ack != 11 || h.AckDelay != 1 {
		t.Fatalf("199 µs: ack %d, ack_delay %d, want 11 and 1", h.Ack, h.AckDelay)
	}
	if h := sendAt(t, l, at(150+6553)); h.AckDelay != 65530 {
		t.Fatalf("6.553 s: ack_delay %d", h.AckDelay)
	}
	if h := sendAt(t, l, at(150+7000)); h.AckDelay != 0xFFFF {
		t.Fatalf("7 s: ack_delay %d, want 65535 (saturated)", h.AckDelay)
	}
	// An Event datagram carries it too.
	l.QueueEvent(linktest.Spawn(1))
	d, _ := l.AppendEvents(nil, at(150+20))
	if h, _ := linktest.MustParse2(t, d, wire.ToClient); h.AckDelay != 200 {
		t.Fatalf("Event datagram: ack_delay %d, want 200", h.AckDelay)
	}
}

// 7.2: the RTT sample leaves out the peer's ack_delay, and is never below
// 0; a v1 Link (or Accept) takes the whole time.
func TestRTTLeavesOutAckDelay(t *testing.T) {
	l := NewV2(testSession, t0)
	s0 := sendOne(l, at(0))
	l.Accept(linktest.PeerHeader2(0, s0, 0, 300), wire2.HeaderSize, at(100)) // held 30 ms
	if rtt, ok := l.RTT(); !ok || rtt != 70*time.Millisecond {
		t.Fatalf("RTT %v %v, want 70ms", rtt, ok)
	}
	s1 := sendOne(l, at(100))
	l.Accept(linktest.PeerHeader2(1, s1, 0, 2000), wire2.HeaderSize, at(200)) // "held" 200 ms of 100
	if rtt, _ := l.RTT(); rtt != 63*time.Millisecond {
		t.Fatalf("RTT %v, want 63ms (70 smoothed with a sample of 0)", rtt)
	}
	v1 := New(testSession, t0)
	s0 = sendOne(v1, at(0))
	v1.Accept(linktest.PeerHeader(wire.TypeAck, 0, s0, 0), wire.HeaderSize, at(100))
	if rtt, _ := v1.RTT(); rtt != 100*time.Millisecond {
		t.Fatalf("v1 RTT %v, want 100ms", rtt)
	}
}

// 7.2: only ack gives a sample; the sequences of ack_bits are
// acknowledged but give none (v1 takes one of each, 5.4).
func TestRTTOnlyFromAck2(t *testing.T) {
	for _, v2 := range []bool{true, false} {
		l := New(testSession, t0)
		if v2 {
			l = NewV2(testSession, t0)
		}
		sendOne(l, at(0))
		s1 := sendOne(l, at(50))
		l.Accept(linktest.PeerHeader2(0, s1, 1, 0), wire2.HeaderSize, at(100))
		rtt, _ := l.RTT()
		want := 50 * time.Millisecond // the sample of ack only
		if !v2 {
			want = 55 * time.Millisecond // 50, then 100 smoothed in
		}
		if rtt != want || l.Stats().Acked != 2 {
			t.Fatalf("v2 %v: RTT %v, want %v; %d acknowledged", v2, rtt, want, l.Stats().Acked)
		}
	}
}

// 7.7 (R of 5.3 with 7.2's RTT): a peer that holds its acknowledgements
// 400 ms on a 100 ms network gets events resent after 125 ms, not 625.
func TestResendAfterNetworkRTT2(t *testing.T) {
	l := NewV2(testSession, t0)
	for i := range 20 {
		s := sendOne(l, at(1000*i))
		l.Accept(linktest.PeerHeader2(uint16(i), s, 0, 4000), wire2.HeaderSize, at(1000*i+500))
	}
	if rtt, _ := l.RTT(); rtt != 100*time.Millisecond || l.ResendAfter() != 125*time.Millisecond {
		t.Fatalf("RTT %v, R %v, want 100ms and 125ms", rtt, l.ResendAfter())
	}
	l.QueueEvent(linktest.Spawn(1))
	if _, ok := l.AppendEvents(nil, at(30000)); !ok {
		t.Fatal("not sent")
	}
	if _, ok := l.AppendEvents(nil, at(30124)); ok {
		t.Fatal("resent before R")
	}
	if _, ok := l.AppendEvents(nil, at(30125)); !ok {
		t.Fatal("not resent after R")
	}
}

// sentEvents2 parses a v2 Event datagram.
func sentEvents2(tb testing.TB, d []byte) (wire.Header, []wire.EventFrame) {
	tb.Helper()
	if len(d) > wire.MaxDatagram {
		tb.Fatalf("event datagram of %d bytes", len(d))
	}
	h, p := linktest.MustParse2(tb, d, wire.ToClient)
	frames, err := wire2.ParseEventFrames(p, nil)
	if err != nil || h.Type != wire.TypeEvent {
		tb.Fatalf("type %v: %v", h.Type, err)
	}
	return h, frames
}

// 7.6, 7.7: events are encoded as v2 (a 33-byte Spawn) and framed with
// 32-bit ids from 0, as many as fit in 1200 bytes, oldest first.
func TestEvents2Framing(t *testing.T) {
	l := NewV2(testSession, t0)
	for i := range 100 {
		if err := l.QueueEvent(linktest.V2Spawn(i)); err != nil {
			t.Fatal(err)
		}
	}
	ds := drain(t, l, t0)
	next := uint32(0)
	for k, d := range ds {
		_, frames := sentEvents2(t, d)
		for _, f := range frames {
			if f.ID != next || !bytes.Equal(f.Data, wire2.AppendEvent(nil, linktest.V2Spawn(int(next)))) || len(f.Data) != wire2.SpawnSize {
				t.Fatalf("frame %d: id %d, %d bytes", next, f.ID, len(f.Data))
			}
			next++
		}
		// 21 + 38 per Spawn: 31 fit in 1200 bytes.
		if k < len(ds)-1 && (len(frames) != 31 || len(d) != 21+31*38) {
			t.Fatalf("datagram %d: %d frames, %d bytes; want 31 and %d", k, len(frames), len(d), 21+31*38)
		}
	}
	if next != 100 {
		t.Fatalf("%d events sent", next)
	}
}

// 7.7: a v2 sender holds 65536 unacknowledged events; one more is
// refused (the session ends), with an error that is ErrTooManyEvents too.
// Acknowledging makes room again.
func TestTooManyEvents2(t *testing.T) {
	l := NewV2(testSession, t0)
	ev := &wire.Event{Type: wire.EventPlayerLeft, Player: 1}
	for i := range wire2.EventWindow {
		if err := l.QueueEvent(ev); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	err := l.QueueEvent(ev)
	if !errors.Is(err, errTooManyEvents2) || !errors.Is(err, ErrTooManyEvents) || l.Unacked() != wire2.EventWindow {
		t.Fatalf("event 65537: %v, Unacked %d", err, l.Unacked())
	}
	d, _ := l.AppendEvents(nil, t0)
	h, frames := sentEvents2(t, d)
	l.Accept(linktest.PeerHeader2(0, h.Seq, 0, 0), wire2.HeaderSize, at(10))
	if l.Unacked() != wire2.EventWindow-len(frames) || l.QueueEvent(ev) != nil {
		t.Fatalf("after the ack of %d: Unacked %d", len(frames), l.Unacked())
	}
}

// 7.7: ids are 32 bits and do not wrap: through a lossy exchange, 100000
// events arrive each once, under their own numbers, past 65535.
func TestEventIDs2Beyond16Bits(t *testing.T) {
	const total = 100000
	a, b := NewV2(1, t0), NewV2(1, t0)
	r := rand.New(rand.NewPCG(3, 4))
	lose := func() bool { return r.IntN(5) == 0 }
	delivered := make([]uint8, total)
	queued, got := 0, 0
	var fresh []wire.EventFrame
	now := t0
	for step := 0; got < total; step++ {
		if step > 20000 {
			t.Fatalf("stuck: %d queued, %d delivered", queued, got)
		}
		now = now.Add(20 * time.Millisecond)
		for n := 300; n > 0 && queued < total; n-- {
			if err := a.QueueEvent(&wire.Event{Type: wire.EventDestroy, ID: uint32(queued)}); err != nil {
				t.Fatal(err)
			}
			queued++
		}
		for _, d := range drain(t, a, now) {
			if lose() {
				continue
			}
			h, p := linktest.MustParse2(t, d, wire.ToClient)
			var err error
			if fresh, err = b.ReceiveEvents(p, fresh[:0]); err != nil {
				t.Fatal(err)
			}
			for _, f := range fresh {
				var ev wire.Event
				if err := wire2.ParseEvent(f.Data, &ev); err != nil || ev.ID != f.ID {
					t.Fatalf("event %d delivered under id %d: %v", ev.ID, f.ID, err)
				}
				if delivered[f.ID]++; delivered[f.ID] > 1 {
					t.Fatalf("event %d delivered twice", f.ID)
				}
				got++
			}
			b.Accept(h, len(d), now)
		}
		if !lose() {
			d, _ := b.AppendDatagram(nil, wire.TypeAck, nil, now)
			h, _ := linktest.MustParse2(t, d, wire.ToServer)
			a.Accept(h, len(d), now)
		}
	}
	if b.Stats().EventsDelivered != total {
		t.Fatalf("EventsDelivered %d", b.Stats().EventsDelivered)
	}
}

// eventPayload2 builds a v2 Event payload of spawns with the given ids.
func eventPayload2(ids ...uint32) []byte {
	p := []byte{byte(len(ids))}
	for _, id := range ids {
		p = wire2.AppendEventFrame(p, id, wire2.AppendEvent(nil, linktest.V2Spawn(int(id%1000))))
	}
	return p
}

// 7.7: each id is delivered once; an id 65536 or more older than the
// newest received is taken as received, one 65535 older is not.
func TestReceiveWindow2(t *testing.T) {
	l := NewV2(testSession, t0)
	recv := func(ids ...uint32) []uint32 {
		t.Helper()
		out, err := l.ReceiveEvents(eventPayload2(ids...), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []uint32
		for _, f := range out {
			got = append(got, f.ID)
		}
		return got
	}
	cases := []struct{ in, want []uint32 }{
		{[]uint32{0, 1, 1, 2, 0}, []uint32{0, 1, 2}},
		{[]uint32{2, 3, 70000}, []uint32{3, 70000}},
		{[]uint32{4464, 4465, 4465, 69999, 70000}, []uint32{4465, 69999}}, // 70000-65536 = 4464
		{[]uint32{200000}, []uint32{200000}},
		{[]uint32{134464, 134465, 70000, 199999}, []uint32{134465, 199999}},
		{[]uint32{0xFFFFFFFF, 0xFFFF0000, 0xFFFEFFFF}, []uint32{0xFFFFFFFF, 0xFFFF0000}},
	}
	for _, c := range cases {
		if got := recv(c.in...); !slices.Equal(got, c.want) {
			t.Fatalf("received %v: delivered %v, want %v", c.in, got, c.want)
		}
	}
}

// The window against a model of 7.7's rule, on random ids around a
// newest that jumps.
func TestReceiveWindow2Model(t *testing.T) {
	l := NewV2(testSession, t0)
	r := rand.New(rand.NewPCG(9, 9))
	got := map[uint32]bool{}
	newest, has := uint32(0), false
	for range 20000 {
		base := newest
		if r.IntN(50) == 0 {
			base += uint32(r.IntN(140000))
		}
		id := base + 1000 - uint32(r.IntN(70000))
		if id > 1<<31 { // below 0
			id = uint32(r.IntN(1000))
		}
		want := !(got[id] || (has && id <= newest && newest-id >= wire2.EventWindow))
		out, err := l.ReceiveEvents(eventPayload2(id), nil)
		if err != nil {
			t.Fatal(err)
		}
		if (len(out) == 1) != want {
			t.Fatalf("id %d (newest %d): delivered %v, want %v", id, newest, len(out) == 1, want)
		}
		got[id] = true
		if !has || id > newest {
			newest, has = id, true
		}
	}
}

// 7.7 (5.2's rules): a framing error delivers nothing and marks nothing.
func TestReceiveEvents2FramingErrors(t *testing.T) {
	l := NewV2(testSession, t0)
	good := eventPayload2(5, 6)
	bad := [][]byte{
		nil,
		{0},
		append(slices.Clone(good), 0),  // a byte after the last frame
		good[:len(good)-1],             // the last frame cut
		append([]byte{3}, good[1:]...), // count 3, 2 frames
		{1, 5, 0, 0, 0, 0},             // length 0
		eventPayload([]uint16{5}, [][]byte{wire.AppendEvent(nil, linktest.Spawn(5))}), // v1 framing
	}
	for i, p := range bad {
		out, err := l.ReceiveEvents(p, nil)
		if !errors.Is(err, wire.ErrEventFraming) || len(out) != 0 {
			t.Fatalf("bad payload %d: %v, %d delivered", i, err, len(out))
		}
	}
	if out, err := l.ReceiveEvents(good, nil); err != nil || len(out) != 2 || l.Stats().EventsDelivered != 2 {
		t.Fatalf("the good payload after bad ones: %v, %d delivered", err, len(out))
	}
}

// ReceiveEvents reads a v2 Link's frames by 7.7: whole 32-bit ids, kept
// after what fresh already held. A v1 Link reads the same bytes by 5.2,
// and refuses them.
func TestReceiveEventsOnV2Link(t *testing.T) {
	l := NewV2(testSession, t0)
	out, err := l.ReceiveEvents(eventPayload2(70001, 70000), []wire.EventFrame{{ID: 9}})
	if err != nil || len(out) != 3 || out[0].ID != 9 || out[1].ID != 70001 || out[2].ID != 70000 ||
		!bytes.Equal(out[1].Data, wire2.AppendEvent(nil, linktest.V2Spawn(1))) {
		t.Fatalf("ReceiveEvents on v2: %v %+v", err, out)
	}
	if _, err := New(1, t0).ReceiveEvents(eventPayload2(1), nil); err == nil {
		t.Fatal("a v1 Link took a v2 Event payload")
	}
}

// Both ends of a v2 link allocate nothing per tick in steady state, as
// TestLinkTickNoAllocs checks for v1.
func TestLinkTickNoAllocs2(t *testing.T) { linkTickNoAllocs(t, NewV2) }
