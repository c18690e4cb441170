// Command rtype-load loads a game server with many real clients from one
// process, to size a machine: each client logs in over TCP, binds its UDP
// socket (with the Challenge and cookie of a version 2 session,
// PROTOCOL.md 7.3), sends 60 Inputs per second while moving up and down
// and firing, so that its game stays busy, and acknowledges the snapshots
// and events it receives as the protocol requires.
//
// Usage:
//
//	rtype-load -addr HOST:PORT -n N -duration D [-protocol 1|2] [-seed S] [-v]
//
// The clients are named load1..loadN; package internal/load plays them
// (each a net/client.Client, the client the game uses).
//
// At the end (and every 5 s with -v) it prints the clients connected, the
// datagrams and bytes in and out per second, and its own CPU time (user +
// system, from getrusage) per client-second.
//
// The server allows 5 logins per 10 s and 8 sessions from one IP address
// (server.Config LoginLimit and MaxSessionsPerIP). rtype-server raises the
// second with -max-sessions-per-ip and -max-games bounds the games (4
// players each); the login rate has no flag, so a run of more than 5
// clients against rtype-server needs a server built with a raised
// LoginLimit (as the test does).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"rtype/internal/load"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:4242", "server TCP and UDP address")
	n := flag.Int("n", 8, "clients to play")
	dur := flag.Duration("duration", 10*time.Second, "length of the run after login")
	proto := flag.Int("protocol", 2, "protocol version: 1 or 2")
	seed := flag.Uint64("seed", 1, "seed of the clients' play")
	verbose := flag.Bool("v", false, "report every 5 s")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *proto != 1 && *proto != 2 {
		fmt.Fprintf(os.Stderr, "rtype-load: -protocol %d: want 1 or 2\n", *proto)
		os.Exit(2)
	}
	cfg := load.Config{Addr: *addr, N: *n, Duration: *dur, Protocol: uint8(*proto), Seed: *seed}
	if *verbose {
		cfg.Progress = os.Stdout
	}
	rep, err := load.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtype-load:", err)
		os.Exit(1)
	}
	fmt.Println(rep)
	if rep.Failed > 0 || rep.Connected < rep.Clients {
		os.Exit(1)
	}
}
