package client

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
	"rtype/sim"
)

// typeRelay stands between one client and a real server: it passes the
// TCP stream through and relays the datagrams, recording the type of
// every datagram of the client and every Event datagram of the server, in
// the order it relayed them, and the Snapshot datagrams whose tail
// carried events (7.8).
type typeRelay struct {
	t      *testing.T
	tcp    *net.TCPListener
	udp    *net.UDPConn
	server string

	mu     sync.Mutex
	client *net.UDPAddr
	up     *net.UDPConn
	trace  []relayed
	ids    map[uint32]int // the event ids of the server's Event datagrams: how many times each came
	frames []wire.EventFrame
	snap   wire2.Snapshot
}

// relayed is one datagram relayed: its type and whether it came from the
// server.
type relayed struct {
	typ        wire.Type
	fromServer bool
	events     int // the events of an Event datagram or a Snapshot's tail
}

func startTypeRelay(t *testing.T, serverAddr string) *typeRelay {
	t.Helper()
	tcp, udp, err := testutil.ListenTCPUDP()
	if err != nil {
		t.Fatal(err)
	}
	up, err := net.Dial("udp", serverAddr) // the server's UDP port is its TCP port (3.4)
	if err != nil {
		t.Fatal(err)
	}
	r := &typeRelay{t: t, tcp: tcp, udp: udp, server: serverAddr, up: up.(*net.UDPConn), ids: map[uint32]int{}}
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
			if _, p, err := wire2.ParseHeader(buf[:n], wire.ToClient); err == nil {
				r.frames, _ = wire2.ParseEventFrames(p, r.frames[:0])
				r.count(wire.TypeEvent)
			}
		}
		if n >= 6 && wire.Type(buf[5]) == wire.TypeSnapshot {
			if _, p, err := wire2.ParseHeader(buf[:n], wire.ToClient); err == nil {
				if tail, err := r.snap.DecodeTail(p); err == nil && tail[0] > 0 {
					r.frames = wire2.TailFrames(tail, r.frames[:0])
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

// 7.7: a client with no Input due acknowledges an Event datagram,
// or a Snapshot whose tail carried events, at once with an Ack: a
// spectator (no ship), and a player whose Inputs are further apart than a
// tick. Their send clock is stopped here (an Input or a keep-alive every
// hour), so only Acks sent at once make as many Acks as datagrams with
// events.
func TestAckAtOnceWithoutInput(t *testing.T) {
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
			r := startTypeRelay(t, srv.Addr())
			c, err := Dial(ctx, Config{Addr: r.addr(), Name: tc.player, Logger: testLogger(), Spectate: tc.spectate,
				SendInterval: time.Hour, AckInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var events, acks int
			waitFor(t, testutil.Wait, "Event datagrams", func() bool {
				r.mu.Lock()
				defer r.mu.Unlock()
				events, acks = 0, 0
				for _, d := range r.trace {
					switch {
					case d.fromServer: // an Event datagram, or a Snapshot with events
						events++
					case d.typ == wire.TypeAck:
						acks++
					}
				}
				return events >= 10
			})
			t.Logf("%s: %d Acks for %d datagrams with events", tc.name, acks, events)
			if acks < events*3/4 {
				t.Fatalf("%d Acks for %d datagrams with events: not at once (7.7)", acks, events)
			}
		})
	}
}
