// Command rtype is the game: host a game on this machine or join one, and
// fly with up to three friends.
//
//	rtype                      the title menu
//	rtype -host                host a game at once (port 4242 or the next free)
//	rtype -join HOST[:PORT]    join a game at once
//	rtype -protocol 1|2        join with that protocol version only
//	                           (default auto: 2, or 1 with a v1-only server)
//
// Test hooks: -autotest-input SPEC holds actions during play (e.g.
// "right+fire" for 3 s, "right+fire:forever"), -autotest-screenshot PATH
// saves a PNG of the screen -autotest-screenshot-after after the play
// starts, -autotest-quit-after DURATION ends the game.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game"
	"rtype/game/core"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "rtype:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		host       = flag.Bool("host", false, "host a game at once (the server runs inside the game)")
		join       = flag.String("join", "", "join the game at `ADDR` (host or host:port) at once")
		name       = flag.String("name", "", "your pilot `NAME` (3 to 20 letters, digits, spaces, _ or -)")
		port       = flag.Int("port", wire.DefaultPort, "the `port` to host on (TCP and UDP; if taken, the next free one; 0 for any)")
		mute       = flag.Bool("mute", false, "no sound: never open an audio device")
		fullscreen = flag.Bool("fullscreen", false, "start fullscreen")
		config     = flag.String("config", "", "the settings `file` (default: the user's config directory, rtype/settings.json)")
		debug      = flag.Bool("debug", false, "debug logs")
		protocol   = flag.String("protocol", "auto", "the protocol `version` to join with: auto (2, or 1 with a v1-only server), 1 or 2")
		shot       = flag.String("autotest-screenshot", "", "test hook: save a PNG of the screen to `PATH`")
		shotAfter  = flag.Duration("autotest-screenshot-after", 4*time.Second, "test hook: how long after the play starts the screenshot is taken")
		quitAfter  = flag.Duration("autotest-quit-after", 0, "test hook: quit after this `duration` (0: never)")
		input      = flag.String("autotest-input", "", "test hook: actions held during play, e.g. right+fire (3 s) or right+fire:forever,up:1s")
	)
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (see -help)", flag.Args())
	}
	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	if *host && *join != "" {
		return errors.New("-host and -join cannot go together")
	}
	version, err := client.ParseVersion(*protocol)
	if err != nil {
		return fmt.Errorf("-protocol: %w", err)
	}
	var script []core.InputStep
	if *input != "" {
		var err error
		if script, err = core.ParseInputScript(*input); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	g, err := game.New(game.Options{
		Host: *host, Join: *join, Name: *name, Port: *port,
		Mute: *mute, Fullscreen: *fullscreen, SettingsPath: *config, Protocol: version,
		Screenshot: *shot, ScreenshotAfter: *shotAfter, QuitAfter: *quitAfter,
		InputScript: script, Context: ctx, Logger: log,
	})
	if err != nil {
		return err
	}
	ebiten.SetWindowTitle("R-Type")
	ebiten.SetWindowSize(render.Width, render.Height)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetWindowClosingHandled(true)
	ebiten.SetRunnableOnUnfocused(true)
	if err := ebiten.RunGame(g); err != nil && !errors.Is(err, ebiten.Termination) {
		return err
	}
	return nil
}
