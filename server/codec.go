package server

import (
	"net/netip"
	"time"

	"rtype/net/wire"
)

// codec is what a session's protocol version changes in the server's
// work: how its datagrams' headers are read and its datagrams handled,
// how its TCP messages are read, how its inputs reach the world and how
// its snapshots are sent (PROTOCOL.md Part I for version 1, Part II for
// version 2). The login picks it once (codecOf) with the session's
// features (wire.Features); the rest of the server asks them, and never
// compares versions.
type codec interface {
	// parseHeader checks a datagram's header by the version's rules
	// (6.1, 7.10); a v1 header has the v2 fields zero.
	parseHeader(b []byte) (wire.Header, []byte, error)
	// handleLocked handles a valid datagram of ss from from, of n
	// bytes; s.mu is held.
	handleLocked(u *udpIn, rd *reader, ss *session, h wire.Header, payload []byte, from netip.AddrPort, n int, now time.Time)
	// readMessage reads the next TCP message of a session (3.1, 7.1):
	// side takes the frames that the session's chat, rooms and
	// leaderboard handle, and returns the error of a malformed one.
	readMessage(fr *wire.FrameReader, side func(frame []byte) error) (wire.Message, error)
	// actions returns the actions ss's player holds for the world's next
	// step, and the input step they are of (has false: none, or no
	// steps in this version).
	actions(ss *session) (a uint8, step uint32, has bool)
	// motions reports whether the version's snapshots carry motions
	// (7.8) rather than positions (4.3).
	motions() bool
	// snapshot returns the datagrams that carry g's snapshot at tick to
	// ss, the first events of them Event datagrams, and sends the events
	// due that none of them carries.
	snapshot(s *Server, g *game, ss *session, tick uint32, now time.Time, out *outbox) (ds [][]byte, events int)
}

// The codecs of the two versions.
var (
	v1Codec codec = codec1{}
	v2Codec codec = codec2{}
)

// codecOf returns the codec of protocol version (the byte of a
// datagram's header, a LoginRequest's version), nil for none.
func codecOf(version uint8) codec {
	switch version {
	case wire.Version:
		return v1Codec
	case wire.Version2:
		return v2Codec
	}
	return nil
}
