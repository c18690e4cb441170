package wire2

import (
	"encoding/binary"
	"rtype/net/wire"
	"unicode/utf8"
)

// Sizes of the events of Stage mode (PROTOCOL.md 7.12).
const (
	// StageEventSize is the size of a Stage event without its name:
	// type, tick u32, what u8, value u32, len u8.
	StageEventSize = 11
	// MaxStageName is the longest name a Stage event carries, in bytes.
	MaxStageName = 64
	// HealthSize is the size of a Health event: type, tick u32, id u32,
	// hp u16, max u16.
	HealthSize = 13
	// ArmsSize is the size of an Arms event: type, tick u32, player u8,
	// force u8, laser u8, speed u8, bits u8, force_at u8.
	ArmsSize = 11
)

// Limits of the values of an Arms event (7.12).
const (
	MaxForceLevel = 3 // Arms.Force: 0 (no Force) to 3
	MaxSpeedUps   = 3 // Arms.Speed
	MaxBits       = 2 // Arms.Bits
)

// appendEvent appends a Stage mode event (Stage, Health, Arms). A Stage
// event's name is cut to MaxStageName bytes at a rune boundary.
func appendEvent(dst []byte, ev *wire.Event) []byte {
	le := binary.LittleEndian
	dst = append(dst, byte(ev.Type))
	dst = le.AppendUint32(dst, ev.Tick)
	switch ev.Type {
	case wire.EventStage:
		name := wire.CutString(ev.Name, MaxStageName)
		dst = le.AppendUint32(append(dst, ev.What), ev.Value)
		dst = append(dst, byte(len(name)))
		dst = append(dst, name...)
	case wire.EventHealth:
		dst = le.AppendUint32(dst, ev.ID)
		dst = le.AppendUint16(dst, ev.HP)
		dst = le.AppendUint16(dst, ev.MaxHP)
	case wire.EventArms:
		a := &ev.Arms
		dst = append(dst, ev.Player, a.Force, a.Laser, a.Speed, a.Bits, a.ForceAt)
	}
	return dst
}

// parseEvent decodes a Stage mode event of a v2 session (7.12) into ev, whose
// Type and Tick are set; bytes after its fields are ignored (7.6). It
// returns ErrEventLength when b is shorter than the event needs and
// ErrEventValue for an invalid value (validStage, validArms); a Health
// whose hp is above its max, or whose max is 0, is invalid. Only a Stage
// event's non-empty name allocates.
func parseEvent(b []byte, ev *wire.Event) error {
	le := binary.LittleEndian
	switch ev.Type {
	case wire.EventStage:
		if len(b) < StageEventSize || len(b) < StageEventSize+int(b[10]) {
			return wire.ErrEventLength
		}
		ev.What, ev.Value = b[5], le.Uint32(b[6:])
		name := b[StageEventSize : StageEventSize+int(b[10])]
		if len(name) > MaxStageName || !utf8.Valid(name) || !validStage(ev.What, ev.Value, len(name)) {
			return wire.ErrEventValue
		}
		if len(name) > 0 {
			ev.Name = string(name)
		}
	case wire.EventHealth:
		if len(b) < HealthSize {
			return wire.ErrEventLength
		}
		ev.ID, ev.HP, ev.MaxHP = le.Uint32(b[5:]), le.Uint16(b[9:]), le.Uint16(b[11:])
		if ev.MaxHP == 0 || ev.HP > ev.MaxHP {
			return wire.ErrEventValue
		}
	case wire.EventArms:
		if len(b) < ArmsSize {
			return wire.ErrEventLength
		}
		ev.Player = b[5]
		ev.Arms = wire.Arms{Force: b[6], Laser: b[7], Speed: b[8], Bits: b[9], ForceAt: b[10]}
		if ev.Player >= wire.MaxPlayers || !validArms(&ev.Arms) {
			return wire.ErrEventValue
		}
	}
	return nil
}

// validStage reports whether a Stage event's what, value and name length
// are valid (7.12): what is one of StageIntro to StageContinue; the loop
// of an Intro or a Clear is at least 1; a Marker has a name; the player of
// a Continue is 0 to 3.
func validStage(what uint8, value uint32, nameLen int) bool {
	switch what {
	case wire.StageIntro, wire.StageClear:
		return value >= 1
	case wire.StageMarker, wire.StageFile:
		return nameLen > 0
	case wire.StageContinue:
		return value < wire.MaxPlayers
	case wire.StageWarning, wire.StageMusic, wire.StageBoss:
		return true
	}
	return false
}

// validArms reports whether every field of a is within its range (7.12).
func validArms(a *wire.Arms) bool {
	return a.Force <= MaxForceLevel && a.Laser <= wire.LaserYellow && a.Speed <= MaxSpeedUps &&
		a.Bits <= MaxBits && a.ForceAt <= wire.ForceLoose
}
