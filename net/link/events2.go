package link

import (
	"errors"
	"fmt"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// Limits of the v2 event stream (7.7).
const (
	// MaxUnacked2 is the number of unacknowledged events a v2 sender
	// holds; one more ends the session (7.7).
	MaxUnacked2 = wire2.EventWindow
	// EventWindow2 is the number of event ids a v2 receiver remembers,
	// back from the newest it received (7.7).
	EventWindow2 = wire2.EventWindow
)

// ErrTooManyEvents2 reports a v2 peer that left more than MaxUnacked2
// events unacknowledged (7.7). errors.Is(err, ErrTooManyEvents) holds
// for it too, so that one check serves both versions.
var ErrTooManyEvents2 = fmt.Errorf("link: more than 65536 events unacknowledged (7.7): %w", ErrTooManyEvents)

// windowWords is the size of the v2 receive window in 64-bit words: the
// ids within EventWindow2 of the newest span at most 1025 words (1024 when
// aligned), so that no two of them share a slot.
const windowWords = EventWindow2/64 + 1

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
	// MaxUnacked2 as events pile up, so that a session that keeps up
	// holds a few slots only.
	out        []outEvent2
	head, tail uint32 // oldest unacknowledged id, next id

	// Events received: ids within EventWindow2 of inNew; word w of the
	// window holds ids base[w]*64 to base[w]*64+63, so moving the window
	// clears nothing.
	inHas  bool
	inNew  uint32
	inBase [windowWords]uint32
	inSet  [windowWords]uint64

	frames []wire2.EventFrame // scratch of ReceiveEvents on a v2 Link
	enc    []byte             // scratch of queue: an event encoded
}

func (v *linkV2) slot(id uint32) *outEvent2 { return &v.out[id&uint32(len(v.out)-1)] }

// pending reports whether event id is queued and not yet acknowledged.
func (v *linkV2) pending(id uint32) bool { return id-v.head < v.tail-v.head }

// queue numbers ev and queues it (7.7): enc, its encoding, or ev encoded
// when enc is nil.
func (v *linkV2) queue(ev *wire.Event, enc []byte) error {
	n := v.tail - v.head
	if n >= MaxUnacked2 {
		return ErrTooManyEvents2
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

// ReceiveEvents2 is ReceiveEvents for a v2 session (7.7): it checks the
// framing of a v2 Event payload and appends to fresh the frames whose ids
// it had not received before, marking them received, so that each event
// is delivered once. An id EventWindow2 or more older than the newest
// received is taken as received. On a framing error it appends nothing
// and the datagram is to be dropped without acknowledgement. The frames'
// data alias payload. Its work is bounded by the payload's size. It fails
// on a v1 Link, whose ids are 16-bit.
func (l *Link) ReceiveEvents2(payload []byte, fresh []wire2.EventFrame) ([]wire2.EventFrame, error) {
	if l.v2 == nil {
		return fresh, errNotV2
	}
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

var errNotV2 = errors.New("link: ReceiveEvents2 on a v1 Link (7.7 is for v2 sessions)")

// receiveEvents2As1 is ReceiveEvents on a v2 Link: frames with the low 16
// bits of their ids.
func (l *Link) receiveEvents2As1(payload []byte, fresh []wire.EventFrame) ([]wire.EventFrame, error) {
	var err error
	l.v2.frames, err = l.ReceiveEvents2(payload, l.v2.frames[:0])
	for _, f := range l.v2.frames {
		fresh = append(fresh, wire.EventFrame{ID: uint16(f.ID), Data: f.Data})
	}
	return fresh, err
}

// seen reports whether event id was received, or is EventWindow2 or more
// older than the newest received (7.7).
func (v *linkV2) seen(id uint32) bool {
	if !v.inHas || id > v.inNew {
		return false
	}
	if v.inNew-id >= EventWindow2 {
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
