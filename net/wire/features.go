package wire

// Features is what a session does beyond protocol 1, negotiated once, at
// login, from its protocol version and revision (NewFeatures) and kept
// with the session by both ends: code asks it, never the version or the
// revision. A v1 session has the zero Features; a v2 session of revision
// 4 has every one. A later revision adds a field here, and NewFeatures
// fills it.
type Features struct {
	// Motions: every entity moves by a motion (7.5), which a Spawn and a
	// snapshot's records carry (7.6, 7.8).
	Motions bool
	// Rules: LoginAccepted carries the rules a client predicts its ship
	// with (LoginExt).
	Rules bool
	// Modes: the LoginRequest asks for a game mode and LoginAccepted
	// says the game's; Stage games are played besides Classic ones.
	Modes bool
	// Chat: the session sends Chat and receives ChatMessage and
	// ChatRefused.
	Chat bool
	// Rooms: the session may log in to the lobby (LoginLobby) and list,
	// create and join rooms.
	Rooms bool
	// Scores: the session is told its game's result and may ask for the
	// leaderboard.
	Scores bool
	// Spectate: the session may log in to watch a game (LoginSpectate),
	// and a player is told who watches its game (Spectators).
	Spectate bool
	// Fleet: the session may be redirected to another server of a fleet
	// for a room (Redirect).
	Fleet bool
	// EventsAtSnapshots: the server sends the session's events at its
	// game's snapshot ticks only, those of the ticks since together, and
	// the client acknowledges events with its Input when it sends one
	// at every tick.
	EventsAtSnapshots bool
	// EventsInSnapshot: the session's Snapshot datagrams end with an
	// event tail that carries its due events.
	EventsInSnapshot bool
}

// NewFeatures returns the features of a session of protocol version and,
// in v2, revision: the zero Features in v1; every feature in v2, whose
// revision wire2.ParseMessage has checked to be Revision or more.
func NewFeatures(version, revision uint8) Features {
	if version != Version2 || revision < Revision {
		return Features{}
	}
	return Features{Motions: true, Rules: true, Modes: true, Chat: true, Rooms: true, Scores: true, Spectate: true, Fleet: true,
		EventsAtSnapshots: true, EventsInSnapshot: true}
}

// Supported reports whether v is a protocol version this package speaks,
// 1 or 2: a configuration or a file naming another is refused.
func Supported(v uint8) bool { return v == Version || v == Version2 }
