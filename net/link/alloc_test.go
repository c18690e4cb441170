package link

import (
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link/linktest"
	"rtype/net/wire"
)

// Both ends of a link allocate nothing per tick in steady state: the
// server queues events and sends them (QueueEvent, AppendEvents) after a
// datagram of its own (AppendDatagram, lost); the client checks,
// delivers and acknowledges them (Seen, ReceiveEvents, Accept,
// AppendDatagram); the server takes the acknowledgement (Accept). The
// count is exact (testutil.AllocsPerRun).
func TestLinkTickNoAllocs(t *testing.T) { linkTickNoAllocs(t, New) }

// linkTickNoAllocs is TestLinkTickNoAllocs for links made by newLink.
func linkTickNoAllocs(t *testing.T, newLink func(uint32, time.Time) *Link) {
	srv, cli := newLink(testSession, t0), newLink(testSession, t0)
	evs := make([]*wire.Event, 8)
	for i := range evs {
		evs[i] = linktest.EventFor(i)
	}
	out, ack := make([]byte, 0, wire.MaxDatagram), make([]byte, 0, wire.MaxDatagram)
	fresh := make([]wire.EventFrame, 0, 64)
	now := t0
	k := 0
	tick := func() {
		now = now.Add(time.Second / 60)
		for range 3 {
			if err := srv.QueueEvent(evs[k%len(evs)]); err != nil {
				t.Fatal(err)
			}
			k++
		}
		out, _ = srv.AppendDatagram(out[:0], wire.TypeSnapshot, nil, now) // lost on the way
		for {
			var ok bool
			if out, ok = srv.AppendEvents(out[:0], now); !ok {
				break
			}
			h, p := parseAny(t, cli, out, wire.ToClient)
			if cli.Seen(h.Seq) {
				t.Fatalf("datagram %d seen", h.Seq)
			}
			var err error
			if fresh, err = cli.ReceiveEvents(p, fresh[:0]); err != nil {
				t.Fatal(err)
			}
			cli.Accept(h, len(out), now)
		}
		ack, _ = cli.AppendDatagram(ack[:0], wire.TypeAck, nil, now) // an Ack: empty in both versions
		h, _ := parseAny(t, srv, ack, wire.ToServer)
		srv.Accept(h, len(ack), now)
	}
	for range 2 * sentRing { // the ring of sent datagrams at its size
		tick()
	}
	testutil.NoAllocs(t, 600, "a tick of events both ways", tick)
	if srv.Unacked() != 0 {
		t.Fatalf("%d events unacknowledged", srv.Unacked())
	}
}
