// Package game is the game client: the scenes (title, name entry, join,
// connecting, hosting, play, game over, settings, errors), the input, the
// session with a server (and the in-process server when hosting) and the
// sounds. What the play shows comes from package game/view (headless),
// drawing goes through package render; pure logic lives in game/core.
//
// As in Ebitengine's examples/blocks, Game holds a current Scene with
// Update and Draw; state changes only in Update, Draw only draws (the play
// asks the view for the world at the drawn frame's own time).
package game

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"rtype/game/core"
	"rtype/game/settings"
	"rtype/game/sound"
	"rtype/internal/testrules"
	"rtype/internal/version"
	"rtype/net/client"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/render"
)

// Options are the command line's choices.
type Options struct {
	// Host starts hosting at once; Join joins that address at once.
	Host bool
	Join string
	// Spectate watches a game at once (PROTOCOL.md 7.17): a server's
	// address (its busiest game), a room's CODE on the server last
	// joined, or CODE@ADDR.
	Spectate string
	// Name is the player's name for this run ("" uses the saved one).
	Name string
	// Port is the hosting port (tried first, then the next ten, then any).
	Port int
	// Mute never opens an audio device, whatever the settings say.
	Mute bool
	// Fullscreen starts fullscreen.
	Fullscreen bool
	// Protocol is the protocol version the game speaks when it joins
	// (client.Config.Version): 0 (auto, the default) tries version 2 and
	// falls back to 1 with a v1-only server; 1 or 2 insists on that one.
	Protocol uint8
	// Mode is the game mode: of the game hosted by Host (wire.ModeStage
	// when 0) and asked for when joining (when 0, the settings' JoinMode).
	Mode uint8
	// Stage is the stage hosted Stage games play: a built-in stage's name
	// or a stage file ("" the default stage); Warp starts them later:
	// seconds ("90") or a marker ("boss").
	Stage, Warp string
	// ReplayDir is where the games played are recorded (net/replay), up
	// to the settings' cap; "" records nothing. Replay is a recording to
	// show at once (ReplaySpeed its speed, 1 when 0; ReplayFollow the
	// player to follow, the recording player when negative).
	ReplayDir    string
	Replay       string
	ReplaySpeed  float64
	ReplayFollow int
	// ScoresDB is the leaderboard file of hosted games (HostConfig.DB);
	// "" keeps no scores.
	ScoresDB string
	// SettingsPath is the settings file ("" for the default place).
	SettingsPath string
	// Discovery is where the join screen sends LAN discovery queries
	// (PROTOCOL.md section 8), e.g. discovery.DefaultBroadcast; "" sends
	// none. DiscoveryListen is the UDP address a hosted game answers
	// them on, e.g. ":4243"; "" answers none.
	Discovery, DiscoveryListen string
	// WebTransport is the UDP address a hosted game serves browsers on
	// (PROTOCOL.md Part IV), e.g. ":4244"; "" serves none.
	WebTransport string
	// Rendezvous is the rendezvous (host:port) of this run, before the
	// settings': a hosted game registers its room codes there and a code
	// typed alone is looked up there (PROTOCOL.md Part V); "off" none, ""
	// the settings'. PortMap is a hosted game's port mapping with it
	// (HostConfig.PortMap).
	Rendezvous, PortMap string
	// Autotest hooks: a PNG of the screen ScreenshotAfter after the play
	// starts (or at the quit, if it never does); quit after QuitAfter from
	// the start; actions held by a script during play.
	Screenshot      string
	ScreenshotAfter time.Duration
	// ScreenshotPlayers, above 0, holds the screenshot of a play or a
	// replay, past ScreenshotAfter, until a frame drawn shows that many
	// players in the HUD and the ship followed drawn solid (not blinking,
	// no Stage banner over the play): what a test then checks in the
	// picture, however long a loaded machine takes to get there. 0 takes
	// it at ScreenshotAfter.
	ScreenshotPlayers int
	QuitAfter         time.Duration
	InputScript       []core.InputStep
	// LobbyScript is the -autotest-lobby hook: steps taken in the menus
	// (autotest_lobby.go); QuickDeath hosts games whose idle ships die at
	// once (testrules.QuickDeath), so that a test plays to a game over
	// in seconds.
	LobbyScript string
	QuickDeath  bool
	// Transport opens the sessions to servers (client.Config.Transport):
	// nil for TCP and UDP; WebTransport in the browser (net/wtjs).
	Transport client.Transport
	// Room is a room code (PROTOCOL.md 7.14) to join at once on Join's
	// server (the browser's /?room=CODE).
	Room string
	// Server is offered first by the join screen (the browser's: the
	// server of the page, the only one it can reach).
	Server string
	// Web is where the command serves the game's page for browsers
	// (package web), for the games hosted here; "" none.
	Web string
	// WebURL is the page's URL that friends open (the one the command
	// prints); a hosted game's lobby shows it with its room code. ""
	// none.
	WebURL string
	// Context ends the game when done (signals).
	Context context.Context
	Logger  *slog.Logger
}

// Scene is a screen of the game.
type Scene interface {
	Update(g *Game) error
	// Draw paints every pixel of the screen, its backdrop first
	// (drawBackdrop, or drawFrame's), and changes no state.
	Draw(screen *ebiten.Image, g *Game)
}

// Game is the ebiten.Game.
type Game struct {
	opt   Options
	log   *slog.Logger
	atlas *render.Atlas
	fonts *render.Fonts
	stars *render.Starfield

	settings     settings.Settings
	settingsPath string
	in           Input
	snd          sound.Sound
	noSound      bool // no sound device was found

	scene     Scene
	sceneAt   uint64 // tick the scene started
	ticks     uint64
	start     time.Time
	session   *Session     // the game joined, if any
	lobby     *lobby.Lobby // the rooms' session (7.14), if any
	via       lobbyVia     // the rendezvous' transport that found a lobby (its path)
	autoReady bool         // the local player gets ready in its lobby at once (-host)
	host      *Host        // the in-process server, if hosting
	hostCfg   HostConfig   // what the next game hosted plays
	quit      bool
	leaving   bool
	shotDue   bool
	shotDone  bool
	// shotWait: the screenshot waits for a frame that shows what
	// ScreenshotPlayers asks (drawFrame). frames counts the frames drawn
	// (the autotest log's).
	shotWait  bool
	frames    uint64
	playStart time.Time
	// version is the game's version, as the title screen shows it.
	version string
	// autoSteps are the -autotest-lobby steps left; autoAt the tick the
	// last one was done.
	autoSteps []lobbyStep
	autoAt    uint64
}

// New prepares the game: settings, atlas, fonts, sound, first scene.
func New(opt Options) (*Game, error) {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Context == nil {
		opt.Context = context.Background()
	}
	g := &Game{opt: opt, log: opt.Logger, start: time.Now(), version: "version " + version.String()}
	var err error
	if opt.LobbyScript != "" {
		if g.autoSteps, err = lobbyScript(opt.LobbyScript); err != nil {
			return nil, err
		}
	}
	if g.hostCfg, err = hostConfig(opt); err != nil {
		return nil, err
	}
	if g.atlas, err = render.LoadAtlas(); err != nil {
		return nil, err
	}
	if g.fonts, err = render.LoadFonts(); err != nil {
		return nil, err
	}
	g.stars = render.NewStarfield()

	g.settingsPath = opt.SettingsPath
	if g.settingsPath == "" {
		if g.settingsPath, err = settings.DefaultPath(); err != nil {
			g.log.Warn("no settings directory: settings will not be saved", "err", err)
		}
	}
	g.settings = settings.Default()
	if g.settingsPath != "" {
		s, err := settings.Load(g.settingsPath, settingsChecks)
		if err != nil {
			g.log.Warn("settings not loaded", "err", err)
		}
		g.settings = s
	}
	if opt.Server != "" {
		g.settings.Recent = settings.AddRecent(g.settings.Recent, opt.Server)
	}
	if opt.Name != "" {
		n, err := core.NormalizeName(opt.Name)
		if err != nil {
			return nil, fmt.Errorf("-name %q: %w", opt.Name, err)
		}
		if g.settings.Name == "" {
			g.settings.Name = n
			g.saveSettings()
		}
		g.opt.Name = n
	}
	if opt.Fullscreen {
		g.settings.Fullscreen = true
	}
	ebiten.SetFullscreen(g.settings.Fullscreen)
	g.applyDisplay()
	g.in.SetBindings(g.settings.Keys, g.settings.Pad)
	g.snd = sound.New(opt.Mute || g.settings.Mute || soundOnGesture, g.settings.MusicVolume, g.settings.EffectsVolume, g.log)
	g.noSound = !opt.Mute && !g.settings.Mute && !g.snd.Enabled() && !soundOnGesture

	switch {
	case opt.Replay != "":
		back := func() Scene { return NewTitleScene(g) }
		sc := g.openReplay(opt.Replay, back)
		if rs, ok := sc.(*ReplayScene); ok {
			if opt.ReplaySpeed > 0 {
				rs.r.SetSpeed(opt.ReplaySpeed)
			}
			if opt.ReplayFollow >= 0 && opt.ReplayFollow < wire.MaxPlayers {
				rs.r.Follow(uint8(opt.ReplayFollow))
			}
		}
		g.setScene(sc)
	case opt.Host:
		// -host is the scripted start: the host's room starts at once,
		// as hosting did before rooms (the menu's Host waits in the
		// lobby).
		g.autoReady = true
		g.setScene(g.withName(func() Scene { return NewHostingScene(g) }))
	case opt.Spectate != "":
		w, err := parseWatch(opt.Spectate, g.settings.Recent)
		if err != nil {
			return nil, fmt.Errorf("-spectate: %w", err)
		}
		g.setScene(g.withName(func() Scene { return NewSpectateScene(g, w) }))
	case opt.Join != "" && opt.Room != "":
		addr, err := core.NormalizeAddr(opt.Join)
		if err != nil {
			return nil, fmt.Errorf("the server %q: %w", opt.Join, err)
		}
		code, ok := wire.ParseRoomCode(opt.Room)
		if !ok {
			return nil, fmt.Errorf("the room %q is not a room code: 6 letters and digits, as the room's lobby shows it", opt.Room)
		}
		g.setScene(g.withName(func() Scene { return NewLobbyConnectScene(g, addr, false, roomAction{code: code}) }))
	case opt.Join != "" && g.codeJoin(opt.Join) != nil: // a room code alone, through the rendezvous
		g.setScene(g.withName(g.codeJoin(opt.Join)))
	case opt.Join != "":
		addr, err := core.NormalizeAddr(opt.Join)
		if err != nil {
			return nil, fmt.Errorf("-join: %w", err)
		}
		g.setScene(g.withName(func() Scene { return NewConnectingScene(g, addr, false) }))
	default:
		g.setScene(NewTitleScene(g))
	}
	return g, nil
}

// hostConfig is what the games hosted play, from the options; the stage
// is loaded and the warp checked against it.
func hostConfig(opt Options) (HostConfig, error) {
	hc := HostConfig{Mode: opt.Mode, Warp: opt.Warp, DB: opt.ScoresDB}
	if opt.QuickDeath {
		hc.Rules = testrules.QuickDeath()
	}
	if opt.Stage == "" && opt.Warp == "" {
		return hc, nil
	}
	if opt.Mode == wire.ModeClassic {
		return hc, errors.New("-stage and -warp are for Stage games, not -mode classic")
	}
	st, err := loadStage(opt.Stage)
	if err != nil {
		return hc, fmt.Errorf("-stage: %w", err)
	}
	if err := checkStage(st, opt.Warp); err != nil {
		return hc, fmt.Errorf("-warp %q: %w", opt.Warp, err)
	}
	hc.Stage = st
	return hc, nil
}

// joinMode is the mode asked for when joining: -mode's, else the
// settings'.
func (g *Game) joinMode() uint8 {
	if g.opt.Mode != 0 {
		return g.opt.Mode
	}
	return settings.WireMode(g.settings.JoinMode)
}

// Name is the player's name for this run.
func (g *Game) Name() string {
	if g.opt.Name != "" {
		return g.opt.Name
	}
	return g.settings.Name
}

// withName returns next(), or the name entry first when no name is known.
func (g *Game) withName(next func() Scene) Scene {
	if g.Name() == "" {
		return NewNameScene(g, next, func() Scene { return NewTitleScene(g) })
	}
	return next()
}

// T is the game time in seconds, from the ticks (animations, effects).
func (g *Game) T() float64 { return float64(g.ticks) / 60 }

// SceneTime is the time in seconds since the current scene started.
func (g *Game) SceneTime() float64 { return float64(g.ticks-g.sceneAt) / 60 }

func (g *Game) setScene(s Scene) {
	g.stopLAN(s)
	g.scene = s
	g.sceneAt = g.ticks
	g.in.TextMode = false
	_, play := s.(*PlayScene)
	if _, ok := s.(*ReplayScene); ok && g.playStart.IsZero() {
		g.playStart = time.Now() // the autotest's screenshot counts from here
	}
	if play && g.playStart.IsZero() {
		g.playStart = time.Now()
	}
	if !play {
		g.snd.SetTrack(sound.TrackMain)
		g.snd.SetCharge(0)
	}
}

// settingsChecks are the rules of the names in the settings file: the key
// names Ebitengine knows, the server addresses as core normalizes them.
var settingsChecks = settings.Checks{Key: ValidKeyName, Addr: core.NormalizeAddr}

// saveSettings writes the settings file, logging a failure.
func (g *Game) saveSettings() {
	if g.settingsPath == "" {
		return
	}
	if err := settings.Save(g.settingsPath, g.settings); err != nil {
		g.log.Warn("settings not saved", "err", err)
	}
}

// applySound applies the volumes and the mute setting; unmuting opens the
// audio device if there is one and none was opened yet.
func (g *Game) applySound() {
	mute := g.opt.Mute || g.settings.Mute
	if !mute && !g.snd.Enabled() && !g.noSound {
		g.snd = sound.New(false, g.settings.MusicVolume, g.settings.EffectsVolume, g.log)
		g.noSound = !g.snd.Enabled() // no device: do not probe (and log) again
	}
	if mute {
		g.snd.SetVolumes(0, 0)
		return
	}
	g.snd.SetVolumes(g.settings.MusicVolume, g.settings.EffectsVolume)
}

// toggleFullscreen flips fullscreen and remembers it.
func (g *Game) toggleFullscreen() {
	g.settings.Fullscreen = !ebiten.IsFullscreen()
	ebiten.SetFullscreen(g.settings.Fullscreen)
	g.saveSettings()
}

// Update implements ebiten.Game.
func (g *Game) Update() error {
	g.ticks++
	g.gestureSound()
	if ebiten.IsWindowBeingClosed() || g.opt.Context.Err() != nil || g.quit {
		return g.shutdown()
	}
	if g.opt.QuitAfter > 0 && time.Since(g.start) >= g.opt.QuitAfter {
		if g.opt.Screenshot != "" && !g.shotDone {
			g.shotDue = true // taken by the next Draw, then we quit
			g.leaving = true
			return nil
		}
		return g.shutdown()
	}
	if g.leaving {
		return nil
	}
	if g.opt.QuitAfter > 0 && g.ticks%60 == 0 {
		// Test hook: the end-to-end tests read the frame rate here.
		g.log.Info("autotest", "fps", math.Round(ebiten.ActualFPS()), "tps", math.Round(ebiten.ActualTPS()), "frames", g.frames)
	}
	if g.opt.Screenshot != "" && !g.shotDone && !g.playStart.IsZero() && time.Since(g.playStart) >= g.opt.ScreenshotAfter {
		if g.opt.ScreenshotPlayers > 0 {
			g.shotWait = true // drawFrame sets shotDue
		} else {
			g.shotDue = true
		}
	}
	g.in.Update()
	if inpututil.IsKeyJustPressed(ebiten.KeyF11) ||
		(ebiten.IsKeyPressed(ebiten.KeyAlt) && (inpututil.IsKeyJustPressed(ebiten.KeyEnter) || inpututil.IsKeyJustPressed(ebiten.KeyNumpadEnter))) {
		g.toggleFullscreen()
	}
	g.snd.Update()
	g.driveLobby()
	return g.scene.Update(g)
}

// shutdown leaves cleanly: Logout to the server, the in-process server
// stopped, then the end of the game loop.
func (g *Game) shutdown() error {
	g.stopLAN(nil)
	if ls, ok := g.scene.(*LeaderboardScene); ok {
		ls.release()
	}
	g.endSession()
	if g.lobby != nil {
		g.lobby.Close()
		g.lobby = nil
	}
	g.stopHost()
	g.log.Info("bye")
	return ebiten.Termination
}

// endSession closes the session with the server, if any (Logout Left).
func (g *Game) endSession() {
	if g.session != nil {
		g.session.Close()
		g.session = nil
	}
}

// stopHost stops the in-process server, if any.
func (g *Game) stopHost() {
	if g.host != nil {
		g.host.Stop()
		g.host = nil
	}
}

// toMenu ends any session and hosting and shows the title.
func (g *Game) toMenu() {
	g.endSession()
	if g.lobby != nil {
		g.lobby.Close()
		g.lobby = nil
	}
	g.stopHost()
	g.setScene(NewTitleScene(g))
}

// sceneFade is how long a new scene fades in, in seconds of game time.
const sceneFade = 0.2

// Draw implements ebiten.Game. The screen is not filled first: every
// scene paints all of it with its backdrop (Scene), and in the browser,
// where Chromium without a GPU draws WebGL in software, each pass over
// the whole screen costs about 20 ms of a frame (BENCHMARKS.md, Browser
// against native).
func (g *Game) Draw(screen *ebiten.Image) {
	g.frames++
	g.scene.Draw(screen, g)
	// Fade in each new scene.
	if st := g.SceneTime(); st < sceneFade {
		g.atlas.Dim(screen, 1-st/sceneFade)
	}
	if g.shotDue && !g.shotDone {
		g.shotDone = true
		g.saveScreenshot(screen)
		g.leaving = false
	}
	g.publish()
}

// Layout implements ebiten.Game: a fixed logical screen, letterboxed.
func (g *Game) Layout(int, int) (int, int) { return render.Width, render.Height }

// errorsAs is errors.As for a pointer target type.
func errorsAs[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}
