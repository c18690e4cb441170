//go:build !autotest

package game

import (
	"errors"

	"github.com/hajimehoshi/ebiten/v2"
)

// The game players get: no -autotest-* flag sets the hooks' options
// (main's autotest_hooks.go, -tags autotest), and their work is left out
// (autotest_drive.go).

// lobbyScript takes no steps: they are the tests' build's.
func lobbyScript(string) ([]lobbyStep, error) {
	return nil, errors.New("-autotest-lobby: a hook of the tests' build (-tags autotest)")
}

// driveLobby takes no -autotest-lobby step.
func (g *Game) driveLobby() {}

// saveScreenshot saves no screenshot.
func (g *Game) saveScreenshot(*ebiten.Image) {}
