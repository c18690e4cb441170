package server

import (
	"crypto/subtle"
	"net/netip"
	"time"

	"rtype/net/wire"
)

// codec1 is the codec of version 1 sessions (PROTOCOL.md Part I, the
// seed's section 4, byte for byte).
type codec1 struct{}

func (codec1) parseHeader(b []byte) (wire.Header, []byte, error) {
	return wire.ParseHeader(b, wire.ToServer)
}

func (codec1) handleLocked(u *udpIn, rd *reader, ss *session, h wire.Header, payload []byte, from netip.AddrPort, n int, now time.Time) {
	u.handle1Locked(rd, ss, h, payload, from, n, now)
}

// readMessage reads a v1 message: every type is one of Part I's.
func (codec1) readMessage(fr *wire.FrameReader, _ func(frame []byte) error) (wire.Message, error) {
	return fr.ReadMessage()
}

// actions are those of the newest Input (4.2): a v1 Input carries no step.
func (codec1) actions(ss *session) (uint8, uint32, bool) { return ss.held, 0, false }

func (codec1) motions() bool { return false }

func (codec1) snapshot(s *Server, g *game, ss *session, tick uint32, now time.Time, _ *outbox) ([][]byte, int) {
	return g.snaps.Datagrams(ss.link, tick, g.players, g.entities, now), 0
}

// handle1Locked handles a valid datagram of a v1 session (Part I); s.mu
// is held.
func (u *udpIn) handle1Locked(rd *reader, ss *session, h wire.Header, payload []byte, from netip.AddrPort, n int, now time.Time) {
	s := u.srv
	var err error
	switch {
	case h.Type == wire.TypeBind:
		rd.reply = u.bindLocked(ss, h, payload, from, n, now, rd.reply[:0])
		if len(rd.reply) > 0 {
			// The Accept, then at once the events due (after a
			// first binding, the joining events, 4.6): both
			// before any Snapshot the tick loop sends next (3.4).
			s.rxOut.add(rd.reply, from)
			s.flushEvents(s.rxOut, ss, now)
		}
	case !ss.bound || from != ss.addr || ss.link.Seen(h.Seq):
		s.stats.dropped[DropStale].Add(1)
	case h.Type == wire.TypeInput:
		if !ss.hasInput || wire.SeqNewer(h.Seq, ss.inputSeq) {
			ss.hasInput, ss.inputSeq = true, h.Seq
			ss.held = payload[0] // the world takes it at its next step
		}
		ss.link.Accept(h, n, now)
	case h.Type == wire.TypeEvent:
		// Version 1 clients send no events; a well-framed Event
		// datagram is acknowledged and its events ignored (4.4).
		rd.frames, err = ss.link.ReceiveEvents(payload, rd.frames[:0])
		if err == nil {
			ss.link.Accept(h, n, now)
		}
	case h.Type == wire.TypeAck:
		ss.link.Accept(h, n, now)
	}
}

// bindLocked handles a Bind (3.4): a matching token binds the session to
// the datagram's source, replacing an earlier address, and is answered
// with Accept (smaller than the Bind). The first binding brings the
// player into the game and sends it the joining events (4.6).
func (u *udpIn) bindLocked(ss *session, h wire.Header, token []byte, from netip.AddrPort, n int, now time.Time, reply []byte) []byte {
	if subtle.ConstantTimeCompare(token, ss.token[:]) != 1 || ss.game == nil || ss.game.over {
		return reply
	}
	if ss.link.Seen(h.Seq) {
		return reply // a duplicate, replayed or not, is ignored whole (5.1, 6.1)
	}
	ss.link.Accept(h, n, now)
	return u.bindToLocked(ss, from, now, reply)
}
