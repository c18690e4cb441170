// Command rtype-netsim is a network impairment relay for the game: it
// listens for TCP and UDP on one port and forwards to a server listening on
// one port for both, applying simulated loss, duplication, reordering, delay
// and jitter to the UDP datagrams.
//
// Example:
//
//	rtype-netsim -listen 127.0.0.1:5000 -to 127.0.0.1:4242 \
//	    -loss 0.2 -dup 0.05 -reorder 0.1 -delay 40ms -jitter 20ms -seed 1
//
// The -loss, -dup, -reorder, -delay and -jitter flags apply to both
// directions; -up-* (client->server) and -down-* (server->client) flags
// override them for one direction. On SIGINT or SIGTERM it shuts down and
// prints per-direction counters.
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

	"rtype/net/netsim"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// impFlags holds the flag values of one Impairment.
type impFlags struct {
	loss, dup, reorder *float64
	delay, jitter      *time.Duration
}

func defineImp(fs *flag.FlagSet, prefix, what string) impFlags {
	return impFlags{
		loss:    fs.Float64(prefix+"loss", 0, "probability [0,1] of dropping a datagram"+what),
		dup:     fs.Float64(prefix+"dup", 0, "probability [0,1] of duplicating a datagram"+what),
		reorder: fs.Float64(prefix+"reorder", 0, "probability [0,1] of holding a datagram back so later ones overtake it"+what),
		delay:   fs.Duration(prefix+"delay", 0, "one-way delay added to each datagram"+what),
		jitter:  fs.Duration(prefix+"jitter", 0, "maximum +/- deviation from the delay"+what),
	}
}

// apply overrides the fields of im whose flags named prefix+field were set
// on the command line.
func (f impFlags) apply(im *netsim.Impairment, set map[string]bool, prefix string) {
	if set[prefix+"loss"] {
		im.Loss = *f.loss
	}
	if set[prefix+"dup"] {
		im.Dup = *f.dup
	}
	if set[prefix+"reorder"] {
		im.Reorder = *f.reorder
	}
	if set[prefix+"delay"] {
		im.Delay = *f.delay
	}
	if set[prefix+"jitter"] {
		im.Jitter = *f.jitter
	}
}

func run(args []string) int {
	fs := flag.NewFlagSet("rtype-netsim", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:5000", "address to listen on (TCP and UDP, same port)")
	to := fs.String("to", "127.0.0.1:4242", "server address (TCP and UDP, same port)")
	seed := fs.Int64("seed", 1, "seed for the impairment decisions")
	idle := fs.Duration("idle", netsim.DefaultIdleTimeout, "forget a UDP client mapping after this long without traffic")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	both := defineImp(fs, "", " (both directions)")
	up := defineImp(fs, "up-", " (client->server; overrides the two-way flag)")
	down := defineImp(fs, "down-", " (server->client; overrides the two-way flag)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "rtype-netsim: unexpected arguments: %v\n", fs.Args())
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "rtype-netsim: bad -log-level: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var upImp, downImp netsim.Impairment
	both.apply(&upImp, set, "")
	both.apply(&downImp, set, "")
	up.apply(&upImp, set, "up-")
	down.apply(&downImp, set, "down-")

	r, err := netsim.New(netsim.Config{
		Listen:      *listen,
		To:          *to,
		Up:          upImp,
		Down:        downImp,
		Seed:        *seed,
		IdleTimeout: *idle,
		Logger:      logger,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "rtype-netsim: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = r.Run(ctx)
	r.Close()
	upStats, downStats := r.Stats()
	fmt.Printf("rtype-netsim: up   (client->server): %s\n", upStats)
	fmt.Printf("rtype-netsim: down (server->client): %s\n", downStats)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rtype-netsim: %v\n", err)
		return 1
	}
	return 0
}
