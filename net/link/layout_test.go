package link

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link/linktest"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// TestLinkLayout checks what the Link's field order is for: the fields
// that every datagram in and out touches share its first two cache lines,
// and each entry of its ring of sent datagrams is one line of its own.
func TestLinkLayout(t *testing.T) {
	end := func(field string) uintptr { return testutil.FieldEnd(Link{}, field) }
	const line = 64
	for name, end := range map[string]uintptr{
		"recv":       end("recv"),
		"v2":         end("v2"),
		"next":       end("next"),
		"peerAck":    end("peerAckHas"),
		"lastRecv":   end("lastRecv"),
		"ackArrived": end("ackArrived"),
	} {
		if end > 2*line {
			t.Errorf("Link.%s ends at byte %d, past the first two cache lines", name, end)
		}
	}
	if off, size := testutil.FieldOffset(Link{}, "ring"), reflect.TypeOf(Link{}.ring[0]).Size(); off%line != 0 || line%size != 0 {
		t.Errorf("Link.ring at byte %d, entries of %d bytes: an entry spans two cache lines", off, size)
	}
}

// TestOutEvent2Layout checks that a v2 event slot is two cache lines
// whose bytes hold events of up to inlineEvent2 bytes, and that the
// events that take more (a long name) go out whole.
func TestOutEvent2Layout(t *testing.T) {
	if size := reflect.TypeOf(outEvent2{}).Size(); size != 128 {
		t.Errorf("outEvent2 takes %d bytes, want 128", size)
	}
	l, r := NewV2(testSession, t0), NewV2(testSession, t0)
	var evs []wire.Event
	for n := range 100 {
		name := make([]byte, n)
		for k := range name {
			name[k] = 'a' + byte(k%26)
		}
		evs = append(evs, wire.Event{Type: wire.EventPlayerJoined, Tick: uint32(n), Player: uint8(n % 4), Name: string(name)})
	}
	over := wire.Event{Type: wire.EventGameOver, Tick: 199, NumScores: 4}
	stage := wire.Event{Type: wire.EventStage, Tick: 200, What: wire.StageIntro, Value: 1, Name: strings.Repeat("Bydo ", 12)}
	evs = append(evs, over, stage, *linktest.V2Spawn(201))
	inline, big := 0, 0
	for i := range evs {
		if n := len(wire2.AppendEvent(nil, &evs[i])); n <= inlineEvent2 {
			inline++
		} else {
			big++
		}
		if err := l.QueueEvent(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if inline == 0 || big == 0 {
		t.Fatalf("%d events inline, %d not: want some of each", inline, big)
	}
	var got [][]byte
	for _, d := range drain(t, l, at(0)) {
		_, p, err := wire2.ParseHeader(d, wire.ToClient)
		if err != nil {
			t.Fatal(err)
		}
		frames, err := r.ReceiveEvents(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frames {
			got = append(got, f.Data)
		}
	}
	if len(got) != len(evs) {
		t.Fatalf("%d events received, want %d", len(got), len(evs))
	}
	for i := range evs {
		if want := wire2.AppendEvent(nil, &evs[i]); !bytes.Equal(got[i], want) {
			t.Fatalf("event %d:\n got % x\nwant % x", i, got[i], want)
		}
	}
}

// TestWarmChangesNothing checks that Warm only reads: a Link that warmed
// for every ack, new or repeated, in range of its ring or not, is the
// Link that did not.
func TestWarmChangesNothing(t *testing.T) {
	now := time.Unix(1000, 0)
	a, b := NewV2(7, now), NewV2(7, now)
	for i := range 3000 {
		now = now.Add(time.Millisecond)
		a.AppendDatagram(nil, wire.TypeSnapshot, []byte{1}, now)
		b.AppendDatagram(nil, wire.TypeSnapshot, []byte{1}, now)
		h := wire.Header{Type: wire.TypeInput, Seq: uint16(i), Ack: uint16(i / 2), AckBits: 0xffff, Session: 7}
		for _, ack := range []uint16{h.Ack, h.Ack + 1, ^h.Ack, 0xFFFF} {
			a.Warm(ack)
		}
		a.Accept(h, 21, now)
		b.Accept(h, 21, now)
	}
	ra, _ := a.RTT()
	rb, _ := b.RTT()
	if a.Stats() != b.Stats() || ra != rb || a.recv != b.recv || a.peerAck != b.peerAck || a.peerAckBits != b.peerAckBits {
		t.Errorf("a warmed Link differs: %+v, rtt %v; want %+v, rtt %v", a.Stats(), ra, b.Stats(), rb)
	}
}
