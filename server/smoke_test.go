package server

import (
	"net"
	"testing"
	"time"

	"rtype/net/link"
	"rtype/net/wire"
)

// rawClient speaks the protocol by hand, with the codec and the link only.
type rawClient struct {
	t    testing.TB
	tcp  net.Conn
	udp  *net.UDPConn
	acc  wire.Message
	link *link.Link
	buf  []byte
}

func login(t testing.TB, addr, name string) (net.Conn, wire.Message) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: 1, Name: name}))
	c.SetReadDeadline(time.Now().Add(wait))
	fr := wire.FrameReader{R: c}
	m, err := fr.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

func TestSmokeLoginBindSnapshot(t *testing.T) {
	s := startServer(t, Config{})
	c, m := login(t, s.Addr(), "  Ripley  ")
	defer c.Close()
	if m.Type != wire.MsgLoginAccepted || m.Player != 0 {
		t.Fatalf("login: %+v", m)
	}
	ua, _ := net.ResolveUDPAddr("udp", s.Addr())
	u, err := net.DialUDP("udp", nil, ua)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	l := link.New(m.Session, time.Now())
	b, _ := l.AppendDatagram(nil, wire.TypeBind, m.Token[:], time.Now())
	u.Write(b)
	var rb link.Rebuilder
	var snap wire.Snapshot
	var frames []wire.EventFrame
	buf := make([]byte, 2000)
	got := map[wire.Type]int{}
	var events []wire.Event
	u.SetReadDeadline(time.Now().Add(wait))
	for got[wire.TypeSnapshot] < 20 {
		n, err := u.Read(buf)
		if err != nil {
			t.Fatalf("read: %v (got %v)", err, got)
		}
		h, p, err := wire.ParseHeader(buf[:n], wire.ToClient)
		if err != nil || l.Seen(h.Seq) {
			t.Fatalf("bad datagram %v", err)
		}
		got[h.Type]++
		switch h.Type {
		case wire.TypeSnapshot:
			if err := snap.Decode(p); err != nil {
				t.Fatal(err)
			}
			if _, err := rb.Rebuild(&snap); err != nil {
				t.Fatal(err)
			}
		case wire.TypeEvent:
			frames, err = l.ReceiveEvents(p, frames[:0])
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range frames {
				var ev wire.Event
				if err := wire.ParseEvent(f.Data, &ev); err != nil {
					t.Fatal(err)
				}
				events = append(events, ev)
			}
		}
		l.Accept(h, n, time.Now())
		out, _ := l.AppendDatagram(nil, wire.TypeInput, []byte{wire.ActionRight}, time.Now())
		u.Write(out)
	}
	if got[wire.TypeAccept] != 1 || len(events) < 2 {
		t.Fatalf("got %v events %+v", got, events)
	}
	if events[0].Type != wire.EventPlayerJoined || events[0].Name != "Ripley" || events[1].Type != wire.EventSpawn {
		t.Fatalf("joining events %+v", events)
	}
	if snap.HasBaseline == false {
		t.Fatalf("no delta snapshot after 20 snapshots acknowledged")
	}
	t.Logf("datagrams %v, events %d, last snapshot %+v", got, len(events), snap.Players[0])
}
