package agones

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"rtype/server"
)

// The labels Agent keeps up to date (Agones adds the prefix
// "agones.dev/sdk-"): games running and players logged in.
const (
	LabelGames   = "rtype-games"
	LabelPlayers = "rtype-players"
)

// Config is an Agent's configuration. The zero value of a field means
// its default.
type Config struct {
	// Addr is the sidecar's REST address, "host:port". Default
	// DefaultAddr(): localhost:$AGONES_SDK_HTTP_PORT, else localhost:9358.
	Addr string
	// HealthInterval is the time between two Health calls. Default 2 s;
	// the Fleet's health.periodSeconds must be longer.
	HealthInterval time.Duration
	// LabelInterval is the least time between two updates of the labels:
	// counts that change faster are sent as they are then. Default 1 s.
	LabelInterval time.Duration
	// RetryMin is the wait after a failed call before it is tried again;
	// it doubles at each failure up to RetryMax. Defaults 250 ms and 8 s.
	RetryMin, RetryMax time.Duration
	// RequestTimeout bounds each request. Default 2 s.
	RequestTimeout time.Duration
	// ShutdownWhenEmpty asks Agones for Shutdown once no game is left
	// after at least one ended. Default false: the GameServer stays
	// Allocated.
	ShutdownWhenEmpty bool
	// AllocatedTimeout: a GameServer that Agones allocated (its state,
	// read every HealthInterval from GET /gameserver, is Allocated) and
	// that no player joined within AllocatedTimeout asks for Shutdown,
	// so that an allocation whose players never came does not hold a
	// server for ever (Agones never scales Allocated servers down).
	// Default 5 min; negative: never.
	AllocatedTimeout time.Duration
	// OnShutdown, when set, is called once Shutdown was asked, so that
	// the game server refuses new logins until Agones stops it
	// (cmd/rtype-server: server.Server.Drain).
	OnShutdown func()
	// Logger receives the agent's logs. Default slog.Default().
	Logger *slog.Logger
	// HTTPClient makes the requests. Default NewSDK's.
	HTTPClient *http.Client
}

func (c Config) withDefaults() Config {
	if c.Addr == "" {
		c.Addr = DefaultAddr()
	}
	if c.HealthInterval <= 0 {
		c.HealthInterval = 2 * time.Second
	}
	if c.LabelInterval <= 0 {
		c.LabelInterval = time.Second
	}
	if c.RetryMin <= 0 {
		c.RetryMin = 250 * time.Millisecond
	}
	if c.RetryMax < c.RetryMin {
		c.RetryMax = max(8*time.Second, c.RetryMin)
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = 2 * time.Second
	}
	if c.AllocatedTimeout == 0 {
		c.AllocatedTimeout = 5 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Agent follows a game server's life (Observe, given to
// server.Server.Watch) and tells the Agones sidecar of it while Run
// runs: Ready once the server listens, Allocate when its first player
// joins, Shutdown after its last game ended (with ShutdownWhenEmpty),
// Health every HealthInterval, and the labels LabelGames and
// LabelPlayers when the counts change. A failed call is logged and tried
// again with backoff; Observe never waits for the sidecar.
type Agent struct {
	cfg Config
	sdk *SDK
	log *slog.Logger

	mu        sync.Mutex
	listening bool // the server serves
	joined    bool // a player joined, ever
	games     int  // the counts of the last event
	players   int
	ended     int // games ended since the start

	lifeCh  chan struct{} // a lifecycle step may be due
	labelCh chan struct{} // the counts changed
}

// New returns an agent of the sidecar of cfg.
func New(cfg Config) *Agent {
	cfg = cfg.withDefaults()
	return &Agent{
		cfg:     cfg,
		sdk:     NewSDK(cfg.Addr, cfg.HTTPClient),
		log:     cfg.Logger.With("agones", cfg.Addr),
		lifeCh:  make(chan struct{}, 1),
		labelCh: make(chan struct{}, 1),
	}
}

// Observe learns of a moment of the server's life: pass it to
// server.Server.Watch. It returns at once.
func (a *Agent) Observe(ev server.LifeEvent) {
	a.mu.Lock()
	switch ev.Kind {
	case server.Listening:
		a.listening = true
	case server.PlayerJoined:
		a.joined = true
	}
	changed := ev.Kind == server.Listening || ev.Games != a.games || ev.Players != a.players
	a.games, a.players, a.ended = ev.Games, ev.Players, ev.Ended
	a.mu.Unlock()
	signal(a.lifeCh)
	if changed {
		signal(a.labelCh)
	}
}

// signal wakes the goroutine that waits on ch, without waiting.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Run talks to the sidecar until ctx is done, then returns nil; the
// request under way, if any, is cancelled.
func (a *Agent) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { a.healthLoop(ctx) })
	wg.Go(func() { a.labelLoop(ctx) })
	wg.Go(func() { a.lifeLoop(ctx) })
	wg.Wait()
	return nil
}

// lifeLoop makes the lifecycle calls in their order, each when due and
// until it succeeds: Ready, Allocate, then Shutdown.
func (a *Agent) lifeLoop(ctx context.Context) {
	if !a.await(ctx, func() bool { return a.listening }) || !a.retry(ctx, "ready", a.sdk.Ready) {
		return
	}
	a.log.Info("agones: the GameServer is Ready")
	a.describe(ctx)
	if !a.awaitPlayer(ctx) || !a.retry(ctx, "allocate", a.sdk.Allocate) {
		return
	}
	a.log.Info("agones: the first player joined: the GameServer is Allocated")
	if !a.cfg.ShutdownWhenEmpty {
		return
	}
	if a.await(ctx, func() bool { return a.ended > 0 && a.games == 0 }) {
		a.shutdown(ctx, "the last game ended")
	}
}

// awaitPlayer waits until a player joined, and reports false if ctx
// ended first, or if the GameServer, allocated by Agones, saw no player
// within AllocatedTimeout: then it asked for Shutdown.
func (a *Agent) awaitPlayer(ctx context.Context) bool {
	t := time.NewTicker(a.cfg.HealthInterval)
	defer t.Stop()
	var since time.Time // first seen Allocated
	for {
		a.mu.Lock()
		joined := a.joined
		a.mu.Unlock()
		if joined {
			return true
		}
		select {
		case <-a.lifeCh:
			continue
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		if a.cfg.AllocatedTimeout < 0 {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, a.cfg.RequestTimeout)
		gs, err := a.sdk.GameServer(rctx)
		cancel()
		switch {
		case err != nil || gs.Status.State != "Allocated":
		case since.IsZero():
			since = time.Now()
			a.log.Info("agones: allocated, waiting for a player", "timeout", a.cfg.AllocatedTimeout)
		case time.Since(since) >= a.cfg.AllocatedTimeout:
			a.shutdown(ctx, "allocated, and no player joined within "+a.cfg.AllocatedTimeout.String())
			return false
		}
	}
}

// shutdown asks for Shutdown until it succeeds, then calls OnShutdown.
func (a *Agent) shutdown(ctx context.Context, why string) {
	if !a.retry(ctx, "shutdown", a.sdk.Shutdown) {
		return
	}
	a.log.Info("agones: Shutdown asked", "why", why)
	if a.cfg.OnShutdown != nil {
		a.cfg.OnShutdown()
	}
}

// describe logs the GameServer record once, if the sidecar gives it.
func (a *Agent) describe(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, a.cfg.RequestTimeout)
	defer cancel()
	gs, err := a.sdk.GameServer(rctx)
	if err != nil {
		a.log.Debug("agones: no GameServer record", "err", err)
		return
	}
	a.log.Info("agones: GameServer", "name", gs.ObjectMeta.Name, "namespace", gs.ObjectMeta.Namespace,
		"state", gs.Status.State, "address", gs.Status.Address)
}

// await waits until cond (called with a.mu held) holds, and reports
// false if ctx ended first.
func (a *Agent) await(ctx context.Context, cond func() bool) bool {
	for {
		a.mu.Lock()
		ok := cond()
		a.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-a.lifeCh:
		case <-ctx.Done():
			return false
		}
	}
}

// retry calls f until it succeeds, waiting RetryMin, then twice as long
// each time up to RetryMax, between tries; it reports false if ctx ended
// first.
func (a *Agent) retry(ctx context.Context, what string, f func(context.Context) error) bool {
	wait := a.cfg.RetryMin
	for try := 1; ; try++ {
		err := a.call(ctx, f)
		if err == nil {
			if try > 1 {
				a.log.Info("agones: call done after retries", "call", what, "tries", try)
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		a.log.Warn("agones: call failed, trying again", "call", what, "try", try, "in", wait, "err", err)
		if !sleep(ctx, wait) {
			return false
		}
		wait = min(2*wait, a.cfg.RetryMax)
	}
}

// call makes one call bounded by RequestTimeout.
func (a *Agent) call(ctx context.Context, f func(context.Context) error) error {
	return a.callWithin(ctx, a.cfg.RequestTimeout, f)
}

// callWithin makes one call bounded by d.
func (a *Agent) callWithin(ctx context.Context, d time.Duration, f func(context.Context) error) error {
	rctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return f(rctx)
}

// sleep waits d, and reports false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// healthLoop calls Health at once, then every HealthInterval, each call
// bounded by the interval too; a failure waits for the next one. It logs when the calls start failing and when
// they work again, not each failure.
func (a *Agent) healthLoop(ctx context.Context) {
	t := time.NewTicker(a.cfg.HealthInterval)
	defer t.Stop()
	failing := 0
	for {
		err := a.callWithin(ctx, min(a.cfg.RequestTimeout, a.cfg.HealthInterval), a.sdk.Health)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			if failing == 0 {
				a.log.Warn("agones: health call failed", "err", err)
			}
			failing++
		case failing > 0:
			a.log.Info("agones: health calls work again", "failed", failing)
			failing = 0
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
}

// labelLoop sets the labels when the counts change, at most once per
// LabelInterval, and tries again with backoff while the sidecar fails.
func (a *Agent) labelLoop(ctx context.Context) {
	games, players := -1, -1 // what the GameServer has
	var last time.Time
	backoff := a.cfg.RetryMin
	for {
		select {
		case <-a.labelCh:
		case <-ctx.Done():
			return
		}
		for {
			if !sleep(ctx, a.cfg.LabelInterval-time.Since(last)) {
				return
			}
			a.mu.Lock()
			g, p := a.games, a.players
			a.mu.Unlock()
			if g == games && p == players {
				break
			}
			last = time.Now()
			var err error
			if g != games {
				if err = a.call(ctx, func(ctx context.Context) error { return a.sdk.SetLabel(ctx, LabelGames, strconv.Itoa(g)) }); err == nil {
					games = g
				}
			}
			if err == nil && p != players {
				if err = a.call(ctx, func(ctx context.Context) error { return a.sdk.SetLabel(ctx, LabelPlayers, strconv.Itoa(p)) }); err == nil {
					players = p
				}
			}
			if err == nil {
				backoff = a.cfg.RetryMin
				continue
			}
			if ctx.Err() != nil {
				return
			}
			a.log.Warn("agones: label call failed, trying again", "in", backoff, "err", err)
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, a.cfg.RetryMax)
		}
	}
}
