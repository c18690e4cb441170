// Command rtype-server is the dedicated R-Type server: it hosts up to
// -max-games games of up to 4 players each on one TCP and UDP port, with
// no display and no sound.
//
// It speaks protocol versions 1 and 2 on the same port (PROTOCOL.md 7.1);
// -protocol 1 runs a v1-only server, which refuses v2 logins with
// LoginRejected(VersionMismatch).
//
// Version 1 and 2.0 clients play Classic games; a v2.1 client plays the
// mode it asks for, or -mode when it lets the server choose (PROTOCOL.md
// 7.12). Stage games play -stage, started at -warp.
//
//	rtype-server -listen :4242 -max-games 8 -max-sessions-per-ip 8 -protocol 2 -log-level info
//	rtype-server -mode stage -stage 1 -warp boss
//
// It keeps the final scores of every game in an SQLite file, -db (by
// default rtype/scores.db in the user's data directory, ~/.local/share on
// Linux; -db "" keeps none); -leaderboard prints them and exits.
//
//	rtype-server -db /var/lib/rtype/scores.db -leaderboard
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

	"rtype/server"
)

func main() {
	listen := flag.String("listen", ":4242", "TCP and UDP address to serve on (same port)")
	maxGames := flag.Int("max-games", 8, "games that may run at once")
	maxPerIP := flag.Int("max-sessions-per-ip", 8, "players logged in at once from one IP address")
	loginLimit := flag.Int("login-limit", 5, "logins per IP address within 10 s (raise it to load the server with rtype-load)")
	maxLoad := flag.Float64("max-tick-load", 0.75, "no new game when the tick loop is busier than this share of the time (back-pressure)")
	seed := flag.Uint64("seed", 0, "simulation seed (0: random)")
	protocol := flag.Int("protocol", 2, "highest protocol version served: 2 serves v1 and v2 clients, 1 only v1")
	level := flag.String("log-level", "info", "log level: debug, info, warn or error")
	jsonLogs := flag.Bool("log-json", false, "write logs as JSON")
	scores := addScoreFlags()
	var sf stageFlags
	flag.StringVar(&sf.mode, "mode", "stage", "mode of the games of v2.1 clients that let the server choose: classic or stage")
	flag.StringVar(&sf.stage, "stage", "", "stage of Stage games: a built-in stage's name or a stage file (default the built-in stage 1)")
	flag.StringVar(&sf.warp, "warp", "", "start Stage games later: seconds (90) or a marker (boss)")
	flag.Parse()
	if *scores.board {
		os.Exit(printLeaderboard(os.Stdout, os.Stderr, *scores.db, time.Now()))
	}

	if *protocol != 1 && *protocol != 2 {
		fmt.Fprintf(os.Stderr, "rtype-server: -protocol %d: want 1 or 2\n", *protocol)
		os.Exit(2)
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server: -log-level %q: %v\n", *level, err)
		os.Exit(2)
	}
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, opts)
	if *jsonLogs {
		h = slog.NewJSONHandler(os.Stderr, opts)
	}
	log := slog.New(h)

	cfg := server.Config{Listen: *listen, MaxGames: *maxGames,
		MaxSessionsPerIP: *maxPerIP, Seed: *seed, MaxVersion: *protocol, Logger: log,
		LoginLimit: *loginLimit, MaxTickLoad: *maxLoad}
	if err := sf.apply(&cfg); err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server: %v\n", err)
		os.Exit(2)
	}
	board, err := scores.open(&cfg, log)
	if err != nil {
		log.Error("cannot open the leaderboard", "err", err)
		os.Exit(1)
	}
	if board != nil {
		defer board.Close()
	}
	srv, err := server.New(cfg)
	if errors.Is(err, server.ErrConfig) {
		fmt.Fprintf(os.Stderr, "rtype-server: %v\n", err)
		os.Exit(2)
	}
	if err != nil {
		log.Error("cannot start", "err", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Run(ctx); err != nil {
		log.Error("server failed", "err", err)
		os.Exit(1)
	}
}
