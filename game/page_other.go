//go:build !js

package game

// publish does nothing outside the browser (see page_js.go).
func (g *Game) publish() {}

// joinHint is what the join screen says of its field.
const joinHint = "Server address (the host's IP or name, with :port if not 4242), or a room code"

// browserTip is errorTip's advice in the browser: none here.
func browserTip(error) (string, bool) { return "", false }

// soundOnGesture: outside the browser the sound starts with the game.
const soundOnGesture = false

// gestureSound does nothing outside the browser (see page_js.go).
func (g *Game) gestureSound() {}
