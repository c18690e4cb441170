package client

import (
	"log/slog"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link"
	"rtype/net/wire"
)

// fakeServer is a minimal server of protocol v1 for the client's tests: one
// TCP listener and one UDP socket on the same port of 127.0.0.1, one
// session at a time, driven step by step by the test.
type fakeServer struct {
	t   *testing.T
	tcp *net.TCPListener
	udp *net.UDPConn

	// Set before the client dials.
	reject      *wire.Message // answer this LoginRejected instead
	silentLogin bool          // never answer the LoginRequest
	ignoreBinds int           // Binds dropped before the first Accept; -1: all
	player      uint8
	session     uint32
	token       wire.Token

	mu        sync.Mutex
	conn      net.Conn
	client    *net.UDPAddr
	link      *link.Link
	hist      link.History
	enc       wire.SnapshotEncoder
	buf       []byte
	binds     int
	versions  []uint8 // of each LoginRequest
	inputs    []inputAt
	acks      []time.Time
	tick      uint32
	entities  []wire.Entity // the world, sorted by wire.Less
	players   []wire.PlayerState
	sent      map[uint32][]wire.Entity // every snapshot sent, by tick
	baseTicks []uint32                 // baseline tick of each snapshot sent, 0 for full

	logouts chan wire.Message
	tcpDone chan struct{} // closed when the session's TCP connection ended
	bound   chan struct{}
	stop    chan struct{}
	wg      sync.WaitGroup
}

type inputAt struct {
	at      time.Time
	actions uint8
}

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	tcp, udp, err := testutil.ListenTCPUDP()
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{
		t: t, tcp: tcp, udp: udp,
		player: 2, session: 0xDEADBEEF, token: wire.Token{1, 2, 3, 4, 5, 6, 7, 8},
		sent:    make(map[uint32][]wire.Entity),
		logouts: make(chan wire.Message, 4),
		tcpDone: make(chan struct{}),
		bound:   make(chan struct{}),
		stop:    make(chan struct{}),
	}
	s.wg.Add(2)
	go func() { defer s.wg.Done(); s.acceptLoop() }()
	go func() { defer s.wg.Done(); s.readLoop() }()
	t.Cleanup(s.close)
	return s
}

func (s *fakeServer) addr() string { return s.tcp.Addr().String() }

func (s *fakeServer) close() {
	select {
	case <-s.stop:
		return
	default:
	}
	close(s.stop)
	s.tcp.Close()
	s.udp.Close()
	s.mu.Lock()
	if s.conn != nil {
		s.conn.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *fakeServer) acceptLoop() {
	for {
		c, err := s.tcp.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.serve(c) }()
	}
}

func (s *fakeServer) serve(c net.Conn) {
	defer c.Close()
	fr := wire.FrameReader{R: c}
	f, err := fr.ReadFrame()
	if err != nil || len(f) < 2 || f[0] != byte(wire.MsgLoginRequest) {
		return
	}
	// The version byte before the rest of the body (3.2 check 2): a v2
	// LoginRequest has a revision and mode that v1's layout has not.
	m := wire.Message{Type: wire.MsgLoginRequest, Version: f[1]}
	if m.Version == wire.Version {
		if m, err = wire.ParseMessage(f); err != nil {
			return
		}
	}
	s.mu.Lock()
	s.versions = append(s.versions, m.Version)
	s.mu.Unlock()
	if s.silentLogin {
		<-s.stop
		return
	}
	if s.reject != nil {
		c.Write(wire.AppendMessage(nil, s.reject))
		return
	}
	if m.Version != wire.Version {
		// A v1 server (3.2 check 2, 7.1).
		c.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRejected, Reason: wire.RejectVersionMismatch, Text: "v1 only"}))
		return
	}
	s.mu.Lock()
	s.conn = c
	s.link = link.New(s.session, time.Now())
	s.link.Baselines = &s.hist
	s.mu.Unlock()
	c.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginAccepted, Player: s.player,
		Session: s.session, Token: s.token, Tick: s.tick}))
	defer close(s.tcpDone)
	for {
		m, err := fr.ReadMessage()
		if err != nil {
			return
		}
		s.logouts <- m
	}
}

func (s *fakeServer) readLoop() {
	buf := make([]byte, 2048)
	for {
		n, from, err := s.udp.ReadFromUDP(buf)
		if err != nil {
			return
		}
		s.handle(buf[:n], from)
	}
}

func (s *fakeServer) handle(b []byte, from *net.UDPAddr) {
	h, p, err := wire.ParseHeader(b, wire.ToServer)
	if err != nil {
		s.t.Errorf("fake server: bad datagram from the client: %v", err)
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.Session != s.session || s.link == nil {
		s.t.Errorf("fake server: datagram of session %#x", h.Session)
		return
	}
	if h.Type == wire.TypeBind {
		if wire.Token(p) != s.token {
			s.t.Errorf("fake server: Bind with token %x", p)
			return
		}
		s.binds++
		if s.ignoreBinds < 0 || s.binds <= s.ignoreBinds {
			return
		}
		first := s.client == nil
		s.client = from
		s.link.Accept(h, len(b), now)
		s.buf, _ = s.link.AppendDatagram(s.buf[:0], wire.TypeAccept, wire.AppendAccept(nil, wire.Accept{Player: s.player, Tick: s.tick}), now)
		s.udp.WriteToUDP(s.buf, from)
		if first {
			close(s.bound)
		}
		return
	}
	if s.client == nil || from.String() != s.client.String() {
		s.t.Errorf("fake server: %v datagram from %v before binding", h.Type, from)
		return
	}
	if s.link.Seen(h.Seq) {
		return
	}
	s.link.Accept(h, len(b), now)
	switch h.Type {
	case wire.TypeInput:
		s.inputs = append(s.inputs, inputAt{now, p[0]})
	case wire.TypeAck:
		s.acks = append(s.acks, now)
	default:
		s.t.Errorf("fake server: unexpected %v from the client", h.Type)
	}
}

// send writes raw bytes to the bound client.
func (s *fakeServer) sendRaw(b []byte) {
	s.udp.WriteToUDP(b, s.client)
}

// events queues evs and sends them at once (5.3).
func (s *fakeServer) events(evs ...wire.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range evs {
		if err := s.link.QueueEvent(&evs[i]); err != nil {
			s.t.Fatal(err)
		}
	}
	s.flushLocked(time.Now())
}

func (s *fakeServer) flushLocked(now time.Time) {
	for {
		var ok bool
		s.buf, ok = s.link.AppendEvents(s.buf[:0], now)
		if !ok {
			return
		}
		s.sendRaw(s.buf)
	}
}

// snapshot sends the world at tick, against the client's newest
// acknowledged snapshot (4.8).
func (s *fakeServer) snapshot(tick uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.tick = tick
	baseTick, base, ok := s.hist.Baseline()
	if !ok {
		base, baseTick = nil, 0
	} else if base == nil {
		base = []wire.Entity{}
	}
	payloads := s.enc.Encode(tick, s.players, base, baseTick, s.entities)
	s.hist.Add(tick, s.entities)
	s.sent[tick] = slices.Clone(s.entities)
	s.baseTicks = append(s.baseTicks, baseTick)
	for _, p := range payloads {
		s.buf = s.link.AppendSnapshot(s.buf[:0], p, tick, now)
		s.sendRaw(s.buf)
	}
	s.flushLocked(now)
}

// ack sends an Ack datagram.
func (s *fakeServer) ack() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf, _ = s.link.AppendDatagram(s.buf[:0], wire.TypeAck, nil, time.Now())
	s.sendRaw(s.buf)
}

// eventsAcked reports whether the client acknowledged every event sent.
func (s *fakeServer) eventsAcked() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.link.Unacked() == 0
}

// logout sends Logout(reason) on the session's TCP connection.
func (s *fakeServer) logout(reason uint8) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: reason}))
	s.conn.Close()
}

// hangUp closes the session's TCP connection without a Logout.
func (s *fakeServer) hangUp() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn.Close()
}

// run sends a snapshot every 3 ticks (20 per second) until stop is
// closed, calling step before each.
func (s *fakeServer) run(stop <-chan struct{}, step func(tick uint32)) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		tick := s.tick
		for {
			select {
			case <-stop:
				return
			case <-s.stop:
				return
			case <-t.C:
			}
			tick += 3
			if step != nil {
				step(tick)
			}
			s.snapshot(tick)
		}
	}()
}

func (s *fakeServer) counts() (binds, acks int, inputs []inputAt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.binds, len(s.acks), slices.Clone(s.inputs)
}

// ackTimes returns when each Ack arrived.
func (s *fakeServer) ackTimes() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.acks)
}

// medianGap returns the median time between consecutive times: a rate
// measure that stalls of an overloaded machine do not skew.
func medianGap(ts []time.Time) time.Duration {
	if len(ts) < 2 {
		return 0
	}
	gaps := make([]time.Duration, len(ts)-1)
	for i := range gaps {
		gaps[i] = ts[i+1].Sub(ts[i])
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

// testLogger is the logger of the clients and servers of these tests:
// none, or stderr with RTYPE_TEST_LOG set (testutil.ProcessLogger).
func testLogger() *slog.Logger { return testutil.ProcessLogger() }

// waitDone waits for the client's session to end.
func waitDone(t *testing.T, c *Client, d time.Duration) error {
	t.Helper()
	select {
	case <-c.Done():
		return c.Err()
	case <-time.After(d):
		t.Fatalf("session still running after %v", d)
		return nil
	}
}

// waitFor waits until cond holds (testutil.WaitFor).
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	testutil.WaitFor(t, d, what, cond)
}
