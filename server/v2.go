package server

import (
	"crypto/subtle"
	"errors"
	"net/netip"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// codec2 is the codec of version 2 sessions (PROTOCOL.md Part II).
type codec2 struct{}

func (codec2) parseHeader(b []byte) (wire.Header, []byte, error) {
	return wire2.ParseHeader(b, wire.ToServer)
}

func (codec2) handleLocked(u *udpIn, rd *reader, ss *session, h wire.Header, payload []byte, from netip.AddrPort, n int, now time.Time) {
	u.handle2Locked(rd, ss, h, payload, from, n, now)
}

// readMessage reads a v2 message: a message of a type it does not know
// is skipped (7.1), and a Chat (7.13), a room message (7.14) or a
// leaderboard message (7.16) goes to side.
func (codec2) readMessage(fr *wire.FrameReader, side func(frame []byte) error) (wire.Message, error) {
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return wire.Message{}, err
		}
		if t := wire.MsgType(f[0]); t == wire.MsgChat || wire.IsRoomMessage(t) || wire.IsScoresMessage(t) {
			if err := side(f); err != nil {
				return wire.Message{Type: wire.MsgChat}, err
			}
			continue
		}
		m, err := wire2.ParseMessage(f)
		if errors.Is(err, wire.ErrUnknownMessage) {
			continue
		}
		return m, err
	}
}

// actions are those of the next input step (7.4): one step a tick.
func (codec2) actions(ss *session) (uint8, uint32, bool) {
	a := ss.steps.next()
	return a, ss.steps.last, ss.steps.has
}

func (codec2) motions() bool { return true }

// snapshot: the session's due events go in the Snapshot datagram, those
// that do not fit in Event datagrams before it, or, when 7.9 skips the
// snapshot, in Event datagrams alone (7.8, 7.9).
func (codec2) snapshot(s *Server, g *game, ss *session, tick uint32, now time.Time, out *outbox) ([][]byte, int) {
	ds, events := g.snaps2.DatagramsEvents(ss.link, tick, g.playersFor(ss), g.entities2, now)
	if len(ds) == 0 {
		s.flushEvents(out, ss, now)
	}
	return ds, events
}

// handle2Locked handles a valid datagram of a v2 session (Part II); s.mu
// is held. Apart from a Bind, only datagrams from the bound address count
// (7.10).
func (u *udpIn) handle2Locked(rd *reader, ss *session, h wire.Header, payload []byte, from netip.AddrPort, n int, now time.Time) {
	s := u.srv
	var err error
	switch {
	case h.Type == wire.TypeBind:
		u.bind2Locked(rd, ss, h, payload, from, n, now)
	case !ss.bound || from != ss.addr || ss.link.Seen(h.Seq), h.Type == wire.TypeInput && ss.spectator:
		// A spectator's Input is dropped whole, unacknowledged (7.17).
		s.stats.dropped[DropStale].Add(1)
	case h.Type == wire.TypeInput:
		if wire2.ParseInput(payload, &rd.input) != nil {
			return // ParseHeader2 checked it already (7.4)
		}
		ss.steps.add(&rd.input)
		ss.link.Accept(h, n, now)
	case h.Type == wire.TypeEvent:
		// The client's events: v2 defines none it sends; a
		// well-framed Event datagram is acknowledged and its events
		// ignored (4.4, 7.7).
		rd.frames, err = ss.link.ReceiveEvents(payload, rd.frames[:0])
		if err == nil {
			ss.link.Accept(h, n, now)
		}
	case h.Type == wire.TypeAck:
		ss.link.Accept(h, n, now)
	}
}

// bind2Locked handles a v2 Bind (7.3). A Bind whose token does not match
// is dropped. One with a matching token and the cookie of its source
// address binds the session there, as a v1 Bind does, and is answered
// with Accept and the events due. Any other matching Bind is answered,
// to its source, with a Challenge of the Bind's size at most, and
// changes nothing: the server keeps no state for an address before it has
// echoed its cookie, and game traffic goes on to the bound address.
func (u *udpIn) bind2Locked(rd *reader, ss *session, h wire.Header, payload []byte, from netip.AddrPort, n int, now time.Time) {
	s := u.srv
	b, err := wire2.ParseBind(payload)
	if err != nil || subtle.ConstantTimeCompare(b.Token[:], ss.token[:]) != 1 || ss.game == nil || ss.game.over {
		return
	}
	if b.HasCookie && u.cookies.Check(now.Unix(), from, ss.id, b.Cookie) {
		if ss.link.Seen(h.Seq) {
			return // a duplicate, replayed or not, is ignored whole (5.1)
		}
		ss.link.Accept(h, n, now)
		rd.reply = u.bindToLocked(ss, from, now, rd.reply[:0])
		// The Accept, then the events due (the joining events after a
		// first binding): before any Snapshot of the tick loop (3.4).
		s.rxOut.add(rd.reply, from)
		s.flushEvents(s.rxOut, ss, now)
		return
	}
	// Not recorded (7.3): the Bind is answered, nothing more.
	c := u.cookies.Cookie(wire2.CookieEpoch(now.Unix()), from, ss.id)
	rd.reply, _ = ss.link.AppendDatagram(rd.reply[:0], wire.TypeChallenge, c[:], now)
	if len(rd.reply) <= n { // 28 bytes, never more than the Bind (7.3)
		s.rxOut.add(rd.reply, from)
	}
}
