//go:build !js

// Command rtype is the game: host a game on this machine or join one, and
// fly with up to three friends.
//
//	rtype                      the title menu
//	rtype -host                host a game at once (port 4242 or the next free)
//	rtype -host -rendezvous HOST:PORT
//	                           host a game whose room code friends anywhere
//	                           join by, found at that rendezvous (default:
//	                           the settings', else the build's); the router
//	                           is asked for a port mapping (-portmap)
//	rtype -join HOST[:PORT]    join a game at once
//	rtype -join CODE           join that room at once, found at the
//	                           rendezvous (-rendezvous, else the settings')
//	rtype -spectate ADDR|CODE[@ADDR]
//	                           watch the busiest game of a server, or the
//	                           game of a room (on the server last joined,
//	                           or ADDR) without playing (PROTOCOL.md 7.17)
//	rtype -protocol 1|2        join with that protocol version only
//	                           (default auto: 2, or 1 with a v1-only server)
//	rtype -host -mode classic  host the Classic game (default: Stage mode)
//	rtype -host -stage NAME|FILE -warp SECONDS|MARKER
//	                           host that stage, starting later in it
//	                           (-warp boss starts at the boss)
//	rtype -join ADDR -mode classic|stage
//	                           join asking for that mode
//	rtype -web ADDR            where the game's page is served for browsers
//	                           (default :4280; "" none): friends open the
//	                           URL printed at the start to join the game
//	                           hosted here
//	rtype -discovery ADDR      where the join screen looks for games on the
//	                           LAN (default 255.255.255.255:4243, the LAN
//	                           broadcast; 127.255.255.255:4243 this machine
//	                           only; "" nowhere); a hosted game answers on
//	                           its port (PROTOCOL.md section 8)
//
// The tests' build (-tags autotest) adds test hooks: autotest_hooks.go.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"syscall"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/assets"
	"rtype/game"
	"rtype/game/settings"
	"rtype/game/view"
	"rtype/internal/version"
	"rtype/net/client"
	"rtype/net/discovery"
	"rtype/net/replay"
	"rtype/net/wire"
	"rtype/render"
	"rtype/server"
	"rtype/server/store"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "rtype:", err)
		os.Exit(1)
	}
}

func run() error {
	opt, level, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		if errors.Is(err, errVersion) {
			fmt.Println("rtype", version.String())
			return nil
		}
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)
	log.Info("rtype starting", "version", version.String())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	opt.Context, opt.Logger = ctx, log
	switch opt.ReplayDir {
	case "none":
		opt.ReplayDir = ""
	case "":
		if opt.ReplayDir, err = replay.DefaultDir(); err != nil {
			log.Warn("games will not be recorded", "err", err)
		}
	}
	switch opt.ScoresDB {
	case "none":
		opt.ScoresDB = ""
	case "":
		if opt.ScoresDB, err = store.DefaultPath(); err != nil {
			log.Warn("hosted games will keep no scores", "err", err)
		}
	}
	hostWebTransport(&opt)
	if opt.Web != "" {
		if urls, err := serveWeb(ctx, opt.Web, log); err != nil {
			log.Warn("the game's page is not served", "err", err)
		} else {
			fmt.Printf("Friends can play in a browser: host a game, then they open %s?room=CODE (CODE: the room's, in its lobby; their browser warns once about the certificate the game made)\n", urls[0])
			log.Info("the game's page", "urls", urls)
			opt.WebURL = urls[0]
		}
	}
	g, err := game.New(opt)
	if err != nil {
		return err
	}
	ebiten.SetWindowTitle("R-Type")
	if icons, err := assets.WindowIcons(); err == nil {
		ebiten.SetWindowIcon(icons)
	} else {
		log.Warn("no window icon", "err", err)
	}
	ebiten.SetWindowSize(render.Width, render.Height)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetWindowClosingHandled(true)
	ebiten.SetRunnableOnUnfocused(true)
	if err := ebiten.RunGame(g); err != nil && !errors.Is(err, ebiten.Termination) {
		return err
	}
	return nil
}

// errVersion is parseFlags' answer to -version: print the version and
// stop.
var errVersion = errors.New("-version")

// parseFlags reads the command line args (without the program's name):
// the game's options and the log level. Usage and errors of the flag
// package go to output; -help gives flag.ErrHelp.
func parseFlags(args []string, output io.Writer) (game.Options, slog.Level, error) {
	fs := flag.NewFlagSet("rtype", flag.ContinueOnError)
	fs.SetOutput(output)
	var (
		host       = fs.Bool("host", false, "host a game at once (the server runs inside the game)")
		join       = fs.String("join", "", "join the game at `ADDR` (host or host:port) at once, or the room of a CODE through the rendezvous")
		spectate   = fs.String("spectate", "", "watch a game at once, without playing: the busiest game of the server at `ADDR`, or a room's CODE (on the server last joined) or CODE@ADDR")
		name       = fs.String("name", "", "your pilot `NAME` (3 to 20 letters, digits, spaces, _ or -)")
		port       = fs.Int("port", wire.DefaultPort, "the `port` to host on (TCP and UDP; if taken, the next free one; 0 for any)")
		mode       = fs.String("mode", "", "the game `mode`: classic or stage; with -host the game hosted (default stage), else the one asked for when joining (default: the settings', stage)")
		stageName  = fs.String("stage", "", "the stage hosted Stage games play: a built-in stage's `NAME` (1) or a stage FILE (default 1)")
		warp       = fs.String("warp", "", "start hosted Stage games later: `SECONDS` into the stage or at a MARKER (boss, midboss, a checkpoint)")
		mute       = fs.Bool("mute", false, "no sound: never open an audio device")
		fullscreen = fs.Bool("fullscreen", false, "start fullscreen")
		config     = fs.String("config", "", "the settings `file` (default: the user's config directory, rtype/settings.json)")
		debug      = fs.Bool("debug", false, "debug logs")
		protocol   = fs.String("protocol", "auto", "the protocol `version` to join with: auto (2, or 1 with a v1-only server), 1 or 2")
		disco      = fs.String("discovery", discovery.DefaultBroadcast, "where the join screen sends LAN discovery queries: `ADDR` (host:port; 127.255.255.255:4243 finds the games of this machine only); a hosted game answers on its port; \"\" for no LAN discovery")
		showVer    = fs.Bool("version", false, "print the version and exit")
		replayFile = fs.String("replay", "", "watch the recording `FILE` (a game recorded in the replays directory, or by rtype-server -record)")
		replaySpd  = fs.Float64("replay-speed", 1, "with -replay: the speed to start at, 0.25 to 4")
		replayFol  = fs.Int("replay-follow", 0, "with -replay: the `player` to follow, 1 to 4 (default the recording player)")
		webAddr    = fs.String("web", fmt.Sprintf(":%d", defaultWebPort), "serve the game's page on `ADDR` (host:port; if taken, the next free port), for friends to join the game hosted here from a browser; \"\" serves none")
		rdv        = fs.String("rendezvous", "", "the rendezvous `HOST:PORT` (PROTOCOL.md Part V) where a hosted game registers its room codes and where a code typed alone is looked up, so that friends anywhere join by code; default: the settings' (else the build's); \"off\" none")
		portMap    = fs.String("portmap", "auto", "with a rendezvous: ask the router to map the hosted game's port while hosting, removed at exit: auto (NAT-PMP, then UPnP IGD), natpmp, upnp or off")
		webTr      = fs.String("webtransport", "", "with -host: also serve browsers over WebTransport on this UDP `ADDR` (e.g. :4244)")
		db         = fs.String("db", "", "the leaderboard `FILE` of hosted games, an SQLite database (default: the user's data directory, rtype/scores.db); \"none\" keeps no scores")
		replays    = fs.String("replays", "", "the `DIR` where every game played is recorded, up to the settings' cap (replay_cap_mb, default 200 MiB) (default: the user's data directory, rtype/replays); \"none\" records nothing")
	)
	hooks := testHooks(fs)
	if err := fs.Parse(args); err != nil {
		return game.Options{}, 0, err
	}
	if *showVer {
		return game.Options{}, 0, errVersion
	}
	if fs.NArg() > 0 {
		return game.Options{}, 0, fmt.Errorf("unexpected arguments %q (see -help)", fs.Args())
	}
	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	if *host && *join != "" {
		return game.Options{}, 0, errors.New("-host and -join cannot go together")
	}
	if *spectate != "" && (*host || *join != "" || *replayFile != "") {
		return game.Options{}, 0, errors.New("-spectate watches a game: it goes without -host, -join and -replay")
	}
	if *join != "" && (*stageName != "" || *warp != "") {
		return game.Options{}, 0, errors.New("-stage and -warp choose the game hosted: they go with -host, not -join")
	}
	version, err := client.ParseVersion(*protocol)
	if err != nil {
		return game.Options{}, 0, fmt.Errorf("-protocol: %w", err)
	}
	if *replayFile != "" && (*host || *join != "") {
		return game.Options{}, 0, errors.New("-replay watches a recording: it goes without -host and -join")
	}
	if *replaySpd < view.MinSpeed || *replaySpd > view.MaxSpeed {
		return game.Options{}, 0, fmt.Errorf("-replay-speed %g: from %g to %g", *replaySpd, view.MinSpeed, view.MaxSpeed)
	}
	if *replayFol < 0 || *replayFol > wire.MaxPlayers {
		return game.Options{}, 0, fmt.Errorf("-replay-follow %d: a player from 1 to %d", *replayFol, wire.MaxPlayers)
	}
	opt := game.Options{
		Replay: *replayFile, ReplaySpeed: *replaySpd, ReplayFollow: *replayFol - 1, ReplayDir: *replays, ScoresDB: *db,
		Host: *host, Join: *join, Spectate: *spectate, Name: *name, Port: *port, Stage: *stageName, Warp: *warp,
		Mute: *mute, Fullscreen: *fullscreen, SettingsPath: *config, Protocol: version,
		Web: *webAddr, WebTransport: *webTr,
	}
	if err := hooks(&opt); err != nil {
		return game.Options{}, 0, err
	}
	switch *portMap {
	case "auto", "natpmp", "upnp", "off":
		opt.PortMap = *portMap
	default:
		return game.Options{}, 0, fmt.Errorf("-portmap %q: auto, natpmp, upnp or off", *portMap)
	}
	if *rdv != "" {
		if opt.Rendezvous, err = settings.ParseRendezvous(*rdv); err != nil {
			return game.Options{}, 0, fmt.Errorf("-rendezvous: %w", err)
		}
	}
	if *webTr != "" && !*host {
		return game.Options{}, 0, errors.New("-webtransport serves a hosted game: it goes with -host")
	}
	if opt.Discovery, opt.DiscoveryListen, err = discoveryAddrs(*disco); err != nil {
		return game.Options{}, 0, err
	}
	if *mode != "" {
		if opt.Mode, err = server.ParseMode(*mode); err != nil {
			return game.Options{}, 0, fmt.Errorf("-mode: %w", err)
		}
	}
	if opt.Mode == wire.ModeClassic && (*stageName != "" || *warp != "") {
		return game.Options{}, 0, errors.New("-stage and -warp are for Stage games, not -mode classic")
	}
	return opt, level, nil
}

// discoveryAddrs returns where the join screen sends its LAN discovery
// queries, -discovery's dest, and where a hosted game answers them: on
// dest's port, on every address, or on dest's own address when it is a
// loopback one (127.255.255.255: this machine only). "" is no discovery.
func discoveryAddrs(dest string) (query, listen string, err error) {
	if dest == "" {
		return "", "", nil
	}
	host, port, err := net.SplitHostPort(dest)
	if err != nil {
		return "", "", fmt.Errorf("-discovery %q: want host:port, e.g. %s: %w", dest, discovery.DefaultBroadcast, err)
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() {
		return dest, dest, nil
	}
	return dest, net.JoinHostPort("", port), nil
}
