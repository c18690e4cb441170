package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wtclient"
)

// One host floods the WebTransport binding (issue 27): sessions that
// never open their stream, QUIC connections that never make a request;
// then a player of another address joins. The helpers use only what the
// binding had before its limits, so that this file measures the server
// before and after them alike (TestWebTransportFloodFigures).

var wtFlood = flag.Int("wtflood", 0,
	"TestWebTransportFloodFigures: the idle QUIC connections one address opens (0: skip the test)")

// wtFrom opens QUIC connections and WebTransport sessions to the binding
// at addr from one loopback address, as one host would: one UDP socket,
// any number of connections.
type wtFrom struct {
	tr   *quic.Transport
	to   *net.UDPAddr
	addr string
	wt   *webtransport.Transport
}

func newWTFrom(t testing.TB, ip, addr string) *wtFrom {
	t.Helper()
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.ParseIP(ip)})
	if err != nil {
		t.Fatal(err)
	}
	to, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	f := &wtFrom{tr: &quic.Transport{Conn: pc}, to: to, addr: addr}
	f.wt = &webtransport.Transport{TLSClientConfig: floodTLS(), QUICConfig: floodQUIC(),
		DialAddr: func(ctx context.Context, _ string, tc *tls.Config, qc *quic.Config) (*quic.Conn, error) {
			return f.tr.DialEarly(ctx, f.to, tc, qc)
		}}
	t.Cleanup(func() {
		f.tr.Close()
		pc.Close()
	})
	return f
}

// floodTLS trusts any certificate, with HTTP/3's ALPN.
func floodTLS() *tls.Config {
	return &tls.Config{InsecureSkipVerify: true, NextProtos: []string{http3.NextProtoH3}}
}

// floodQUIC is the flooding host's QUIC: no keep-alive of its own, a long
// idle timeout, so that only the server keeps its connections up or ends
// them.
func floodQUIC() *quic.Config {
	return &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true,
		MaxIdleTimeout: time.Minute, HandshakeIdleTimeout: 2 * time.Second}
}

// conn opens a QUIC connection that makes no request.
func (f *wtFrom) conn(ctx context.Context, cfg *quic.Config) (*quic.Conn, error) {
	if cfg == nil {
		cfg = floodQUIC()
	}
	return f.tr.Dial(ctx, f.to, floodTLS(), cfg)
}

// session opens a WebTransport session that opens no stream.
func (f *wtFrom) session(ctx context.Context) (*webtransport.Session, error) {
	_, sess, err := f.wt.Dial(ctx, "https://"+f.addr+WebTransportPath, nil)
	return sess, err
}

// flooded is what a flood left open: the sessions and connections the
// server let in (some may have been closed by it since), and how many
// attempts failed.
type flooded struct {
	sessions     []*webtransport.Session
	conns        []*quic.Conn
	sessFailed   int // the handshake or the session's CONNECT failed
	connsRefused int
}

// close closes what the flood opened.
func (r *flooded) close() {
	for _, s := range r.sessions {
		s.CloseWithError(0, "")
	}
	for _, c := range r.conns {
		c.CloseWithError(0, "")
	}
}

// alive counts the sessions and connections still open.
func (r *flooded) alive() (sessions, conns int) {
	for _, s := range r.sessions {
		if s.Context().Err() == nil {
			sessions++
		}
	}
	for _, c := range r.conns {
		if c.Context().Err() == nil {
			conns++
		}
	}
	return sessions, conns
}

// flood opens pending sessions then idle connections from f, workers at
// a time.
func flood(f *wtFrom, pending, idle, workers int) *flooded {
	var r flooded
	var mu sync.Mutex
	run := func(n int, one func(ctx context.Context)) {
		jobs := make(chan struct{})
		var wg sync.WaitGroup
		for range min(workers, n) {
			wg.Go(func() {
				for range jobs {
					ctx, cancel := context.WithTimeout(context.Background(), wait)
					one(ctx)
					cancel()
				}
			})
		}
		for range n {
			jobs <- struct{}{}
		}
		close(jobs)
		wg.Wait()
	}
	run(pending, func(ctx context.Context) {
		sess, err := f.session(ctx)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			r.sessFailed++
			return
		}
		r.sessions = append(r.sessions, sess)
	})
	run(idle, func(ctx context.Context) {
		c, err := f.conn(ctx, nil)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			r.connsRefused++
			return
		}
		r.conns = append(r.conns, c)
	})
	return &r
}

// joinWT logs a player in over the binding at addr as the reference
// client does (net/wtclient, from 127.0.0.1), binds its datagrams and
// waits for its first Snapshot. It returns the time that took, and the
// open stream, which the caller closes.
func joinWT(addr string, hashes [][32]byte) (time.Duration, net.Conn, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	tr := &wtclient.Transport{CertHashes: hashes}
	c, err := tr.DialStream(ctx, addr)
	if err != nil {
		return 0, nil, err
	}
	if _, err := c.Write(loginRequest(1, "other")); err != nil {
		return 0, c, err
	}
	m, err := readMsg(c, wait)
	if err != nil {
		return 0, c, fmt.Errorf("login: %w", err)
	}
	if m.Type != wire.MsgLoginAccepted {
		return 0, c, fmt.Errorf("login answered %+v", m)
	}
	d, err := tr.DialDatagrams(ctx, c)
	if err != nil {
		return 0, c, err
	}
	defer d.Close()
	bind := rawDatagram(wire.TypeBind, 60000, m.Session, m.Token[:])
	var buf [wire.MaxDatagram + 1]byte
	for ctx.Err() == nil {
		if _, err := d.Write(bind); err != nil {
			return 0, c, err
		}
		d.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		for {
			n, err := d.Read(buf[:])
			if isTimeout(err) {
				break // the Bind again
			}
			if err != nil {
				return 0, c, err
			}
			if h, _, err := wire.ParseHeader(buf[:n], wire.ToClient); err == nil && h.Type == wire.TypeSnapshot {
				return time.Since(start), c, nil
			}
		}
	}
	return 0, c, errors.New("no snapshot")
}

// floodServerEnv makes TestWebTransportFloodServer run the server.
const floodServerEnv = "RTYPE_WTFLOOD_SERVER"

// TestWebTransportFloodServer is the server process of
// TestWebTransportFloodFigures (skipped otherwise): a server with its
// defaults but a login timeout of a minute (a host that renews its flood
// every 5 s holds as much), its WebTransport address and certificate
// hash on stdout, stopped when stdin closes.
func TestWebTransportFloodServer(t *testing.T) {
	if os.Getenv(floodServerEnv) == "" {
		t.Skip("the server process of TestWebTransportFloodFigures")
	}
	cfg := Config{Listen: "127.0.0.1:0", WebTransportAddr: "127.0.0.1:0", LoginTimeout: time.Minute,
		Logger: testutil.Discard()}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stop := testutil.Go(context.Background(), s)
	info, _ := s.WebTransport()
	fmt.Printf("wtflood %s %x\n", info.Addr, info.CertHashes[0])
	io.Copy(io.Discard, os.Stdin)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// TestWebTransportFloodFigures measures the flood against a
// server in a process of its own: 70 sessions that never open their
// stream and -wtflood idle QUIC connections from 127.0.0.2, then a player
// from 127.0.0.1 who joins (LoginAccepted, Bind, first Snapshot). It
// logs the time of the join, the server's RSS growth and its CPU over 5
// s after, and what the flood kept open. Figures, not assertions:
//
//	go test -run 'TestWebTransportFloodFigures$' -wtflood 4000 -v ./server/
func TestWebTransportFloodFigures(t *testing.T) {
	if *wtFlood == 0 {
		t.Skip("-wtflood N measures a flood of N idle connections")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWebTransportFloodServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), floodServerEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	var addr string
	var hashes [][32]byte
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) == 3 && fs[0] == "wtflood" {
			var h [32]byte
			hex.Decode(h[:], []byte(fs[2]))
			addr, hashes = fs[1], [][32]byte{h}
			break
		}
	}
	if addr == "" {
		t.Fatal("the server process gave no address")
	}
	go io.Copy(io.Discard, stdout)
	pid := cmd.Process.Pid

	// A first player warms the server up (its games, buffers, TLS).
	if _, c, err := joinWT(addr, hashes); err != nil {
		t.Fatalf("the first player: %v", err)
	} else {
		c.Close()
	}
	time.Sleep(time.Second)
	rss0 := procRSS(t, pid)

	f := newWTFrom(t, "127.0.0.2", addr)
	start := time.Now()
	r := flood(f, 70, *wtFlood, 64)
	took := time.Since(start)
	defer r.close()
	sess, conns := r.alive()
	t.Logf("flood from 127.0.0.2 in %v: 70 sessions without a stream, %d opened (%d open now), %d failed; "+
		"%d idle connections, %d opened (%d open now), %d refused",
		took.Round(time.Millisecond), len(r.sessions), sess, r.sessFailed, *wtFlood, len(r.conns), conns, r.connsRefused)

	joined, c, err := joinWT(addr, hashes)
	if c != nil {
		defer c.Close()
	}
	if err != nil {
		t.Logf("the player from 127.0.0.1 did not join: %v", err)
	} else {
		t.Logf("the player from 127.0.0.1 joined (first Snapshot) in %v", joined.Round(time.Millisecond))
	}
	rss1 := procRSS(t, pid)
	cpu0 := procCPU(t, pid)
	time.Sleep(5 * time.Second)
	cpu1 := procCPU(t, pid)
	sess, conns = r.alive()
	t.Logf("server RSS %.1f MB before the flood, %.1f MB after it (+%.1f MB); CPU over the next 5 s: %.2f of a core; "+
		"then %d sessions and %d idle connections of the flood open",
		rss0/1e6, rss1/1e6, (rss1-rss0)/1e6, (cpu1-cpu0).Seconds()/5, sess, conns)
}

// procRSS is the resident memory of process pid, in bytes.
func procRSS(t testing.TB, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb * 1024
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// procCPU is the CPU time process pid used (user and system).
func procCPU(t testing.TB, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	fs := strings.Fields(rest) // from field 3, state
	ut, _ := strconv.ParseInt(fs[11], 10, 64)
	st, _ := strconv.ParseInt(fs[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}
