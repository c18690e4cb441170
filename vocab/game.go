package vocab

import "time"

// The clock and the size of a game.
const (
	// TickRate is the simulation's rate, in ticks per second (4.1).
	TickRate = 60
	// TickDuration is the length of one tick.
	TickDuration = time.Second / TickRate
)

// MaxPlayers is the number of players in a game (4.1).
const MaxPlayers = 4

// NoEntity is the network id that names no entity (4.1).
const NoEntity uint32 = 0xFFFFFFFF

// NoPlayer is the player number that names no player (4.1).
const NoPlayer uint8 = 255

// Entity kinds (4.1).
const (
	KindPlayerShip    uint8 = 1
	KindPlayerMissile uint8 = 2
	KindBydosSlave    uint8 = 3
	KindEnemyMissile  uint8 = 4
)

// MakeID returns the network id of an index (24 bits) and a generation.
func MakeID(index uint32, generation uint8) uint32 {
	return index&0xFFFFFF | uint32(generation)<<24
}

// Index returns the 24 low bits of a network id.
func Index(id uint32) uint32 { return id & 0xFFFFFF }

// Generation returns the 8 high bits of a network id.
func Generation(id uint32) uint8 { return uint8(id >> 24) }

// order is the order of entities in a snapshot: by index, then generation.
func order(id uint32) uint32 { return id<<8 | id>>24 }

// Less reports whether network id a comes before b in a snapshot: records
// go by increasing index (4.3), and by generation within one index.
func Less(a, b uint32) bool { return order(a) < order(b) }

// MaxLiveEntities is the most entities a client's world holds at once:
// those spawned and not yet destroyed, of any kind (4.1, 4.4). The
// simulation keeps at most half as many (sim.MaxLiveEntities), so that
// Spawns overtaking Destroys in flight (4.5) never reach the limit.
const MaxLiveEntities = 8192

// Input actions (4.2), one bit each.
const (
	ActionUp    uint8 = 0x01
	ActionDown  uint8 = 0x02
	ActionLeft  uint8 = 0x04
	ActionRight uint8 = 0x08
	ActionFire  uint8 = 0x10
	ActionsMask uint8 = 0x1f // bits 5-7 must be 0
)

// Input actions of Stage mode (7.4): the five above, and the Force.
const (
	ActionForce      uint8 = 0x20 // launch or recall the Force
	ActionsMaskStage uint8 = 0x3f // bits 6-7 must be 0
)

// PlayerState is a player record of a snapshot (4.3).
type PlayerState struct {
	Player  uint8  // 0 to 3
	HasShip bool   // whether the player still has a ship
	Ship    uint32 // network id of the ship, NoEntity without one
	Lives   uint8
	Score   uint32
}

// Player is a player of a game at one tick, as a snapshot shows it: its
// PlayerState and its last invulnerability, start and length in ticks
// (kept after it ends, so the record changes only when a new one
// starts; InvulnTicks 0: never invulnerable).
type Player struct {
	PlayerState
	InvulnStart uint32
	InvulnTicks uint32
}

// Entity is a live entity of a game at one tick, as a snapshot shows it:
// its network id and kind; its motion and animation (7.5), from which
// its position and velocity at any tick follow until they change; and,
// at the tick itself, its position (pixels) and its sprite frame.
type Entity struct {
	ID     uint32
	Kind   uint8
	Frame  uint8
	Anim   Anim
	X, Y   float32
	Motion Motion
}
