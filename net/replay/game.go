package replay

import (
	"fmt"
	"io"
	"sync"
	"time"

	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// GameRecorder records a server's game as a v2 client of it receives
// it (a server.GameRecorder, for rtype-server -record): the events the
// game produced, and its snapshots, each in full (a client that never
// acknowledges: no baseline to keep), with the server's times. Its
// recordings have no recording player (Header.Player is wire.NoPlayer)
// and play in the same viewer. Past maxBytes, or MaxFileBytes or
// MaxRecords, it records nothing more.
type GameRecorder struct {
	mu      sync.Mutex
	out     io.WriteCloser
	w       *Writer
	start   time.Time
	lk      *link.Link
	snd     link2.SnapshotSender
	buf     []byte
	max     int64
	full    bool
	err     error
	done    func(size int64, err error)
	flushed time.Duration
}

// NewGameRecorder starts the recording of a game of mode, played by
// rules, into out (closed by End), of at most maxBytes (0: no limit);
// done, when set, is told the recording's size and its first write
// error at End.
func NewGameRecorder(out io.WriteCloser, mode uint8, rules wire.LoginExt, name string, maxBytes int64, done func(size int64, err error)) (*GameRecorder, error) {
	now := time.Now()
	w, err := NewWriter(out, &Header{Protocol: wire.Version2, Revision: wire.Revision, Mode: mode, Player: wire.NoPlayer,
		Ext: rules, Name: name, Start: now})
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("replay: %w", err)
	}
	return &GameRecorder{out: out, w: w, start: now, lk: link.NewV2(1, now), max: maxBytes, done: done}, nil
}

// Events records the data of each event, as a v2 Event datagram carries
// it (7.6).
func (r *GameRecorder) Events(events []wire.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := time.Since(r.start)
	for i := range events {
		r.buf = wire2.AppendEvent(r.buf[:0], &events[i])
		r.record(KindEvent, at, r.buf)
	}
}

// Snapshot records the state of tick as full v2 Snapshot payloads (7.8).
func (r *GameRecorder) Snapshot(tick uint32, players []wire2.Player, entities []wire2.Entity) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.full || r.err != nil {
		return
	}
	now := time.Now()
	for _, d := range r.snd.Datagrams(r.lk, tick, players, entities, now) {
		_, p, err := wire2.ParseHeader(d, wire.ToClient)
		if err == nil {
			r.record(KindSnapshot, now.Sub(r.start), p)
		}
	}
}

func (r *GameRecorder) record(kind Kind, at time.Duration, p []byte) {
	if r.full || r.err != nil {
		return
	}
	if r.max > 0 && r.w.Size()+int64(len(p))+16 > r.max || !r.w.Fits(len(p)) {
		r.full = true
		return
	}
	r.err = r.w.Record(kind, at, p)
	if r.err == nil && at-r.flushed >= flushEvery {
		r.err, r.flushed = r.w.Flush(), at
	}
}

// End writes out the recording and closes its file.
func (r *GameRecorder) End() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.out == nil {
		return
	}
	if err := r.w.Flush(); r.err == nil {
		r.err = err
	}
	if err := r.out.Close(); r.err == nil {
		r.err = err
	}
	r.out = nil
	if r.done != nil {
		r.done(r.w.Size(), r.err)
	}
}
