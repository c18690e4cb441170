package link

import (
	"fmt"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// outState is what a sender knows of the sendings of a queued event.
type outState struct {
	sent     bool
	acked    bool
	lastSent time.Time
}

// outEvent is an event waiting for its acknowledgement.
type outEvent struct {
	data [wire.MaxEventSize]byte
	n    uint8
	outState
}

// eventQueue is the events a Link sends, in its version's framing: what
// appendEvents needs of them.
type eventQueue interface {
	// queued returns the oldest unacknowledged id and the number of ids
	// from it to the newest queued.
	queued() (head uint32, n int)
	// event returns the bytes and the state of queued event id.
	event(id uint32) ([]byte, *outState)
	// appendFrame appends the frame of event id (5.2, 7.7).
	appendFrame(dst []byte, id uint32, data []byte) []byte
	// frameOverhead is what a frame adds to the event's bytes.
	frameOverhead() int
}

// queue1 is the eventQueue of a v1 Link: 16-bit ids (5.2).
type queue1 Link

func (q *queue1) queued() (uint32, int) { return uint32(q.head), int(q.tail - q.head) }

func (q *queue1) event(id uint32) ([]byte, *outState) {
	o := &q.out[uint16(id)%MaxUnacked]
	return o.data[:o.n], &o.outState
}

func (q *queue1) appendFrame(dst []byte, id uint32, data []byte) []byte {
	return wire.AppendEventFrame(dst, uint16(id), data)
}

func (q *queue1) frameOverhead() int { return wire.FrameOverhead }

// pending reports whether event id is queued and not yet acknowledged.
func (l *Link) pending(id uint16) bool { return id-l.head < l.tail-l.head }

// Unacked returns the number of events queued and not acknowledged.
func (l *Link) Unacked() int {
	if l.v2 != nil {
		return int(l.v2.tail - l.v2.head)
	}
	return int(l.tail - l.head)
}

// QueueEvent numbers ev and queues it for sending (5.2, 5.3). It fails
// with ErrTooManyEvents when MaxUnacked events are already waiting: the
// peer is gone or hostile, and the session ends.
//
// In a v2 session the event is encoded as 7.6 says (wire2.AppendEvent) and
// the limit is wire2.EventWindow (7.7). A v1 session never carries the
// events of Stage mode (Stage, Health, Arms: 7.12): on a v1 Link
// they are dropped, unnumbered.
func (l *Link) QueueEvent(ev *wire.Event) error {
	if l.v2 != nil {
		return l.v2.queue(ev, nil)
	}
	return l.queue1(ev, nil)
}

// EncodedEvent is an event to queue on many Links, the sessions of a
// game: each version's bytes are encoded once, by the first Link of that
// version, and copied by the others (Link.QueueEncoded). Set it to each
// event in turn; the zero value is ready. Not for concurrent use.
type EncodedEvent struct {
	ev         *wire.Event
	v1, v2     []byte
	has1, has2 bool
}

// Set makes e the event ev, which must not change while e is queued.
func (e *EncodedEvent) Set(ev *wire.Event) { e.ev, e.has1, e.has2 = ev, false, false }

// QueueEncoded is QueueEvent(e's event), byte for byte, the event encoded
// once for every Link of the same version it is queued on.
func (l *Link) QueueEncoded(e *EncodedEvent) error {
	if l.v2 != nil {
		if !e.has2 {
			e.v2, e.has2 = wire2.AppendEvent(e.v2[:0], e.ev), true
		}
		return l.v2.queue(e.ev, e.v2)
	}
	if e.ev.Type > wire.EventGameOver {
		return nil // before encoding: a v1 encoding of a Stage event is no event
	}
	if !e.has1 {
		e.v1, e.has1 = wire.AppendEvent(e.v1[:0], e.ev), true
	}
	return l.queue1(e.ev, e.v1)
}

// queue1 numbers ev and queues it on a v1 Link: enc, its encoding, or
// ev encoded when enc is nil.
func (l *Link) queue1(ev *wire.Event, enc []byte) error {
	if ev.Type > wire.EventGameOver {
		return nil
	}
	if l.Unacked() >= MaxUnacked {
		return ErrTooManyEvents
	}
	o := &l.out[l.tail%MaxUnacked]
	var n int
	if enc != nil {
		n = copy(o.data[:], enc)
	} else {
		n = len(wire.AppendEvent(o.data[:0], ev))
	}
	o.n, o.sent, o.acked = uint8(n), false, false
	l.tail++
	return nil
}

// ResendAfter returns R of 5.3: max(50 ms, 1.25 x smoothed RTT), 100 ms
// before any RTT sample.
func (l *Link) ResendAfter() time.Duration {
	if !l.hasRTT {
		return 100 * time.Millisecond
	}
	return max(50*time.Millisecond, l.srtt*5/4)
}

// AppendEvents appends to dst one Event datagram holding, oldest first, as
// many as fit of the events never sent and of those whose last sending is
// older than ResendAfter (5.3). It returns dst unchanged and false when no
// event is due; callers repeat until then, at the end of every tick.
func (l *Link) AppendEvents(dst []byte, now time.Time) ([]byte, bool) {
	if l.v2 != nil {
		return l.appendEvents(dst, now, l.v2, 255)
	}
	return l.appendEvents(dst, now, (*queue1)(l), 255)
}

// due reports whether an event of state o is to be sent at now: never
// sent, or sent last longer than r ago, and not acknowledged (5.3).
func due(o *outState, r time.Duration, now time.Time) bool {
	return !o.acked && (!o.sent || now.Sub(o.lastSent) >= r)
}

// appendEvents is AppendEvents with the events of q, at most limit (1 to
// 255) in the datagram.
func (l *Link) appendEvents(dst []byte, now time.Time, q eventQueue, limit int) ([]byte, bool) {
	r := l.ResendAfter()
	first := nextDue(q, 0, r, now)
	if _, n := q.queued(); first == n {
		return dst, false
	}
	start := len(dst)
	seq := l.begin(now)
	dst = l.appendHeader(dst, wire.TypeEvent, seq, now)
	dst = append(dst, 0) // count, patched below
	dst, count := l.appendDue(dst, start, q, first, limit, &l.ring[seq%sentRing], r, now)
	dst[start+l.HeaderSize()] = byte(count) // 1 or more: an event fits in any datagram
	l.stats.SentBytes += uint64(len(dst) - start)
	return dst, true
}

// nextDue returns the index, counted from the oldest queued, of the first
// event of q due (due, with r) at or after index i, or the number queued
// when none is.
func nextDue(q eventQueue, i int, r time.Duration, now time.Time) int {
	head, n := q.queued()
	for ; i < n; i++ {
		if _, o := q.event(head + uint32(i)); due(o, r, now) {
			return i
		}
	}
	return n
}

// appendDue appends to dst, whose datagram s starts at start, the frames
// of the due events of q from index i on, oldest first, as many as fit in
// wire.MaxDatagram bytes and at most limit, and returns it with their
// number: each is sent at now.
func (l *Link) appendDue(dst []byte, start int, q eventQueue, i, limit int, s *sent, r time.Duration, now time.Time) ([]byte, int) {
	head, n := q.queued()
	count := 0
	for i = nextDue(q, i, r, now); i < n && count < limit; i = nextDue(q, i+1, r, now) {
		id := head + uint32(i)
		data, o := q.event(id)
		if len(dst)-start+q.frameOverhead()+len(data) > wire.MaxDatagram {
			break
		}
		dst = l.appendFrame(dst, q, id, data, o, s, now)
		count++
	}
	return dst, count
}

// appendFrame appends the frame of event id, of bytes data and state o,
// to dst, the datagram s: the event is sent at now.
func (l *Link) appendFrame(dst []byte, q eventQueue, id uint32, data []byte, o *outState, s *sent, now time.Time) []byte {
	dst = q.appendFrame(dst, id, data)
	if o.sent {
		l.stats.EventsResent++
	} else {
		l.stats.EventsSent++
	}
	o.sent, o.lastSent = true, now
	s.events = append(s.events, id)
	return dst
}

// ReceiveEvents checks the framing of an Event payload (5.2) and appends
// to fresh the frames whose ids it had not received before, marking them
// received: each event id is delivered once (5.3). On a framing error it
// appends nothing and the datagram is to be dropped without
// acknowledgement. The frames' data alias payload.
//
// In a v2 session the payload is framed as 7.7 says, with 32-bit ids,
// and an id wire2.EventWindow or more older than the newest received is
// taken as received. Its work is bounded by the payload's size.
func (l *Link) ReceiveEvents(payload []byte, fresh []wire.EventFrame) ([]wire.EventFrame, error) {
	if l.v2 != nil {
		return l.receiveEvents2(payload, fresh)
	}
	start := len(fresh)
	all, err := wire.ParseEventFrames(payload, fresh)
	if err != nil {
		return fresh, err
	}
	fresh = all[:start]
	for _, f := range all[start:] {
		if l.eventSeen(uint16(f.ID)) {
			continue
		}
		l.markEvent(uint16(f.ID))
		l.stats.EventsDelivered++
		fresh = append(fresh, f)
	}
	return fresh, nil
}

// eventSeen reports whether event id was received, or is EventWindow or
// more older than the newest received (5.3).
func (l *Link) eventSeen(id uint16) bool {
	if !l.inHas || wire.SeqNewer(id, l.inNew) {
		return false
	}
	if l.inNew-id >= EventWindow {
		return true
	}
	return l.inSet[id%EventWindow/64]&(1<<(id%64)) != 0
}

func (l *Link) markEvent(id uint16) {
	if !l.inHas {
		l.inHas, l.inNew = true, id
		l.inSet = [EventWindow / 64]uint64{}
	} else if wire.SeqNewer(id, l.inNew) {
		// Forget the ids that fall out of the window.
		for k := l.inNew + 1; k != id+1; k++ {
			l.inSet[k%EventWindow/64] &^= 1 << (k % 64)
			if k-l.inNew >= EventWindow {
				l.inSet = [EventWindow / 64]uint64{}
				break
			}
		}
		l.inNew = id
	}
	l.inSet[id%EventWindow/64] |= 1 << (id % 64)
}

// The events of a v2 session (7.7): 32-bit ids, a receive window of
// wire2.EventWindow ids back from the newest, and at most that many
// unacknowledged.

// errTooManyEvents2 reports a v2 peer that left more than
// wire2.EventWindow events unacknowledged (7.7); errors.Is(err,
// ErrTooManyEvents) holds for it, so that one check serves both versions.
var errTooManyEvents2 = fmt.Errorf("link: more than 65536 events unacknowledged (7.7): %w", ErrTooManyEvents)

// windowWords is the size of the v2 receive window in 64-bit words: the
// ids within wire2.EventWindow of the newest span at most 1025 words (1024 when
// aligned), so that no two of them share a slot.
const windowWords = wire2.EventWindow/64 + 1

// outEvent2 is a v2 event waiting for its acknowledgement: 128 bytes, two
// cache lines, with the event's bytes in the slot when they fit
// (inlineEvent2 bytes: a Spawn, a Destroy, a Death, most others), so
// that queueing and sending one reads no memory of its own besides.
type outEvent2 struct {
	outState
	n      uint8              // the length of the bytes in inline, or bigEvent2
	inline [inlineEvent2]byte // the event, when it fits
	big    []byte             // the event when it does not; reused
}

// inlineEvent2 is the longest event a ring slot holds in itself; bigEvent2
// marks a slot whose event is in big.
const (
	inlineEvent2 = 71
	bigEvent2    = 255
)

// bytes returns the event of o.
func (o *outEvent2) bytes() []byte {
	if o.n == bigEvent2 {
		return o.big
	}
	return o.inline[:o.n]
}

// set makes b the event of o.
func (o *outEvent2) set(b []byte) {
	if len(b) <= inlineEvent2 {
		o.n = uint8(copy(o.inline[:], b))
		return
	}
	o.big, o.n = append(o.big[:0], b...), bigEvent2
}

// linkV2 is what a Link of a v2 session adds: the events with 32-bit ids
// (the Link keeps when the datagram named by its ack arrived).
type linkV2 struct {
	// Events sent: a ring whose length is a power of two, grown up to
	// wire2.EventWindow as events pile up, so that a session that keeps up
	// holds a few slots only.
	out        []outEvent2
	head, tail uint32 // oldest unacknowledged id, next id

	// Events received: ids within wire2.EventWindow of inNew; word w of the
	// window holds ids base[w]*64 to base[w]*64+63, so moving the window
	// clears nothing.
	inHas  bool
	inNew  uint32
	inBase [windowWords]uint32
	inSet  [windowWords]uint64

	enc []byte // scratch of queue: an event encoded
}

func (v *linkV2) slot(id uint32) *outEvent2 { return &v.out[id&uint32(len(v.out)-1)] }

// pending reports whether event id is queued and not yet acknowledged.
func (v *linkV2) pending(id uint32) bool { return id-v.head < v.tail-v.head }

// queue numbers ev and queues it (7.7): enc, its encoding, or ev encoded
// when enc is nil.
func (v *linkV2) queue(ev *wire.Event, enc []byte) error {
	n := v.tail - v.head
	if n >= wire2.EventWindow {
		return errTooManyEvents2
	}
	if int(n) == len(v.out) {
		v.grow()
	}
	if enc == nil {
		v.enc = wire2.AppendEvent(v.enc[:0], ev)
		enc = v.enc
	}
	if len(enc) > wire.MaxEventSize {
		return fmt.Errorf("link: event of type %d takes %d bytes, more than a frame carries (%d, 7.7)",
			ev.Type, len(enc), wire.MaxEventSize)
	}
	o := v.slot(v.tail)
	o.set(enc)
	o.sent, o.acked = false, false
	v.tail++
	return nil
}

// grow doubles the ring, keeping each queued event at its id's slot.
func (v *linkV2) grow() {
	old := v.out
	v.out = make([]outEvent2, max(64, 2*len(old)))
	for id := v.head; id != v.tail; id++ {
		*v.slot(id) = old[id&uint32(len(old)-1)]
	}
}

// acknowledge marks the events of an acknowledged datagram.
func (v *linkV2) acknowledge(ids []uint32) {
	for _, id := range ids {
		if v.pending(id) {
			v.slot(id).acked = true
		}
	}
	for v.head != v.tail && v.slot(v.head).acked {
		v.head++
	}
}

func (v *linkV2) queued() (uint32, int) { return v.head, int(v.tail - v.head) }

func (v *linkV2) event(id uint32) ([]byte, *outState) {
	o := v.slot(id)
	return o.bytes(), &o.outState
}

func (v *linkV2) appendFrame(dst []byte, id uint32, data []byte) []byte {
	return wire2.AppendEventFrame(dst, id, data)
}

func (v *linkV2) frameOverhead() int { return wire2.FrameOverhead }

// receiveEvents2 is ReceiveEvents for a v2 session (7.7).
func (l *Link) receiveEvents2(payload []byte, fresh []wire.EventFrame) ([]wire.EventFrame, error) {
	start := len(fresh)
	all, err := wire2.ParseEventFrames(payload, fresh)
	if err != nil {
		return fresh, err
	}
	fresh = all[:start]
	for _, f := range all[start:] {
		if l.v2.seen(f.ID) {
			continue
		}
		l.v2.mark(f.ID)
		l.stats.EventsDelivered++
		fresh = append(fresh, f)
	}
	return fresh, nil
}

// seen reports whether event id was received, or is wire2.EventWindow or more
// older than the newest received (7.7).
func (v *linkV2) seen(id uint32) bool {
	if !v.inHas || id > v.inNew {
		return false
	}
	if v.inNew-id >= wire2.EventWindow {
		return true
	}
	w := (id >> 6) % windowWords
	return v.inBase[w] == id>>6 && v.inSet[w]&(1<<(id&63)) != 0
}

// mark records event id as received; the window follows the newest id.
func (v *linkV2) mark(id uint32) {
	if !v.inHas || id > v.inNew {
		v.inHas, v.inNew = true, id
	}
	w := (id >> 6) % windowWords
	if v.inBase[w] != id>>6 {
		// The word held ids out of the window by now: reuse it.
		v.inBase[w], v.inSet[w] = id>>6, 0
	}
	v.inSet[w] |= 1 << (id & 63)
}
