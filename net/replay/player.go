package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
)

// Replay is a recording read into memory.
type Replay struct {
	// Header is the recording's header.
	Header Header
	// Records are its records, in order, up to the end or the damage.
	Records []Record
	// Damage is the *FormatError where the file is damaged or truncated,
	// nil for a whole file: the records before it play.
	Damage error
	// Length is the time of the last record.
	Length time.Duration
}

// Read reads a whole recording. A damaged header is an error; damage
// after it ends the records there and is kept in Damage. A file past
// MaxFileBytes or MaxRecords is refused (a *LimitError, ErrTooLarge):
// reading it costs at most MaxRecords slots of 16 bytes and the payloads
// of MaxFileBytes, whatever the file says.
func Read(r io.Reader) (*Replay, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	rep := &Replay{Header: rd.Header}
	// While reading, a record takes a slot of 16 bytes (not the 40 of a
	// Record) in chunks that never move, and its payload a place in data
	// chunks of dataChunk bytes, at off of their concatenation: nothing
	// is copied as they grow, and Records is made once, of its length.
	const slotChunk, dataChunk = 1 << 14, 1 << 20
	type slot struct {
		at   time.Duration
		off  uint32 // MaxFileBytes of payloads, chunks' waste included, stay under 4 GiB
		size uint16 // MaxPayload
		kind Kind
	}
	var slots [][]slot
	var data [][]byte
	var off uint32
	n := 0
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		if err != nil {
			rep.Damage = err
			break
		}
		if n%slotChunk == 0 {
			slots = append(slots, make([]slot, 0, slotChunk))
		}
		size := len(rec.Payload)
		if size > 0 {
			if in := int(off % dataChunk); in+size > dataChunk || len(data) == 0 {
				if len(data) > 0 {
					off += uint32(dataChunk - in)
				}
				data = append(data, make([]byte, dataChunk))
			}
			in := int(off % dataChunk)
			copy(data[len(data)-1][in:], rec.Payload)
		}
		c := &slots[len(slots)-1]
		*c = append(*c, slot{rec.At, off, uint16(size), rec.Kind})
		off += uint32(size)
		n++
		rep.Length = max(rep.Length, rec.At)
	}
	rep.Records = make([]Record, 0, n)
	for _, c := range slots {
		for _, s := range c {
			rec := Record{Kind: s.kind, At: s.at}
			if s.size > 0 {
				in := int(s.off % dataChunk)
				rec.Payload = data[s.off/dataChunk][in : in+int(s.size) : in+int(s.size)]
			}
			rep.Records = append(rep.Records, rec)
		}
	}
	return rep, nil
}

// Open reads the recording of the file path. A file larger than
// MaxFileBytes is refused before it is read; errors name the file.
func Open(path string) (*Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s: %w", path, &LimitError{MaxFileBytes, fmt.Sprintf("a file of %d bytes: a replay is at most %d bytes (replay.MaxFileBytes, REPLAYS.md)", st.Size(), MaxFileBytes)})
	}
	rep, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rep.Damage != nil {
		rep.Damage = fmt.Errorf("%s: %w", path, rep.Damage)
	}
	return rep, nil
}

// Time returns the local time of d into the recording: the clock of
// the records' arrival times.
func (rep *Replay) Time(d time.Duration) time.Time { return rep.Header.Start.Add(d) }

// Players returns the players present at some time of the recording,
// each with its name (from the PlayerJoined events).
func (rep *Replay) Players() [wire.MaxPlayers]string {
	var names [wire.MaxPlayers]string
	rep.EachEvent(math.MaxInt64, func(ev *wire.Event, _ time.Time) {
		if ev.Type == wire.EventPlayerJoined && ev.Player < wire.MaxPlayers {
			names[ev.Player] = wire.CleanName(ev.Name)
		}
	})
	return names
}

// EachEvent calls f with each event recorded up to to (since the start),
// in order, and its time (Time); records that do not parse are skipped.
// f must not keep ev.
func (rep *Replay) EachEvent(to time.Duration, f func(ev *wire.Event, at time.Time)) {
	var ev wire.Event
	for i := range rep.Records {
		rec := &rep.Records[i]
		if rec.At > to {
			return
		}
		if rec.Kind != KindEvent {
			continue
		}
		if client.ParseEvent(rep.Header.Protocol, rec.Payload, &ev) == nil {
			f(&ev, rep.Time(rec.At))
		}
	}
}

// Player plays a Replay as the Source of a game/view View: Advance
// applies the records up to a time, as the live client had applied them
// by then, and the View reads the frames, events and players as it reads
// a live client's. It is not safe for concurrent use.
type Player struct {
	rep     *Replay
	feed    *client.Feed
	next    int
	follow  uint8
	actions uint8 // of the last step applied
	err     error // the first record that could not be applied
}

// NewPlayer returns a Player of rep at its start, whose View shows the
// game as player follow saw it (follow is the recording player for the
// same frames as live; another player's ship is not predicted).
func NewPlayer(rep *Replay, follow uint8) *Player {
	return &Player{rep: rep, feed: client.NewFeed(rep.Header.Protocol), follow: follow}
}

// Advance applies the records of times up to to (since the start). A
// record that cannot be applied (a damaged file whose CRC matched by
// chance) is skipped, and Err reports the first.
func (p *Player) Advance(to time.Duration) {
	recs := p.rep.Records
	for p.next < len(recs) && recs[p.next].At <= to {
		rec := &recs[p.next]
		at := p.rep.Time(rec.At)
		var err error
		switch rec.Kind {
		case KindSnapshot:
			err = p.feed.Snapshot(rec.Payload, at)
		case KindEvent:
			err = p.feed.Event(rec.Payload, at)
		case KindRTT:
			rtt, n := binary.Uvarint(rec.Payload)
			if n <= 0 || n != len(rec.Payload) || rtt > uint64(time.Hour) {
				err = errors.New("malformed round-trip time")
			} else {
				p.feed.SetRTT(time.Duration(rtt))
			}
		case KindStep:
			var st client.Step
			st.Step, st.Actions, err = ParseStep(rec.Payload)
			st.Sent = at
			if err == nil {
				p.feed.Step(st)
				p.actions = st.Actions
			}
		}
		if err != nil && p.err == nil {
			p.err = fmt.Errorf("replay: record %d (%s in): %w", p.next, rec.At.Round(time.Millisecond), err)
		}
		p.next++
	}
}

// Actions returns the actions of the recording player's last input step
// applied: what it held.
func (p *Player) Actions() uint8 { return p.actions }

// Done reports whether every record was applied.
func (p *Player) Done() bool { return p.next >= len(p.rep.Records) }

// Err returns the first record that could not be applied, or nil.
func (p *Player) Err() error { return p.err }

// Player returns the player followed (view.Source).
func (p *Player) Player() uint8 { return p.follow }

// SetInput does nothing: a replay takes no input (view.Source).
func (p *Player) SetInput(uint8) {}

// Frames copies the frame history (view.Source).
func (p *Player) Frames(dst []client.Frame) []client.Frame { return p.feed.World().Frames(dst) }

// DrainEvents appends the events applied since the last call
// (view.Source).
func (p *Player) DrainEvents(dst []wire.Event) []wire.Event { return p.feed.DrainEvents(dst) }

// Players returns the player table (view.Source).
func (p *Player) Players() [wire.MaxPlayers]client.Player { return p.feed.World().Players() }

// Stats returns no measures but the protocol version: a replay has no
// connection (view.Source).
func (p *Player) Stats() client.Stats {
	s := client.Stats{Version: p.rep.Header.Protocol}
	s.RTT, s.HasRTT = p.feed.RTT()
	return s
}

// Rules returns the rules of the recording's login (view.PredictionSource).
func (p *Player) Rules() (wire.LoginExt, bool) {
	return p.rep.Header.Ext, wire.NewFeatures(p.rep.Header.Protocol, p.rep.Header.Revision).Rules
}

// Steps appends the input steps of the recording player sent after step
// after (view.PredictionSource); none when another player is followed.
func (p *Player) Steps(after uint32, dst []client.Step) []client.Step {
	if p.follow != p.rep.Header.Player {
		return dst
	}
	return p.feed.Steps(after, dst)
}

// Mode returns the game's mode (view.SourceMode).
func (p *Player) Mode() uint8 { return p.rep.Header.Mode }

// GameOver returns the final scores once the GameOver event was applied.
func (p *Player) GameOver() ([]wire.Score, bool) { return p.feed.World().GameOver() }
