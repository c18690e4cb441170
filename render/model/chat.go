package model

// ChatKind is what a line of the chat is.
type ChatKind uint8

// Kinds of chat lines.
const (
	// ChatPlayer is a player's line: Name in the player's colour.
	ChatPlayer ChatKind = iota
	// ChatServer is an announcement of the server, highlighted.
	ChatServer
	// ChatNotice is the client's own notice (a line refused, no chat on
	// this server).
	ChatNotice
)

// ChatLine is a line of the chat history to draw.
type ChatLine struct {
	Kind   ChatKind
	Player uint8 // ChatPlayer: the sender, 0 to 3
	Name   string
	Text   string
	// Alpha is its opacity: 1, fading to 0 as it gets old.
	Alpha float64
}

// Chat history on screen (PROTOCOL.md 7.13's lines, as the play shows
// them).
const (
	// ChatShown is the most lines shown.
	ChatShown = 6
	// ChatLife is how long, in seconds, a line shows while the chat box
	// is closed; it fades out over the last ChatFade of them.
	ChatLife = 12.0
	ChatFade = 2.0
)
