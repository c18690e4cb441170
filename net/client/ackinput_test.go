package client

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/server"
	"rtype/sim"
)

// typeRelay stands between one client and a real server: it passes the
// TCP stream through (rewriting the minor version of the LoginRequest
// when minor is set) and relays the datagrams, recording the type of
// every datagram of the client and every Event datagram of the server, in
// the order it relayed them, and in a v2.4 session (7.20) the Snapshot
// datagrams whose tail carried events.
type typeRelay struct {
	t      *testing.T
	tcp    *net.TCPListener
	udp    *net.UDPConn
	server string
	minor  int // the minor version the LoginRequest is given; -1: as it is

	mu     sync.Mutex
	client *net.UDPAddr
	up     *net.UDPConn
	trace  []relayed
	ids    map[uint32]int // the event ids of the server's Event datagrams: how many times each came
	frames []wire.EventFrame2
	tail   bool // the session is v2.4: Snapshots end with an event tail
	snap   wire.Snapshot2
}

// relayed is one datagram relayed: its type and whether it came from the
// server.
type relayed struct {
	typ        wire.Type
	fromServer bool
	events     int // the events of an Event datagram or a Snapshot's tail
}

func startTypeRelay(t *testing.T, serverAddr string, minor int) *typeRelay {
	t.Helper()
	tcp, udp, err := testutil.ListenTCPUDP()
	if err != nil {
		t.Fatal(err)
	}
	up, err := net.Dial("udp", serverAddr) // the server's UDP port is its TCP port (3.4)
	if err != nil {
		t.Fatal(err)
	}
	r := &typeRelay{t: t, tcp: tcp, udp: udp, server: serverAddr, minor: minor, up: up.(*net.UDPConn), ids: map[uint32]int{}}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); r.acceptTCP() }()
	go func() { defer wg.Done(); r.fromClient() }()
	go func() { defer wg.Done(); r.fromServer() }()
	t.Cleanup(func() { tcp.Close(); udp.Close(); up.Close(); wg.Wait() })
	return r
}

func (r *typeRelay) addr() string { return r.tcp.Addr().String() }

func (r *typeRelay) acceptTCP() {
	c, err := r.tcp.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	s, err := net.Dial("tcp", r.server)
	if err != nil {
		return
	}
	defer s.Close()
	fr := wire.FrameReader{R: c}
	f, err := fr.ReadFrame()
	if err != nil {
		return
	}
	m, err := wire.ParseMessage2(f)
	if err != nil || m.Type != wire.MsgLoginRequest {
		r.t.Errorf("relay: the client's first message: %v, %v", m.Type, err)
		return
	}
	if r.minor >= 0 {
		m.Minor = uint8(r.minor)
	}
	r.mu.Lock()
	r.tail = m.Minor >= wire.MinorEventsInSnapshot
	r.mu.Unlock()
	if _, err := s.Write(wire.AppendMessage2(nil, &m)); err != nil {
		return
	}
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
}

func (r *typeRelay) fromClient() {
	buf := make([]byte, 2048)
	for {
		n, from, err := r.udp.ReadFromUDP(buf)
		if err != nil {
			return
		}
		if n < 6 {
			continue
		}
		r.mu.Lock()
		r.client = from
		r.trace = append(r.trace, relayed{typ: wire.Type(buf[5])}) // magic, version, type (6.1, 7.2)
		r.mu.Unlock()
		r.up.Write(buf[:n])
	}
}

func (r *typeRelay) fromServer() {
	buf := make([]byte, 2048)
	for {
		n, err := r.up.Read(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		to := r.client
		if n >= 6 && wire.Type(buf[5]) == wire.TypeEvent {
			if _, p, err := wire.ParseHeader2(buf[:n], wire.ToClient); err == nil {
				r.frames, _ = wire.ParseEventFrames2(p, r.frames[:0])
				r.count(wire.TypeEvent)
			}
		}
		if n >= 6 && wire.Type(buf[5]) == wire.TypeSnapshot && r.tail {
			if _, p, err := wire.ParseHeader2(buf[:n], wire.ToClient); err == nil {
				if tail, err := r.snap.DecodeTail(p); err == nil && tail[0] > 0 {
					r.frames = wire.TailFrames(tail, r.frames[:0])
					r.count(wire.TypeSnapshot)
				}
			}
		}
		r.mu.Unlock()
		if to != nil {
			r.udp.WriteToUDP(buf[:n], to)
		}
	}
}

// count records a datagram of the server of type typ that carried
// r.frames; r.mu is held.
func (r *typeRelay) count(typ wire.Type) {
	r.trace = append(r.trace, relayed{typ: typ, fromServer: true, events: len(r.frames)})
	for _, f := range r.frames {
		r.ids[f.ID]++
	}
}

// counts returns, from the client's first Input on, the Inputs and Acks
// it sent and the Event datagrams the server sent it.
func (r *typeRelay) counts() (inputs, acks, events int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	started := false
	for _, d := range r.trace {
		switch {
		case d.fromServer && started && d.typ == wire.TypeEvent:
			events++
		case d.typ == wire.TypeInput:
			started = true
			inputs++
		case d.typ == wire.TypeAck && started:
			acks++
		}
	}
	return
}

// ackTestServer is a real server whose ships cannot die, so that a player
// sends an Input every tick for the whole test, in a game with waves.
func ackTestServer(t *testing.T) *server.Server {
	r := sim.DefaultRules()
	r.JoinInvulnTicks = 1 << 30
	return testserver.Start(t, server.Config{MaxGames: 1, Seed: 7, Rules: &r})
}

// resent returns how many event ids the server sent more than once.
func (r *typeRelay) resent() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.ids {
		if c > 1 {
			n++
		}
	}
	return n
}

// pumpEvents waits until the relay has seen at least n Event datagrams
// after the client's first Input.
func (r *typeRelay) pumpEvents(n int) {
	waitFor(r.t, testutil.Wait, "Event datagrams", func() bool {
		_, _, events := r.counts()
		return events >= n
	})
}

// 7.19, "Acknowledgement with the Input": a v2.3 client that sends an
// Input every tick lets the acknowledgement of an Event datagram ride on
// its next Input, and sends no Ack at all while it plays; a v2.2 session
// acknowledges every Event datagram at once with an Ack (7.7), as before.
// The server takes both (7.19: nothing changes on its side): the session
// goes on, its events are delivered, and none is resent for want of an
// acknowledgement.
func TestAckRidesInputV23(t *testing.T) {
	srv := ackTestServer(t)
	for _, tc := range []struct {
		name  string
		minor int
	}{{"v2.3", 3}, {"v2.2", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			r := startTypeRelay(t, srv.Addr(), tc.minor)
			ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
			defer cancel()
			// A name per subtest: the server may not have ended the
			// last one's session yet (its Logout is on its way), and
			// both would be in the same game.
			name := fmt.Sprintf("Ripley%d", tc.minor)
			c, err := Dial(ctx, Config{Addr: r.addr(), Name: name, Logger: testLogger(), Version: wire.Version2})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			wantMinor := uint8(wire.MinorVersion)
			if tc.minor >= 0 {
				wantMinor = uint8(tc.minor)
			}
			if c.minor != wantMinor {
				t.Fatalf("session of minor %d, want %d", c.minor, wantMinor)
			}
			c.SetInput(wire.ActionFire) // a missile every few ticks: Spawn events
			r.pumpEvents(10)
			inputs, acks, events := r.counts()
			t.Logf("%s: %d Inputs, %d Acks, %d Event datagrams", tc.name, inputs, acks, events)
			if tc.minor == 3 && acks != 0 {
				t.Fatalf("a v2.3 player sent %d Acks besides %d Inputs for %d Event datagrams, want 0", acks, inputs, events)
			}
			if tc.minor < 3 && acks < events*3/4 {
				t.Fatalf("a v2.2 player sent %d Acks for %d Event datagrams: not at once (7.7)", acks, events)
			}
			if err := c.Err(); err != nil {
				t.Fatalf("the session ended: %v", err)
			}
			// The acknowledgement a tick later is well within R (5.3)
			// on an idle machine; a loaded one may delay it past R.
			t.Logf("%d events resent", r.resent())
			if st := c.Stats(); st.EventsDelivered == 0 {
				t.Fatal("no event delivered")
			}
		})
	}
}

// 7.7 and 7.19: a v2.3 client with no Input due acknowledges an Event
// datagram at once with an Ack: a spectator (no ship), and a player whose
// Inputs are further apart than a tick. Their send clock is stopped here
// (an Input or a keep-alive every hour), so only Acks sent at once make
// as many Acks as Event datagrams.
func TestAckAtOnceWithoutInputV23(t *testing.T) {
	srv := ackTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	player, err := Dial(ctx, Config{Addr: srv.Addr(), Name: "Hicks", Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer player.Close()
	player.SetInput(wire.ActionFire)

	for _, tc := range []struct {
		name     string
		player   string // a name each: the last one's session may not have ended yet
		spectate bool
	}{{"spectator", "Newt", true}, {"slow player", "Bishop", false}} {
		t.Run(tc.name, func(t *testing.T) {
			r := startTypeRelay(t, srv.Addr(), 3)
			c, err := Dial(ctx, Config{Addr: r.addr(), Name: tc.player, Logger: testLogger(), Spectate: tc.spectate,
				SendInterval: time.Hour, AckInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.minor < 3 {
				t.Fatalf("session of minor %d, want 3", c.minor)
			}
			var events, acks int
			waitFor(t, testutil.Wait, "Event datagrams", func() bool {
				r.mu.Lock()
				defer r.mu.Unlock()
				events, acks = 0, 0
				for _, d := range r.trace {
					switch {
					case d.fromServer && d.typ == wire.TypeEvent:
						events++
					case d.typ == wire.TypeAck:
						acks++
					}
				}
				return events >= 10
			})
			t.Logf("%s: %d Acks for %d Event datagrams", tc.name, acks, events)
			if acks < events*3/4 {
				t.Fatalf("%d Acks for %d Event datagrams: not at once (7.7)", acks, events)
			}
		})
	}
}
