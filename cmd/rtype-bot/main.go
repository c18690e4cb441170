// Command rtype-bot plays the game headless: each bot logs in, dodges the
// Bydos and their missiles coming its way, lines up with the nearest Bydos
// and fires at it, staying in the left third of the screen; in Stage mode
// it also charges the wave cannon, picks up items and uses the Force
// (package bot). It is used to load a server and to test it end to end.
//
// Usage:
//
//	rtype-bot [-addr 127.0.0.1:4242] [-n 1] [-name bot] [-duration 0] [-seed 0] [-protocol auto] [-mode any] [-log-level info]
//
// -version prints the build's version (package rtype/internal/version)
// and exits.
//
// -protocol picks the protocol version (PROTOCOL.md 7.1): auto (the
// default) speaks version 2, and version 1 with a server that only speaks
// that (once one bot has learnt it, the others log in with version 1 at
// once); 2 insists on version 2 and fails with a clear error on a v1-only
// server; 1 speaks version 1 only.
//
// -mode asks for a game mode in the v2 login (PROTOCOL.md 7.12): classic,
// stage, or any (the default: the server's choice). A version 1 session
// always plays Classic, so -protocol 1 goes only with -mode any or
// classic. Each bot logs the Stage events it sees (the stage's intro,
// markers, bosses, clear, continues): how far it got.
//
// The bots are named bot1..botN (with -name bot). They log in 100 ms apart
// and at most 5 per 10 seconds, the server's limit per IP address; a login
// refused as rate limited is tried again after the window. The command
// ends when the game is over for every bot, or after -duration, and prints
// each bot's final score. Its exit status is 0 when every bot played until
// the game was over (or until -duration or an interrupt), 1 otherwise.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"rtype/bot"
	"rtype/internal/version"
	"rtype/net/client"
	"rtype/net/lobby"
	"rtype/net/replay"
	"rtype/net/webaddr"
	"rtype/net/wire"
	"rtype/net/wtclient"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command line's.
type options struct {
	addr     string
	n        int
	name     string
	duration time.Duration
	seed     uint64
	level    slog.Level
	version  uint8  // client.Config.Version: 0 auto, 1 or 2
	mode     uint8  // client.Config.Mode: wire.ModeAny, ModeClassic or ModeStage
	record   string // directory of each bot's recording (net/replay), "" for none
	// transport is the WebTransport binding's (-webtransport), or nil
	// for TCP and UDP.
	transport client.Transport

	// Rooms (PROTOCOL.md 7.14): join the room of code, or create one
	// (printing its code) that the other bots join; say a chat line.
	room   wire.RoomCode
	create bool
	say    string
	out    io.Writer // where -create prints the code

	// started is when a -rendezvous bot started (zero without).
	started time.Time
}

// errVersion is parse's answer to -version: print the version and exit.
var errVersion = errors.New("-version")

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("rtype-bot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:4242", "server address, host:port (TCP and UDP)")
	fs.IntVar(&o.n, "n", 1, "number of bots in this process")
	fs.StringVar(&o.name, "name", "bot", "name prefix: the bots are named <prefix>1..<prefix>N")
	fs.DurationVar(&o.duration, "duration", 0, "how long to play; 0 plays until the game is over")
	fs.Uint64Var(&o.seed, "seed", 0, "seed of the bots' choices; 0 picks one at random")
	level := fs.String("log-level", "info", "log level: debug, info, warn or error")
	protocol := fs.String("protocol", "auto", "protocol version: auto (2, falling back to 1 with a v1-only server), 1 or 2")
	mode := fs.String("mode", "any", "game mode: any (the server's choice), classic or stage")
	fs.StringVar(&o.record, "record", "", "directory where each bot records its game (a replay file per bot, REPLAYS.md); empty records nothing")
	room := fs.String("room", "", "join the room of this code (6 characters) and play its game when it starts")
	fs.BoolVar(&o.create, "create", false, "create a private room, print its code (\"room CODE\"), and play its game; the other bots join it")
	fs.StringVar(&o.say, "say", "", "say this line in the chat once in the game or room")
	wt := fs.String("webtransport", "", "play over the server's WebTransport binding at this UDP host:port (as a browser does) instead of -addr")
	showVersion := fs.Bool("version", false, "print the version and exit")
	rdv := fs.String("rendezvous", "", "with -room: find the room's host at this rendezvous (host:port, PROTOCOL.md Part V) and play over the first path that works; prints \"path: direct|mapped|punched|relayed\"")
	paths := fs.String("path", "", "with -rendezvous: try only these paths (comma-separated: direct, mapped, punched, relayed)")
	hashes := fs.String("cert-hash", "", "with -webtransport: the SHA-256 hashes (hex, comma-separated) of the server certificates to trust, as the server logs them; default: verify the certificate the usual way")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if *showVersion {
		return o, errVersion
	}
	if *wt != "" {
		tr, err := webTransport(*hashes)
		if err != nil {
			return o, fmt.Errorf("-cert-hash: %v", err)
		}
		o.addr, o.transport = *wt, tr
	} else if *hashes != "" {
		return o, fmt.Errorf("-cert-hash goes with -webtransport")
	}
	if *rdv != "" {
		if *room == "" || *wt != "" {
			return o, fmt.Errorf("-rendezvous goes with -room, without -webtransport")
		}
		d, err := rendezvousDialer(*rdv, *paths)
		if err != nil {
			return o, err
		}
		o.addr, o.transport = strings.ToUpper(*room), d
	} else if *paths != "" {
		return o, fmt.Errorf("-path goes with -rendezvous")
	}
	if *room != "" {
		c, ok := wire.ParseRoomCode(*room)
		if !ok {
			return o, fmt.Errorf("-room %q: a code is 6 characters of %s", *room, wire.RoomCodeAlphabet)
		}
		o.room = c
		if o.create {
			return o, fmt.Errorf("-room and -create exclude each other")
		}
	}
	if (o.create || *room != "") && *protocol == "1" {
		return o, fmt.Errorf("rooms need protocol 2")
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.n < 1 {
		return o, fmt.Errorf("-n must be at least 1")
	}
	if first, last := fmt.Sprintf("%s1", o.name), fmt.Sprintf("%s%d", o.name, o.n); len([]rune(first)) < 3 || len([]rune(last)) > 20 {
		return o, fmt.Errorf("-name: the names %s..%s must have 3 to 20 characters", first, last)
	}
	if o.duration < 0 {
		return o, fmt.Errorf("-duration must not be negative")
	}
	if err := o.level.UnmarshalText([]byte(*level)); err != nil {
		return o, fmt.Errorf("-log-level: %v", err)
	}
	v, err := client.ParseVersion(*protocol)
	if err != nil {
		return o, fmt.Errorf("-protocol: %v", err)
	}
	o.version = v
	if o.mode, err = parseMode(*mode); err != nil {
		return o, fmt.Errorf("-mode: %v", err)
	}
	if o.version != 0 && o.mode == wire.ModeStage && !wire.NewFeatures(o.version, wire.Revision).Modes {
		return o, fmt.Errorf("-mode stage needs protocol 2: a version 1 session plays Classic only")
	}
	if o.seed == 0 {
		o.seed = rand.Uint64()
	}
	return o, nil
}

// parseMode parses a -mode value.
func parseMode(s string) (uint8, error) {
	switch s {
	case "any":
		return wire.ModeAny, nil
	case "classic":
		return wire.ModeClassic, nil
	case "stage":
		return wire.ModeStage, nil
	}
	return 0, fmt.Errorf("%q is not any, classic or stage", s)
}

// result is how one bot's game ended.
type result struct {
	name  string
	score uint32
	over  bool // the game ended with GameOver
	err   error
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if errors.Is(err, errVersion) {
			fmt.Fprintln(stdout, "rtype-bot", version.String())
			return 0
		}
		fmt.Fprintln(stderr, "rtype-bot:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: o.level}))
	log.Info("rtype-bot starting", "version", version.String())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	o.out = stdout
	reportPath(&o, time.Now(), stdout, log)
	results := playAll(ctx, o, log)
	status := 0
	for _, r := range results {
		switch {
		case r.err != nil:
			fmt.Fprintf(stdout, "%s: error: %v (score %d)\n", r.name, r.err, r.score)
			status = 1
		case r.over:
			fmt.Fprintf(stdout, "%s: final score %d (game over)\n", r.name, r.score)
		default:
			fmt.Fprintf(stdout, "%s: score %d (stopped before the game was over)\n", r.name, r.score)
		}
	}
	return status
}

// playAll runs o.n bots and waits for them.
func playAll(ctx context.Context, o options, log *slog.Logger) []result {
	gate := newLoginGate(5, 10*time.Second+500*time.Millisecond, 100*time.Millisecond)
	gate.version = o.version
	results := make([]result, o.n)
	var wg sync.WaitGroup
	code := make(chan wire.RoomCode, 1) // the room bot1 created (-create)
	if !o.create {
		code <- o.room
	}
	for i := range o.n {
		slot := gate.reserve() // in order: bot1 first
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("%s%d", o.name, i+1)
			rng := rand.New(rand.NewPCG(o.seed, uint64(i)))
			if o.create || o.room != (wire.RoomCode{}) {
				results[i] = playRoom(ctx, o, name, i == 0 && o.create, code, slot, rng, log.With("bot", name))
				return
			}
			results[i] = playBot(ctx, o, name, gate, slot, rng, log.With("bot", name))
		}()
	}
	wg.Wait()
	return results
}

// playBot logs one bot in and plays until the game is over, ctx is done,
// or the session fails.
func playBot(ctx context.Context, o options, name string, gate *loginGate, slot time.Time, rng *rand.Rand, log *slog.Logger) result {
	res := result{name: name}
	var tap client.Tap
	var c *client.Client
	if o.record != "" {
		f, err := replay.Create(o.record, replay.DefaultCap, 0, time.Now(), name)
		if err != nil {
			res.err = fmt.Errorf("-record: %w", err)
			return res
		}
		rec := replay.NewRecorder(f, 0)
		defer func() {
			if err := rec.Flush(); err != nil {
				log.Error("recording", "file", f.Name(), "err", err)
			}
			f.Close()
			var received uint64 // the UDP bytes the client accepted
			if c != nil {
				received = c.Stats().Link.RecvBytes
			}
			log.Info("recorded", "file", f.Name(), "bytes", rec.Size(), "received", received)
		}()
		tap = rec
	}
	var err error
	c, err = login(ctx, o, name, gate, slot, tap, log)
	if err != nil {
		if ctx.Err() == nil {
			res.err = err
		}
		return res
	}
	defer c.Close()
	if o.say != "" {
		if err := c.SendChat(o.say); err != nil {
			log.Warn("cannot say", "err", err)
		}
	}
	return drive(ctx, c, res, rng, log)
}

// drive plays c with a brain until the game is over, ctx is done, or the
// session fails.
func drive(ctx context.Context, c *client.Client, res result, rng *rand.Rand, log *slog.Logger) result {
	b := bot.NewMode(c.Player(), c.Mode(), rng)
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	report := time.NewTicker(10 * time.Second)
	defer report.Stop()
	var frames []client.Frame
	var events []wire.Event
	last := uint8(0xFF)
	for {
		select {
		case <-ctx.Done():
			res.score = c.Players()[c.Player()].Score
			log.Info("stopping", "score", res.score)
			return res
		case <-c.Done():
			res.score = finalScore(c)
			var lo *client.LogoutError
			if errors.As(c.Err(), &lo) && lo.Reason == wire.LogoutGameOver {
				res.over = true
				log.Info("game over", "score", res.score)
			} else {
				res.err = c.Err()
				log.Error("session ended", "err", res.err, "score", res.score)
			}
			return res
		case <-report.C:
			st := c.Stats()
			log.Info("playing", "score", c.Players()[c.Player()].Score, "lives", c.Players()[c.Player()].Lives,
				"rtt", st.RTT.Round(time.Millisecond), "loss", st.Loss, "kbit_in", int(st.KbitIn), "kbit_out", int(st.KbitOut))
		case <-tick.C:
			events = c.DrainEvents(events[:0])
			for i := range events {
				logStage(log, &events[i])
			}
			b.Events(events) // the terrain's scroll
			frames = c.Frames(frames)
			if len(frames) == 0 {
				continue
			}
			f := &frames[len(frames)-1]
			bot.Present(f, time.Now())
			act := b.Decide(f)
			if act != last {
				c.SetInput(act)
				last = act
			}
		}
	}
}

// logStage logs a Stage event (PROTOCOL.md 7.12): how far the bot got.
func logStage(log *slog.Logger, ev *wire.Event) {
	if ev.Type != wire.EventStage {
		return
	}
	switch ev.What {
	case wire.StageIntro:
		log.Info("stage", "tick", ev.Tick, "intro", ev.Name, "loop", ev.Value)
	case wire.StageMarker:
		log.Info("stage", "tick", ev.Tick, "marker", ev.Name)
	case wire.StageBoss:
		log.Info("stage", "tick", ev.Tick, "boss", ev.Name)
	case wire.StageClear:
		log.Info("stage", "tick", ev.Tick, "clear", ev.Value)
	case wire.StageContinue:
		log.Info("stage", "tick", ev.Tick, "continue", ev.Value)
	}
}

// finalScore returns the bot's score of GameOver, else of the player
// table.
func finalScore(c *client.Client) uint32 {
	if scores, over := c.GameOver(); over {
		for _, s := range scores {
			if s.Player == c.Player() {
				return s.Score
			}
		}
	}
	return c.Players()[c.Player()].Score
}

// login dials at its slot of the gate, trying again when the server says the
// address logged in too often.
func login(ctx context.Context, o options, name string, gate *loginGate, slot time.Time, tap client.Tap, log *slog.Logger) (*client.Client, error) {
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			slot = gate.reserve()
		}
		if err := sleepUntil(ctx, slot); err != nil {
			return nil, err
		}
		version := gate.protocol()
		c, err := client.Dial(ctx, client.Config{Addr: o.addr, Name: name, Logger: log, Version: version, Mode: o.mode, Tap: tap,
			Transport: o.transport})
		var rej *client.RejectedError
		if errors.As(err, &rej) && rej.Reason == wire.RejectRateLimited && attempt < 10 {
			log.Info("login rate limited: waiting for the window to pass", "attempt", attempt)
			gate.backOff()
			continue
		}
		if err != nil {
			log.Error("login failed", "err", err)
			return nil, err
		}
		if version == 0 {
			gate.learn(c.Version()) // a v1-only server: no more v2 attempts
		}
		log.Info("logged in", "player", c.Player(), "version", c.Version(), "mode", wire.ModeName(c.Mode()))
		if o.mode != wire.ModeAny && c.Mode() != o.mode {
			log.Warn("the server gave another mode than asked", "asked", wire.ModeName(o.mode), "mode", wire.ModeName(c.Mode()))
		}
		return c, nil
	}
}

// loginGate spaces the process's logins: at most limit within any
// window, and stagger apart, so that the bots stay under the server's rate
// limit (3.3: 5 per IP address per 10 seconds, refused ones included).
// Logins go in the order of their reservations.
type loginGate struct {
	limit   int
	window  time.Duration
	stagger time.Duration

	mu    sync.Mutex
	times []time.Time // of the logins reserved, within the window or to come
	until time.Time   // no login before this
	// version is the protocol version to log in with: -protocol, or in
	// auto the one the server accepted (1 from a v1-only server: no more
	// v2 attempts).
	version uint8
}

// protocol returns the version the next login asks for.
func (g *loginGate) protocol() uint8 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.version
}

// learn sets the version the next logins ask for.
func (g *loginGate) learn(v uint8) {
	g.mu.Lock()
	g.version = v
	g.mu.Unlock()
}

func newLoginGate(limit int, window, stagger time.Duration) *loginGate {
	return &loginGate{limit: limit, window: window, stagger: stagger}
}

// reserve returns the time of the next free login slot, and takes it.
func (g *loginGate) reserve() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	for len(g.times) > 0 && !g.times[0].Add(g.window).After(now) {
		g.times = g.times[1:]
	}
	next := now
	if g.until.After(next) {
		next = g.until
	}
	if n := len(g.times); n > 0 && g.times[n-1].Add(g.stagger).After(next) {
		next = g.times[n-1].Add(g.stagger)
	}
	if n := len(g.times); n >= g.limit && g.times[n-g.limit].Add(g.window).After(next) {
		next = g.times[n-g.limit].Add(g.window)
	}
	g.times = append(g.times, next)
	return next
}

// sleepUntil waits for t or for ctx to be done.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// backOff holds the logins not reserved yet for a whole window: the
// server refused one as rate limited, so other logins from this address
// (another process) count too.
func (g *loginGate) backOff() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t := time.Now().Add(g.window); t.After(g.until) {
		g.until = t
	}
}

// playRoom logs one bot in for the lobby (7.14): it creates the room and
// prints its code (create), or joins the room whose code comes from
// code; says o.say; gets ready, and plays the room's game when it starts.
func playRoom(ctx context.Context, o options, name string, create bool, code chan wire.RoomCode, slot time.Time,
	rng *rand.Rand, log *slog.Logger) result {
	res := result{name: name}
	fail := func(err error) result {
		if ctx.Err() == nil {
			res.err = err
		}
		return res
	}
	if err := sleepUntil(ctx, slot); err != nil {
		return fail(err)
	}
	l, err := lobby.Dial(ctx, lobby.Config{Addr: o.addr, Name: name, Mode: o.mode, Logger: log, Transport: o.transport})
	if err != nil {
		return fail(err)
	}
	defer l.Close()
	var c wire.RoomCode
	if create {
		mode := o.mode
		if mode == wire.ModeAny {
			mode = l.Mode()
		}
		l.Create(wire.RoomSettings{Mode: mode, Difficulty: wire.DifficultyNormal, MaxPlayers: wire.MaxPlayers,
			Flags: wire.RoomJoinLate})
	} else {
		select {
		case c = <-code:
			code <- c // for the next bot
		case <-ctx.Done():
			return res
		}
		l.Join(c)
	}
	st, err := waitRoom(ctx, l, func(r *wire.Room) bool { return true })
	if err != nil {
		return fail(err)
	}
	if create {
		fmt.Fprintf(o.out, "room %s\n", st.Code)
		code <- st.Code
	}
	log.Info("in the room", "room", st.Code.String(), "player", st.You)
	if o.say != "" {
		if err := l.SendChat(o.say); err != nil {
			log.Warn("cannot say", "err", err)
		}
	}
	if create {
		// The creator waits for the others (-n), or for a player who
		// joins by the code: alone and ready, it would start at once.
		want := max(o.n, 2)
		if _, err := waitRoom(ctx, l, func(r *wire.Room) bool { return int(r.Count) >= want }); err != nil {
			return fail(err)
		}
	}
	if st, _ := l.State(); st.State == wire.RoomLobby {
		l.Ready(true)
	}
	// The room may have started before the Ready came (refused Invalid):
	// that refusal is no error.
	if _, err := waitRoomIgnoring(ctx, l, wire.RoomInvalid, func(r *wire.Room) bool { return r.State == wire.RoomPlaying }); err != nil {
		return fail(err)
	}
	gc, err := l.Play(ctx, client.Config{Logger: log})
	if err != nil {
		return fail(err)
	}
	defer gc.Close()
	reportSnapshot(ctx, &o, gc)
	return drive(ctx, gc, res, rng, log)
}

// waitRoom waits until the lobby's room satisfies cond; a refusal or the
// session's end is an error.
func waitRoom(ctx context.Context, l *lobby.Lobby, cond func(r *wire.Room) bool) (wire.Room, error) {
	return waitRoomIgnoring(ctx, l, 0, cond)
}

// waitRoomIgnoring is waitRoom, for which a refusal of reason ignore is no
// error.
func waitRoomIgnoring(ctx context.Context, l *lobby.Lobby, ignore uint8, cond func(r *wire.Room) bool) (wire.Room, error) {
	for {
		for _, r := range l.Refusals() {
			if r.Reason != ignore {
				return wire.Room{}, fmt.Errorf("room: %s", wire.RoomReason(r.Reason))
			}
		}
		if st, ok := l.State(); ok && cond(&st) {
			return st, nil
		}
		select {
		case <-l.Changed():
		case <-l.Done():
			return wire.Room{}, l.Err()
		case <-ctx.Done():
			return wire.Room{}, ctx.Err()
		}
	}
}

// webTransport returns the transport of -webtransport, trusting the
// certificates of hashes (hex SHA-256, comma-separated), or the system's
// authorities when there are none.
func webTransport(hashes string) (*wtclient.Transport, error) {
	hs, err := webaddr.ParseHashes(strings.Split(hashes, ","))
	if err != nil {
		return nil, err
	}
	return &wtclient.Transport{CertHashes: hs}, nil
}
