package link

import (
	"time"

	"rtype/net/wire2"
)

// The event tail of a v2 session's Snapshot datagrams (PROTOCOL.md
// 7.8): the due events ride in the first Snapshot datagram of a tick,
// those that do not fit in Event datagrams sent before it.

// AppendEventsBefore appends to dst one Event datagram of the oldest due
// events (5.3, 7.7) that would not fit in a tail of room bytes after its
// count byte (or beyond 255 events), and returns false when the due
// events fit there: callers repeat until then, before the Snapshot
// datagram whose tail they fill with AppendTail. It is AppendEvents,
// limited to the events the tail cannot take. It fails on a v1 Link.
func (l *Link) AppendEventsBefore(dst []byte, room int, now time.Time) ([]byte, bool) {
	v := l.v2
	if v == nil {
		return dst, false
	}
	r := l.ResendAfter()
	head, n := v.queued()
	total, count := 0, 0
	for i := 0; i < n; i++ {
		if data, o := v.event(head + uint32(i)); due(o, r, now) {
			total += wire2.FrameOverhead + len(data)
			count++
		}
	}
	k := 0 // the oldest due events that must go before
	for i := 0; i < n && (total > room || count > 255); i++ {
		if data, o := v.event(head + uint32(i)); due(o, r, now) {
			total -= wire2.FrameOverhead + len(data)
			count--
			k++
		}
	}
	if k == 0 {
		return dst, false
	}
	return l.appendEvents(dst, now, v, min(k, 255))
}

// AppendTail fills the empty event tail that ends dst, which holds the
// Snapshot datagram AppendSnapshot just appended with Tail set and
// nothing before it (7.8), with the due events, oldest first, as many as
// fit in wire.MaxDatagram bytes (at most 255): those AppendEventsBefore
// left. They are kept and resent as those of an Event datagram are (5.3,
// 7.7): the datagram's acknowledgement acknowledges them.
func (l *Link) AppendTail(dst []byte, now time.Time) []byte {
	v := l.v2
	if v == nil || !l.Tail || len(dst) == 0 {
		return dst
	}
	at := len(dst) - 1 // the count byte
	dst, count := l.appendDue(dst, 0, v, 0, 255, &l.ring[(l.next-1)%sentRing], l.ResendAfter(), now)
	dst[at] = byte(count)
	l.stats.SentBytes += uint64(len(dst) - at - 1)
	return dst
}
