package link

import (
	"errors"
	"math/bits"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// Limits and timings of section 5.
const (
	// MaxUnacked is the number of unacknowledged events a sender holds;
	// one more ends the session (5.3).
	MaxUnacked = 1024
	// EventWindow is the number of event ids a receiver remembers (5.3).
	EventWindow = 1024
	// Timeout is the silence after which a session is over (5.5).
	Timeout = 5 * time.Second
	// sentRing is how many sent datagrams are remembered for their
	// acknowledgement: at 60 + 20 datagrams a second, over 12 seconds.
	sentRing = 1024
)

// ErrTooManyEvents reports a peer that left more than MaxUnacked events
// unacknowledged: the session ends (TimedOut, 5.3).
var ErrTooManyEvents = errors.New("link: more than 1024 events unacknowledged (5.3)")

// sent is what a Link remembers of a datagram it sent.
type sent struct {
	seq      uint16
	valid    bool
	acked    bool
	at       time.Time
	snapshot bool     // it carried a part of the snapshot of tick snapTick
	snapHint int8     // what Baselines.Carried returned for it, given back to Acked
	snapTick uint32   //
	events   []uint32 // ids of the events it carried (v1's are 16-bit)
}

// Stats are a Link's counters since it was made.
type Stats struct {
	SentDatagrams, RecvDatagrams uint64
	SentBytes, RecvBytes         uint64
	Acked                        uint64 // datagrams of ours the peer acknowledged
	EventsSent, EventsResent     uint64
	EventsDelivered              uint64 // distinct events received
}

// Baselines learns which snapshots the peer acknowledged, to pick the
// baselines of later ones (4.3, 7.8): the Link tells it of each Snapshot
// datagram it sends and of each the peer acknowledges.
type Baselines interface {
	// Carried counts one more datagram of the snapshot of tick. What it
	// returns, a hint of where the snapshot is kept, is given back to
	// Acked.
	Carried(tick uint32) int
	// Acked counts one more acknowledged datagram of the snapshot of
	// tick; hint is what Carried returned for that datagram.
	Acked(tick uint32, hint int)
}

// Link is one end of a session's datagram stream: it numbers what it
// sends, acknowledges what it accepted, measures the round trip, and
// carries reliable events (section 5). The server has one per client and
// sets History; the client has one.
type Link struct {
	// Session goes into every header.
	Session uint32

	// What the read loop's every datagram writes and the sender's every
	// datagram reads comes first, in two cache lines (the Link is
	// large: its ring alone is 64 kB), so that a session's datagrams in
	// and out load few lines of it.
	recv recvWindow
	v2   *linkV2 // nil in a v1 session
	next uint16  // sequence of the next datagram sent

	// The peer's newest ack processed and the ack_bits processed with
	// it: a header that repeats them (most do) walks only the new bits.
	peerAck     uint16
	peerAckBits uint32
	peerAckHas  bool

	hasRTT     bool
	lastRecv   time.Time
	ackArrived time.Time // v2: when the datagram named by our ack arrived (7.2)
	srtt       time.Duration
	stats      Stats

	// Baselines, when set, learns which snapshots the peer acknowledged:
	// a History in a v1 session, a wire2 sender's history in a v2 one
	// (package link2's SnapshotSender sets it on first use).
	Baselines Baselines

	out   *[MaxUnacked]outEvent // v1's events; nil in a v2 session
	head  uint16                // oldest unacknowledged event id
	tail  uint16                // next event id
	inNew uint16                // newest event id received
	inHas bool
	// Tail is set in a v2 session (PROTOCOL.md 7.8): every Snapshot
	// datagram ends with an event tail, a count byte and that many event
	// frames. AppendSnapshot then appends an empty one (count 0), which
	// AppendTail fills.
	Tail  bool
	inSet [EventWindow / 64]uint64 // bit (id % 1024): received within the window

	// The ring starts at a cache line (a Link, larger than 32 kB, is
	// allocated page-aligned), so that an entry is one line:
	// TestLinkLayout.
	_    [32]byte
	ring [sentRing]sent
}

// New returns a Link for a session, with its clock started at now.
func New(session uint32, now time.Time) *Link {
	return &Link{Session: session, lastRecv: now, out: new([MaxUnacked]outEvent)}
}

// NewV2 returns a Link for a version 2 session (PROTOCOL.md Part II),
// with its clock started at now. It is used as a v1 Link is, with these
// differences: its datagrams have the 20-byte v2 header, whose ack_delay
// it fills in, and round trips leave out the delay the peer reports
// (7.2); its events are framed with 32-bit ids, in a receive window of
// 65536 ids and with at most 65536 unacknowledged (7.7). Give it the
// peer's headers, their AckDelay included, with Accept.
func NewV2(session uint32, now time.Time) *Link {
	return &Link{Session: session, lastRecv: now, v2: &linkV2{}}
}

// Version returns the protocol version of the Link's session: 1 or 2.
func (l *Link) Version() uint8 {
	if l.v2 != nil {
		return wire.Version2
	}
	return wire.Version
}

// HeaderSize returns the size of the header of the Link's datagrams:
// wire.HeaderSize, or wire2.HeaderSize in a v2 session.
func (l *Link) HeaderSize() int {
	if l.v2 != nil {
		return wire2.HeaderSize
	}
	return wire.HeaderSize
}

// Seen reports whether a datagram of sequence seq is a duplicate to be
// ignored whole: already accepted, or too old to tell (5.1).
func (l *Link) Seen(seq uint16) bool { return l.recv.seen(seq) }

// Next returns the sequence the Link's next datagram will carry: the one
// after the last it sent.
func (l *Link) Next() uint16 { return l.next }

// Warm loads the parts of l that Seen and Accept of a
// header acknowledging ack read, and returns a value made of them, to be
// discarded. A server that handles a batch of datagrams calls it for each
// of their links first, so that the cache misses of the batch overlap
// instead of coming one datagram at a time.
func (l *Link) Warm(ack uint16) uint64 {
	v := uint64(l.recv.newest) + uint64(l.lastRecv.Nanosecond()) + l.stats.RecvBytes
	if ack != l.peerAck {
		v += uint64(l.ring[ack%sentRing].seq) // a new ack: its entry is walked
	}
	return v
}

// Accept records a datagram that was valid and processed (5.1): its
// sequence goes into the acknowledgements, its acknowledgements mark ours,
// and the session's silence timer restarts. Call it only for datagrams
// that were accepted, a Snapshot only once rebuilt.
//
// In a v2 session (7.2), the RTT sample that the header's ack gives
// leaves out the ack_delay it carries, and is never below 0; the
// sequences of its ack_bits give no sample. In v1 every sequence
// acknowledged gives one (5.4); a v1 header's AckDelay is 0.
func (l *Link) Accept(h wire.Header, size int, now time.Time) {
	l.accept(h, time.Duration(h.AckDelay)*wire2.AckDelayUnit*time.Microsecond, size, now)
}

func (l *Link) accept(h wire.Header, delay time.Duration, size int, now time.Time) {
	l.recv.record(h.Seq)
	if l.v2 != nil && l.recv.newest == h.Seq {
		l.ackArrived = now // ack_delay counts from here (7.2)
	}
	l.lastRecv = now
	l.stats.RecvDatagrams++
	l.stats.RecvBytes += uint64(size)
	if h.Ack == 0xFFFF && h.AckBits == 0 {
		return // the peer has recorded nothing yet (5.1)
	}
	// The sequences an earlier header acknowledged were processed then:
	// acknowledging is idempotent, and a peer only acknowledges what we
	// sent, so only the others are walked. Most headers repeat the last
	// one's ack (we send less often than the peer does): they load no
	// entry of the ring.
	var done uint32
	repeat := false
	newer := h.Ack-l.next >= 0x8000 // not ahead of what we sent (a lie is walked, not recorded)
	if newer && l.peerAckHas {
		switch d := h.Ack - l.peerAck; {
		case d == 0:
			done, repeat = l.peerAckBits, true
		case d <= 32:
			done = l.peerAckBits<<d | 1<<(d-1)
		case d >= 0x8000:
			newer = false // an older header: walked whole, not recorded
		}
	}
	if !repeat {
		l.acknowledge(h.Ack, true, delay, now)
	}
	if newer {
		l.peerAck, l.peerAckBits, l.peerAckHas = h.Ack, h.AckBits|done, true
	}
	for todo := h.AckBits &^ done; todo != 0; todo &= todo - 1 {
		i := bits.TrailingZeros32(todo)
		// v1 takes a sample of every sequence (5.4), v2 of ack only.
		l.acknowledge(h.Ack-1-uint16(i), l.v2 == nil, 0, now)
	}
}

// acknowledge marks our datagram seq as received by the peer, and, with
// sample, takes its round trip less delay as an RTT sample.
func (l *Link) acknowledge(seq uint16, sample bool, delay time.Duration, now time.Time) {
	s := &l.ring[seq%sentRing]
	if !s.valid || s.seq != seq || s.acked {
		return
	}
	s.acked = true
	l.stats.Acked++
	if sample {
		rtt := max(now.Sub(s.at)-delay, 0)
		if !l.hasRTT {
			l.srtt, l.hasRTT = rtt, true
		} else {
			l.srtt += (rtt - l.srtt) / 10
		}
	}
	if s.snapshot {
		if l.Baselines != nil {
			l.Baselines.Acked(s.snapTick, int(s.snapHint))
		}
	}
	if l.v2 != nil {
		l.v2.acknowledge(s.events)
		return
	}
	for _, id := range s.events {
		if l.pending(uint16(id)) {
			l.out[uint16(id)%MaxUnacked].acked = true
		}
	}
	for l.head != l.tail && l.out[l.head%MaxUnacked].acked {
		l.head++
	}
}

// RTT returns the smoothed round-trip time, and false before any sample.
func (l *Link) RTT() (time.Duration, bool) { return l.srtt, l.hasRTT }

// Silence returns how long the peer has sent nothing accepted.
func (l *Link) Silence(now time.Time) time.Duration { return now.Sub(l.lastRecv) }

// TimedOut reports a peer silent for Timeout or more (5.5).
func (l *Link) TimedOut(now time.Time) bool { return l.Silence(now) >= Timeout }

// Stats returns the counters.
func (l *Link) Stats() Stats { return l.stats }

// Loss returns the fraction of our datagrams the peer has not
// acknowledged among those sent during 2 s ending 1 s before now, or 0
// when none were sent then. On a slow link the window ends two smoothed
// round trips before now instead, so that acknowledgements still on their
// way do not count as losses.
func (l *Link) Loss(now time.Time) float64 {
	newest := max(time.Second, 2*l.srtt)
	oldest := newest + 2*time.Second
	var n, lost int
	for i := range l.ring {
		s := &l.ring[i]
		if !s.valid {
			continue
		}
		age := now.Sub(s.at)
		if age < newest || age > oldest {
			continue
		}
		n++
		if !s.acked {
			lost++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(lost) / float64(n)
}

// AppendDatagram appends a datagram of type t with payload to dst: the
// header with the next sequence and our acknowledgements, then the
// payload. It returns the datagram and its sequence.
func (l *Link) AppendDatagram(dst []byte, t wire.Type, payload []byte, now time.Time) ([]byte, uint16) {
	seq := l.begin(now)
	dst = l.appendHeader(dst, t, seq, now)
	dst = append(dst, payload...)
	l.stats.SentBytes += uint64(l.HeaderSize() + len(payload))
	return dst, seq
}

// AppendSnapshot is AppendDatagram for one Snapshot datagram of tick: once
// the peer acknowledges every datagram of the tick, History holds it as a
// baseline. With Tail set, the datagram ends with an empty event tail
// (7.8).
func (l *Link) AppendSnapshot(dst []byte, payload []byte, tick uint32, now time.Time) []byte {
	dst, seq := l.AppendDatagram(dst, wire.TypeSnapshot, payload, now)
	if l.Tail {
		dst = append(dst, 0) // an empty event tail (7.8)
		l.stats.SentBytes++
	}
	s := &l.ring[seq%sentRing]
	s.snapshot, s.snapTick = true, tick
	if l.Baselines != nil {
		s.snapHint = int8(l.Baselines.Carried(tick))
	}
	return dst
}

// begin takes the next sequence and resets its ring entry.
func (l *Link) begin(now time.Time) uint16 {
	seq := l.next
	l.next++
	s := &l.ring[seq%sentRing]
	*s = sent{seq: seq, valid: true, at: now, events: s.events[:0]}
	l.stats.SentDatagrams++
	return seq
}

// appendHeader appends the header of our datagram seq of type t, sent at
// now: v1's, or v2's with the time since the datagram named by ack
// arrived (7.2).
func (l *Link) appendHeader(dst []byte, t wire.Type, seq uint16, now time.Time) []byte {
	ack, bits := l.recv.ack()
	h := wire.Header{Type: t, Seq: seq, Ack: ack, AckBits: bits, Session: l.Session}
	if l.v2 == nil {
		return wire.AppendHeader(dst, h)
	}
	if l.recv.has {
		h.AckDelay = wire2.AckDelayUnits(now.Sub(l.ackArrived).Microseconds())
	}
	return wire2.AppendHeader(dst, h)
}
