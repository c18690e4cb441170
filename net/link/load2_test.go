package link

import (
	"errors"
	"testing"
	"time"

	"rtype/net/link/linktest"
	"rtype/net/netsim"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// eventLoad is the result of runEventLoad.
type eventLoad struct {
	queued, delivered int
	maxUnacked        int
	err               error // QueueEvent's, when the sender gave up
	end               time.Duration
	rtt               time.Duration
}

// path is one direction of a network: a netsim.Pipe, or real sockets
// through the netsim relay.
type path interface {
	Send(b []byte, now time.Time)
	Receive(dst []byte, now time.Time) ([]byte, bool)
}

// loadNet is the network of runEventLoad: its two directions, its start,
// and how time goes on (by a millisecond of simulated time, or by the
// wall clock).
type loadNet struct {
	down, up path
	start    time.Time
	next     func(prev time.Time) time.Time
	drain    time.Duration // how long the stream may take to drain
}

// pipeNet is a loadNet of two netsim.Pipes with loss in both directions
// and a round trip of rtt, on simulated time.
func pipeNet(loss float64, rtt time.Duration) loadNet {
	im := netsim.Impairment{Loss: loss, Delay: rtt / 2}
	return loadNet{down: netsim.NewPipe(im, 12), up: netsim.NewPipe(im, 13), start: t0,
		next: func(prev time.Time) time.Time { return prev.Add(time.Millisecond) }, drain: 30 * time.Second}
}

// runEventLoad streams rate events a second for d from a server-like end
// to a client-like end of a session made by newLink, through nw, then lets
// the stream drain. The client acknowledges every Event datagram at once
// (7.7) and sends an Ack every tick besides. It fails the test on any
// event delivered twice, changed, or never.
func runEventLoad(t *testing.T, newLink func(uint32, time.Time) *Link, nw loadNet, rate int, d time.Duration) eventLoad {
	down, up, t0 := nw.down, nw.up, nw.start
	srv, cli := newLink(testSession, t0), newLink(testSession, t0)
	total := rate * int(d/time.Second)
	delivered := make([]uint8, total)
	var res eventLoad
	var out, back, buf []byte
	var fresh []wire.EventFrame
	ack := func(now time.Time) {
		back, _ = cli.AppendDatagram(back[:0], wire.TypeAck, nil, now)
		up.Send(back, now)
	}
	tickAt := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second / 60) }
	ticks := 0
	for now := t0; ; now = nw.next(now) {
		// The server: every tick, queue the tick's share of rate, then
		// send what is due.
		for ; !tickAt(ticks).After(now); ticks++ {
			n := ticks
			for want := min(total, (n+1)*rate/60); res.queued < want; res.queued++ {
				if err := srv.QueueEvent(linktest.Spawn(res.queued)); err != nil {
					res.err, res.end = err, now.Sub(t0)
					res.rtt, _ = srv.RTT()
					return res
				}
			}
			res.maxUnacked = max(res.maxUnacked, srv.Unacked())
			for {
				var ok bool
				if out, ok = srv.AppendEvents(out[:0], now); !ok {
					break
				}
				down.Send(out, now)
			}
			ack(now)
		}
		for b, ok := down.Receive(buf[:0], now); ok; b, ok = down.Receive(buf[:0], now) {
			h, p := parseAny(t, cli, b, wire.ToClient)
			if cli.Seen(h.Seq) {
				continue
			}
			var err error
			if fresh, err = cli.ReceiveEvents(p, fresh[:0]); err != nil {
				t.Fatalf("ReceiveEvents: %v", err)
			}
			for _, f := range fresh {
				var ev wire.Event
				if cli.Version() == wire.Version2 {
					err = wire2.ParseEvent(f.Data, &ev)
				} else {
					err = wire.ParseEvent(f.Data, &ev)
				}
				if err != nil || int(ev.ID) >= res.queued || uint16(ev.ID) != uint16(f.ID) {
					t.Fatalf("event id %d: %v (event %d, queued %d)", f.ID, err, ev.ID, res.queued)
				}
				if delivered[ev.ID]++; delivered[ev.ID] > 1 {
					t.Fatalf("event %d delivered twice", ev.ID)
				}
				res.delivered++
			}
			cli.Accept(h, len(b), now)
			ack(now) // at once (7.7)
		}
		for b, ok := up.Receive(buf[:0], now); ok; b, ok = up.Receive(buf[:0], now) {
			h, _ := parseAny(t, srv, b, wire.ToServer)
			if !srv.Seen(h.Seq) {
				srv.Accept(h, len(b), now)
			}
		}
		if res.queued == total && res.delivered == total && srv.Unacked() == 0 {
			res.end = now.Sub(t0)
			res.rtt, _ = srv.RTT()
			return res
		}
		if now.Sub(t0) > d+nw.drain {
			t.Fatalf("not drained %v after the stream: %d of %d delivered, %d unacknowledged", nw.drain, res.delivered, total, srv.Unacked())
		}
	}
}

// The target of issue 12 (item 4) and 7.7: at 25% loss both ways and a
// 1 s round trip, a v2 session holds 500 events a second for 60 s without
// the sender giving up, and delivers each exactly once. v1, whose 1024
// events last 2 s at that rate, overflows in the same test.
func TestEvents500PerSecondAt25PercentLoss(t *testing.T) {
	const rate, loss, rtt, d = 500, 0.25, time.Second, 60 * time.Second
	t.Run("v2", func(t *testing.T) {
		t.Parallel()
		res := runEventLoad(t, NewV2, pipeNet(loss, rtt), rate, d)
		if res.err != nil {
			t.Fatalf("v2 gave up after %v: %v (max unacknowledged %d)", res.end, res.err, res.maxUnacked)
		}
		if res.delivered != rate*int(d/time.Second) {
			t.Fatalf("%d delivered", res.delivered)
		}
		t.Logf("v2: %d events delivered once each in %v; max unacknowledged %d of %d; RTT %v",
			res.delivered, res.end, res.maxUnacked, wire2.EventWindow, res.rtt)
	})
	t.Run("v1", func(t *testing.T) {
		t.Parallel()
		res := runEventLoad(t, New, pipeNet(loss, rtt), rate, d)
		if !errors.Is(res.err, ErrTooManyEvents) {
			t.Fatalf("v1 held 500 events/s at 25%% loss and 1 s RTT (err %v, max unacknowledged %d): the test does not bite", res.err, res.maxUnacked)
		}
		t.Logf("v1: overflowed after %v (%d queued, %d delivered): %v", res.end, res.queued, res.delivered, res.err)
	})
}

// parseAny parses a datagram of l's version as a v2 header.
func parseAny(tb testing.TB, l *Link, b []byte, d wire.Direction) (wire.Header, []byte) {
	return linktest.ParseAny(tb, l.Version() == wire.Version2, b, d)
}
