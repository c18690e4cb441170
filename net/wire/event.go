package wire

import (
	"encoding/binary"
	"math"
	"unicode/utf8"
)

// MaxEventSize is the largest event a frame carries (5.2).
const MaxEventSize = 255

// AppendEvent appends the bytes of ev (4.4). The caller keeps the event
// within MaxEventSize (a name of at most 247 bytes).
func AppendEvent(dst []byte, ev *Event) []byte {
	le := binary.LittleEndian
	dst = append(dst, byte(ev.Type))
	dst = le.AppendUint32(dst, ev.Tick)
	f32 := func(b []byte, v float32) []byte { return le.AppendUint32(b, math.Float32bits(v)) }
	switch ev.Type {
	case EventSpawn:
		dst = le.AppendUint32(dst, ev.ID)
		dst = append(dst, ev.Kind)
		dst = f32(f32(f32(f32(dst, ev.X), ev.Y), ev.VX), ev.VY)
		dst = append(dst, ev.Owner)
	case EventDestroy:
		dst = le.AppendUint32(dst, ev.ID)
		dst = append(dst, ev.Reason)
		dst = f32(f32(dst, ev.X), ev.Y)
	case EventDeath:
		dst = append(dst, ev.Player, ev.Lives)
		dst = f32(f32(dst, ev.X), ev.Y)
	case EventPlayerJoined:
		dst = append(dst, ev.Player)
		dst = le.AppendUint16(dst, uint16(len(ev.Name)))
		dst = append(dst, ev.Name...)
	case EventPlayerLeft:
		dst = append(dst, ev.Player, ev.Reason)
	case EventGameOver:
		dst = append(dst, byte(ev.NumScores))
		for _, s := range ev.Scores[:ev.NumScores] {
			dst = le.AppendUint32(append(dst, s.Player), s.Score)
		}
	}
	return dst
}

// eventSizes gives the exact size of each fixed-size event type.
var EventSizes = [...]int{EventSpawn: 27, EventDestroy: 18, EventDeath: 15, EventPlayerLeft: 7}

// ParseEvent decodes the bytes of one event into ev and checks them (6.4):
// an unknown type, a wrong length, a non-finite position or velocity, a
// player above 3 where one is required, an owner that is neither a player
// nor 255, invalid UTF-8, or a GameOver that lists a player twice is an
// error, and the event is to be ignored.
// Only a PlayerJoined name allocates.
func ParseEvent(b []byte, ev *Event) error {
	if len(b) < 5 {
		return ErrEventLength
	}
	le := binary.LittleEndian
	*ev = Event{Type: EventType(b[0]), Tick: le.Uint32(b[1:])} // no field of an earlier event survives
	if ev.Type < EventSpawn || ev.Type > EventGameOver {
		return ErrEventType
	}
	if int(ev.Type) < len(EventSizes) && EventSizes[ev.Type] != 0 && len(b) != EventSizes[ev.Type] {
		return ErrEventLength
	}
	f32 := func(off int) float32 { return math.Float32frombits(le.Uint32(b[off:])) }
	switch ev.Type {
	case EventSpawn:
		ev.ID, ev.Kind = le.Uint32(b[5:]), b[9]
		ev.X, ev.Y, ev.VX, ev.VY = f32(10), f32(14), f32(18), f32(22)
		ev.Owner = b[26]
		if !finite(ev.X, ev.Y, ev.VX, ev.VY) || (ev.Owner >= MaxPlayers && ev.Owner != NoPlayer) {
			return ErrEventValue
		}
	case EventDestroy:
		ev.ID, ev.Reason = le.Uint32(b[5:]), b[9]
		ev.X, ev.Y = f32(10), f32(14)
		if !finite(ev.X, ev.Y, 0, 0) {
			return ErrEventValue
		}
	case EventDeath:
		ev.Player, ev.Lives = b[5], b[6]
		ev.X, ev.Y = f32(7), f32(11)
		if ev.Player >= MaxPlayers || !finite(ev.X, ev.Y, 0, 0) {
			return ErrEventValue
		}
	case EventPlayerJoined:
		if len(b) < 8 || int(le.Uint16(b[6:])) != len(b)-8 {
			return ErrEventLength
		}
		ev.Player = b[5]
		if ev.Player >= MaxPlayers || !utf8.Valid(b[8:]) {
			return ErrEventValue
		}
		ev.Name = string(b[8:])
	case EventPlayerLeft:
		ev.Player, ev.Reason = b[5], b[6]
		if ev.Player >= MaxPlayers {
			return ErrEventValue
		}
	case EventGameOver:
		if len(b) < 6 || len(b) != 6+5*int(b[5]) {
			return ErrEventLength
		}
		n := int(b[5])
		if n > MaxPlayers {
			return ErrEventValue
		}
		ev.NumScores = n
		var seen [MaxPlayers]bool
		for i := 0; i < n; i++ {
			s := b[6+5*i:]
			ev.Scores[i] = Score{Player: s[0], Score: le.Uint32(s[1:])}
			if s[0] >= MaxPlayers || seen[s[0]] {
				return ErrEventValue // a player above 3, or twice (4.4)
			}
			seen[s[0]] = true
		}
	}
	return nil
}

func finite(v ...float32) bool {
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
	}
	return true
}

// EventFrame is one framed event of an Event payload: its id, 16-bit in
// v1 (5.2) and 32-bit in v2 (7.7), and its bytes.
type EventFrame struct {
	ID   uint32
	Data []byte // the event's bytes, 1 to 255
}

// FrameOverhead is what framing adds to each event: id u16, length u8.
const FrameOverhead = 3

// AppendEventFrame appends one frame: id, length and the event's bytes.
// An Event payload is a count byte (1 to 255) followed by count frames.
func AppendEventFrame(dst []byte, id uint16, data []byte) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, id)
	dst = append(dst, byte(len(data)))
	return append(dst, data...)
}

// ParseEventFrames checks the framing of an Event payload (5.2) and appends
// its frames to frames, whose Data alias p. On error nothing is appended
// and the whole datagram is to be dropped.
func ParseEventFrames(p []byte, frames []EventFrame) ([]EventFrame, error) {
	if len(p) < 1 || p[0] == 0 {
		return frames, ErrEventFraming
	}
	count := int(p[0])
	off := 1
	for i := 0; i < count; i++ {
		if len(p)-off < FrameOverhead {
			return frames, ErrEventFraming
		}
		n := int(p[off+2])
		if n == 0 || len(p)-off-FrameOverhead < n {
			return frames, ErrEventFraming
		}
		off += FrameOverhead + n
	}
	if off != len(p) {
		return frames, ErrEventFraming
	}
	off = 1
	for i := 0; i < count; i++ {
		n := int(p[off+2])
		frames = append(frames, EventFrame{
			ID:   uint32(binary.LittleEndian.Uint16(p[off:])),
			Data: p[off+FrameOverhead : off+FrameOverhead+n],
		})
		off += FrameOverhead + n
	}
	return frames, nil
}
