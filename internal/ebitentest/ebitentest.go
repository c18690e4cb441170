// Package ebitentest runs a package's tests inside Ebitengine's game loop,
// where images can be drawn and their pixels read: the package's TestMain
// calls Main. It links Ebitengine, and needs a display (xvfb-run): only
// the tests of the packages that draw (render, game) use it.
package ebitentest

import (
	"os"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"
)

// testGame runs the tests in its first Update, then ends the game.
type testGame struct {
	m    *testing.M
	w, h int
	code int
}

func (g *testGame) Update() error {
	g.code = g.m.Run()
	return ebiten.Termination
}
func (*testGame) Draw(*ebiten.Image)           {}
func (g *testGame) Layout(int, int) (int, int) { return g.w, g.h }

// Main runs m's tests in the first Update of a game whose screen is w x h
// (in a 320 x 180 window), and exits with their status.
func Main(m *testing.M, w, h int) {
	g := &testGame{m: m, w: w, h: h}
	ebiten.SetWindowSize(320, 180)
	if err := ebiten.RunGame(g); err != nil {
		panic(err)
	}
	os.Exit(g.code)
}
