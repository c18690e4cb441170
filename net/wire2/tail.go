package wire2

import (
	"errors"
	"rtype/net/wire"
)

// Errors of a v2 Snapshot datagram's event tail (7.8).
var (
	// ErrNoTail reports a v2 Snapshot payload that ends with its packed
	// part: the tail's count byte is missing.
	ErrNoTail = errors.New("wire: v2 snapshot without its event tail (7.8)")
	// ErrTailFraming reports a tail whose frames run past the end of the
	// datagram, with a length of 0, or with bytes after the last frame.
	ErrTailFraming = errors.New("wire: bad event framing in a snapshot's tail (7.8, 7.7)")
)

// DecodeTail is Decode for the Snapshot payload of a v2 session (7.8):
// the packed part, padded to a byte (its padding bits zero), is followed
// by the event tail, which DecodeTail checks (CheckTail) and returns, the
// count byte first. A tail that is missing or badly framed is an error,
// as any other in the packed part: the datagram is to be dropped.
func (s *Snapshot) DecodeTail(p []byte) (tail []byte, err error) {
	var r wire.BitReader
	r.Reset(p)
	if err := s.decode(&r); err != nil {
		return nil, err
	}
	n, err := r.End()
	if err != nil {
		return nil, err
	}
	tail = p[n:]
	if err := CheckTail(tail); err != nil {
		return nil, err
	}
	return tail, nil
}

// CheckTail checks the framing of a v2 Snapshot's event tail (7.8):
// count u8, 0 to 255, then count frames of 7.7 (id u32, length u8 of 1
// to 255, the event's bytes), and nothing after the last. Its work is
// bounded by the tail's length.
func CheckTail(tail []byte) error {
	if len(tail) < 1 {
		return ErrNoTail
	}
	if !framed(tail) {
		return ErrTailFraming
	}
	return nil
}

// TailFrames appends the frames of a tail CheckTail accepted to frames;
// their Data alias tail. With a count of 0 it appends nothing.
func TailFrames(tail []byte, frames []wire.EventFrame) []wire.EventFrame {
	if CheckTail(tail) != nil {
		return frames
	}
	return appendFrames(tail, frames)
}
