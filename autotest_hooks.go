//go:build autotest && !js

// The test hooks, in the game built with -tags autotest only (the tests'
// build, main_test.go): -autotest-input SPEC holds actions during play
// (e.g. "right+fire" for 3 s, "right+fire:forever"), -autotest-screenshot
// PATH saves a PNG of the screen -autotest-screenshot-after after the play
// starts (with -autotest-screenshot-players N, once a frame shows N
// players and the ship followed), -autotest-quit-after DURATION ends the
// game, -autotest-lobby STEPS takes steps in the menus and
// -autotest-quick-death makes hosted games end in seconds. The game
// players get (go build, ./build.sh release) has none of these flags.

package main

import (
	"flag"
	"time"

	"rtype/game"
	"rtype/game/core"
)

// autotestBuild says whether this build has the test hooks.
const autotestBuild = true

// testHooks defines the test hooks' flags in fs; the function it returns
// sets them in the options, once fs is parsed.
func testHooks(fs *flag.FlagSet) func(*game.Options) error {
	var (
		shot       = fs.String("autotest-screenshot", "", "test hook: save a PNG of the screen to `PATH`")
		shotAfter  = fs.Duration("autotest-screenshot-after", 4*time.Second, "test hook: how long after the play starts the screenshot is taken")
		shotWhen   = fs.Int("autotest-screenshot-players", 0, "test hook: past -autotest-screenshot-after, the screenshot waits for a frame with `N` players in the HUD and the ship followed drawn solid (0: no wait)")
		quitAfter  = fs.Duration("autotest-quit-after", 0, "test hook: quit after this `duration` (0: never)")
		lobbyHook  = fs.String("autotest-lobby", "", "test hook: `STEPS` taken in the menus, e.g. host,members:2,bots:2,ready,again,leaderboard (see game/autotest_lobby.go)")
		quickDeath = fs.Bool("autotest-quick-death", false, "test hook: hosted games' idle ships die at once (one life), so a game is over in seconds")
		input      = fs.String("autotest-input", "", "test hook: actions held during play, e.g. right+fire (3 s) or right+fire:forever,up:1s")
	)
	return func(opt *game.Options) error {
		opt.Screenshot, opt.ScreenshotAfter, opt.ScreenshotPlayers = *shot, *shotAfter, *shotWhen
		opt.QuitAfter, opt.LobbyScript, opt.QuickDeath = *quitAfter, *lobbyHook, *quickDeath
		if *input != "" {
			var err error
			if opt.InputScript, err = core.ParseInputScript(*input); err != nil {
				return err
			}
		}
		return nil
	}
}
