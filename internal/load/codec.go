package load

import (
	"time"

	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// lcodec is the protocol of a light load's sessions, picked once from
// its Config.Protocol: their datagrams by the rules of Part I (v1) or
// Part II (v2) of PROTOCOL.md. The rest of the load asks it, never the
// version.
type lcodec interface {
	// newLink returns a session's link (5, 7.2), of the features its
	// login gave.
	newLink(session uint32, f wire.Features, now time.Time) *link.Link
	// parseHeader checks a datagram from the server (6.1, 7.2); a v1
	// header has the v2 fields zero.
	parseHeader(b []byte) (wire.Header, []byte, error)
	// cookies reports whether a Bind echoes the Challenge's cookie (7.3).
	cookies() bool
	// input appends the Input payload of the session's next step, whose
	// action byte is act (4.2, 7.4).
	input(dst []byte, ss *lsess, act uint8) []byte
}

// lcodecOf returns the codec of protocol version 1 or 2.
func lcodecOf(version uint8) lcodec {
	if version == wire.Version {
		return lcodec1{}
	}
	return lcodec2{}
}

type lcodec1 struct{}

func (lcodec1) newLink(session uint32, _ wire.Features, now time.Time) *link.Link {
	return link.New(session, now)
}

func (lcodec1) parseHeader(b []byte) (wire.Header, []byte, error) {
	return wire.ParseHeader(b, wire.ToClient)
}

func (lcodec1) cookies() bool { return false }

// input is v1's: the action byte alone.
func (lcodec1) input(dst []byte, _ *lsess, act uint8) []byte { return append(dst, act) }

type lcodec2 struct{}

func (lcodec2) newLink(session uint32, f wire.Features, now time.Time) *link.Link {
	l := link.NewV2(session, now)
	l.Tail = f.EventsInSnapshot // 7.8
	return l
}

func (lcodec2) parseHeader(b []byte) (wire.Header, []byte, error) {
	return wire2.ParseHeader(b, wire.ToClient)
}

func (lcodec2) cookies() bool { return true }

// input is v2's: the step, with the actions of the steps before it that
// fit (7.4).
func (lcodec2) input(dst []byte, ss *lsess, act uint8) []byte {
	copy(ss.actions[1:], ss.actions[:])
	ss.actions[0] = act
	in := wire2.Input{Step: ss.step, Count: int(min(ss.step+1, wire2.MaxInputActions)), Actions: ss.actions}
	ss.step++
	return wire2.AppendInput(dst, &in)
}
