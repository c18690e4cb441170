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

// collect receives n arrivals, and returns fewer if the next did not come
// within testutil.Wait (a deadlock guard: on loopback they come at once).
func collect(ch <-chan arrival, n int) []arrival {
	var out []arrival
	deadline := time.After(testutil.Wait)
	for len(out) < n {
		select {
		case a := <-ch:
			out = append(out, a)
		case <-deadline:
			return out
		}
	}
	return out
}

// readSeqs reads n datagrams from c, and returns fewer if the next did
// not come within testutil.Wait (a deadlock guard).
func readSeqs(c *net.UDPConn, n int) []uint64 {
	var out []uint64
	buf := make([]byte, 2048)
	for len(out) < n {
		_ = c.SetReadDeadline(time.Now().Add(testutil.Wait))
		m, err := c.Read(buf)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return out
			}
			if errors.Is(err, net.ErrClosed) {
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

// seqReader reads the sequence numbers of the datagrams of a socket in a
// goroutine until the test ends, so that the socket is drained while the
// test is still sending.
type seqReader struct {
	mu   sync.Mutex
	seqs []uint64
}

func readSeqsAsync(t testing.TB, c *net.UDPConn) *seqReader {
	r := &seqReader{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			m, err := c.Read(buf)
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			if m >= 8 {
				r.mu.Lock()
				r.seqs = append(r.seqs, binary.BigEndian.Uint64(buf))
				r.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { c.Close(); <-done })
	return r
}

// wait returns the sequence numbers read once there are n, or those read
// within testutil.Wait if fewer came.
func (r *seqReader) wait(n int) []uint64 {
	var out []uint64
	testutil.Eventually(testutil.Wait, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		out = append(out[:0], r.seqs...)
		return len(out) >= n
	})
	return out
}
