// Command rtype-load loads a game server with many real clients from one
// process, to size a machine: each client logs in over TCP, binds its UDP
// socket (with the Challenge and cookie of a version 2 session,
// PROTOCOL.md 7.3), sends 60 Inputs per second while moving up and down
// and firing, so that its game stays busy, and acknowledges the snapshots
// and events it receives as the protocol requires.
//
// Usage:
//
//	rtype-load -addr HOST:PORT -n N -duration D [-protocol 1|2] [-seed S] [-per-socket K] [-parked] [-phases P] [-full] [-v]
//
// The clients are named load1..loadN; package internal/load plays them.
// By default they are light: a session keeps its link and no world, and
// K sessions (16) share a UDP socket, read and written in batches
// (recvmmsg, sendmmsg), so that the load costs less CPU than the server
// it loads; the server tells them apart by their session numbers, as it
// does any session. The sockets are read at each tick without waiting (a
// client reading its socket once a frame); -parked gives each socket a
// goroutine parked until a datagram comes (on loopback, the server's
// send wakes it: BENCHMARKS.md, "Sixth pass (b)").
// The sockets send in turns spread over each tick, -phases P a tick (8),
// as real clients are not in step; -phases 1 sends all at once.
// -per-socket 1 gives each session its own socket; -full plays
// each as a net/client.Client, the client the game uses (its own socket
// and goroutines, every snapshot rebuilt).
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
	perSocket := flag.Int("per-socket", 16, "light sessions sharing one UDP socket")
	phases := flag.Int("phases", 8, "turns per tick over which the light sockets spread their sends (1: all at once)")
	parked := flag.Bool("parked", false, "read each light socket with a goroutine parked until a datagram comes, not at each tick")
	full := flag.Bool("full", false, "play full clients (net/client.Client) instead of light sessions")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *proto != 1 && *proto != 2 {
		fmt.Fprintf(os.Stderr, "rtype-load: -protocol %d: want 1 or 2\n", *proto)
		os.Exit(2)
	}
	cfg := load.Config{Addr: *addr, N: *n, Duration: *dur, Protocol: uint8(*proto), Seed: *seed,
		PerSocket: *perSocket, Full: *full, Parked: *parked, Phases: *phases}
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
