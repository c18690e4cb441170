// Package replay is the file format of recorded games (REPLAYS.md): a
// header with what the login told the client, then the records of what
// the client accepted with the times they arrived (snapshot payloads,
// event data, input steps), each with a CRC. A Writer writes it, a
// Reader reads it back, stopping with a *FormatError that names the
// offset at the first damage; a Recorder (a client.Tap) records a
// session; a Player plays a recording through a client.Feed as a Source
// of game/view. It never touches a display.
package replay

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"

	"rtype/net/wire"
)

// Magic opens every replay file.
const Magic = "RTREPLAY"

// FormatVersion is the version of the format this package writes and
// reads (REPLAYS.md).
const FormatVersion = 1

// MaxPayload is the largest record payload: a UDP datagram's.
const MaxPayload = 65535

// The limits of a replay file (REPLAYS.md, Limits): a reader refuses a
// file past them with a *LimitError, having read no more than that and
// kept no more than that many records, so that a hostile file (a gzip
// bomb of tiny records) costs a bounded memory; the writers stop there,
// so that every file they write reads. An hour of the busiest 4-player
// game records about 0.7 M records and 50 MB.
const (
	// MaxFileBytes is the most bytes a replay file may take: 128 MiB.
	MaxFileBytes = 128 << 20
	// MaxRecords is the most records (of every kind, known or not) a
	// replay file may hold.
	MaxRecords = 2_000_000
)

// LimitError is a file past MaxFileBytes or MaxRecords: which limit, and
// the byte of the file where it was passed.
type LimitError struct {
	Offset int64
	What   string
}

// Error names the limit passed and where.
func (e *LimitError) Error() string {
	return fmt.Sprintf("replay: at byte %d: %s", e.Offset, e.What)
}

// ErrTooLarge is matched (errors.Is) by every *LimitError.
var ErrTooLarge = errors.New("replay: file past the limits of a replay")

// Is matches ErrTooLarge, and ErrFormat: a file this game does not read.
func (e *LimitError) Is(target error) bool { return target == ErrTooLarge || target == ErrFormat }

// maxHeaderBody bounds a header's body (this version's is at most 64 bytes;
// later versions may add fields).
const maxHeaderBody = 1024

// Kind is a record's kind.
type Kind uint8

// The kinds of records. A reader skips a kind it does not know.
const (
	// KindSnapshot is a Snapshot payload the client applied (4.3, 7.8).
	KindSnapshot Kind = 1
	// KindEvent is an event's data, delivered for the first time (5.3).
	KindEvent Kind = 2
	// KindStep is an input step the client sent (7.4): the step as a
	// uvarint, then its actions byte.
	KindStep Kind = 3
	// KindRTT is a new smoothed round-trip time the client measured
	// (5.4), in nanoseconds as a uvarint.
	KindRTT Kind = 4
	// kindNextStep is a KindStep record written short: the step after
	// the block's previous step record, with the same actions, and an
	// empty payload. A Writer writes it in place of such a Step record, a
	// Reader gives the Step record back: it never leaves this package.
	kindNextStep Kind = 5
)

// Header is what opens a recording: the session's LoginAccepted.
type Header struct {
	// Protocol is the session's protocol version (1 or 2), Revision its v2
	// revision (LoginAccepted's, wire.Revision; 0 in v1).
	Protocol, Revision uint8
	// Mode is the game's mode (wire.ModeClassic or ModeStage).
	Mode uint8
	// Player is the recording client's player, 0 to 3 (wire.NoPlayer for
	// a server's recording, which sees every player alike).
	Player uint8
	// Session and Tick are those of LoginAccepted.
	Session, Tick uint32
	// Ext are the rules of a v2 LoginAccepted.
	Ext wire.LoginExt
	// Name is the recording player's name, at most 255 bytes.
	Name string
	// Start is when the login was accepted: the records' times count
	// from it.
	Start time.Time
}

// Record is one record: its kind, its time since Header.Start, and its
// payload.
type Record struct {
	Kind    Kind
	At      time.Duration
	Payload []byte
}

// FormatError is a damaged or foreign file: what is wrong and at which
// byte of the file.
type FormatError struct {
	Offset int64
	What   string
}

// Error says where the file is damaged and how.
func (e *FormatError) Error() string {
	return fmt.Sprintf("replay: at byte %d: %s", e.Offset, e.What)
}

// ErrFormat is matched (errors.Is) by every *FormatError.
var ErrFormat = errors.New("replay: damaged or not a replay file")

// Is matches ErrFormat.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

// appendHeader appends h's encoding: magic, format version, body length,
// body, CRC-32 of the body.
func appendHeader(dst []byte, h *Header) []byte {
	var body []byte
	body = append(body, h.Protocol, h.Revision, h.Mode, h.Player)
	body = binary.BigEndian.AppendUint32(body, h.Session)
	body = binary.BigEndian.AppendUint32(body, h.Tick)
	body = binary.BigEndian.AppendUint64(body, uint64(h.Start.UnixNano()))
	e := h.Ext
	body = binary.BigEndian.AppendUint16(body, e.ShipSpeed)
	body = append(body, e.ShipW, e.ShipH)
	body = binary.BigEndian.AppendUint16(body, e.AreaW)
	body = binary.BigEndian.AppendUint16(body, e.AreaH)
	body = append(body, e.TickRate, e.SnapshotTicks, e.BlinkTicks)
	name := h.Name
	if len(name) > 255 {
		name = name[:255]
	}
	body = append(body, byte(len(name)))
	body = append(body, name...)
	dst = append(dst, Magic...)
	dst = binary.BigEndian.AppendUint16(dst, FormatVersion)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(body)))
	dst = append(dst, body...)
	return binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(body))
}

// headerFixed is the size of a header body's fields before the name.
const headerFixed = 4 + 4 + 4 + 8 + wire.LoginExtSize + 1

// parseHeaderBody decodes a header's body.
func parseHeaderBody(b []byte, h *Header) string {
	if len(b) < headerFixed {
		return fmt.Sprintf("header body of %d bytes, at least %d expected", len(b), headerFixed)
	}
	h.Protocol, h.Revision, h.Mode, h.Player = b[0], b[1], b[2], b[3]
	if !wire.Supported(h.Protocol) {
		return fmt.Sprintf("protocol version %d: 1 or 2 expected", h.Protocol)
	}
	h.Session = binary.BigEndian.Uint32(b[4:])
	h.Tick = binary.BigEndian.Uint32(b[8:])
	h.Start = time.Unix(0, int64(binary.BigEndian.Uint64(b[12:])))
	e := &h.Ext
	e.ShipSpeed = binary.BigEndian.Uint16(b[20:])
	e.ShipW, e.ShipH = b[22], b[23]
	e.AreaW = binary.BigEndian.Uint16(b[24:])
	e.AreaH = binary.BigEndian.Uint16(b[26:])
	e.TickRate, e.SnapshotTicks, e.BlinkTicks = b[28], b[29], b[30]
	n := int(b[31])
	if len(b) < headerFixed+n {
		return fmt.Sprintf("name of %d bytes in a header body of %d", n, len(b))
	}
	h.Name = wire.CleanName(string(b[headerFixed : headerFixed+n]))
	return ""
}

// Blocks: the records are written in blocks of at most blockBytes (or
// blockTime of records), each with a CRC: a damaged block ends the file
// there and loses at most that much.
const (
	blockBytes = 4096
	blockTime  = time.Second
	// maxBlock bounds a block's body for a reader: one record of
	// MaxPayload and its head, plus a full block.
	maxBlock = MaxPayload + 32 + blockBytes
)

// Writer writes a replay file.
type Writer struct {
	w     *bufio.Writer
	last  time.Duration // time of the previous record
	blk   []byte        // the records of the block being filled
	blkAt time.Duration // time of its first record
	step  lastStep      // the block's last step record
	n     int64         // bytes written
	recs  int64         // records written
	err   error
}

// lastStep is the last step record of a block, which a kindNextStep
// record follows: a block's first step is always a whole Step record, so
// a block reads alone.
type lastStep struct {
	step    uint32
	actions uint8
	ok      bool // a step record was seen in the block (and parsed)
}

// next reports whether a Step record of payload p is the step after the
// last one with the same actions (a kindNextStep), and makes it the last.
func (l *lastStep) next(p []byte) bool {
	step, actions, err := ParseStep(p)
	short := err == nil && l.ok && step == l.step+1 && actions == l.actions
	*l = lastStep{step, actions, err == nil}
	return short
}

// NewWriter writes h to w and returns the Writer of its records. The
// records are buffered: Flush writes them out.
func NewWriter(w io.Writer, h *Header) (*Writer, error) {
	wr := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	b := appendHeader(nil, h)
	if _, err := wr.w.Write(b); err != nil {
		return nil, err
	}
	wr.n = int64(len(b))
	return wr, nil
}

// Record appends one record to the block being filled: kind, the time at
// (since Header.Start) as a zigzag varint of nanoseconds after the
// previous record's, the payload's length as a uvarint, the payload.
// A KindStep record of the step after the block's previous step record,
// with the same actions, is written as a kindNextStep record, without
// payload (a Reader gives the Step record back). The block goes out when
// full (4 KiB, or a second of records) or at Flush.
func (w *Writer) Record(kind Kind, at time.Duration, payload []byte) error {
	if w.err != nil {
		return w.err
	}
	if len(payload) > MaxPayload {
		return fmt.Errorf("replay: a record of %d bytes (at most %d)", len(payload), MaxPayload)
	}
	if kind == kindNextStep {
		return fmt.Errorf("replay: kind %d is written by the Writer only, for a Step record", kind)
	}
	if !w.Fits(len(payload)) {
		return &LimitError{w.Size(), fmt.Sprintf("a record past the limits of a replay (%d records, %d bytes)", MaxRecords, MaxFileBytes)}
	}
	if len(w.blk) == 0 {
		w.step = lastStep{}
	}
	if kind == KindStep && w.step.next(payload) {
		kind, payload = kindNextStep, nil
	}
	return w.record(kind, at, payload)
}

// record appends a record as it is given.
func (w *Writer) record(kind Kind, at time.Duration, payload []byte) error {
	if len(w.blk) == 0 {
		w.blkAt = at
	}
	w.blk = append(w.blk, byte(kind))
	w.blk = binary.AppendVarint(w.blk, int64(at-w.last))
	w.blk = binary.AppendUvarint(w.blk, uint64(len(payload)))
	w.blk = append(w.blk, payload...)
	w.last = at
	w.recs++
	if len(w.blk) >= blockBytes || at-w.blkAt >= blockTime {
		return w.endBlock()
	}
	return nil
}

// endBlock writes the block being filled: its length as a uvarint, its
// records, the CRC-32 (IEEE) of its records.
func (w *Writer) endBlock() error {
	if len(w.blk) == 0 {
		return w.err
	}
	var head [binary.MaxVarintLen64]byte
	h := binary.PutUvarint(head[:], uint64(len(w.blk)))
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc32.ChecksumIEEE(w.blk))
	for _, b := range [][]byte{head[:h], w.blk, sum[:]} {
		if _, err := w.w.Write(b); err != nil {
			w.err = err
			return err
		}
	}
	w.n += int64(h + len(w.blk) + 4)
	w.blk = w.blk[:0]
	return nil
}

// Size returns the bytes written so far, header and the block being
// filled included.
func (w *Writer) Size() int64 {
	if len(w.blk) == 0 {
		return w.n
	}
	return w.n + int64(len(w.blk)) + 8
}

// recordRoom bounds the bytes a record adds to a file besides its
// payload: kind, time and size (14), and a new block's length and CRC (7).
const recordRoom = 24

// Fits reports whether a record of n bytes of payload keeps the file
// within MaxRecords and MaxFileBytes. Record refuses one that does not;
// the recorders stop recording before it.
func (w *Writer) Fits(n int) bool {
	return w.recs < MaxRecords && w.Size()+int64(n)+recordRoom <= MaxFileBytes
}

// Flush ends the block being filled and writes out what is buffered.
func (w *Writer) Flush() error {
	if err := w.endBlock(); err != nil {
		return err
	}
	w.err = w.w.Flush()
	return w.err
}

// Reader reads a replay file.
type Reader struct {
	// Header is the file's header.
	Header Header
	r      *bufio.Reader
	off    int64 // of the next block
	last   time.Duration
	blk    []byte // the current block's records
	pos    int    // the next record's position in blk
	blkOff int64  // offset of blk[0] in the file
	step   lastStep
	stepP  []byte // the payload of a kindNextStep record's Step
	recs   int64  // records decoded, of every kind
	err    error
}

// NewReader reads the header of the file r and returns its Reader. A
// file that is not a replay, or of a format version this package does not
// read, or whose header is damaged, gives a *FormatError.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{r: bufio.NewReaderSize(r, 64<<10)}
	var fixed [len(Magic) + 4]byte
	if n, err := io.ReadFull(rd.r, fixed[:]); err != nil {
		return nil, &FormatError{int64(n), "the file ends inside the header"}
	}
	if string(fixed[:len(Magic)]) != Magic {
		return nil, &FormatError{0, "not a replay file (no " + Magic + " magic)"}
	}
	if v := binary.BigEndian.Uint16(fixed[len(Magic):]); v != FormatVersion {
		return nil, &FormatError{int64(len(Magic)), fmt.Sprintf("format version %d: this game reads version %d", v, FormatVersion)}
	}
	n := int(binary.BigEndian.Uint16(fixed[len(Magic)+2:]))
	if n > maxHeaderBody {
		return nil, &FormatError{int64(len(Magic)) + 2, fmt.Sprintf("header body of %d bytes (at most %d)", n, maxHeaderBody)}
	}
	body := make([]byte, n+4)
	if _, err := io.ReadFull(rd.r, body); err != nil {
		return nil, &FormatError{int64(len(fixed)), "the file ends inside the header"}
	}
	if crc32.ChecksumIEEE(body[:n]) != binary.BigEndian.Uint32(body[n:]) {
		return nil, &FormatError{int64(len(fixed)), "the header's CRC does not match: damaged"}
	}
	if what := parseHeaderBody(body[:n], &rd.Header); what != "" {
		return nil, &FormatError{int64(len(fixed)), what}
	}
	rd.off = int64(len(fixed) + n + 4)
	return rd, nil
}

// Next returns the next record, of a kind this package knows (others are
// skipped; a kindNextStep record is given as its KindStep record); its
// Payload is valid until the next call. At the end of the file it
// returns io.EOF; at a damaged or truncated block or record, a
// *FormatError naming its offset, and the same error ever after; past
// MaxFileBytes or MaxRecords, a *LimitError, having read at most
// MaxFileBytes of the file (and its buffer: 64 KiB).
func (r *Reader) Next() (Record, error) {
	for r.err == nil {
		if r.pos >= len(r.blk) {
			r.err = r.block()
			r.step = lastStep{}
			continue
		}
		off := r.blkOff + int64(r.pos)
		if r.recs >= MaxRecords {
			r.err = &LimitError{off, fmt.Sprintf("more than %d records: a replay holds at most %d (replay.MaxRecords, REPLAYS.md)", MaxRecords, MaxRecords)}
			break
		}
		r.recs++
		rec, err := r.record()
		if err != nil {
			r.err = err
			break
		}
		switch rec.Kind {
		case KindStep:
			r.step.next(rec.Payload)
			return rec, nil
		case kindNextStep:
			if !r.step.ok {
				r.err = &FormatError{off, "a next-step record (kind 5) without a step record before it in its block"}
				break
			}
			if len(rec.Payload) != 0 {
				r.err = &FormatError{off, fmt.Sprintf("a next-step record (kind 5) of %d bytes: none expected", len(rec.Payload))}
				break
			}
			r.step.step++
			r.stepP = AppendStep(r.stepP[:0], r.step.step, r.step.actions)
			rec.Kind, rec.Payload = KindStep, r.stepP
			return rec, nil
		case KindSnapshot, KindEvent, KindRTT:
			return rec, nil
		}
	}
	return Record{}, r.err
}

// block reads the next block and checks its CRC.
func (r *Reader) block() error {
	start := r.off
	size, n, err := readUvarint(r.r)
	if err == io.EOF && n == 0 {
		return io.EOF
	}
	if err != nil {
		return &FormatError{start, "block length: " + err.Error()}
	}
	if size == 0 || size > maxBlock {
		return &FormatError{start, fmt.Sprintf("block of %d bytes (1 to %d)", size, maxBlock)}
	}
	if end := start + int64(n) + int64(size) + 4; end > MaxFileBytes {
		return &LimitError{start, fmt.Sprintf("a block ending at byte %d: a replay is at most %d bytes (replay.MaxFileBytes, REPLAYS.md)", end, MaxFileBytes)}
	}
	if cap(r.blk) < int(size)+4 {
		r.blk = make([]byte, int(size)+4)
	}
	b := r.blk[:int(size)+4]
	if _, err := io.ReadFull(r.r, b); err != nil {
		return &FormatError{start, fmt.Sprintf("the file ends inside a block of %d bytes (truncated)", size)}
	}
	if crc32.ChecksumIEEE(b[:size]) != binary.BigEndian.Uint32(b[size:]) {
		return &FormatError{start, "the block's CRC does not match: damaged"}
	}
	r.blk, r.pos = b[:size], 0
	r.blkOff = start + int64(n)
	r.off = r.blkOff + int64(size) + 4
	return nil
}

// record decodes the record at r.pos of the block.
func (r *Reader) record() (Record, error) {
	b := r.blk[r.pos:]
	off := r.blkOff + int64(r.pos)
	kind := b[0]
	dt, n := binary.Varint(b[1:])
	if n <= 0 {
		return Record{}, &FormatError{off, "record time: malformed varint"}
	}
	i := 1 + n
	size, n := binary.Uvarint(b[i:])
	if n <= 0 {
		return Record{}, &FormatError{off, "record length: malformed varint"}
	}
	i += n
	if size > uint64(len(b)-i) {
		return Record{}, &FormatError{off, fmt.Sprintf("record of %d bytes where the block has %d left", size, len(b)-i)}
	}
	if dt < -int64(time.Minute) || dt > int64(24*time.Hour) {
		return Record{}, &FormatError{off, fmt.Sprintf("record time jumps by %v", time.Duration(dt))}
	}
	at := r.last + time.Duration(dt)
	r.last = at
	r.pos += i + int(size)
	return Record{Kind: Kind(kind), At: at, Payload: b[i : i+int(size) : i+int(size)]}, nil
}

// readUvarint reads a uvarint of at most 10 bytes, and how many bytes it
// read.
func readUvarint(r io.ByteReader) (uint64, int, error) {
	var x uint64
	var s uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		c, err := r.ReadByte()
		if err == io.EOF && i == 0 {
			return 0, 0, io.EOF
		}
		if err != nil {
			return 0, i, errors.New("the file ends inside it (truncated)")
		}
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, i + 1, errors.New("varint overflows 64 bits")
			}
			return x | uint64(c)<<s, i + 1, nil
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	return 0, binary.MaxVarintLen64, errors.New("varint longer than 10 bytes")
}

// AppendStep appends a KindStep payload.
func AppendStep(dst []byte, step uint32, actions uint8) []byte {
	return append(binary.AppendUvarint(dst, uint64(step)), actions)
}

// ParseStep decodes a KindStep payload.
func ParseStep(p []byte) (step uint32, actions uint8, err error) {
	s, n := binary.Uvarint(p)
	if n <= 0 || s > 0xffffffff || len(p) != n+1 {
		return 0, 0, errors.New("replay: malformed step record")
	}
	return uint32(s), p[n], nil
}
