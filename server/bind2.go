package server

import (
	"crypto/subtle"
	"net/netip"
	"time"

	"rtype/net/wire"
)

// handle2Locked handles a valid datagram of a v2 session (Part II); s.mu
// is held. Apart from a Bind, only datagrams from the bound address count
// (7.10).
func (u *udpIn) handle2Locked(rd *reader, ss *session, h wire.Header2, payload []byte, from netip.AddrPort, n int, now time.Time) {
	s := u.srv
	var err error
	switch {
	case h.Type == wire.TypeBind:
		u.bind2Locked(rd, ss, h, payload, from, n, now)
	case !ss.bound || from != ss.addr || ss.link.Seen(h.Seq), h.Type == wire.TypeInput && ss.spectator:
		// A spectator's Input is dropped whole, unacknowledged (7.17).
		s.stats.dropped[DropStale].Add(1)
	case h.Type == wire.TypeInput:
		if wire.ParseInput2(payload, &rd.input) != nil {
			return // ParseHeader2 checked it already (7.4)
		}
		ss.steps.add(&rd.input)
		ss.link.Accept2(h, n, now)
	case h.Type == wire.TypeEvent:
		// The client's events: v2 defines none it sends; a
		// well-framed Event datagram is acknowledged and its events
		// ignored (4.4, 7.7).
		rd.frames2, err = ss.link.ReceiveEvents2(payload, rd.frames2[:0])
		if err == nil {
			ss.link.Accept2(h, n, now)
		}
	case h.Type == wire.TypeAck:
		ss.link.Accept2(h, n, now)
	}
}

// bind2Locked handles a v2 Bind (7.3). A Bind whose token does not match
// is dropped. One with a matching token and the cookie of its source
// address binds the session there, as a v1 Bind does, and is answered
// with Accept and the events due. Any other matching Bind is answered,
// to its source, with a Challenge of the Bind's size at most, and
// changes nothing: the server keeps no state for an address before it has
// echoed its cookie, and game traffic goes on to the bound address.
func (u *udpIn) bind2Locked(rd *reader, ss *session, h wire.Header2, payload []byte, from netip.AddrPort, n int, now time.Time) {
	s := u.srv
	b, err := wire.ParseBind2(payload)
	if err != nil || subtle.ConstantTimeCompare(b.Token[:], ss.token[:]) != 1 || ss.game == nil || ss.game.over {
		return
	}
	if b.HasCookie && u.cookies.Check(now.Unix(), from, ss.id, b.Cookie) {
		if ss.link.Seen(h.Seq) {
			return // a duplicate, replayed or not, is ignored whole (5.1)
		}
		ss.link.Accept2(h, n, now)
		rd.reply = u.bindToLocked(ss, from, now, rd.reply[:0])
		// The Accept, then the events due (the joining events after a
		// first binding): before any Snapshot of the tick loop (3.4).
		s.rxOut.add(rd.reply, from)
		s.flushEvents(s.rxOut, ss, now)
		return
	}
	// Not recorded (7.3): the Bind is answered, nothing more.
	c := u.cookies.Cookie(wire.CookieEpoch(now.Unix()), from, ss.id)
	rd.reply, _ = ss.link.AppendDatagram(rd.reply[:0], wire.TypeChallenge, c[:], now)
	if len(rd.reply) <= n { // 28 bytes, never more than the Bind (7.3)
		s.rxOut.add(rd.reply, from)
	}
}
