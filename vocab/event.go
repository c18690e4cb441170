package vocab

// EventType is the type of an event (4.4).
type EventType uint8

// Event types.
const (
	EventSpawn        EventType = 1
	EventDestroy      EventType = 2
	EventDeath        EventType = 3
	EventPlayerJoined EventType = 4
	EventPlayerLeft   EventType = 5
	EventGameOver     EventType = 6
	// Stage mode (7.12).
	EventStage  EventType = 7
	EventHealth EventType = 8
	EventArms   EventType = 9
)

// String returns the event type's name.
func (t EventType) String() string {
	switch t {
	case EventSpawn:
		return "Spawn"
	case EventDestroy:
		return "Destroy"
	case EventDeath:
		return "Death"
	case EventPlayerJoined:
		return "PlayerJoined"
	case EventPlayerLeft:
		return "PlayerLeft"
	case EventGameOver:
		return "GameOver"
	case EventStage:
		return "Stage"
	case EventHealth:
		return "Health"
	case EventArms:
		return "Arms"
	}
	return "Reserved"
}

// Destroy reasons (4.4). A receiver treats an unknown reason as Killed.
const (
	DestroyDespawned  uint8 = 0
	DestroyKilled     uint8 = 1
	DestroyConsumed   uint8 = 2
	DestroyPlayerLeft uint8 = 3
)

// PlayerLeft reasons (4.4). A receiver treats an unknown reason as Left.
const (
	LeftLeft     uint8 = 0
	LeftTimedOut uint8 = 1
	LeftKicked   uint8 = 2
)

// Score is one player's final score in GameOver.
type Score struct {
	Player uint8
	Score  uint32
}

// Event is any event of 4.4. Which fields are meaningful depends on Type:
//
//	Spawn:        ID, Kind, X, Y, VX, VY, Owner
//	Destroy:      ID, Reason, X, Y
//	Death:        Player, Lives, X, Y
//	PlayerJoined: Player, Name
//	PlayerLeft:   Player, Reason
//	GameOver:     Scores[:NumScores]
//	Stage:        What, Value, Name
//	Health:       ID, HP, MaxHP
//	Arms:         Player, Arms
//
// A v2 Spawn (7.6) carries Motion and Anim instead of X, Y, VX, VY; the
// simulation fills both, so a server encodes it in either version.
type Event struct {
	Type          EventType
	Tick          uint32
	ID            uint32
	Kind          uint8
	X, Y, VX, VY  float32
	Owner, Player uint8
	Reason, Lives uint8
	Name          string
	NumScores     int
	Scores        [MaxPlayers]Score
	Motion        Motion // v2 Spawn
	Anim          Anim   // v2 Spawn
	What          uint8  // Stage
	Value         uint32 // Stage
	HP, MaxHP     uint16 // Health
	Arms          Arms   // Arms
}
