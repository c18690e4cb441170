// Command rtype-server is the dedicated R-Type server: it hosts up to
// -max-games games of up to 4 players each on one TCP and UDP port, with
// no display and no sound.
//
// It speaks protocol versions 1 and 2 on the same port (PROTOCOL.md 7.1);
// -protocol 1 runs a v1-only server, which refuses v2 logins with
// LoginRejected(VersionMismatch).
//
// Version 1 clients play Classic games; a v2 client plays the mode it
// asks for, or -mode when it lets the server choose (PROTOCOL.md 7.1,
// 7.12). Stage games play -stage, started at -warp.
//
//	rtype-server -listen :4242 -max-games 8 -max-sessions-per-ip 8 -protocol 2 -log-level info
//	rtype-server -mode stage -stage 1 -warp boss
//
// -version prints the version (the one ./build.sh release stamps, see
// package rtype/internal/version) and exits; the first line of the log
// carries it too.
//
// It keeps the final scores of every game in an SQLite file, -db (by
// default rtype/scores.db in the user's data directory, ~/.local/share on
// Linux; -db "" keeps none), or in a PostgreSQL database that the servers
// of a fleet share, -db postgres://...; -leaderboard prints them and
// exits.
//
//	rtype-server -db /var/lib/rtype/scores.db -leaderboard
//
// -http ADDR serves the operator's status page, Prometheus metrics
// (/metrics) and probes (/healthz, /readyz) over HTTP; its admin actions
// (kick, ban, close a game, announce) need the token of -admin-token-file
// or $RTYPE_ADMIN_TOKEN. Bans are kept in the -db database with the scores.
//
//	RTYPE_ADMIN_TOKEN=$(cat /etc/rtype/token) rtype-server -http 127.0.0.1:8080
//	PGPASSWORD=... rtype-server -db 'postgres://rtype@db.example:5432/rtype?sslmode=verify-full' -leaderboard
//
// It answers LAN discovery queries (PROTOCOL.md section 8) on UDP port
// 4243, -discovery-listen ("" answers none), with its name, -name (by
// default the host name), so that players on its network find it.
//
//	rtype-server -name hangar-7 -discovery-listen :4243
//
// With -agones it runs as an Agones GameServer (deploy/ holds a
// Dockerfile, a Fleet and a FleetAutoscaler): it talks to the SDK
// sidecar through its REST API, Ready once it listens, Health every
// -agones-health, Allocated when its first player joins, and with
// -agones-shutdown-when-empty Shutdown once its last game ended; the
// labels rtype-games and rtype-players carry its counts.
//
//	rtype-server -agones -agones-shutdown-when-empty -db /data/scores.db
//
// With -record DIR it records every game into DIR, at most -record-cap
// MiB in all (oldest first), as a client of the game receives it
// (REPLAYS.md): rtype -replay FILE plays a recording.
//
//	rtype-server -record /var/lib/rtype/replays -record-cap 2048
//
// With -redis URL the servers of a fleet share their rooms (PROTOCOL.md
// 7.18): a room code made on one resolves from any other, and quick join
// fills the fleet's fullest public room first; -public-addr is the
// host:port the others send players to (default: -listen's address, or
// the host name with -listen's port when -listen names no host). Every
// entry is signed with the fleet's key (-fleet-key-file, the same file on
// every server of the fleet); entries that do not verify are ignored.
//
//	rtype-server -db postgres://... -redis redis://:PASSWORD@redis.internal:6379/0 \
//		-fleet-key-file /etc/rtype/fleet.key -public-addr game-7.example.org:4242
//
// With -web ADDR it serves the game's page: players open it in a browser
// and play over the WebTransport binding (README.md, "Play in the
// browser").
//
//	rtype-server -webtransport :4443 -web :8080
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

	"rtype/bot"
	"rtype/internal/version"
	"rtype/server"
	"rtype/server/ops"
)

func main() {
	listen := flag.String("listen", ":4242", "TCP and UDP address to serve on (same port)")
	maxGames := flag.Int("max-games", 8, "games that may run at once")
	maxPerIP := flag.Int("max-sessions-per-ip", 8, "players logged in at once from one IP address")
	maxRoomsPerIP := flag.Int("max-rooms-per-ip", 2, "rooms whose owners logged in from one IP address")
	lobbyIdle := flag.Duration("lobby-idle", 5*time.Minute, "log out a lobby session in no game that sends nothing for this long")
	loginLimit := flag.Int("login-limit", 5, "logins per IP address within 10 s (raise it to load the server with rtype-load)")
	maxLoad := flag.Float64("max-tick-load", 0.75, "no new game when the tick loop is busier than this share of the time (back-pressure)")
	readPause := flag.Duration("read-pause", time.Millisecond, "least time between two reads of the UDP socket while datagrams come, so that they are read together "+
		"(fewer wake-ups per player); a datagram waits at most that much longer; negative: none")
	seed := flag.Uint64("seed", 0, "simulation seed (0: random)")
	protocol := flag.Int("protocol", 2, "highest protocol version served: 2 serves v1 and v2 clients, 1 only v1")
	level := flag.String("log-level", "info", "log level: debug, info, warn or error")
	jsonLogs := flag.Bool("log-json", false, "write logs as JSON")
	scores := addScoreFlags()
	opsf := addOpsFlags()
	disco := addDiscoveryFlags()
	wtf := addWebTransportFlags()
	ag := addAgonesFlags()
	rec := addRecordFlags()
	fl := addFleetFlags()
	rdv := addRendezvousFlags()
	var sf stageFlags
	flag.StringVar(&sf.mode, "mode", "stage", "mode of the games of v2 clients that let the server choose: classic or stage")
	flag.StringVar(&sf.stage, "stage", "", "stage of Stage games: a built-in stage's name or a stage file (default the built-in stage 1)")
	flag.StringVar(&sf.warp, "warp", "", "start Stage games later: seconds (90) or a marker (boss)")
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println("rtype-server", version.String())
		return
	}
	if *scores.board {
		os.Exit(printLeaderboard(os.Stdout, os.Stderr, *scores.db, time.Now()))
	}

	if err := ag.check(); err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server: %v\n", err)
		os.Exit(2)
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
	log.Info("rtype-server starting", "version", version.String())
	if rdv.alone(*listen) {
		os.Exit(rdv.runAlone(log))
	}

	cfg := server.Config{Listen: *listen, MaxGames: *maxGames,
		MaxSessionsPerIP: *maxPerIP, Seed: *seed, MaxVersion: *protocol, Logger: log,
		LoginLimit: *loginLimit, MaxTickLoad: *maxLoad, ReadPause: *readPause,
		MaxRoomsPerIP: *maxRoomsPerIP, LobbyIdle: *lobbyIdle,
		Bots: func(mode uint8, seed uint64) server.Bots { return bot.NewRoomBots(mode, seed) }}
	disco.apply(&cfg)
	if err := wtf.apply(&cfg); err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server: %v\n", err)
		os.Exit(2)
	}
	if err := rdv.check(&cfg); err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server: %v\n", err)
		os.Exit(2)
	}
	if err := rec.apply(&cfg, log); err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server: %v\n", err)
		os.Exit(2)
	}
	if err := sf.apply(&cfg); err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server: %v\n", err)
		os.Exit(2)
	}
	reg, err := fl.apply(&cfg, log)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server: %v\n", err)
		os.Exit(2)
	}
	if reg != nil {
		defer reg.Close()
	}
	token, err := opsf.token()
	if err != nil {
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
	var web *ops.Ops
	if *opsf.http != "" {
		oc := ops.Config{Listen: *opsf.http, Server: srv, Token: token, Logger: log, Hosts: opsf.hostList()}
		if board != nil {
			oc.Leaderboard = board
		}
		if web, err = ops.New(oc); err != nil {
			log.Error("cannot start the status page", "err", err)
			os.Exit(1)
		}
	}
	webDone := make(chan error, 1)
	if web != nil {
		go func() { webDone <- web.Serve(ctx) }()
	} else {
		close(webDone)
	}
	if err := rdv.open(log); err != nil {
		log.Error("cannot start the rendezvous", "err", err)
		os.Exit(1)
	}
	pageDone, pagePort, err := pagef.start(ctx, srv, rdv.join(), log)
	if err != nil {
		log.Error("cannot serve the game's page", "err", err)
		os.Exit(1)
	}
	rdv.setPage(pagePort)
	defer ag.start(ctx, srv, log)()
	stopRdv, err := rdv.start(ctx, srv, log)
	if err != nil {
		log.Error("cannot start the rendezvous", "err", err)
		os.Exit(1)
	}
	defer stopRdv()
	if err := srv.Run(ctx); err != nil {
		log.Error("server failed", "err", err)
		os.Exit(1)
	}
	stop()
	if err := <-webDone; err != nil {
		log.Error("status page failed", "err", err)
		os.Exit(1)
	}
	if err := <-pageDone; err != nil {
		log.Error("the game's page failed", "err", err)
		os.Exit(1)
	}
}
