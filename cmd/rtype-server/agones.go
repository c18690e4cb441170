package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"rtype/server"
	"rtype/server/agones"
)

// agonesFlags are the flags of an Agones GameServer.
type agonesFlags struct {
	on        *bool
	whenEmpty *bool
	sdk       *string
	health    *time.Duration
	allocated *time.Duration
}

// addAgonesFlags registers -agones, -agones-shutdown-when-empty,
// -agones-sdk and -agones-health.
func addAgonesFlags() agonesFlags {
	return agonesFlags{
		on: flag.Bool("agones", false, "run as an Agones GameServer: Ready once listening, Health, Allocated at the first player, "+
			"labels rtype-games and rtype-players (through the SDK sidecar's REST API)"),
		whenEmpty: flag.Bool("agones-shutdown-when-empty", false, "with -agones: ask Agones to shut the GameServer down once its last game ended"),
		sdk: flag.String("agones-sdk", agones.DefaultAddr(), "with -agones: the SDK sidecar's REST address "+
			"(default localhost:$"+agones.PortEnv+", else localhost:9358)"),
		health: flag.Duration("agones-health", 2*time.Second, "with -agones: time between two Health calls (the Fleet's health.periodSeconds must be longer)"),
		allocated: flag.Duration("agones-allocated-timeout", 5*time.Minute, "with -agones: ask for Shutdown when Agones allocated the GameServer "+
			"and no player joined within this time (negative: never)"),
	}
}

// check refuses the Agones flags without -agones.
func (f agonesFlags) check() error {
	if !*f.on && *f.whenEmpty {
		return fmt.Errorf("-agones-shutdown-when-empty needs -agones")
	}
	if *f.health <= 0 {
		return fmt.Errorf("-agones-health %v: want a positive duration", *f.health)
	}
	return nil
}

// start makes srv tell the sidecar of its life, with -agones, until ctx
// is done or stop is called; stop returns once the agent stopped.
func (f agonesFlags) start(ctx context.Context, srv *server.Server, log *slog.Logger) (stop func()) {
	if !*f.on {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	a := agones.New(agones.Config{Addr: *f.sdk, HealthInterval: *f.health, ShutdownWhenEmpty: *f.whenEmpty,
		AllocatedTimeout: *f.allocated, OnShutdown: srv.Drain, Logger: log})
	srv.Watch(a.Observe)
	log.Info("agones", "sdk", *f.sdk, "health", *f.health, "shutdown_when_empty", *f.whenEmpty)
	var wg sync.WaitGroup
	wg.Go(func() { a.Run(ctx) })
	return func() { cancel(); wg.Wait() }
}
