package link

import (
	"math/rand/v2"
	"testing"
	"time"

	"rtype/net/link/linktest"
	"rtype/net/wire"
)

// Accept walks only the ack_bits a previous header did not carry; the
// result is the same as walking all 32 every time: the same datagrams
// acknowledged, the same RTT, the same events delivered, with the peer's
// ack going forward, standing still, jumping and going back (reordered
// headers), in both versions.
func TestAcceptSkipsSeenAckBits(t *testing.T) {
	for _, mk := range []func(uint32, time.Time) *Link{New, NewV2} {
		rng := rand.New(rand.NewPCG(1, 2))
		fast, walk := mk(testSession, t0), mk(testSession, t0)
		now := t0
		var next uint16 // datagrams sent so far
		for i := range 20000 {
			now = now.Add(time.Millisecond)
			for range rng.IntN(3) {
				for _, l := range []*Link{fast, walk} {
					ev := wire.Event{Type: wire.EventPlayerLeft, Tick: uint32(i), Player: 1}
					l.QueueEvent(&ev)
					l.AppendEvents(nil, now)
				}
			}
			next = uint16(fast.Stats().SentDatagrams)
			if next == 0 {
				continue
			}
			// An honest peer acknowledges only what was sent: ack is
			// at most the newest, often it, sometimes older.
			ack := next - 1 - uint16(min(rng.IntN(8), int(next-1)))
			if rng.IntN(10) == 0 {
				ack -= uint16(rng.IntN(40))
			}
			bits := rng.Uint32()
			if rng.IntN(2) == 0 {
				bits = 0xFFFFFFFF
			}
			h := linktest.PeerHeader(wire.TypeAck, uint16(i), ack, bits)
			fast.Accept(h, 20, now)
			walk.peerAckHas = false // walk all 32 bits, as before
			walk.Accept(h, 20, now)
			fs, ws := fast.Stats(), walk.Stats()
			fr, _ := fast.RTT()
			wr, _ := walk.RTT()
			if fs != ws || fr != wr || fast.Unacked() != walk.Unacked() {
				t.Fatalf("v%d, header %d (ack %d): stats %+v rtt %v unacked %d; walking all bits: %+v %v %d",
					fast.Version(), i, ack, fs, fr, fast.Unacked(), ws, wr, walk.Unacked())
			}
		}
		if fast.Stats().Acked == 0 {
			t.Fatal("nothing acknowledged")
		}
	}
}
