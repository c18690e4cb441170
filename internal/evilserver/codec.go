package evilserver

import (
	"context"
	"net"
	"time"

	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// codec is the protocol of the evil server's session, picked once at its
// login (login.go): its datagrams by the rules of Part I (v1) or Part II
// (v2) of PROTOCOL.md. The game and the attacks ask it, never the
// version.
type codec interface {
	// newLink returns the session's link, its history the server's.
	newLink(s *Server, now time.Time) *link.Link
	// loginAccepted returns the LoginAccepted frame of acc.
	loginAccepted(acc *wire.Message) []byte
	// parseHeader checks a datagram from the client (6.1, 7.2).
	parseHeader(b []byte) (wire.Header, []byte, error)
	// bindCookie reports whether the Bind payload p may bind; if not, it
	// has sent what the version answers (v2: a Challenge, 7.3). s.mu is
	// held.
	bindCookie(s *Server, p []byte, from *net.UDPAddr, now time.Time) bool
	// sendSnapshot sends the snapshot of tick showing entities, against
	// the newest acknowledged one; s.mu is held.
	sendSnapshot(s *Server, tick uint32, entities []wire.Entity, now time.Time)
	// eventSizes returns the datagram header's size and an event frame's
	// overhead (5.2, 7.7).
	eventSizes() (header, overhead int)
	// appendEvent appends the bytes of e (4.4, 7.6).
	appendEvent(dst []byte, e wire.Event) []byte
	// appendFrame appends the event ev framed with the next event id
	// (5.2, 7.7); s.mu is held.
	appendFrame(s *Server, dst, ev []byte) []byte
	// tickFlood is TickFlood in the version.
	tickFlood(s *Server, ctx context.Context, datagrams, perDatagram, rate int) (int, error)
}

type codec1 struct{}

func (codec1) newLink(s *Server, now time.Time) *link.Link {
	l := link.New(session, now)
	l.Baselines = &s.hist
	return l
}

func (codec1) loginAccepted(acc *wire.Message) []byte { return wire.AppendMessage(nil, acc) }

func (codec1) parseHeader(b []byte) (wire.Header, []byte, error) {
	return wire.ParseHeader(b, wire.ToServer)
}

func (codec1) bindCookie(*Server, []byte, *net.UDPAddr, time.Time) bool { return true }

func (codec1) sendSnapshot(s *Server, tick uint32, entities []wire.Entity, now time.Time) {
	s.sendSnapshot1Locked(tick, entities, now)
}

func (codec1) eventSizes() (int, int) { return wire.HeaderSize, wire.FrameOverhead }

func (codec1) appendEvent(dst []byte, e wire.Event) []byte { return wire.AppendEvent(dst, &e) }

func (codec1) appendFrame(s *Server, dst, ev []byte) []byte {
	s.evID++
	return wire.AppendEventFrame(dst, s.evID-1, ev)
}

func (codec1) tickFlood(s *Server, ctx context.Context, datagrams, perDatagram, rate int) (int, error) {
	return s.tickFlood1(ctx, datagrams, perDatagram, rate)
}

type codec2 struct{}

// newLink: the Snapshot datagrams end with an event tail, empty (7.8).
func (codec2) newLink(s *Server, now time.Time) *link.Link {
	l := link.NewV2(session, now)
	l.Baselines = &s.hist2
	l.Tail = true
	return l
}

// loginAccepted: revision wire.Revision, a Classic game, and the rules
// of 7.1's extension.
func (codec2) loginAccepted(acc *wire.Message) []byte {
	acc.Ext = wire.LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: wire.TickRate,
		SnapshotTicks: wire.SnapshotTicks, BlinkTicks: 8}
	acc.Revision, acc.Mode = wire.Revision, wire.ModeClassic
	return wire2.AppendMessage(nil, acc)
}

func (codec2) parseHeader(b []byte) (wire.Header, []byte, error) {
	return wire2.ParseHeader(b, wire.ToServer)
}

// bindCookie: a Bind without the server's cookie gets a Challenge, not
// recorded (7.3).
func (codec2) bindCookie(s *Server, p []byte, from *net.UDPAddr, now time.Time) bool {
	bd, err := wire2.ParseBind(p)
	if err != nil {
		return false
	}
	if !bd.HasCookie || bd.Cookie != cookie {
		s.buf, _ = s.link.AppendDatagram(s.buf[:0], wire.TypeChallenge, cookie[:], now)
		s.udp.WriteToUDP(s.buf, from)
		s.sent++
		return false
	}
	return true
}

func (codec2) sendSnapshot(s *Server, tick uint32, entities []wire.Entity, now time.Time) {
	s.sendSnapshot2Locked(tick, entities, now)
}

func (codec2) eventSizes() (int, int) { return wire2.HeaderSize, wire2.FrameOverhead }

// appendEvent: a Spawn without a motion gets a Linear one from its
// position (7.6).
func (codec2) appendEvent(dst []byte, e wire.Event) []byte {
	if e.Type == wire.EventSpawn && e.Motion == (wire.Motion{}) {
		e.Motion = wire.Linear(e.Tick, float64(e.X), float64(e.Y), float64(e.VX), float64(e.VY))
	}
	return wire2.AppendEvent(dst, &e)
}

func (codec2) appendFrame(s *Server, dst, ev []byte) []byte {
	s.evID2++
	return wire2.AppendEventFrame(dst, s.evID2-1, ev)
}

func (codec2) tickFlood(s *Server, ctx context.Context, datagrams, perDatagram, rate int) (int, error) {
	return s.tickFlood2(ctx, datagrams, perDatagram, rate)
}
