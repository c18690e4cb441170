package netsim

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
)

// arrival is one datagram received by a test endpoint.
type arrival struct {
	seq  uint64
	from netip.AddrPort
	at   time.Time
}

// testServer is a real TCP+UDP server on one port of 127.0.0.1. TCP
// connections are echoed. UDP datagrams are recorded on arrivals and, if echo
// is set, sent back to their source.
type testServer struct {
	tcp      *net.TCPListener
	udp      *net.UDPConn
	arrivals chan arrival
	echo     bool
	wg       sync.WaitGroup
}

func newTestServer(t testing.TB, echo bool) *testServer {
	t.Helper()
	tl, ul, err := listenPair("127.0.0.1:0")
	if err != nil {
		t.Fatalf("listenPair: %v", err)
	}
	_ = ul.SetReadBuffer(1 << 20)
	s := &testServer{tcp: tl, udp: ul, arrivals: make(chan arrival, 20000), echo: echo}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		var conns sync.WaitGroup
		defer conns.Wait()
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer conns.Done()
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	go func() {
		defer s.wg.Done()
		buf := make([]byte, 2048)
		for {
			n, from, err := ul.ReadFromUDPAddrPort(buf)
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			if n >= 8 {
				select {
				case s.arrivals <- arrival{seq: binary.BigEndian.Uint64(buf), from: from, at: time.Now()}:
				default:
				}
			}
			if s.echo {
				_, _ = ul.WriteToUDPAddrPort(buf[:n], from)
			}
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *testServer) addr() string { return s.tcp.Addr().String() }

func (s *testServer) close() {
	s.tcp.Close()
	s.udp.Close()
	s.wg.Wait()
}

// startRelay creates and runs a relay toward cfg.To until the test ends.
func startRelay(t testing.TB, cfg Config) *Relay {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	if cfg.Logger == nil {
		cfg.Logger = testutil.Logger(t)
	}
	r := testutil.Start(t, New, cfg)
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r
}

// dialUDP returns a UDP socket connected to the relay.
func dialUDP(t testing.TB, r *Relay) *net.UDPConn {
	t.Helper()
	ra, err := net.ResolveUDPAddr("udp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialUDP("udp", nil, ra)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadBuffer(1 << 20)
	t.Cleanup(func() { c.Close() })
	return c
}

// sendSeq sends datagrams numbered from..to-1 (8-byte big-endian sequence
// number plus padding), sleeping pause after every burst datagrams.
func sendSeq(t testing.TB, c *net.UDPConn, from, to uint64, burst int, pause time.Duration) {
	t.Helper()
	var b [64]byte
	for i := from; i < to; i++ {
		binary.BigEndian.PutUint64(b[:], i)
		if _, err := c.Write(b[:]); err != nil {
			t.Fatalf("write: %v", err)
		}
		if burst > 0 && int(i-from+1)%burst == 0 {
			time.Sleep(pause)
		}
	}
}

// collect receives arrivals until n have arrived or quiet has passed without
// any; it never waits more than max in total.
func collect(ch <-chan arrival, n int, quiet, max time.Duration) []arrival {
	var out []arrival
	deadline := time.After(max)
	for len(out) < n {
		select {
		case a := <-ch:
			out = append(out, a)
		case <-time.After(quiet):
			return out
		case <-deadline:
			return out
		}
	}
	return out
}

// readSeqs reads datagrams from c until n arrived or quiet passed.
func readSeqs(c *net.UDPConn, n int, quiet time.Duration) []uint64 {
	var out []uint64
	buf := make([]byte, 2048)
	for len(out) < n {
		_ = c.SetReadDeadline(time.Now().Add(quiet))
		m, err := c.Read(buf)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return out
			}
			continue
		}
		if m >= 8 {
			out = append(out, binary.BigEndian.Uint64(buf))
		}
	}
	return out
}

// readSeqsAsync runs readSeqs in a goroutine, so that the socket is drained
// while the test is still sending.
func readSeqsAsync(c *net.UDPConn, n int, quiet time.Duration) <-chan []uint64 {
	ch := make(chan []uint64, 1)
	go func() { ch <- readSeqs(c, n, quiet) }()
	return ch
}
