package replay

import (
	"encoding/binary"
	"io"
	"sync"
	"time"

	"rtype/net/client"
)

// Recorder records a client's session: it is the client.Tap of
// client.Config, and writes a replay file to its writer. Past maxBytes,
// or MaxFileBytes or MaxRecords (REPLAYS.md, Limits), it stops recording
// (the file ends at a whole record and plays up to there). Its methods
// are safe for concurrent use.
type Recorder struct {
	mu       sync.Mutex
	out      io.Writer
	w        *Writer
	start    time.Time
	maxBytes int64
	full     bool
	err      error
	buf      []byte
	flushed  time.Duration // time of the last record written out
}

// flushEvery is how often a recorder writes its records out to the file:
// a crash loses at most that much of the game.
const flushEvery = 2 * time.Second

// NewRecorder returns a Recorder writing to out, of at most maxBytes
// (0: no limit). The header is written at the login.
func NewRecorder(out io.Writer, maxBytes int64) *Recorder {
	return &Recorder{out: out, maxBytes: maxBytes}
}

// Login writes the header (client.Tap).
func (r *Recorder) Login(l client.Login) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil || r.err != nil {
		return
	}
	r.start = l.At
	r.w, r.err = NewWriter(r.out, &Header{Protocol: l.Version, Revision: l.Revision, Mode: l.Mode, Player: l.Player,
		Session: l.Session, Tick: l.Tick, Ext: l.Ext, Name: l.Name, Start: l.At})
}

// Snapshot records a Snapshot payload applied (client.Tap).
func (r *Recorder) Snapshot(p []byte, at time.Time) { r.record(KindSnapshot, at, p) }

// Event records an event's data (client.Tap).
func (r *Recorder) Event(data []byte, at time.Time) { r.record(KindEvent, at, data) }

// Step records an input step sent (client.Tap).
func (r *Recorder) Step(st client.Step) {
	r.mu.Lock()
	r.buf = AppendStep(r.buf[:0], st.Step, st.Actions)
	r.recordLocked(KindStep, st.Sent, r.buf)
	r.mu.Unlock()
}

// RTT records a new round-trip time (client.Tap).
func (r *Recorder) RTT(rtt time.Duration, at time.Time) {
	r.mu.Lock()
	r.buf = binary.AppendUvarint(r.buf[:0], uint64(max(rtt, 0)))
	r.recordLocked(KindRTT, at, r.buf)
	r.mu.Unlock()
}

func (r *Recorder) record(kind Kind, at time.Time, p []byte) {
	r.mu.Lock()
	r.recordLocked(kind, at, p)
	r.mu.Unlock()
}

func (r *Recorder) recordLocked(kind Kind, at time.Time, p []byte) {
	if r.w == nil || r.err != nil || r.full {
		return
	}
	if r.maxBytes > 0 && r.w.Size()+int64(len(p))+16 > r.maxBytes || !r.w.Fits(len(p)) {
		r.full = true
		return
	}
	d := at.Sub(r.start)
	r.err = r.w.Record(kind, d, p)
	if r.err == nil && d-r.flushed >= flushEvery {
		r.err, r.flushed = r.w.Flush(), d
	}
}

// Size returns the bytes recorded so far.
func (r *Recorder) Size() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		return 0
	}
	return r.w.Size()
}

// Flush writes out what is buffered and returns the first write error.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil || r.w == nil {
		return r.err
	}
	r.err = r.w.Flush()
	return r.err
}
