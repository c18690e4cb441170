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
// after it ends the records there and is kept in Damage.
func Read(r io.Reader) (*Replay, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	rep := &Replay{Header: rd.Header}
	var data []byte // the payloads, one allocation per growth
	type span struct{ from, to int }
	var spans []span
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rep.Damage = err
			break
		}
		spans = append(spans, span{len(data), len(data) + len(rec.Payload)})
		data = append(data, rec.Payload...)
		rec.Payload = nil
		rep.Records = append(rep.Records, rec)
		rep.Length = max(rep.Length, rec.At)
	}
	for i, s := range spans {
		rep.Records[i].Payload = data[s.from:s.to:s.to]
	}
	return rep, nil
}

// Open reads the recording of the file path.
func Open(path string) (*Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
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
		var err error
		if rep.Header.Protocol == wire.Version2 {
			err = wire.ParseEvent2(rec.Payload, &ev)
		} else {
			err = wire.ParseEvent(rec.Payload, &ev)
		}
		if err == nil {
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

// Rules returns the rules of the recording's login (view.Source2).
func (p *Player) Rules() (wire.LoginExt, bool) {
	return p.rep.Header.Ext, p.rep.Header.Protocol == wire.Version2
}

// Steps appends the input steps of the recording player sent after step
// after (view.Source2); none when another player is followed.
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
