package link

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"rtype/net/netsim"
)

// udpPath is one direction of a session through real sockets: Send
// writes to the socket (the server's to the address it last heard the
// client from), Receive takes what the socket's reader got, without
// waiting.
type udpPath struct {
	conn *net.UDPConn
	to   func() (netip.AddrPort, bool) // nil: a connected socket
	in   chan []byte
	tb   testing.TB
}

func (p *udpPath) Send(b []byte, _ time.Time) {
	var err error
	if p.to == nil {
		_, err = p.conn.Write(b)
	} else if addr, ok := p.to(); ok {
		_, err = p.conn.WriteToUDPAddrPort(b, addr)
	}
	if err != nil {
		p.tb.Errorf("write: %v", err)
	}
}

func (p *udpPath) Receive(dst []byte, _ time.Time) ([]byte, bool) {
	select {
	case b := <-p.in:
		return append(dst, b...), true
	default:
		return dst, false
	}
}

// relayNet is a loadNet of real UDP sockets on 127.0.0.1 through the
// netsim relay impairing both directions with im, on the wall clock. It
// is closed when the test ends.
func relayNet(t *testing.T, im netsim.Impairment, seed int64) loadNet {
	srvConn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	relay, err := netsim.New(netsim.Config{Listen: "127.0.0.1:0", To: srvConn.LocalAddr().String(), Up: im, Down: im, Seed: seed,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := relay.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("relay: %v", err)
		}
	}()
	relayAddr, err := net.ResolveUDPAddr("udp", relay.Addr())
	if err != nil {
		t.Fatal(err)
	}
	cliConn, err := net.DialUDP("udp", nil, relayAddr)
	if err != nil {
		t.Fatal(err)
	}
	_ = srvConn.SetReadBuffer(1 << 20)
	_ = cliConn.SetReadBuffer(1 << 20)
	var mu sync.Mutex
	var client netip.AddrPort // as the server sees it: the relay's socket
	read := func(c *net.UDPConn, out chan<- []byte, server bool) {
		defer wg.Done()
		buf := make([]byte, 2048)
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				return // closed
			}
			if server {
				mu.Lock()
				client = from
				mu.Unlock()
			}
			select {
			case out <- append([]byte(nil), buf[:n]...):
			case <-ctx.Done():
				return
			}
		}
	}
	srvIn, cliIn := make(chan []byte, 4096), make(chan []byte, 4096)
	wg.Add(2)
	go read(srvConn, srvIn, true)
	go read(cliConn, cliIn, false)
	t.Cleanup(func() {
		cancel()
		srvConn.Close()
		cliConn.Close()
		relay.Close()
		wg.Wait()
	})
	to := func() (netip.AddrPort, bool) {
		mu.Lock()
		defer mu.Unlock()
		return client, client.IsValid()
	}
	// Timers may be coarse: each look at the network waits for the next
	// 2 ms tick, then takes the wall clock.
	ticker := time.NewTicker(2 * time.Millisecond)
	t.Cleanup(ticker.Stop)
	return loadNet{
		down:  &udpPath{conn: srvConn, to: to, in: cliIn, tb: t},
		up:    &udpPath{conn: cliConn, in: srvIn, tb: t},
		start: time.Now(),
		next: func(time.Time) time.Time {
			<-ticker.C
			return time.Now()
		},
		drain: time.Minute, // a deadlock guard: it drains in a few seconds
	}
}

// TestEvents500PerSecondRelay is TestEvents500PerSecondAt25PercentLoss
// through real sockets and the netsim relay (25% loss, 500 ms each way),
// on the wall clock, for 5 s: v2 holds more events unacknowledged than
// v1 can and delivers each once, v1 overflows.
func TestEvents500PerSecondRelay(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 8 s of wall clock")
	}
	im := netsim.Impairment{Loss: 0.25, Delay: 500 * time.Millisecond}
	const rate, d = 500, 5 * time.Second
	t.Run("v2", func(t *testing.T) {
		t.Parallel()
		res := runEventLoad(t, NewV2, relayNet(t, im, 21), rate, d)
		if res.err != nil || res.delivered != rate*int(d/time.Second) {
			t.Fatalf("v2 gave up after %v: %v (%d delivered, max unacknowledged %d)", res.end, res.err, res.delivered, res.maxUnacked)
		}
		t.Logf("v2: %d events delivered once each in %v; max unacknowledged %d; RTT %v", res.delivered, res.end, res.maxUnacked, res.rtt)
		if res.maxUnacked <= MaxUnacked {
			t.Fatalf("v2 held at most %d events unacknowledged, no more than v1's %d: the test does not bite", res.maxUnacked, MaxUnacked)
		}
	})
	t.Run("v1", func(t *testing.T) {
		t.Parallel()
		res := runEventLoad(t, New, relayNet(t, im, 22), rate, d)
		if !errors.Is(res.err, ErrTooManyEvents) {
			t.Fatalf("v1 held (err %v, max unacknowledged %d): the test does not bite", res.err, res.maxUnacked)
		}
		t.Logf("v1: overflowed after %v (%d queued, %d delivered): %v", res.end, res.queued, res.delivered, res.err)
	})
}
