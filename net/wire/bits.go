package wire

import "slices"

// BitWriter appends a packed payload (section 1.4): bits fill each byte from
// its least significant bit upwards. The zero value is ready to use; Reset
// reuses the buffer.
type BitWriter struct {
	buf  []byte
	nbit int // bits written
}

// Reset starts a new payload, keeping the buffer's capacity.
func (w *BitWriter) Reset() { w.buf = w.buf[:0]; w.nbit = 0 }

// Len returns the number of bits written.
func (w *BitWriter) Len() int { return w.nbit }

// Bytes returns the payload written so far, padded with zero bits to a
// whole byte. The slice is valid until the next write or Reset.
func (w *BitWriter) Bytes() []byte { return w.buf }

// WriteBits writes the n low bits of v (n from 0 to 32), least significant
// bit first.
func (w *BitWriter) WriteBits(v uint32, n int) {
	for n > 0 {
		used := w.nbit & 7
		if used == 0 {
			w.buf = append(w.buf, 0)
		}
		room := 8 - used
		take := min(room, n)
		w.buf[len(w.buf)-1] |= byte(v&(1<<take-1)) << used
		v >>= take
		n -= take
		w.nbit += take
	}
}

// Append writes the bits src wrote, as WriteBits would write them one by
// one.
func (w *BitWriter) Append(src *BitWriter) { w.appendBits(src.buf, src.nbit) }

// appendBits writes the first n bits of src, a payload another BitWriter
// wrote (its padding bits zero), as WriteBits would write them one by one.
func (w *BitWriter) appendBits(src []byte, n int) {
	src = src[:(n+7)/8]
	used := w.nbit & 7
	w.nbit += n
	if used == 0 {
		w.buf = append(w.buf, src...)
		return
	}
	k := len(w.buf) - 1 // the byte partly written
	w.buf = slices.Grow(w.buf, len(src))[:len(w.buf)+len(src)]
	buf := w.buf[k : k+len(src)+1]
	for i, b := range src {
		buf[i] |= b << used
		buf[i+1] = b >> (8 - used)
	}
	w.buf = w.buf[:(w.nbit+7)/8] // the last byte held only padding
}

// WriteBool writes one bit, 1 for true.
func (w *BitWriter) WriteBool(b bool) {
	if b {
		w.WriteBits(1, 1)
	} else {
		w.WriteBits(0, 1)
	}
}

// WriteSigned writes v as an n-bit two's complement number. The caller
// keeps v within range.
func (w *BitWriter) WriteSigned(v int32, n int) { w.WriteBits(uint32(v), n) }

// WriteVarint writes v in groups of 7 bits, least significant group first,
// each followed by a continuation bit, using the fewest groups.
func (w *BitWriter) WriteVarint(v uint32) {
	for v >= 0x80 {
		w.WriteBits(v&0x7f|0x80, 8)
		v >>= 7
	}
	w.WriteBits(v, 8)
}

// VarintBits returns the number of bits WriteVarint uses for v.
func VarintBits(v uint32) int {
	n := 8
	for v >= 0x80 {
		v >>= 7
		n += 8
	}
	return n
}

// BitReader reads a packed payload written by BitWriter. Reads past the end
// return zeros and set an error that Err reports; callers check it once
// after a group of reads.
type BitReader struct {
	buf  []byte
	pos  int // bits read
	err  error
	size int // len(buf) * 8
}

// Reset starts reading b from its first bit.
func (r *BitReader) Reset(b []byte) {
	r.buf, r.pos, r.err, r.size = b, 0, nil, len(b)*8
}

// Err returns the first error met, or nil.
func (r *BitReader) Err() error { return r.err }

// Remaining returns the number of unread bits.
func (r *BitReader) Remaining() int { return r.size - r.pos }

func (r *BitReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// ReadBits reads an n-bit unsigned number (n from 0 to 32).
func (r *BitReader) ReadBits(n int) uint32 {
	if r.err != nil {
		return 0
	}
	if n > r.size-r.pos {
		r.fail(errTruncated)
		r.pos = r.size
		return 0
	}
	var v uint32
	shift := 0
	for n > 0 {
		used := r.pos & 7
		take := min(8-used, n)
		b := uint32(r.buf[r.pos>>3]>>used) & (1<<take - 1)
		v |= b << shift
		shift += take
		n -= take
		r.pos += take
	}
	return v
}

// ReadBool reads one bit.
func (r *BitReader) ReadBool() bool { return r.ReadBits(1) == 1 }

// ReadSigned reads an n-bit two's complement number.
func (r *BitReader) ReadSigned(n int) int32 {
	v := r.ReadBits(n)
	return int32(v<<(32-n)) >> (32 - n)
}

// ReadVarint reads a varint of at most 5 groups; a fifth group above 15 or
// with its continuation bit set is an error.
func (r *BitReader) ReadVarint() uint32 {
	var v uint32
	for i := 0; i < 5; i++ {
		g := r.ReadBits(8)
		if r.err != nil {
			return 0
		}
		if i == 4 && g > 15 {
			r.fail(errVarint)
			return 0
		}
		v |= (g & 0x7f) << (7 * i)
		if g&0x80 == 0 {
			return v
		}
	}
	return v // unreachable: the fifth group returned or failed
}

// Finish checks the end of a packed payload: every byte read, and the
// padding bits of the last byte zero.
func (r *BitReader) Finish() error {
	if r.err != nil {
		return r.err
	}
	if r.size-r.pos >= 8 {
		return errTrailing
	}
	if r.pos < r.size && r.buf[len(r.buf)-1]>>(r.pos&7) != 0 {
		return errPadding
	}
	return nil
}

// End checks the end of a packed part that more bytes follow (7.8): the
// padding bits of its last byte zero. It returns the number of bytes the
// packed part takes, its bits rounded up to a byte.
func (r *BitReader) End() (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.pos&7 != 0 && r.buf[r.pos>>3]>>(r.pos&7) != 0 {
		return 0, errPadding
	}
	return (r.pos + 7) >> 3, nil
}
