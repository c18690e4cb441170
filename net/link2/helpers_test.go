package link2

import (
	"rtype/net/link"
	"rtype/net/link/linktest"
	"rtype/net/wire"
	"testing"
	"time"
)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// baselines returns l's History, or nil.
func baselines(l *link.Link) *History {
	h, _ := l.Baselines.(*History)
	return h
}

// The tests drive time by hand: t0 is an arbitrary origin and at(ms) a
// moment after it.
var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

const testSession = 0xDEADBEEF

// sentRing is the size of link's ring of sent datagrams.
const sentRing = 1024

// parseAny parses a datagram of l's version as a v2 header.
func parseAny(tb testing.TB, l *link.Link, b []byte, d wire.Direction) (wire.Header, []byte) {
	return linktest.ParseAny(tb, l.Version() == wire.Version2, b, d)
}
