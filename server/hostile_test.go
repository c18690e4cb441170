package server

// Hostile peers (PROTOCOL.md 6.1, 6.5): floods of malformed datagrams and
// TCP garbage neither get an answer nor disturb the players.

import (
	"encoding/binary"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
)

// junkPool is random bytes that the flood slices its junk from.
var junkPool = func() []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 1<<16)
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], rng.Uint64())
	}
	return b
}()

// hostileDatagram returns the i-th datagram of the flood: every kind of
// malformed or unauthorized datagram, none of which may get an answer.
func hostileDatagram(rng *rand.Rand, i int, sessions []uint32, tokens []wire.Token) []byte {
	junk := func(n int) []byte {
		off := rng.IntN(len(junkPool) - n + 1)
		return append([]byte(nil), junkPool[off:off+n]...)
	}
	k := rng.IntN(len(sessions))
	sess, tok := sessions[k], tokens[k]
	seq := uint16(rng.Uint32())
	switch i % 12 {
	case 0: // random bytes, any length up to 1500
		return junk(rng.IntN(1501))
	case 1: // a valid header of any type and session, junk payload
		h := wire.Header{Type: wire.Type(rng.IntN(256)), Seq: seq, Ack: uint16(rng.Uint32()), AckBits: rng.Uint32(), Session: rng.Uint32()}
		return append(wire.AppendHeader(nil, h), junk(rng.IntN(100))...)
	case 2: // the right session from the wrong address: Input
		return rawDatagram(wire.TypeInput, seq, sess, []byte{byte(rng.IntN(32))})
	case 3: // the right session: Ack and Event (well framed or not)
		if rng.IntN(2) == 0 {
			return rawDatagram(wire.TypeAck, seq, sess, nil)
		}
		ev := wire.AppendEvent(nil, &wire.Event{Type: wire.EventPlayerLeft, Player: 0})
		p := wire.AppendEventFrame([]byte{1}, uint16(rng.Uint32()), ev)
		if rng.IntN(2) == 0 {
			p = junk(1 + rng.IntN(300))
		}
		return rawDatagram(wire.TypeEvent, seq, sess, p)
	case 4: // Bind with a wrong token
		bad := tok
		bad[rng.IntN(8)] ^= byte(1 + rng.IntN(255))
		return rawDatagram(wire.TypeBind, seq, sess, bad[:])
	case 5: // Bind with a random token and session
		return rawDatagram(wire.TypeBind, seq, rng.Uint32()|1, junk(8))
	case 6: // 1500 bytes, with a valid header of the right session
		b := rawDatagram(wire.Type(1+rng.IntN(6)), seq, sess, nil)
		return append(b, junk(1500-len(b))...)
	case 7: // the right token, but wrong sizes
		return rawDatagram(wire.TypeBind, seq, sess, append(tok[:], junk(1+rng.IntN(10))...))
	case 8: // server-to-client types
		return rawDatagram(wire.Type(2+2*rng.IntN(2)), seq, sess, junk(rng.IntN(40)))
	case 9: // header cut short, or a valid one with session 0 or version 2
		b := rawDatagram(wire.TypeBind, seq, sess, tok[:])
		switch rng.IntN(3) {
		case 0:
			return b[:rng.IntN(18)]
		case 1:
			binary.LittleEndian.PutUint32(b[14:], 0)
		default:
			b[4] = 2
		}
		return b
	case 10: // reserved types and bits
		if rng.IntN(2) == 0 {
			return rawDatagram(wire.Type(7+rng.IntN(249)), seq, sess, junk(rng.IntN(20)))
		}
		return rawDatagram(wire.TypeInput, seq, sess, []byte{0xE0 | byte(rng.IntN(32))})
	default: // exactly 1201 bytes
		b := rawDatagram(wire.TypeAck, seq, sess, nil)
		return append(b, junk(1201-len(b))...)
	}
}

// While two players play, 20,000 hostile datagrams from another socket:
// the attacker hears nothing, the players keep getting the snapshot of
// every snapshot tick (all but a few) and their control, and the server
// stays up. Counted in ticks, not in snapshots per wall-clock second.
func TestHostileFlood(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	a := join(t, s, "Alpha")
	b := join(t, s, "Bravo")
	shipA := a.shipID()
	xA := a.shipX(shipA)
	shipB := b.shipID()

	atk, err := net.DialUDP("udp", nil, a.srv)
	if err != nil {
		t.Fatal(err)
	}
	defer atk.Close()
	var heard atomic.Int64
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		buf := make([]byte, 2048)
		for {
			n, err := atk.Read(buf)
			if err != nil {
				return
			}
			heard.Add(int64(n))
		}
	}()

	// The players play while the flood runs.
	na, nb := len(a.snaps), len(b.snaps)
	stop := make(chan struct{})
	var players sync.WaitGroup
	var got [2]atomic.Int64 // snapshots since the flood began
	a.actions = wire.ActionRight
	for i, c := range []*tclient{a, b} {
		players.Add(1)
		n0 := len(c.snaps)
		go func() {
			defer players.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c.pump(20 * time.Millisecond)
				got[i].Store(int64(len(c.snaps) - n0))
			}
		}()
	}
	start := time.Now()
	rng := rand.New(rand.NewPCG(1, 2))
	sessions := []uint32{a.acc.Session, b.acc.Session}
	tokens := []wire.Token{a.acc.Token, b.acc.Token}
	const total, burst = 20000, 200
	for i := 0; i < total; i++ {
		atk.Write(hostileDatagram(rng, i, sessions, tokens))
		if i%burst == burst-1 {
			time.Sleep(15 * time.Millisecond) // about 2 s in all
		}
	}
	floodTime := time.Since(start)
	time.Sleep(500 * time.Millisecond) // anything the server would answer
	testutil.WaitFor(t, wait, "20 snapshots for each player since the flood began", func() bool {
		return got[0].Load() >= 20 && got[1].Load() >= 20
	})
	close(stop)
	players.Wait()
	elapsed := time.Since(start)
	atk.SetReadDeadline(time.Now())
	readers.Wait()

	if n := heard.Load(); n != 0 {
		t.Fatalf("the attacker received %d bytes", n)
	}
	for _, pc := range []struct {
		c *tclient
		n int
	}{{a, na}, {b, nb}} {
		got := pc.c.snaps[pc.n:]
		ticks := int(got[len(got)-1].tick-got[0].tick)/s.cfg.SnapshotInterval + 1 // snapshot ticks spanned
		t.Logf("%s: %d snapshots of %d snapshot ticks in %v (flood %v): %.1f a second", pc.c.name, len(got), ticks,
			elapsed, floodTime, float64(len(got))/elapsed.Seconds())
		if len(got) < ticks*9/10 {
			t.Fatalf("%s: %d snapshots of %d snapshot ticks during the flood", pc.c.name, len(got), ticks)
		}
		if _, ok := pc.c.lastSnap().player(pc.c.acc.Player); !ok {
			t.Fatalf("%s: no longer in the game", pc.c.name)
		}
	}
	// a kept control of its ship, b's did not move.
	if x := a.shipX(shipA); x <= xA+100 {
		t.Fatalf("ship A from %v to %v while holding Right", xA, x)
	}
	if e, ok := b.lastSnap().entity(shipB); !ok || e.X() != 100 || e.Y() != 300 {
		t.Fatalf("ship B moved to %+v: the attacker's Inputs were applied", e)
	}
	for _, ev := range append(a.events, b.events...) {
		if ev.Type == wire.EventPlayerLeft {
			t.Fatalf("a player left: %s", eventString(&ev))
		}
	}
	// The server still takes logins.
	join(t, s, "Charlie")
}

// TCP garbage from many connections at once: every connection ends with at
// most a Logout(Kicked) or a LoginRejected, and the server stays up.
func TestHostileTCP(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.LoginTimeout = time.Second
	cfg.BindTimeout = time.Second
	s := startServer(t, cfg)
	obs := join(t, s, "Observer")
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			c, err := net.Dial("tcp", s.Addr())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			junk := func(n int) []byte {
				b := make([]byte, n)
				for j := range b {
					b[j] = byte(rng.Uint32())
				}
				return b
			}
			var b []byte
			switch i % 4 {
			case 0: // random bytes
				b = junk(1 + rng.IntN(3000))
			case 1: // a plausible length, then junk
				n := 1 + rng.IntN(1024)
				b = append(binary.LittleEndian.AppendUint16(nil, uint16(n)), junk(n)...)
			case 2: // a LoginRequest with a junk name, then more junk
				b = append(rawLoginRequest(1, junk(rng.IntN(1000))), junk(rng.IntN(100))...)
			default: // a frame cut short
				n := 10 + rng.IntN(1000)
				b = append(binary.LittleEndian.AppendUint16(nil, uint16(n)), junk(rng.IntN(n))...)
			}
			c.SetDeadline(time.Now().Add(wait))
			c.Write(b)
			for {
				m, err := (&wire.FrameReader{R: c}).ReadMessage()
				if err != nil {
					return // closed (or reset): fine
				}
				switch {
				case m.Type == wire.MsgLogout && m.Reason == wire.LogoutKicked:
				case m.Type == wire.MsgLoginRejected:
				case m.Type == wire.MsgLoginAccepted: // a junk name may be valid
				case m.Type == wire.MsgLogout && m.Reason == wire.LogoutTimedOut: // never bound
				default:
					t.Errorf("connection %d: %+v", i, m)
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		select {
		case <-done:
			obs.pump(100 * time.Millisecond)
			if _, ok := obs.lastSnap().player(obs.acc.Player); !ok {
				t.Fatal("the observer left")
			}
			join(t, s, "Survivor")
			return
		default:
			obs.pump(20 * time.Millisecond)
		}
	}
}
