package server

import (
	"encoding/binary"
	"net"
	"net/netip"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// TestSessionLayout checks that what the read loop reads of a session for
// every datagram is in its first three cache lines (session's comment).
func TestSessionLayout(t *testing.T) {
	end := func(field string) uintptr { return testutil.FieldEnd(session{}, field) }
	const lines = 3 * 64
	for name, end := range map[string]uintptr{
		"version":   end("version"),
		"codec":     end("codec"),
		"features":  end("features"),
		"bound":     end("bound"),
		"gone":      end("gone"),
		"spectator": end("spectator"),
		"inputSeq":  end("inputSeq"),
		"held":      end("held"),
		"addr":      end("addr"),
		"link":      end("link"),
		"steps":     end("steps"),
	} {
		if end > lines {
			t.Errorf("session.%s ends at byte %d, past the first three cache lines", name, end)
		}
	}
}

// TestReceiveMixedBatch feeds the receive path batches longer than
// batchSize (gathered in parts) that mix the Inputs of a v1 and two v2
// sessions with datagrams to drop: too short, of no session, of another
// version than their session's, repeated. Each is handled as it would be
// alone: every Input accepted, in order, and every other datagram counted
// under its reason; handled at once or queued while a tick holds the
// mutex alike.
func TestReceiveMixedBatch(t *testing.T) {
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	cfg.SessionTimeout = time.Hour
	cfg.WaitForTick = -1 // the queue's path too
	s := startServer(t, cfg)
	c1 := join(t, s, "Dallas")
	v2 := []*tclient2{join2(t, s, "Ripley"), join2(t, s, "Hicks")}
	c1.keepAlive = false
	for _, c := range v2 {
		c.keepAlive = false
	}
	addr := func(c net.Conn) netip.AddrPort {
		a := c.LocalAddr().(*net.UDPAddr).AddrPort()
		return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
	}
	a1, a2 := addr(c1.udp), []netip.AddrPort{addr(v2[0].udp), addr(v2[1].udp)}
	s.mu.Lock()
	ss1 := s.sessions[c1.acc.Session]
	ss2 := []*session{s.sessions[v2[0].acc.Session], s.sessions[v2[1].acc.Session]}
	s.mu.Unlock()

	for _, queued := range []bool{false, true} {
		// A batch of 150: per 10 datagrams, an Input of each session,
		// the v1 session's Ack, a repeat of the last v2 Input, one of 10
		// bytes, one naming no session, one of v1 naming a v2 session,
		// and a v2 Ack.
		var ds []datagram
		var last1 uint16
		var lastStep [2]uint32
		want := [numDrops]uint64{}
		accepted := map[*session]uint64{}
		for len(ds) < 150 {
			in1 := c1.datagram(wire.TypeInput, []byte{wire.ActionUp})
			last1 = binary.LittleEndian.Uint16(in1[6:])
			ds = append(ds, datagram{b: in1, addr: a1}, datagram{b: c1.datagram(wire.TypeAck, nil), addr: a1})
			accepted[ss1] += 2
			var in2 []byte
			for k, c := range v2 {
				in := wire2.Input{Step: c.step, Count: 1}
				in.Actions[0] = wire.ActionFire
				lastStep[k] = c.step
				c.step++
				in2 = c.datagram(wire.TypeInput, wire2.AppendInput(nil, &in))
				ds = append(ds, datagram{b: in2, addr: a2[k]})
				accepted[ss2[k]]++
			}
			ds = append(ds, datagram{b: in2, addr: a2[1]}) // a repeat (5.1)
			want[DropStale]++
			short := append([]byte(nil), in2[:10]...)
			ds = append(ds, datagram{b: short, addr: a2[1]})
			want[DropHeader]++
			none := append([]byte(nil), in2...)
			binary.LittleEndian.PutUint32(none[14:], c1.acc.Session^ss2[0].id^ss2[1].id^0x5a5a5a5a)
			ds = append(ds, datagram{b: none, addr: a2[1]})
			want[DropSession]++
			other := c1.datagram(wire.TypeAck, nil)
			binary.LittleEndian.PutUint32(other[14:], ss2[0].id) // a v1 header (7.1)
			ds = append(ds, datagram{b: other, addr: a2[0]})
			want[DropSession]++
			ds = append(ds, datagram{b: v2[0].datagram(wire.TypeAck, nil), addr: a2[0]})
			accepted[ss2[0]]++
		}
		before := s.Metrics().Dropped
		s.mu.Lock()
		recv := map[*session]uint64{}
		for ss := range accepted {
			recv[ss] = ss.link.Stats().RecvDatagrams
		}
		s.mu.Unlock()
		var rd reader
		if queued {
			s.mu.Lock() // a tick
			s.in.receiveOrQueue(&rd, ds, time.Now())
			s.mu.Unlock()
			s.in.receiveOrQueue(&rd, nil, time.Now())
		} else {
			s.in.receiveOrQueue(&rd, ds, time.Now())
		}
		after := s.Metrics().Dropped
		s.mu.Lock()
		for ss, n := range accepted {
			if got := ss.link.Stats().RecvDatagrams - recv[ss]; got < n {
				t.Errorf("queued %v: session %d accepted %d datagrams, want %d", queued, ss.id, got, n)
			}
		}
		if ss1.inputSeq != last1 {
			t.Errorf("queued %v: v1 session's newest Input %d, want %d", queued, ss1.inputSeq, last1)
		}
		for k, ss := range ss2 {
			if q := &ss.steps; q.n == 0 || q.steps[q.n-1] != lastStep[k] {
				t.Errorf("queued %v: v2 session %d's steps %v, want up to %d", queued, k, q.steps[:q.n], lastStep[k])
			}
		}
		s.mu.Unlock()
		for _, why := range []int{DropStale, DropHeader, DropSession} {
			if got := after[why] - before[why]; got != want[why] {
				t.Errorf("queued %v: %d datagrams dropped for reason %d, want %d", queued, got, why, want[why])
			}
		}
		if rd.ss != [batchSize]*session{} {
			t.Errorf("queued %v: the reader keeps sessions after the batch", queued)
		}
	}
}

// TestReceiveGoneInBatch checks that a session that ended between the
// gathering of a batch and the handling of its datagram gets none of it:
// the datagram counts as of no session, as it would have had it come
// after the end.
func TestReceiveGoneInBatch(t *testing.T) {
	cfg := testConfig()
	cfg.Rules = noWaveRules()
	s := startServer(t, cfg)
	c := join2(t, s, "Ripley")
	c.keepAlive = false
	a := c.udp.LocalAddr().(*net.UDPAddr).AddrPort()
	a = netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
	ds := []datagram{{b: c.datagram(wire.TypeAck, nil), addr: a}}
	var rd reader
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[c.acc.Session]
	s.in.gatherLocked(&rd, ds)
	if rd.ss[0] != ss || ss == nil {
		t.Fatalf("gathered session %p, want %p", rd.ss[0], ss)
	}
	before := s.stats.dropped[DropSession].Load()
	recv := ss.link.Stats().RecvDatagrams
	s.dropLocked(ss)
	s.in.receiveLocked(&rd, ds[0].b, ds[0].addr, time.Now(), rd.ss[0])
	if got := s.stats.dropped[DropSession].Load() - before; got != 1 {
		t.Errorf("%d datagrams dropped as of no session, want 1", got)
	}
	if got := ss.link.Stats().RecvDatagrams; got != recv {
		t.Errorf("the ended session accepted %d datagrams", got-recv)
	}
}
