package server

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// The datagram path allocates nothing per datagram in steady state: the
// batched read (recvmmsg on Linux), the outbox and its batched write
// (sendmmsg), and the server's handling of the Inputs and acknowledgements
// of bound v1 and v2 sessions.
func TestDatagramPathNoAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	t.Run("socket", func(t *testing.T) {
		r, o, to, from := loopbackBatch(t)
		payload := make([]byte, 300)
		const k = 8 // datagrams per batch
		got := 0
		round := func() {
			for i := range k {
				payload[0] = byte(i)
				o.add(payload, to)
			}
			o.flush()
			for n := 0; n < k; {
				ds, err := r.read()
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range ds {
					if d.addr != from || len(d.b) != len(payload) {
						t.Fatalf("datagram of %d bytes from %v, want %d from %v", len(d.b), d.addr, len(payload), from)
					}
				}
				n += len(ds)
				got += len(ds)
			}
		}
		round()
		if n := testing.AllocsPerRun(50, round); n != 0 {
			t.Errorf("%v allocations per batch of %d datagrams sent and received", n, k)
		}
		if got != 52*k { // AllocsPerRun makes one more run, to warm up
			t.Errorf("%d datagrams received, want %d", got, 52*k)
		}
	})
	t.Run("server", func(t *testing.T) {
		cfg := testConfig()
		cfg.Rules = noWaveRules()
		s := startServer(t, cfg)
		c1 := join(t, s, "Dallas")
		c2 := join2(t, s, "Ripley")
		c1.waitSnaps(3)
		c2.pumpUntil(wait, func() bool { return len(c2.snaps) >= 3 })
		// Inputs of both sessions as their sockets would send them, fed
		// to the server's receive path without its socket.
		const n = 200
		var batches [n][]datagram
		a1 := c1.udp.LocalAddr().(*net.UDPAddr).AddrPort()
		a2 := c2.udp.LocalAddr().(*net.UDPAddr).AddrPort()
		a1 = netip.AddrPortFrom(a1.Addr().Unmap(), a1.Port())
		a2 = netip.AddrPortFrom(a2.Addr().Unmap(), a2.Port())
		for i := range batches {
			c2.hist = append(c2.hist, wire.ActionFire)
			in := wire2.Input{Step: c2.step, Count: 1}
			in.Actions[0] = wire.ActionFire
			c2.step++
			batches[i] = []datagram{
				{b: c1.datagram(wire.TypeInput, []byte{wire.ActionFire}), addr: a1},
				{b: c1.datagram(wire.TypeAck, nil), addr: a1},
				{b: c2.datagram(wire.TypeInput, wire2.AppendInput(nil, &in)), addr: a2},
			}
		}
		var rd reader
		i := 0
		receive := func() {
			s.in.receive(&rd, batches[i], time.Now())
			i++
		}
		for range 20 {
			receive()
		}
		if got := testing.AllocsPerRun(n-40, receive); got != 0 {
			t.Errorf("%v allocations per batch of 3 datagrams received", got)
		}
		if st := s.TickStats(); st.Sessions != 2 {
			t.Errorf("%d sessions, want 2", st.Sessions)
		}
	})
}
