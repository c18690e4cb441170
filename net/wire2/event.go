package wire2

import (
	"encoding/binary"
	"errors"
	"rtype/net/wire"
)

// SpawnSize is the size of a v2 Spawn event (7.6).
const SpawnSize = 33

// FrameOverhead is what v2 framing adds to each event: id u32, length u8
// (7.7).
const FrameOverhead = 5

// EventWindow is the v2 receive window and the most events a v2 sender
// keeps unacknowledged (7.7).
const EventWindow = 65536

// ErrModel reports a motion model outside 0 to 15 (7.5).
var ErrModel = errors.New("wire: motion model above 15 (7.5)")

// AppendMotion appends the 19-byte form of m that a v2 Spawn carries
// (7.6): model u8, t0 u32, x0 s16, y0 s16, vx s16, vy s16, amp u16,
// period u16, phase u16.
func AppendMotion(dst []byte, m *wire.Motion) []byte {
	le := binary.LittleEndian
	dst = append(dst, byte(m.Model))
	dst = le.AppendUint32(dst, m.T0)
	for _, v := range [...]uint16{uint16(m.X0), uint16(m.Y0), uint16(m.VX), uint16(m.VY), m.Amp, m.Period, m.Phase} {
		dst = le.AppendUint16(dst, v)
	}
	return dst
}

// parseMotion decodes the 19 bytes of AppendMotion.
func parseMotion(b []byte, m *wire.Motion) {
	le := binary.LittleEndian
	u := func(off int) uint16 { return le.Uint16(b[off:]) }
	*m = wire.Motion{Model: wire.Model(b[0]), T0: le.Uint32(b[1:]),
		X0: int16(u(5)), Y0: int16(u(7)), VX: int16(u(9)), VY: int16(u(11)),
		Amp: u(13), Period: u(15), Phase: u(17)}
}

// AppendEvent appends the bytes of ev as a v2 session carries it (7.6):
// a Spawn with its motion and animation, Stage, Health and Arms as Stage mode
// defines them (7.12; a Stage name cut to MaxStageName bytes), the other
// types as in v1.
func AppendEvent(dst []byte, ev *wire.Event) []byte {
	switch ev.Type {
	case wire.EventStage, wire.EventHealth, wire.EventArms:
		return appendEvent(dst, ev)
	case wire.EventSpawn:
	default:
		return wire.AppendEvent(dst, ev)
	}
	le := binary.LittleEndian
	dst = append(dst, byte(ev.Type))
	dst = le.AppendUint32(dst, ev.Tick)
	dst = le.AppendUint32(dst, ev.ID)
	dst = append(dst, ev.Kind, ev.Owner)
	dst = AppendMotion(dst, &ev.Motion)
	return append(dst, ev.Anim.Frame0, ev.Anim.Ticks, ev.Anim.Count)
}

// ParseEvent decodes one event of a v2 session into ev and checks it
// (7.6): as ParseEvent, except that a Spawn has the v2 layout, that the
// events of Stage mode (Stage, Health, Arms: 7.12) are known, and
// that bytes after the fields an event type defines are ignored, so later
// versions may append fields. A model above 15 or an owner that is neither
// a player nor 255 is an invalid value, as are 7.12's. Only a PlayerJoined
// name and a Stage name allocate.
func ParseEvent(b []byte, ev *wire.Event) error {
	if len(b) < 5 {
		return wire.ErrEventLength
	}
	le := binary.LittleEndian
	typ := wire.EventType(b[0])
	n := len(b)
	switch typ {
	case wire.EventSpawn:
		if n < SpawnSize {
			*ev = wire.Event{Type: typ, Tick: le.Uint32(b[1:])}
			return wire.ErrEventLength
		}
		*ev = wire.Event{Type: typ, Tick: le.Uint32(b[1:]), ID: le.Uint32(b[5:]), Kind: b[9], Owner: b[10]}
		parseMotion(b[11:30], &ev.Motion)
		ev.Anim = wire.Anim{Frame0: b[30], Ticks: b[31], Count: b[32]}
		if ev.Motion.Model > 15 {
			return ErrModel
		}
		if ev.Owner >= wire.MaxPlayers && ev.Owner != wire.NoPlayer {
			return wire.ErrEventValue
		}
		return nil
	case wire.EventDestroy, wire.EventDeath, wire.EventPlayerLeft:
		n = min(n, wire.EventSizes[typ])
	case wire.EventPlayerJoined:
		if n >= 8 {
			n = min(n, 8+int(le.Uint16(b[6:])))
		}
	case wire.EventGameOver:
		if n >= 6 {
			n = min(n, 6+5*int(b[5]))
		}
	case wire.EventStage, wire.EventHealth, wire.EventArms:
		*ev = wire.Event{Type: typ, Tick: le.Uint32(b[1:])}
		return parseEvent(b, ev)
	}
	return wire.ParseEvent(b[:n], ev)
}

// AppendEventFrame appends one v2 frame: id u32, length u8 and the
// event's bytes. A v2 Event payload is a count byte (1 to 255) followed by
// count frames.
func AppendEventFrame(dst []byte, id uint32, data []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, id)
	dst = append(dst, byte(len(data)))
	return append(dst, data...)
}

// ParseEventFrames checks the framing of a v2 Event payload (7.7) and
// appends its frames to frames, whose Data alias p. On error nothing is
// appended and the whole datagram is to be dropped.
func ParseEventFrames(p []byte, frames []wire.EventFrame) ([]wire.EventFrame, error) {
	if len(p) < 1 || p[0] == 0 || !framed(p) {
		return frames, wire.ErrEventFraming
	}
	return appendFrames(p, frames), nil
}

// framed reports whether p, a count byte and count frames of 7.7, is
// well framed: every length 1 or more, no frame past the end, nothing
// after the last one. Its work is bounded by len(p); p is not empty.
func framed(p []byte) bool {
	off := 1
	for i := 0; i < int(p[0]); i++ {
		if len(p)-off < FrameOverhead {
			return false
		}
		n := int(p[off+4])
		if n == 0 || len(p)-off-FrameOverhead < n {
			return false
		}
		off += FrameOverhead + n
	}
	return off == len(p)
}

// appendFrames appends the frames of p, which framed accepted.
func appendFrames(p []byte, frames []wire.EventFrame) []wire.EventFrame {
	count := int(p[0])
	off := 1
	for i := 0; i < count; i++ {
		n := int(p[off+4])
		frames = append(frames, wire.EventFrame{
			ID:   binary.LittleEndian.Uint32(p[off:]),
			Data: p[off+FrameOverhead : off+FrameOverhead+n],
		})
		off += FrameOverhead + n
	}
	return frames
}
