package link

import (
	"bytes"
	"errors"
	"testing"

	"rtype/net/link/linktest"
	"rtype/net/wire"
)

// QueueEncoded gives each Link the datagrams QueueEvent would have: one
// EncodedEvent queued on v1 and v2 Links in turn (each version encoded
// once), against Links given each event by QueueEvent; the Stage events
// skipped on v1 Links as QueueEvent skips them.
func TestQueueEncodedSameBytes(t *testing.T) {
	var evs []wire.Event
	for i := range 300 {
		evs = append(evs, *linktest.EventFor(i))
	}
	evs = append(evs, stageEvents21()...)
	evs = append(evs, *linktest.V2Spawn(70), *linktest.EventFor(5))
	mk := []func() *Link{
		func() *Link { return New(testSession, t0) },
		func() *Link { return NewV2(testSession, t0) },
	}
	var enc EncodedEvent
	var want, got [4]*Link // v1, v2, v1, v2
	for i := range want {
		want[i], got[i] = mk[i%2](), mk[i%2]()
	}
	for i := range evs {
		enc.Set(&evs[i])
		for k := range want {
			if err := want[k].QueueEvent(&evs[i]); err != nil {
				t.Fatal(err)
			}
			if err := got[k].QueueEncoded(&enc); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k := range want {
		if want[k].Unacked() != got[k].Unacked() {
			t.Fatalf("link %d: %d events queued, want %d", k, got[k].Unacked(), want[k].Unacked())
		}
		w, g := drain(t, want[k], at(0)), drain(t, got[k], at(0))
		if len(w) != len(g) || len(w) == 0 {
			t.Fatalf("link %d: %d datagrams, want %d", k, len(g), len(w))
		}
		for i := range w {
			if !bytes.Equal(w[i], g[i]) {
				t.Fatalf("link %d, datagram %d:\n got % x\nwant % x", k, i, g[i], w[i])
			}
		}
	}
}

// QueueEncoded refuses what QueueEvent refuses: the event past the
// window of unacknowledged ones.
func TestQueueEncodedTooMany(t *testing.T) {
	l := New(testSession, t0)
	var enc EncodedEvent
	for i := 0; i <= MaxUnacked; i++ {
		enc.Set(linktest.Spawn(i))
		err := l.QueueEncoded(&enc)
		if i < MaxUnacked && err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if i == MaxUnacked && !errors.Is(err, ErrTooManyEvents) {
			t.Fatalf("event %d: %v, want ErrTooManyEvents", i, err)
		}
	}
}

// BenchmarkQueueEvents4 queues a Spawn on the 4 v2 Links of a game, each
// encoding it (QueueEvent) or the game encoding it once (QueueEncoded),
// and acknowledges it, so that the queues stay short as in play.
func BenchmarkQueueEvents4(b *testing.B) {
	for _, shared := range []bool{false, true} {
		name := "each"
		if shared {
			name = "once"
		}
		b.Run(name, func(b *testing.B) {
			var ls [4]*Link
			for i := range ls {
				ls[i] = NewV2(testSession, t0)
			}
			ev := linktest.V2Spawn(1)
			var enc EncodedEvent
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				ev.ID = uint32(i)
				enc.Set(ev)
				for _, l := range ls {
					var err error
					if shared {
						err = l.QueueEncoded(&enc)
					} else {
						err = l.QueueEvent(ev)
					}
					if err != nil {
						b.Fatal(err)
					}
					l.v2.acknowledge([]uint32{l.v2.head})
				}
			}
		})
	}
}
