package wire

import "strconv"

// Game modes (7.12): in LoginRequest and LoginAccepted of v2 sessions.
const (
	// ModeAny lets the server choose (its default mode).
	ModeAny uint8 = 0
	// ModeClassic is the game of Part I, for v1 and v2 sessions.
	ModeClassic uint8 = 1
	// ModeStage is the stage with the Force, the wave cannon and bosses,
	// for v2 sessions only (Features.Modes).
	ModeStage uint8 = 2
)

// ModeName names a game mode for logs and screens: "any", "classic",
// "stage", or "mode N" for a mode this version does not know.
func ModeName(m uint8) string {
	switch m {
	case ModeAny:
		return "any"
	case ModeClassic:
		return "classic"
	case ModeStage:
		return "stage"
	}
	return "mode " + strconv.Itoa(int(m))
}
