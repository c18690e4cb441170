package wire

import "encoding/binary"

// Room message types of v2 (PROTOCOL.md 7.14). Only a lobby session
// (LoginRequest flag LoginLobby) sends or receives them.
const (
	// MsgRoomList asks for the public rooms, client → server: no body.
	MsgRoomList MsgType = 0x08
	// MsgRoomCreate creates a room and joins it as its owner, client →
	// server: settings.
	MsgRoomCreate MsgType = 0x09
	// MsgRoomJoin joins a room by its code, client → server: code.
	MsgRoomJoin MsgType = 0x0A
	// MsgRoomQuick joins the best public room of a mode, or creates one,
	// client → server: mode.
	MsgRoomQuick MsgType = 0x0B
	// MsgRoomReady says whether the member is ready, client → server:
	// ready.
	MsgRoomReady MsgType = 0x0C
	// MsgRoomStart starts the room's game (owner), client → server.
	MsgRoomStart MsgType = 0x0D
	// MsgRoomKick puts a member out of the room (owner), client →
	// server: player.
	MsgRoomKick MsgType = 0x0E
	// MsgRoomSettings changes the room's settings, locking included
	// (owner), client → server: settings.
	MsgRoomSettings MsgType = 0x0F
	// MsgRoomBot adds or removes a bot (owner), client → server: op,
	// player.
	MsgRoomBot MsgType = 0x10
	// MsgRoomAgain brings the room back to its lobby after a game over,
	// client → server.
	MsgRoomAgain MsgType = 0x11
	// MsgRoomLeave leaves the room, client → server.
	MsgRoomLeave MsgType = 0x12
	// MsgRoomListing lists the public rooms, server → client.
	MsgRoomListing MsgType = 0x13
	// MsgRoomState is the state of the client's room, server → client.
	MsgRoomState MsgType = 0x14
	// MsgRoomRefused refuses the client's last room request, server →
	// client: reason, wait.
	MsgRoomRefused MsgType = 0x15
)

// LoginLobby is bit 0 of the v2 LoginRequest's flags (7.14): the
// session starts in no game and uses rooms.
const LoginLobby uint8 = 1

// Room limits (7.14).
const (
	// RoomCodeLen is the length of a room code.
	RoomCodeLen = 6
	// RoomCodeAlphabet holds the characters of room codes: digits and
	// capital letters without the confusable 0, O, 1, I and L.
	RoomCodeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
	// MaxListedRooms is the most rooms a RoomListing carries.
	MaxListedRooms = 32
	// roomSettingsSize is the size of settings in a message.
	roomSettingsSize = 5
	// roomInfoSize is the size of one room of a RoomListing.
	RoomInfoSize = RoomCodeLen + 6
	// roomStateHead is the size of RoomState's body before its members.
	roomStateHead = RoomCodeLen + 3 + roomSettingsSize + 1
)

// Room settings flags (7.14).
const (
	RoomPublic   uint8 = 1 << 0 // listed by RoomListing, taken by quick join
	RoomJoinLate uint8 = 1 << 1 // a player may join while the game runs
	RoomLocked   uint8 = 1 << 2 // nobody may join
	roomFlags          = RoomPublic | RoomJoinLate | RoomLocked
)

// Room states (7.14).
const (
	RoomLobby   uint8 = 1 // waiting for players to be ready
	RoomPlaying uint8 = 2 // its game runs
	RoomOver    uint8 = 3 // its game is over; play again returns to the lobby
)

// Difficulties (7.14).
const (
	DifficultyEasy   uint8 = 0
	DifficultyNormal uint8 = 1
	DifficultyHard   uint8 = 2
)

// Room member flags (7.14).
const (
	MemberReady uint8 = 1 << 0
	MemberBot   uint8 = 1 << 1
)

// RoomRefused reasons (7.14). A client shows an unknown reason as a
// generic refusal.
const (
	RoomNoSuchRoom  uint8 = 1  // no room has that code
	RoomFull        uint8 = 2  // every player slot is taken
	RoomIsLocked    uint8 = 3  // the owner locked it
	RoomInProgress  uint8 = 4  // its game runs and join in progress is off
	RoomRateLimited uint8 = 5  // too many wrong codes; Wait says for how long
	RoomNotOwner    uint8 = 6  // only the owner may do that
	RoomInvalid     uint8 = 7  // a setting out of range, or not now
	RoomTooMany     uint8 = 8  // the server has as many rooms as it takes
	RoomNameTaken   uint8 = 9  // a member has that name
	RoomNotInRoom   uint8 = 10 // the request needs a room
	RoomKicked      uint8 = 11 // the owner put the client out
	RoomInRoom      uint8 = 12 // leave the room first
)

// RoomReason returns a refusal's reason for people.
func RoomReason(reason uint8) string {
	switch reason {
	case RoomNoSuchRoom:
		return "no room has that code"
	case RoomFull:
		return "the room is full"
	case RoomIsLocked:
		return "the room is locked"
	case RoomInProgress:
		return "the game has started and the room takes nobody in"
	case RoomRateLimited:
		return "too many wrong codes: wait"
	case RoomNotOwner:
		return "only the room's owner may do that"
	case RoomInvalid:
		return "not possible now"
	case RoomTooMany:
		return "the server has no room for another room"
	case RoomNameTaken:
		return "a player of the room has your name"
	case RoomNotInRoom:
		return "you are in no room"
	case RoomKicked:
		return "the owner put you out of the room"
	case RoomInRoom:
		return "leave your room first"
	}
	return "refused by the server"
}

// RoomCode is a room's code: RoomCodeLen characters of RoomCodeAlphabet.
type RoomCode [RoomCodeLen]byte

// String returns the code as text.
func (c RoomCode) String() string { return string(c[:]) }

// Valid reports whether every character of c is in RoomCodeAlphabet.
func (c RoomCode) Valid() bool {
	for _, b := range c {
		if !codeChar(b) {
			return false
		}
	}
	return true
}

func codeChar(b byte) bool {
	for i := range len(RoomCodeAlphabet) {
		if RoomCodeAlphabet[i] == b {
			return true
		}
	}
	return false
}

// ParseRoomCode reads a code as a player types it: spaces and dashes are
// ignored and letters may be small. It reports false unless exactly
// RoomCodeLen characters of RoomCodeAlphabet are left.
func ParseRoomCode(s string) (RoomCode, bool) {
	var c RoomCode
	n := 0
	for i := range len(s) {
		b := s[i]
		switch {
		case b == ' ' || b == '-':
			continue
		case b >= 'a' && b <= 'z':
			b -= 'a' - 'A'
		}
		if n == RoomCodeLen || !codeChar(b) {
			return RoomCode{}, false
		}
		c[n] = b
		n++
	}
	return c, n == RoomCodeLen
}

// RoomSettings are a room's settings (7.14).
type RoomSettings struct {
	Mode       uint8 // ModeClassic or ModeStage
	Difficulty uint8 // DifficultyEasy to DifficultyHard
	MaxPlayers uint8 // 1 to MaxPlayers, bots included
	Flags      uint8 // RoomPublic, RoomJoinLate, RoomLocked
	// Stage is, in a Stage room, the number of the stage of the server's
	// campaign its games start at, 1 for the first; 0 is the server's own
	// first stage (RoomCreate, RoomSettings: the server answers with its
	// number when its campaign has it). In a Classic room, 0.
	Stage uint8
}

// Valid reports whether every setting is in range, as far as the codec
// knows: whether the server's campaign has the stage is the server's to
// check.
func (s RoomSettings) Valid() bool {
	return (s.Mode == ModeClassic && s.Stage == 0 || s.Mode == ModeStage) && s.Difficulty <= DifficultyHard &&
		s.MaxPlayers >= 1 && s.MaxPlayers <= MaxPlayers && s.Flags&^roomFlags == 0
}

// RoomInfo is a public room in a RoomListing.
type RoomInfo struct {
	Code    RoomCode
	Mode    uint8
	State   uint8
	Players uint8 // members, bots included
	Max     uint8 // its MaxPlayers
	Flags   uint8 // its settings' flags
	Stage   uint8 // its settings' stage
}

// RoomMember is a member of a room in a RoomState.
type RoomMember struct {
	Player uint8  // its player number, 0 to 3
	Colour uint8  // its ship's colour, 0 to 3 (the reference server: the player number)
	Flags  uint8  // MemberReady, MemberBot
	Name   string // as the server accepted it, at most MaxChatNameBytes bytes
}

// Room is any room message of 7.14, decoded: Type says which fields
// hold. It has no slices, so that decoding allocates only names.
type Room struct {
	Type MsgType

	// Requests.
	Settings RoomSettings // Create, Settings; State
	Code     RoomCode     // Join; State
	Mode     uint8        // Quick
	Value    uint8        // Ready: 1 ready, 0 not; Kick: the player; Bot: 1 add, 0 remove
	Player   uint8        // Bot: the bot to remove, or NoPlayer for any

	// RoomListing.
	Count uint8 // rooms (Listing) or members (State)
	Rooms [MaxListedRooms]RoomInfo

	// RoomState.
	State   uint8
	Owner   uint8 // the owner's player number
	You     uint8 // the receiver's player number
	Members [MaxPlayers]RoomMember

	// RoomRefused.
	Reason uint8
	Wait   uint16 // RateLimited: milliseconds until a join is taken again
}

// IsRoomMessage reports whether t is a room message type of 7.14.
func IsRoomMessage(t MsgType) bool { return t >= MsgRoomList && t <= MsgRoomRefused }

// AppendRoom appends r as one TCP frame of a v2 session (7.14). Counts
// beyond their bounds are cut to them and names to MaxChatNameBytes.
func AppendRoom(dst []byte, r *Room) []byte {
	le := binary.LittleEndian
	at := len(dst)
	dst = append(dst, 0, 0, byte(r.Type))
	switch r.Type {
	case MsgRoomCreate, MsgRoomSettings:
		dst = appendSettings(dst, r.Settings)
	case MsgRoomJoin:
		dst = append(dst, r.Code[:]...)
	case MsgRoomQuick:
		dst = append(dst, r.Mode)
	case MsgRoomReady, MsgRoomKick:
		dst = append(dst, r.Value)
	case MsgRoomBot:
		dst = append(dst, r.Value, r.Player)
	case MsgRoomListing:
		n := min(int(r.Count), MaxListedRooms)
		dst = append(dst, uint8(n))
		for i := range n {
			ri := &r.Rooms[i]
			dst = append(dst, ri.Code[:]...)
			dst = append(dst, ri.Mode, ri.State, ri.Players, ri.Max, ri.Flags, ri.Stage)
		}
	case MsgRoomState:
		n := min(int(r.Count), MaxPlayers)
		dst = append(dst, r.Code[:]...)
		dst = append(dst, r.State, r.Owner, r.You)
		dst = appendSettings(dst, r.Settings)
		dst = append(dst, uint8(n))
		for i := range n {
			m := &r.Members[i]
			dst = append(dst, m.Player, m.Colour, m.Flags)
			dst = AppendStr(dst, CutString(m.Name, MaxChatNameBytes))
		}
	case MsgRoomRefused:
		dst = le.AppendUint16(append(dst, r.Reason), r.Wait)
	}
	le.PutUint16(dst[at:], uint16(len(dst)-at-2))
	return dst
}

func appendSettings(dst []byte, s RoomSettings) []byte {
	return append(dst, s.Mode, s.Difficulty, s.MaxPlayers, s.Flags, s.Stage)
}

// ParseRoom decodes the type and body of a room frame (7.14) into r.
// Bytes after the fields are ignored (7.1). A body too short for its
// type, a count past its bound, a name that is not UTF-8 or longer than
// MaxChatNameBytes, a player number above 3 in a RoomState, a state
// outside 1 to 3 or a reason 0 is ErrMessageBody; a type that is not a room message is
// ErrUnknownMessage. Settings and codes are not checked here: the server
// answers a bad one with RoomRefused, a client treats it as its peer's
// fault (RoomSettings.Valid, RoomCode.Valid).
func ParseRoom(b []byte, r *Room) error {
	*r = Room{}
	if len(b) < 1 || len(b) > MaxFrame {
		return ErrFrameLength
	}
	r.Type = MsgType(b[0])
	body := b[1:]
	switch r.Type {
	case MsgRoomList, MsgRoomStart, MsgRoomAgain, MsgRoomLeave:
	case MsgRoomCreate, MsgRoomSettings:
		if len(body) < roomSettingsSize {
			return ErrMessageBody
		}
		r.Settings = settingsAt(body)
	case MsgRoomJoin:
		if len(body) < RoomCodeLen {
			return ErrMessageBody
		}
		copy(r.Code[:], body)
	case MsgRoomQuick:
		if len(body) < 1 {
			return ErrMessageBody
		}
		r.Mode = body[0]
	case MsgRoomReady, MsgRoomKick:
		if len(body) < 1 {
			return ErrMessageBody
		}
		r.Value = body[0]
	case MsgRoomBot:
		if len(body) < 2 {
			return ErrMessageBody
		}
		r.Value, r.Player = body[0], body[1]
	case MsgRoomListing:
		if len(body) < 1 || body[0] > MaxListedRooms || len(body) < 1+int(body[0])*RoomInfoSize {
			return ErrMessageBody
		}
		r.Count = body[0]
		for i := range int(r.Count) {
			e := body[1+i*RoomInfoSize:]
			ri := &r.Rooms[i]
			copy(ri.Code[:], e)
			x := e[RoomCodeLen:]
			ri.Mode, ri.State, ri.Players, ri.Max, ri.Flags, ri.Stage = x[0], x[1], x[2], x[3], x[4], x[5]
			if ri.State < RoomLobby || ri.State > RoomOver {
				return ErrMessageBody
			}
		}
	case MsgRoomState:
		if len(body) < roomStateHead {
			return ErrMessageBody
		}
		copy(r.Code[:], body)
		x := body[RoomCodeLen:]
		r.State, r.Owner, r.You = x[0], x[1], x[2]
		r.Settings = settingsAt(x[3:])
		r.Count = x[3+roomSettingsSize]
		if r.State < RoomLobby || r.State > RoomOver || r.Count > MaxPlayers ||
			r.Owner >= MaxPlayers || r.You >= MaxPlayers {
			return ErrMessageBody
		}
		rest := body[roomStateHead:]
		for i := range int(r.Count) {
			if len(rest) < 3 {
				return ErrMessageBody
			}
			m := &r.Members[i]
			m.Player, m.Colour, m.Flags = rest[0], rest[1], rest[2]
			name, more, ok := strAt(rest[3:], MaxChatNameBytes)
			if !ok || m.Player >= MaxPlayers {
				return ErrMessageBody
			}
			m.Name, rest = string(name), more
		}
	case MsgRoomRefused:
		if len(body) < 3 || body[0] == 0 {
			return ErrMessageBody
		}
		r.Reason, r.Wait = body[0], binary.LittleEndian.Uint16(body[1:])
	default:
		return ErrUnknownMessage
	}
	return nil
}

func settingsAt(b []byte) RoomSettings {
	return RoomSettings{Mode: b[0], Difficulty: b[1], MaxPlayers: b[2], Flags: b[3], Stage: b[4]}
}
