// Package server is the authoritative game server of PROTOCOL.md, versions
// 1 and 2 on the same port: TCP sessions with their login rules and
// version negotiation, UDP binding (in v2, proving the address with a
// cookie), several games per process each with its own simulation
// (package sim), reliable events and delta snapshots to every client
// (package link), each session in its own version.
//
// The same Server runs inside the game client (a listen server, one game)
// and alone as the dedicated server (cmd/rtype-server). It never touches a
// display.
package server

import (
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server/fleet"
	"rtype/sim"
	"rtype/sim/stage"
)

// Config is the server's configuration. The zero value of a field means its
// default.
type Config struct {
	// Listen is the TCP and UDP address (same port). Default ":4242";
	// port 0 picks a free port for both.
	Listen string
	// MaxVersion is the highest protocol version the server speaks.
	// Default 2: a LoginRequest of version 1 gets a v1 session (Part I of
	// PROTOCOL.md, byte for byte), one of version 2 a v2 session (Part
	// II), both sharing games (7.11). 1 runs a v1-only server, which
	// answers a v2 LoginRequest with LoginRejected(VersionMismatch) (7.1).
	MaxVersion int
	// MaxGames is how many games may run at once. Default 8; a listen
	// server uses 1.
	MaxGames int
	// Seed seeds every game's simulation (game n gets Seed+n). Default 0:
	// a random seed per server.
	Seed uint64
	// Rules are the gameplay rules. Default sim.DefaultRules().
	Rules *sim.Rules
	// Mode is the mode of the games of v2 logins that let the server
	// choose (wire.ModeAny, or a mode above 2): wire.ModeStage or
	// wire.ModeClassic. Default wire.ModeStage. v1 logins always play
	// Classic (7.12).
	Mode uint8
	// Stage is the stage Stage games play. Default: the built-in stage
	// "1" (stage.Builtin). New checks that a Stage game can start with it
	// and Warp.
	Stage *stage.Stage
	// Campaign is the stages that Stage games play one after the other,
	// from Stage on (sim.StageOptions.Campaign); a Stage not among them
	// is played alone, loop after loop. Default: the built-in stages, in
	// the order of their names (stage.Campaign).
	Campaign []*stage.Stage
	// Warp starts every Stage game later in its stage: seconds ("90") or
	// a marker ("boss"), as sim.StageOptions.Warp. Default "".
	Warp string
	// LoginTimeout is how long a new TCP connection has to send its
	// LoginRequest (3.2). Default 5 s.
	LoginTimeout time.Duration
	// BindTimeout is how long an accepted login has to bind its UDP
	// address (3.4). Default 5 s.
	BindTimeout time.Duration
	// SessionTimeout is the silence that ends a bound session (5.5).
	// Default 5 s.
	SessionTimeout time.Duration
	// LoginLimit logins per IP address are allowed within LoginWindow; the
	// next one is refused (3.3). Defaults 5 and 10 s.
	LoginLimit  int
	LoginWindow time.Duration
	// LoginAddrs caps the IP addresses the rate limit tracks at once, so
	// that its memory is bounded. Addresses idle for a LoginWindow are
	// forgotten; when the table is full all the same, a new address takes
	// the place of the one idle longest, so a newcomer is never refused
	// for want of room. Default 100000.
	LoginAddrs int
	// MaxPending caps TCP connections that have not logged in yet; more
	// are closed at once. Default 64.
	MaxPending int
	// MaxPendingPerIP caps the pending connections of one IP address, so
	// that one host cannot take all MaxPending and keep every other
	// player from logging in; more are closed at once. Default 8, at most
	// MaxPending.
	MaxPendingPerIP int
	// MaxSessions caps logged-in sessions across all games. Default
	// 4 x MaxGames.
	MaxSessions int
	// MaxSessionsPerIP caps the logged-in sessions of one IP address at
	// once, so that one host cannot take every player slot: the login
	// that would exceed it is refused with LoginRejected(RateLimited) and
	// a text that says so (PROTOCOL.md 3.3). Default 8.
	MaxSessionsPerIP int
	// Bots returns the bots of a room's game of mode, seeded with seed
	// (7.14): rtype-server and the listen server give bot.NewRoomBots,
	// the brain of rtype-bot. Default nil: a server without bots, which
	// refuses to add one (RoomRefused Invalid).
	Bots func(mode uint8, seed uint64) Bots
	// MaxRooms is how many rooms (7.14) may exist at once. Default 64.
	// Rooms waiting in the lobby hold no game: MaxGames counts only the
	// games that run, a room's among them once it starts.
	MaxRooms int
	// MaxRoomsPerIP caps the rooms whose owner logged in from one IP
	// address; a RoomCreate or a RoomQuick that would create one more is
	// refused with RoomRefused(TooMany) (7.14). Default 2.
	MaxRoomsPerIP int
	// LobbyIdle is how long a lobby session (7.14) in no game may send
	// nothing on its TCP connection: past it, the server ends the session
	// with Logout(TimedOut) and logs "lobby session idle". A session in its
	// room's game is never idle; its clock restarts when it comes back to
	// the room. Default 5 minutes.
	LobbyIdle time.Duration
	// WrongCodes is how many wrong room codes an address may send within
	// WrongCodeWindow before its RoomJoins are refused (7.14). Default 5
	// per 60 s.
	WrongCodes      int
	WrongCodeWindow time.Duration
	// GameOverLinger is how long after GameOver a session waits for the
	// event's acknowledgement before its Logout(GameOver) (4.4). Default
	// 3 s.
	GameOverLinger time.Duration
	// SnapshotInterval is the number of ticks between snapshots: 3 is 20
	// per second. Default 3.
	SnapshotInterval int
	// MaxTickLoad is the back-pressure threshold: when the tick loop's
	// duty cycle over the last second (the time its ticks took over the
	// time they had, TickStats.Load) is above it, a login that would start
	// a new game is refused with LoginRejected(GameFull) and the reason
	// logged, so that the running games keep their 60 ticks a second;
	// logins that join a running game are still let in. Default 0.75: a
	// quarter of each tick period left for the machine's hiccups. 1 or
	// more never refuses for load (a tick loop busy all the time is
	// already behind).
	MaxTickLoad float64
	// TickShards is how many goroutines step the games each tick, each a
	// share of them, a goroutine done with its share taking games left in
	// the others' (a game is always stepped whole by one, so it stays
	// deterministic). Default runtime.GOMAXPROCS(0); 1 steps every game
	// on the tick loop's goroutine. With OnSnapshot, OnEvents or OnStep
	// set, one goroutine steps them all, so that the callbacks are called
	// in turn.
	TickShards int
	// ReadPause is the least time between two reads of the read loop
	// while datagrams keep coming (unless a read fills its batch of 64),
	// so that those that come meanwhile are read and handled together:
	// at 1,000 players one wake-up for ~47 datagrams instead of one for 3
	// or 4, a third less CPU per player (BENCHMARKS.md, players per core,
	// ninth pass). A datagram waits at most that much longer (an Input
	// that comes within ReadPause of a tick may count in the next one). A
	// read that finds the socket empty waits for it as before: an idle
	// server does not poll. Default 1 ms; negative: no pause.
	ReadPause time.Duration
	// WaitForTick says what the read loop does when it finds a tick
	// running (the server's mutex held): wait for the tick to end, the
	// datagrams that come meanwhile waiting in the socket's receive
	// buffer, or read on and queue them for after it (rxqueue.go).
	// Waiting leaves the cores to the tick's shards: at 1,000 busy
	// players the p99 tick is about 8% shorter and the longest much
	// shorter (BENCHMARKS.md, players per core, eleventh pass). An Input
	// that comes during a tick counts in the next either way. Waiting
	// needs a receive buffer that holds a tick's datagrams: 0, the
	// default, waits when the kernel granted the socket MinWaitBuffer
	// (Linux, with net.core.rmem_max raised to the 4 MB the server asks
	// for: OPERATING.md), and queues otherwise; 1 always waits; -1 never does.
	WaitForTick int
	// Leaderboard, when set, records the scores of every game (PROTOCOL.md
	// 7.16): a game over's before its GameOver goes out, a stage's at its
	// clear (gameScores). Default nil: no leaderboard. The server does not
	// close it.
	Leaderboard Leaderboard
	// Bans, when set, keeps the operator's bans (Server.Ban): New loads
	// those in force, and every new one is stored there first, so that
	// they survive a restart. Default nil: bans last until the server
	// stops. The server does not close it.
	Bans BanList
	// Discovery is the UDP address the LAN discovery responder listens
	// on (PROTOCOL.md section 8), ":4243" to answer on every interface.
	// Default "": the server answers no discovery query. When the
	// address cannot be opened, the server runs without it and logs a
	// warning.
	Discovery string
	// WebTransportAddr is the UDP address of the WebTransport binding
	// (PROTOCOL.md Part IV): HTTP/3 on its own port, serving the session
	// URL https://HOST:PORT/rtype. Default "": no WebTransport.
	WebTransportAddr string
	// TLSCert and TLSKey are PEM files of the operator's certificate and
	// key for WebTransport (9.4). Default "": the server makes
	// short-lived certificates itself, rotates them and publishes their
	// hashes (WebTransport).
	TLSCert, TLSKey string
	// MaxWebTransportConns caps the QUIC connections of the WebTransport
	// binding at once, each counted from its first packet to its close:
	// a connection beyond it is refused before its handshake
	// (CONNECTION_REFUSED, PROTOCOL.md 9.5). Default MaxSessions +
	// MaxPending, a connection for every session and pending connection.
	MaxWebTransportConns int
	// MaxWebTransportConnsPerIP caps the QUIC connections of one IP
	// address, so that one host cannot hold the binding's connections
	// (nor their memory); more are refused the same way. An address's
	// second connection, and any while the binding is half full, first
	// proves its address (a QUIC Retry), so that packets of a forged
	// address take one place at most. Default MaxSessionsPerIP +
	// MaxPendingPerIP (16), at most MaxWebTransportConns.
	MaxWebTransportConnsPerIP int
	// CertReload is how often the files of TLSCert and TLSKey are read
	// again: when they changed (a renewal), new WebTransport sessions get
	// the new certificate, with no restart; files that do not load keep
	// the one served, and are logged as an error. Default 10 s; negative:
	// never.
	CertReload time.Duration
	// Name is the server's name in discovery answers (8.3), cleaned and
	// cut to 35 bytes. Default "": none (a client lists the address).
	Name string
	// NameFromHost makes discovery answers carry the machine's host name
	// when Name is "" (discovery.ResponderConfig.HostName). Default off.
	NameFromHost bool
	// Logger receives the server's structured logs. Default slog.Default().
	Logger *slog.Logger
	// OnSnapshot, when set, is called from the tick loop with each game's
	// state at every snapshot tick, before it is sent. Tests use it to
	// compare clients' rebuilt worlds with the server's. The slices are
	// only valid during the call.
	OnSnapshot func(game int, snap Snapshot)
	// OnEvents, when set, is called from the tick loop with the events a
	// game's world produced, in order, before they are queued to the
	// clients. Tests use it to check that every client gets each event
	// once. The slice is only valid during the call.
	OnEvents func(game int, events []wire.Event)
	// OnStep, when set, is called from the tick loop at every tick of a
	// game, for each v2 player that has applied an input step, with the
	// tick and the last step applied at it (7.4: the last_step a snapshot
	// of that tick carries, 7.8). Tests use it to tell the ticks at which
	// a player's queue ran dry or skipped steps, which the snapshots, every
	// SnapshotInterval ticks, may not show (a dry tick and a skip between
	// two of them).
	OnStep func(game int, tick uint32, player uint8, step uint32)
	// Recorder, when set, is called when a game starts and may return
	// the game's recorder, or nil (cmd/rtype-server -record): the game's
	// events and snapshots go to it as a v2 client of the game receives
	// them, until End, when the game ends or the server stops.
	Recorder func(game int, mode uint8, rules wire.LoginExt) GameRecorder
	// Fleet, when set, shares the server's rooms with the other servers of
	// its fleet through Redis (PROTOCOL.md 7.18): codes and quick join
	// resolve across the fleet. Default nil: a single server. The server
	// does not close it.
	Fleet *fleet.Registry
	// FleetSync is how often the rooms are published to the fleet besides
	// at each change (and so how old the other servers' rooms that quick
	// join compares may be). Default 2 s; keep it well under the
	// registry's TTL.
	FleetSync time.Duration
	// StoreCheck is how often the server checks its database
	// (Leaderboard, Bans): it reads the bans in force, which propagates a
	// ban made on another server of the fleet, writes the scores queued
	// while the database was down, and tells readiness. Default 2 s.
	StoreCheck time.Duration
}

// GameRecorder records a game (net/replay's GameRecorder writes it to a
// file). Its methods are called from the tick loop with the server's
// lock held: they must be quick, and keep nothing of their arguments
// past the call.
type GameRecorder interface {
	// Events are the events the game's world produced in a tick, in
	// order, as v2 carries them (with motions, 7.6).
	Events(events []wire.Event)
	// Snapshot is the game's state at a snapshot tick (7.8).
	Snapshot(tick uint32, players []wire2.Player, entities []wire2.Entity)
	// End ends the recording.
	End()
}

// Snapshot is a game's state at a snapshot tick, as the clients get it.
type Snapshot struct {
	Tick     uint32
	Players  []wire.PlayerState
	Entities []wire.Entity
}

// Bots are the bots of one room's game (7.14), inside the server: every
// tick, Drive sets each bot's input from the world; Note gets the game's
// events in order. Package bot's RoomBots are the reference.
type Bots interface {
	// Add gives player p a brain; Remove takes it away.
	Add(p uint8)
	Remove(p uint8)
	// Note takes the events the game produced, in order.
	Note(events []wire.Event)
	// Drive sets the input of every bot in w.
	Drive(w *sim.World)
}

func (c Config) withDefaults() Config {
	if c.Listen == "" {
		c.Listen = fmt.Sprintf(":%d", wire.DefaultPort)
	}
	if c.MaxVersion <= 0 {
		c.MaxVersion = wire.Version2
	}
	if c.MaxGames <= 0 {
		c.MaxGames = 8
	}
	if c.CertReload == 0 {
		c.CertReload = defaultCertReload
	}
	if c.Mode == wire.ModeAny {
		c.Mode = wire.ModeStage
	}
	if c.Stage == nil {
		c.Stage = defaultStage()
	}
	if c.Campaign == nil {
		c.Campaign = stage.Campaign()
	}
	if c.Rules == nil {
		r := sim.DefaultRules()
		c.Rules = &r
	}
	if c.LoginTimeout <= 0 {
		c.LoginTimeout = 5 * time.Second
	}
	if c.BindTimeout <= 0 {
		c.BindTimeout = 5 * time.Second
	}
	if c.SessionTimeout <= 0 {
		c.SessionTimeout = 5 * time.Second
	}
	if c.LoginLimit <= 0 {
		c.LoginLimit = 5
	}
	if c.LoginWindow <= 0 {
		c.LoginWindow = 10 * time.Second
	}
	if c.LoginAddrs <= 0 {
		c.LoginAddrs = 100000
	}
	if c.StoreCheck <= 0 {
		c.StoreCheck = 2 * time.Second
	}
	if c.FleetSync <= 0 {
		c.FleetSync = 2 * time.Second
	}
	if c.MaxPending <= 0 {
		c.MaxPending = 64
	}
	if c.MaxPendingPerIP <= 0 {
		c.MaxPendingPerIP = 8
	}
	c.MaxPendingPerIP = min(c.MaxPendingPerIP, c.MaxPending)
	if c.MaxSessions <= 0 {
		c.MaxSessions = 4 * c.MaxGames
	}
	if c.MaxSessionsPerIP <= 0 {
		c.MaxSessionsPerIP = 8
	}
	if c.MaxWebTransportConns <= 0 {
		c.MaxWebTransportConns = c.MaxSessions + c.MaxPending
	}
	if c.MaxWebTransportConnsPerIP <= 0 {
		c.MaxWebTransportConnsPerIP = c.MaxSessionsPerIP + c.MaxPendingPerIP
	}
	c.MaxWebTransportConnsPerIP = min(c.MaxWebTransportConnsPerIP, c.MaxWebTransportConns)
	if c.MaxRooms <= 0 {
		c.MaxRooms = 64
	}
	if c.MaxRoomsPerIP <= 0 {
		c.MaxRoomsPerIP = 2
	}
	if c.LobbyIdle <= 0 {
		c.LobbyIdle = 5 * time.Minute
	}
	if c.WrongCodes <= 0 {
		c.WrongCodes = 5
	}
	if c.WrongCodeWindow <= 0 {
		c.WrongCodeWindow = time.Minute
	}
	if c.GameOverLinger <= 0 {
		c.GameOverLinger = 3 * time.Second
	}
	if c.TickShards <= 0 {
		c.TickShards = runtime.GOMAXPROCS(0)
	}
	if c.ReadPause == 0 {
		c.ReadPause = time.Millisecond
	}
	if c.MaxTickLoad <= 0 {
		c.MaxTickLoad = 0.75
	}
	if c.SnapshotInterval <= 0 {
		c.SnapshotInterval = wire.SnapshotTicks
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// defaultCertReload is CertReload's default.
const defaultCertReload = 10 * time.Second
