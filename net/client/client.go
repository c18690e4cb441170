// Package client is the client side of the protocol (PROTOCOL.md), of
// version 1 and of version 2 (Part II): it logs in over TCP (offering
// version 2 and falling back to 1 with a v1-only server, unless told a
// version), binds its UDP endpoint (in v2 with the cookie of the server's
// Challenge), then sends the player's inputs 60 times per second (in v2 as
// numbered steps) and keeps a World up to date from the server's events
// and snapshots (in v2, each entity's motion and animation), for a game
// loop (or a bot) to read.
//
// It never touches a display: the renderer and the bots share it.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// Defaults of Config.
const (
	// DefaultBindInterval is the time between two Binds (3.4).
	DefaultBindInterval = 100 * time.Millisecond
	// DefaultBindTimeout is how long Binds are sent before giving up (3.4).
	DefaultBindTimeout = 5 * time.Second
	// DefaultLoginTimeout is how long the server has to answer the login.
	DefaultLoginTimeout = 5 * time.Second
	// DefaultTimeout is the silence after which the connection is lost
	// (5.5).
	DefaultTimeout = link.Timeout
	// DefaultSendInterval is the time between two Inputs: one per tick.
	DefaultSendInterval = time.Second / 60
	// DefaultAckInterval is the longest time between two Acks when no
	// Input is sent: 20 per second, twice the minimum of 5.5.
	DefaultAckInterval = 50 * time.Millisecond
	// DefaultStallTimeout is how long datagrams may keep arriving without
	// a usable snapshot before the session ends (ErrStalled).
	DefaultStallTimeout = 2 * time.Second
	// DefaultBudget is the share of the time the receiving goroutine may
	// spend rebuilding and applying snapshots and events; beyond it,
	// Snapshot and Event datagrams are dropped unread (and not
	// acknowledged: the server resends the events) until the next 100 ms
	// window.
	DefaultBudget = 0.25
)

// budgetWindow is the period over which Config.Budget is measured.
const budgetWindow = 100 * time.Millisecond

// runGap is the pause in reception after which the stall clock starts
// again: a link that was silent (then came back) did not deliver
// datagrams without frames meanwhile.
const runGap = time.Second

// Config is a client's configuration. A zero duration means its default.
type Config struct {
	// Addr is the server's "host:port", TCP and UDP on the same port.
	Addr string
	// Name is the player's name, sent in LoginRequest.
	Name string
	// Mode is the game mode asked for in a v2 login (wire.ModeAny,
	// ModeClassic, ModeStage). Default wire.ModeAny: the server's choice.
	// A v1 session plays Classic whatever Mode says: Client.Mode tells
	// what the game is.
	Mode uint8
	// Logger receives the client's logs. Default slog.Default().
	Logger *slog.Logger
	// BindInterval is the time between two Binds (3.4). Default 100 ms.
	BindInterval time.Duration
	// BindTimeout is how long Binds are sent before giving up with
	// ErrBindTimeout (3.4). Default 5 s.
	BindTimeout time.Duration
	// LoginTimeout is how long the server has to answer the LoginRequest.
	// Default 5 s.
	LoginTimeout time.Duration
	// Timeout is the silence after which the connection is lost (5.5).
	// Default 5 s; tests shorten it.
	Timeout time.Duration
	// SendInterval is the time between two Inputs (4.2). Default 1/60 s.
	SendInterval time.Duration
	// AckInterval is the longest time between two Acks while no Input is
	// sent (5.5); an Ack also goes out at the next send tick after a
	// Snapshot or an Event arrived. Default 50 ms.
	AckInterval time.Duration
	// StallTimeout is how long the server's datagrams may keep arriving
	// without a usable snapshot (one that brings a new tick) before the
	// session ends with ErrStalled. Default 2 s. Whatever arrives, a
	// session without a usable snapshot for StallTimeout + Timeout ends
	// too.
	StallTimeout time.Duration
	// Budget is the most of the receiving goroutine's time, as a share of
	// each 100 ms, spent on snapshots and events; beyond it their
	// datagrams are dropped until the next 100 ms (a dropped datagram is
	// not acknowledged: a snapshot is replaced by the next one, an event
	// resent, 4.8, 5.3).
	// Default 0.25.
	Budget float64
	// OnSnapshot, when set, is called with each snapshot datagram once
	// rebuilt and applied to the world (4.8), from the receiving goroutine
	// with the client's lock held: it must be quick and must not call the
	// Client's methods. r is only valid during the call.
	OnSnapshot func(r *link.Rebuilt)
	// OnEvent, when set, is called with each event delivered for the first
	// time and valid (5.3, 6.4), before the world applies it, from the
	// receiving goroutine with the client's lock held, under the same
	// rules as OnSnapshot.
	OnEvent func(ev *wire.Event)
	// OnFrame is OnSnapshot for a session whose snapshots are frames of
	// motions (Features.Motions, 7.8).
	OnFrame func(r *link2.Rebuilt)
	// Tap, when set, is told the login and then what the client accepts
	// (snapshots, events, input steps) with their times: a recorder
	// (net/replay) keeps the session to play it again.
	Tap Tap
	// Version is the protocol version to speak (7.1): 0 (auto, the
	// default) logs in with version 2 and, when the server answers
	// LoginRejected(VersionMismatch), at once again with version 1 on a
	// new connection; 1 or 2 logs in with that version only, and a server
	// that refuses it fails Dial with a *RejectedError whose Reason is
	// wire.RejectVersionMismatch.
	Version uint8
	// Spectate logs in to watch a game without a ship (PROTOCOL.md 7.17):
	// the game of the room whose code is Room, or the busiest game when
	// Room is zero. It needs a v2 server: Dial fails with
	// ErrNoSpectators on an older one (never falling back to a ship).
	Spectate bool
	// Room is the code of the room whose game a spectator watches.
	Room wire.RoomCode
	// Transport opens the session's stream and datagram channel. Default
	// nil: TCP and UDP to Addr. A WebTransport Transport lets a browser
	// (or a test) play over HTTP/3.
	Transport Transport
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.BindInterval, DefaultBindInterval)
	def(&c.BindTimeout, DefaultBindTimeout)
	def(&c.LoginTimeout, DefaultLoginTimeout)
	def(&c.Timeout, DefaultTimeout)
	def(&c.SendInterval, DefaultSendInterval)
	def(&c.AckInterval, DefaultAckInterval)
	def(&c.StallTimeout, DefaultStallTimeout)
	if c.Budget <= 0 || c.Budget > 1 {
		c.Budget = DefaultBudget
	}
	return c
}

// Stats are measurements of a client's connection.
type Stats struct {
	// RTT is the smoothed round-trip time (5.4); HasRTT is false before
	// the first measurement.
	RTT    time.Duration
	HasRTT bool
	// Loss is the fraction of the client's datagrams sent between 3 s and
	// 1 s ago that the server has not acknowledged.
	Loss float64
	// KbitIn and KbitOut are the UDP payload rates, in kbit/s, over the
	// last second.
	KbitIn, KbitOut float64
	// SnapshotsPerSec is the number of new snapshot ticks received per
	// second over the last second.
	SnapshotsPerSec float64
	// MinSnapshotsPerSec is the fewest snapshots a second the server
	// sends by the session's protocol: 20 in v1 (4.3); 5 in v2, while
	// nothing changes (7.9).
	MinSnapshotsPerSec float64
	// BaselineAge is the baseline_age of the last snapshot datagram
	// applied, in ticks: 0 for a full snapshot.
	BaselineAge uint32
	// SnapshotTick is the tick of the newest snapshot applied.
	SnapshotTick uint32
	// EventsDelivered is the number of distinct events received.
	EventsDelivered uint64
	// Dropped counts received datagrams dropped: invalid, of another
	// session, or a snapshot that could not be rebuilt. Duplicates counts
	// the duplicates ignored (5.1).
	Dropped, Duplicates uint64
	// Shed counts the Snapshot and Event datagrams dropped, among
	// Dropped, because the receiving goroutine had spent its Budget.
	Shed uint64
	// NoBaseline counts the snapshot datagrams dropped, among Dropped,
	// because their baseline was not held (4.8 step 1). The server only
	// builds on snapshots the client acknowledged, and the client keeps
	// more than the server may use, so it stays 0 unless a datagram
	// arrives seconds late.
	NoBaseline uint64
	// Link are the link's counters.
	Link link.Stats
	// Version is the session's protocol version, 1 or 2 (7.1).
	Version uint8
}

// maxPending is how many applied events wait for DrainEvents; beyond it
// the oldest half is dropped.
const maxPending = 4096

// rateSample is a reading of the counters, for the rates of Stats.
type rateSample struct {
	at        time.Time
	in, out   uint64
	snapshots uint64
}

const rateSamples = 10 // one per 100 ms

// Client is a player's connection to a server. Its methods are safe for
// concurrent use.
type Client struct {
	cfg Config
	log *slog.Logger
	tcp net.Conn
	// attached: the game of a room (Attach, 7.14), over a lobby's session.
	attached bool
	player   uint8
	session  uint32
	token    wire.Token
	version  uint8         // the session's protocol version, 1 or 2
	codec    codec         // the version's reading and writing (codecOf)
	features wire.Features // what the session does beyond v1, from its login
	ext      wire.LoginExt // v2: the rules of LoginAccepted (7.1)
	mode     uint8         // the game's mode (7.12): Classic unless a v2 LoginAccepted says Stage

	rebindMu sync.Mutex // one Rebind at a time

	mu       sync.Mutex // guards what follows
	udp      net.Conn   // the datagram channel (a UDP socket by default); Rebind replaces it
	rebind   *rebinding // a Rebind in progress, or nil
	closing  bool       // end has taken the sockets to close them
	link     *link.Link
	rb       link.Rebuilder
	rb2      link2.Rebuilder
	world    *World
	snap     wire.Snapshot
	snap2    wire2.Snapshot
	frames   []wire.EventFrame
	cookie   cookie // of the last Challenge to the bound socket (7.3)
	pending  []wire.Event
	actions  uint8
	input    [1]byte // v1: the Input payload (4.2)
	steps    steps   // the v2 input steps sent (7.4)
	input2   []byte
	bound    bool
	ackDue   bool
	eventAck bool // an Event datagram was accepted: acknowledge at once
	lastSend time.Time
	hasSnap  bool
	snapTick uint32
	baseAge  uint32
	in, out  uint64 // UDP bytes received and sent
	nsnaps   uint64 // new snapshot ticks
	dropped  uint64
	dups     uint64
	noBase   uint64 // snapshots dropped for want of their baseline
	shed     uint64 // snapshots dropped over the budget
	samples  [rateSamples]rateSample
	nsample  int // samples taken

	// The server's clock (4.1), for the checks that it neither goes back
	// nor runs ahead: the newest tick received, and when.
	newest   uint32
	newestAt time.Time
	// The stall clock: when the last usable snapshot arrived, when the
	// current run of reception started, and the last datagram of it.
	frameAt  time.Time
	runStart time.Time
	lastIn   time.Time
	// The budget: the window's start and the time spent in it.
	window time.Time
	busy   time.Duration
	// violation is a breach of the protocol found by the receiving
	// goroutine, to end the session with once the lock is released.
	violation error
	chats     []Chat          // received, for DrainChat (7.13)
	watchers  wire.Spectators // the game's spectators (7.17)
	tapRTT    time.Duration   // the last RTT told to the Tap

	chatOut chan []byte // lines for writeChat; nil without chat (Features.Chat, 7.13)

	boundCh chan struct{}
	done    chan struct{}
	endOnce sync.Once
	err     error // written before done is closed
	wg      sync.WaitGroup
}

// Dial logs in to the server of cfg.Addr as cfg.Name with the version of
// cfg.Version (falling back from 2 to 1 when it is 0, 7.1), binds the UDP
// endpoint (3.4, 7.3), starts the client's goroutines and returns the
// client. ctx bounds Dial only; Close ends the session. The errors are
// meant for people: *ReachError, *RejectedError, *LogoutError,
// ErrLoginTimeout, ErrBindTimeout, ErrProtocol (wrapped).
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	log := cfg.Logger.With("server", cfg.Addr, "name", cfg.Name)
	if cfg.Version != 0 && !wire.Supported(cfg.Version) {
		return nil, fmt.Errorf("client: protocol version %d unknown: 0 (auto), 1 or 2", cfg.Version)
	}
	if cfg.Mode > wire.ModeStage {
		return nil, fmt.Errorf("client: game mode %d unknown: 0 (any), 1 (classic) or 2 (stage)", cfg.Mode)
	}
	if cfg.Spectate && cfg.Version != 0 && !wire.NewFeatures(cfg.Version, wire.Revision).Spectate {
		return nil, fmt.Errorf("client: spectators need protocol version 2 (7.17), not 1")
	}
	version := cfg.Version
	if version == 0 {
		version = wire.Version2
	}
	conn, acc, err := dialLogin(ctx, cfg, version)
	if rej, ok := err.(*RejectedError); ok && rej.Reason == wire.RejectVersionMismatch && cfg.Spectate {
		err = ErrNoSpectators // a v1-only server (7.17)
	} else if ok && rej.Reason == wire.RejectVersionMismatch && cfg.Version == 0 {
		// A v1-only server (7.1, Fallback): again at once, in version 1.
		log.Info("the server does not speak protocol v2: logging in with v1")
		version = wire.Version
		conn, acc, err = dialLogin(ctx, cfg, version)
	}
	if err == nil && cfg.Spectate && acc.Player != wire.NoPlayer {
		// A server that ignored the flag and gave a ship.
		conn.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutLeft}))
		conn.Close()
		err = ErrNoSpectators
	}
	if err != nil {
		log.Info("login failed", "version", version, "err", err)
		return nil, err
	}
	return start(ctx, cfg, log, conn, acc, version, false)
}

// start runs a session whose login was accepted: it opens the UDP socket,
// binds, and starts the client's goroutines. attached marks a room's game
// (Attach).
func start(ctx context.Context, cfg Config, log *slog.Logger, conn net.Conn, acc wire.Message, version uint8, attached bool) (*Client, error) {
	udp, err := transportOf(cfg).DialDatagrams(ctx, conn)
	if err != nil {
		conn.Close()
		return nil, err
	}
	now := time.Now()
	features := wire.NewFeatures(version, acc.Revision) // once, for the session's life
	cd := codecOf(version)
	c := &Client{
		cfg:      cfg,
		log:      log.With("player", acc.Player, "session", acc.Session, "version", version),
		tcp:      conn,
		udp:      udp,
		version:  version,
		codec:    cd,
		features: features,
		ext:      acc.Ext,
		mode:     sessionMode(features, &acc),
		player:   acc.Player,
		session:  acc.Session,
		token:    acc.Token,
		link:     cd.newLink(acc.Session, now),
		world:    NewWorld(features),
		newest:   acc.Tick,
		newestAt: now,
		frameAt:  now,
		boundCh:  make(chan struct{}),
		done:     make(chan struct{}),
		attached: attached,
	}
	if features.Chat {
		c.chatOut = make(chan []byte, chatQueue)
	}
	c.log.Info("login accepted", "tick", acc.Tick, "revision", acc.Revision, "mode", c.mode)
	if cfg.Tap != nil {
		cfg.Tap.Login(Login{Version: version, Revision: acc.Revision, Mode: c.mode, Player: acc.Player,
			Session: acc.Session, Tick: acc.Tick, Ext: acc.Ext, Name: cfg.Name, At: now})
	}
	c.wg.Add(2)
	go func() { defer c.wg.Done(); c.readUDP(udp) }()
	go func() { defer c.wg.Done(); c.readTCP() }()
	if err := c.bind(ctx); err != nil {
		c.end(err, true)
		c.wg.Wait()
		return nil, c.err
	}
	c.wg.Add(1)
	go func() { defer c.wg.Done(); c.send() }()
	if c.chatOut != nil {
		c.wg.Add(1)
		go func() { defer c.wg.Done(); c.writeChat() }()
	}
	return c, nil
}

// dialLogin opens the stream (a TCP connection by default) and logs in
// with version.
func dialLogin(ctx context.Context, cfg Config, version uint8) (net.Conn, wire.Message, error) {
	conn, err := transportOf(cfg).DialStream(ctx, cfg.Addr)
	if err != nil {
		return nil, wire.Message{}, &ReachError{Addr: cfg.Addr, Err: err}
	}
	acc, err := login(ctx, conn, cfg, version)
	if err != nil {
		conn.Close()
		return nil, acc, err
	}
	return conn, acc, nil
}

// maxSkipped bounds the unknown TCP messages a v2 client skips in a row
// before it takes the server as broken: a later v2.x may add messages, but
// not thousands of them.
const maxSkipped = 64

// login sends the LoginRequest of version and reads the answer.
func login(ctx context.Context, conn net.Conn, cfg Config, version uint8) (wire.Message, error) {
	deadline := time.Now().Add(cfg.LoginTimeout)
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	_, err := conn.Write(codecOf(version).loginRequest(&cfg))
	var m wire.Message
	if err == nil {
		fr := wire.FrameReader{R: conn}
		m, err = codecOf(version).readMessage(&fr, nil)
	}
	if errors.Is(err, wire.ErrRejectedText) {
		// A rejection all the same, with a generic text (3.1).
		return m, &RejectedError{Reason: m.Reason, Version: version}
	}
	if err != nil {
		var ne net.Error
		switch {
		case ctx.Err() != nil:
			return m, fmt.Errorf("login to %s: %w", cfg.Addr, ctx.Err())
		case errors.As(err, &ne) && ne.Timeout():
			return m, loginTimeout(cfg.LoginTimeout)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return m, fmt.Errorf("the server %s closed the connection during the login", cfg.Addr)
		case errors.Is(err, wire.ErrFrameLength), errors.Is(err, wire.ErrMessageType), errors.Is(err, wire.ErrMessageBody):
			return m, protocolError("bad answer to the login: %v", err)
		}
		return m, fmt.Errorf("the login to %s failed: %w", cfg.Addr, err)
	}
	conn.SetDeadline(time.Time{})
	switch m.Type {
	case wire.MsgLoginAccepted:
		return m, nil
	case wire.MsgLoginRejected:
		return m, &RejectedError{Reason: m.Reason, Text: wire.CleanText(m.Text), Version: version}
	case wire.MsgLogout:
		return m, &LogoutError{Reason: m.Reason}
	}
	return m, protocolError("%v in answer to the login", m.Type)
}

// bind sends Binds until the UDP reader sees an Accept (3.4). It runs
// inside Dial, before anything else uses the socket.
func (c *Client) bind(ctx context.Context) error {
	binds, err := c.sendBinds(ctx, c.udp, c.boundCh)
	if err == nil {
		c.log.Info("bound", "binds", binds)
	}
	return err
}

// sendBinds sends a Bind on conn every BindInterval until accepted is
// closed (the reader of conn saw an Accept), for at most BindTimeout
// (3.4). It returns the number of Binds sent, and the session's error
// when it ended meanwhile.
func (c *Client) sendBinds(ctx context.Context, conn net.Conn, accepted <-chan struct{}) (int, error) {
	timer := time.NewTimer(c.cfg.BindTimeout)
	defer timer.Stop()
	tick := time.NewTicker(c.cfg.BindInterval)
	defer tick.Stop()
	var buf []byte
	for binds := 1; ; binds++ {
		c.mu.Lock()
		buf = c.appendBind(buf[:0], conn, time.Now())
		c.mu.Unlock()
		if _, err := conn.Write(buf); err != nil {
			c.log.Debug("bind not sent", "err", err)
		}
		select {
		case <-accepted:
			return binds, nil
		case <-c.done:
			return binds, c.err
		case <-tick.C:
		case <-timer.C:
			return binds, bindTimeout(c.cfg.BindTimeout)
		case <-ctx.Done():
			return binds, fmt.Errorf("binding to %s: %w", c.cfg.Addr, ctx.Err())
		}
	}
}

// end ends the session with err, once: it sends Logout(Left) when logout
// is set, closes the sockets (which stops the readers) and Done. It must
// not be called with c.mu held.
func (c *Client) end(err error, logout bool) {
	c.endOnce.Do(func() {
		c.err = err
		if logout {
			c.tcp.SetWriteDeadline(time.Now().Add(time.Second))
			c.tcp.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutLeft}))
		}
		c.tcp.Close()
		c.mu.Lock()
		c.closing = true
		udp, rb := c.udp, c.rebind
		c.mu.Unlock()
		udp.Close()
		if rb != nil {
			rb.conn.Close()
		}
		close(c.done)
		if err == ErrClosed {
			c.log.Info("session closed")
		} else {
			c.log.Info("session ended", "err", err)
		}
	})
}

// ended reports whether the session has ended.
func (c *Client) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// readTCP reads the session stream: chat in v2 (7.13), and the
// server's Logout, or its closing.
func (c *Client) readTCP() {
	fr := wire.FrameReader{R: c.tcp}
	for {
		m, err := c.readSessionMessage(&fr)
		if c.ended() {
			return
		}
		switch {
		case err == nil && m.Type == wire.MsgLogout:
			c.end(&LogoutError{Reason: m.Reason}, false)
			return
		case err == nil && c.chatOut != nil && (m.Type == wire.MsgChatMessage || m.Type == wire.MsgChatRefused):
			c.receiveChat(&m) // 7.13
		case err == nil:
			c.end(protocolError("unexpected %v during the session", m.Type), true)
			return
		case errors.Is(err, wire.ErrFrameLength), errors.Is(err, wire.ErrMessageType), errors.Is(err, wire.ErrMessageBody):
			c.end(protocolError("%v", err), true)
			return
		default:
			c.log.Debug("TCP read", "err", err)
			c.end(errHungUp, false)
			return
		}
	}
}

// readUDP reads the datagrams of one socket until it is closed: the
// socket of Dial, or the new one of a Rebind.
func (c *Client) readUDP(udp net.Conn) {
	buf := make([]byte, wire.MaxDatagram+1) // one more byte to see the too large
	var ack []byte
	for {
		n, err := udp.Read(buf)
		if err != nil {
			if c.ended() || errors.Is(err, net.ErrClosed) {
				return
			}
			// A connected UDP socket reports ICMP errors (port
			// unreachable while the server starts): not fatal.
			c.log.Debug("UDP read", "err", err)
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if err := c.receive(udp, buf[:n], time.Now()); err != nil {
			c.end(err, true)
			return
		}
		ack = c.answerChallenge(udp, ack)
		ack = c.ackNow(ack)
	}
}

// receive processes one datagram that arrived on socket udp (5.1, 4.8,
// 5.2, 6), and returns the breach of the protocol that ends the session,
// if any.
func (c *Client) receive(udp net.Conn, b []byte, now time.Time) error {
	h, p, err := c.parseHeader(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.in += uint64(len(b))
	if err != nil || h.Session != c.session {
		c.dropped++
		return nil
	}
	if now.Sub(c.lastIn) > runGap {
		c.runStart = now
	}
	c.lastIn = now
	if c.link.Seen(h.Seq) {
		c.dups++
		return nil
	}
	c.receiveLocked(udp, h, p, len(b), now)
	return c.violation
}

// cookieOf returns the cookie state of socket conn: the bound socket's or
// a Rebind's; nil for another.
func (c *Client) cookieOf(conn net.Conn) *cookie {
	if rb := c.rebind; rb != nil && rb.conn == conn {
		return &rb.cookie
	}
	if conn == c.udp {
		return &c.cookie
	}
	return nil
}

// appendBind appends a Bind datagram to go out of socket conn: the token
// (3.4), and in v2 the cookie of the last Challenge that socket received
// (7.3). c.mu must be held.
func (c *Client) appendBind(dst []byte, conn net.Conn, now time.Time) []byte {
	var payload [wire.TokenSize + wire2.CookieSize]byte
	n := copy(payload[:], c.token[:])
	if k := c.cookieOf(conn); k != nil && k.has && c.codec.cookies() {
		n += copy(payload[n:], k.c[:])
		k.answer = false
	}
	dst, _ = c.link.AppendDatagram(dst, wire.TypeBind, payload[:n], now)
	c.out += uint64(len(dst))
	return dst
}

// answerChallenge sends, out of socket udp, a Bind with the cookie of a
// Challenge that socket just received, at once (7.3): the binding then
// takes one round trip more than in v1, not a Bind interval more. buf is
// the calling reader's own buffer, returned for reuse.
func (c *Client) answerChallenge(udp net.Conn, buf []byte) []byte {
	c.mu.Lock()
	k := c.cookieOf(udp)
	if k == nil || !k.answer || c.closing {
		c.mu.Unlock()
		return buf
	}
	buf = c.appendBind(buf[:0], udp, time.Now())
	c.mu.Unlock()
	if _, err := udp.Write(buf); err != nil && !c.ended() {
		c.log.Debug("UDP write", "err", err)
	}
	return buf
}

// ackNow sends an Ack at once when an Event datagram was accepted since
// the last datagram sent (7.7, "Acknowledge at once", for v1 too): the
// server hears of it within a one-way trip, not at the next Input or
// keep-alive, and resends nothing for want of it. In a session with
// Features.EventsAtSnapshots that sends an Input every tick the acknowledgement rides on the next Input
// instead (ackRidesInput, 7.7). buf is the calling reader's own buffer,
// returned for reuse.
func (c *Client) ackNow(buf []byte) []byte {
	c.mu.Lock()
	if !c.eventAck || c.closing || c.ackRidesInput() {
		c.mu.Unlock()
		return buf
	}
	now := time.Now()
	c.eventAck, c.ackDue, c.lastSend = false, false, now
	buf, _ = c.link.AppendDatagram(buf[:0], wire.TypeAck, nil, now)
	c.out += uint64(len(buf))
	udp := c.udp
	c.mu.Unlock()
	if _, err := udp.Write(buf); err != nil && !c.ended() {
		c.log.Debug("UDP write", "err", err)
	}
	return buf
}

// ackRidesInput reports whether the acknowledgement of an accepted Event
// datagram may wait for the next Input (7.7, "Acknowledgement with the
// Input"): in a session with Features.EventsAtSnapshots while the client
// sends an Input every tick (send: it has a ship in a game not over, and
// its SendInterval is at most a tick), so that it goes at most a tick
// later, well within the resend time R (5.3), with its ack_delay (7.2)
// telling the wait. Otherwise (v1, a spectator, a ship lost, a paused
// clock) an Ack goes at once, as 7.7 says. c.mu must be held.
func (c *Client) ackRidesInput() bool {
	return c.features.EventsAtSnapshots && c.cfg.SendInterval <= wire.TickDuration &&
		c.world.HasShip(c.player) && !c.world.over
}

// overBudget reports whether the snapshots took more than the budget of
// the current window, starting a new window when it is over.
func (c *Client) overBudget(now time.Time) bool {
	if now.Sub(c.window) >= budgetWindow {
		c.window, c.busy = now, 0
	}
	return c.busy > time.Duration(c.cfg.Budget*float64(budgetWindow))
}

// violate records the first breach of the protocol found.
func (c *Client) violate(err error) {
	if c.violation == nil {
		c.violation = err
	}
}

// checkTick refuses a snapshot tick that the server's clock cannot have
// reached (4.1, Appendix A): further ahead of the newest tick than the
// time elapsed since it arrived allows, or further behind it than
// wire.MaxTickLag.
func (c *Client) checkTick(tick uint32, now time.Time) error {
	if tick > c.newest {
		elapsed := max(now.Sub(c.newestAt), 0)
		allowed := uint64(elapsed/wire.TickDuration) + wire.MaxTickLead
		if uint64(tick-c.newest) > allowed {
			return &StallError{fmt.Sprintf("its tick jumped from %d to %d in %v (at most %d ticks a second)",
				c.newest, tick, elapsed.Round(time.Millisecond), wire.TickRate)}
		}
		return nil
	}
	if c.newest-tick > wire.MaxTickLag {
		return &StallError{fmt.Sprintf("its tick went back from %d to %d", c.newest, tick)}
	}
	return nil
}

// parseHeader checks a datagram's header with the rules of the session's
// version (6.1, 7.10); a v1 header has AckDelay 0.
func (c *Client) parseHeader(b []byte) (wire.Header, []byte, error) { return c.codec.parseHeader(b) }

// accept records a valid datagram in the link (5.1, 7.2).
func (c *Client) accept(h wire.Header, size int, now time.Time) {
	c.link.Accept(h, size, now)
	if c.cfg.Tap != nil {
		if rtt, ok := c.link.RTT(); ok && rtt != c.tapRTT {
			c.tapRTT = rtt
			c.cfg.Tap.RTT(rtt, now)
		}
	}
}

// receiveLocked processes a datagram of the session that is not a
// duplicate.
func (c *Client) receiveLocked(udp net.Conn, h wire.Header, p []byte, size int, now time.Time) {
	switch h.Type {
	case wire.TypeAccept:
		a, err := wire.ParseAccept(p)
		if c.player == wire.NoPlayer {
			a, err = wire.ParseSpectatorAccept(p) // 7.17
		}
		if err != nil || a.Player != c.player {
			c.dropped++
			return
		}
		c.accept(h, size, now)
		if !c.bound {
			// The stall clock starts at the binding: before it, a v2
			// server answers with Challenges (7.3), which are no
			// snapshots and must not count against it.
			c.bound = true
			c.frameAt = now
			if c.attached && a.Tick > c.newest { // a room's game runs already (7.14)
				c.newest, c.newestAt = a.Tick, now
			}
			close(c.boundCh)
		}
		if rb := c.rebind; rb != nil && rb.conn == udp && !rb.accepted {
			rb.accepted = true
			close(rb.done)
		}
	case wire.TypeSnapshot:
		if c.overBudget(now) {
			c.dropped++
			c.shed++
			return
		}
		defer func() { c.busy += time.Since(now) }()
		tick, baseAge, ok := c.codec.snapshot(c, p, now)
		if !ok {
			c.dropped++
			return
		}
		c.accept(h, size, now)
		if tick > c.newest {
			c.newest, c.newestAt = tick, now
		}
		if !c.hasSnap || tick > c.snapTick {
			c.hasSnap, c.snapTick = true, tick
			c.nsnaps++
			c.frameAt = now
		}
		c.baseAge = baseAge
		c.ackDue = true
	case wire.TypeEvent:
		if c.overBudget(now) {
			c.dropped++
			c.shed++
			return
		}
		defer func() { c.busy += time.Since(now) }()
		if !c.events(p, now) {
			c.dropped++
			return
		}
		c.accept(h, size, now)
		if err := c.world.Err(); err != nil {
			c.violate(err)
		}
		c.ackDue, c.eventAck = true, true
	case wire.TypeChallenge: // v2 only (wire2.ParseHeader)
		ck, err := wire2.ParseChallenge(p)
		if err != nil {
			c.dropped++
			return
		}
		c.accept(h, size, now)
		// Answer it at once from the socket it came to (7.3).
		if rb := c.rebind; rb != nil && rb.conn == udp {
			rb.cookie.set(ck)
		} else if udp == c.udp {
			c.cookie.set(ck)
		}
	case wire.TypeAck:
		c.accept(h, size, now)
	}
}

// snapshot1 decodes, checks, rebuilds and applies a v1 Snapshot payload
// (4.3, 4.8), and returns its tick and baseline age; false drops it.
func (c *Client) snapshot1(p []byte, now time.Time) (tick, baseAge uint32, ok bool) {
	if err := c.snap.Decode(p); err != nil {
		c.log.Debug("snapshot dropped", "err", err)
		return 0, 0, false
	}
	if err := c.checkTick(c.snap.Tick, now); err != nil {
		c.violate(err)
		return 0, 0, false
	}
	r, err := c.rb.Rebuild(&c.snap)
	if err != nil {
		c.rebuildFailed(err, c.snap.Tick)
		return 0, 0, false
	}
	c.world.ApplySnapshotAt(r, now)
	if c.cfg.Tap != nil {
		c.cfg.Tap.Snapshot(p, now)
	}
	if c.cfg.OnSnapshot != nil {
		c.cfg.OnSnapshot(r)
	}
	return r.Tick, c.snap.BaselineAge, true
}

// snapshot2 is snapshot1 for a v2 Snapshot payload (7.8). With
// Features.EventsInSnapshot the payload ends with an event tail (7.8),
// whose events it applies before the snapshot once the snapshot is
// rebuilt; a snapshot dropped (malformed, or not rebuilt for want of its baseline) is not
// acknowledged, and its events come again by the server's resending.
func (c *Client) snapshot2(p []byte, now time.Time) (tick, baseAge uint32, ok bool) {
	var tail []byte
	var err error
	if c.features.EventsInSnapshot {
		tail, err = c.snap2.DecodeTail(p)
	} else {
		err = c.snap2.Decode(p)
	}
	if err != nil {
		c.log.Debug("snapshot dropped", "err", err)
		return 0, 0, false
	}
	p = p[:len(p)-len(tail)] // the packed part
	if err := c.checkTick(c.snap2.Tick, now); err != nil {
		c.violate(err)
		return 0, 0, false
	}
	r, err := c.rb2.Rebuild(&c.snap2)
	if err != nil {
		c.rebuildFailed(err, c.snap2.Tick)
		return 0, 0, false
	}
	if len(tail) > 1 { // the events before the records (7.8, 4.3)
		c.tailEvents(tail, now)
	}
	c.world.ApplyFrame(r, now)
	if c.cfg.Tap != nil {
		c.cfg.Tap.Snapshot(p, now)
	}
	if c.cfg.OnFrame != nil {
		c.cfg.OnFrame(r)
	}
	return r.Tick, c.snap2.BaselineAge, true
}

// rebuildFailed counts a snapshot datagram that could not be rebuilt, and
// ends the session when the server sent more than a client accepts.
func (c *Client) rebuildFailed(err error, tick uint32) {
	switch {
	case errors.Is(err, link.ErrNoBaseline):
		c.noBase++
	case errors.Is(err, link.ErrTooManyParts):
		c.violate(&LimitError{fmt.Sprintf("more than %d Snapshot datagrams of tick %d", wire.MaxSnapshotParts, tick)})
	case errors.Is(err, link.ErrTooManyEntities):
		c.violate(&LimitError{fmt.Sprintf("a snapshot of more than %d entities (tick %d)", wire.MaxSnapshotEntities, tick)})
	}
	c.log.Debug("snapshot not rebuilt", "tick", tick, "err", err)
}

// events checks the framing of an Event payload (5.2, 7.7) and applies
// the events delivered for the first time and valid (6.4, 7.10); false
// drops the datagram.
func (c *Client) events(p []byte, now time.Time) bool {
	frames, err := c.link.ReceiveEvents(p, c.frames[:0])
	c.frames = frames
	if err != nil {
		return false
	}
	for _, f := range frames {
		c.event(f.ID, f.Data, now)
	}
	return true
}

// tailEvents applies the events of a Snapshot's tail (7.8), one
// wire.CheckTail accepted with at least one frame, delivered for the
// first time, and has them acknowledged as an Event datagram's (7.7,
// 7.7).
func (c *Client) tailEvents(tail []byte, now time.Time) {
	if !c.events(tail, now) { // framed as an Event payload (7.7)
		return // cannot happen: CheckTail accepted it
	}
	if err := c.world.Err(); err != nil {
		c.violate(err)
	}
	c.eventAck = true
}

// event decodes and applies one event delivered for the first time.
func (c *Client) event(id uint32, data []byte, now time.Time) {
	var ev wire.Event
	if err := parseEvent(c.codec, data, &ev); err != nil {
		c.log.Debug("event ignored", "id", id, "err", err)
		return // 6.4
	}
	if c.cfg.Tap != nil {
		c.cfg.Tap.Event(data, now)
	}
	if c.cfg.OnEvent != nil {
		c.cfg.OnEvent(&ev)
	}
	if c.world.ApplyEventAt(&ev, now) {
		if len(c.pending) >= maxPending {
			c.pending = append(c.pending[:0], c.pending[maxPending/2:]...)
		}
		c.pending = append(c.pending, ev)
	}
}

// stalled returns the ErrStalled error when the server's datagrams keep
// arriving without a usable snapshot: for StallTimeout since the last one
// (or since reception resumed after a pause), or for Timeout whatever
// arrives.
func (c *Client) stalled(now time.Time) error {
	since := c.frameAt
	if c.runStart.After(since) {
		since = c.runStart
	}
	arriving := now.Sub(c.lastIn) <= 4*c.cfg.AckInterval
	if d := now.Sub(since); arriving && d >= c.cfg.StallTimeout {
		return &StallError{fmt.Sprintf("datagrams but no usable snapshot for %s (newest tick %d)", seconds(c.cfg.StallTimeout), c.newest)}
	}
	if d, most := now.Sub(c.frameAt), c.cfg.StallTimeout+c.cfg.Timeout; d >= most {
		return &StallError{fmt.Sprintf("no usable snapshot for %s (newest tick %d)", seconds(most), c.newest)}
	}
	return nil
}

// send runs the sending clock: an Input per tick while the player has a
// ship, Acks otherwise (5.5), and the silence timeout.
func (c *Client) send() {
	t := time.NewTicker(c.cfg.SendInterval)
	defer t.Stop()
	var buf []byte
	var prev time.Time
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		now := time.Now()
		// After a stall of this goroutine (a suspended laptop, an
		// overloaded machine) the datagrams that arrived meanwhile may
		// still wait in the socket: judge the silence at the next tick.
		stalled := !prev.IsZero() && now.Sub(prev) > c.cfg.Timeout/4
		prev = now
		c.mu.Lock()
		if !stalled && c.link.Silence(now) >= c.cfg.Timeout {
			c.mu.Unlock()
			c.end(silenceError(c.cfg.Timeout), true)
			return
		}
		if err := c.stalled(now); err != nil && !stalled {
			c.mu.Unlock()
			c.end(err, true)
			return
		}
		buf = buf[:0]
		switch {
		case c.world.HasShip(c.player) && !c.world.over:
			buf, _ = c.link.AppendDatagram(buf, wire.TypeInput, c.codec.input(c), now)
		case c.ackDue || now.Sub(c.lastSend) >= c.cfg.AckInterval-c.cfg.SendInterval/2:
			buf, _ = c.link.AppendDatagram(buf, wire.TypeAck, nil, now)
		}
		if len(buf) > 0 {
			c.ackDue, c.eventAck, c.lastSend = false, false, now
			c.out += uint64(len(buf))
		}
		c.sample(now)
		udp := c.udp
		c.mu.Unlock()
		if len(buf) > 0 {
			if _, err := udp.Write(buf); err != nil && !c.ended() {
				c.log.Debug("UDP write", "err", err)
			}
		}
	}
}

// sample takes a reading of the counters every 100 ms, for Stats.
func (c *Client) sample(now time.Time) {
	if c.nsample > 0 && now.Sub(c.samples[(c.nsample-1)%rateSamples].at) < 100*time.Millisecond {
		return
	}
	c.samples[c.nsample%rateSamples] = rateSample{at: now, in: c.in, out: c.out, snapshots: c.nsnaps}
	c.nsample++
}

// Version returns the session's protocol version: 1 or 2 (7.1).
func (c *Client) Version() uint8 { return c.version }

// Rules returns the rules of a v2 LoginAccepted (7.1), and false in a v1
// session, whose LoginAccepted carries none.
func (c *Client) Rules() (wire.LoginExt, bool) { return c.ext, c.features.Rules }

// Player returns the player number of LoginAccepted, 0 to 3.
func (c *Client) Player() uint8 { return c.player }

// Mode returns the mode of the game joined (wire.ModeClassic or
// ModeStage): from a v2 LoginAccepted, else Classic (v1).
func (c *Client) Mode() uint8 { return c.mode }

// Session returns the session number of LoginAccepted.
func (c *Client) Session() uint32 { return c.session }

// SetInput sets the actions held (wire.Action* bits), sent with every
// Input from the next tick on. Bits 5 to 7 are cleared (bit 5, the Force
// of 7.4, is for a game mode that has one).
func (c *Client) SetInput(actions uint8) {
	c.mu.Lock()
	c.actions = actions & wire.ActionsMask
	c.mu.Unlock()
}

// Steps appends to dst the input steps sent (v2, 7.4) after step after
// (^uint32(0) for every step kept: the server applied none yet),
// oldest first, at most the last StepsKept, and returns it. A v1 session
// has none.
func (c *Client) Steps(after uint32, dst []Step) []Step {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.steps.appendAfter(after, dst)
}

// Frames sets dst to a copy of the frames of the last second, oldest
// first, and returns it. The entity slices of dst's elements are reused:
// passing the same dst every time allocates nothing once it has grown.
func (c *Client) Frames(dst []Frame) []Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.world.Frames(dst)
}

// DrainEvents appends to dst the events applied to the world since the
// last call, oldest first (for effects and sounds), and returns it. Events
// the ordering rules ignored are not included.
func (c *Client) DrainEvents(dst []wire.Event) []wire.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	dst = append(dst, c.pending...)
	clear(c.pending) // drop the names
	c.pending = c.pending[:0]
	return dst
}

// Players returns the player table.
func (c *Client) Players() [wire.MaxPlayers]Player {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.world.Players()
}

// GameOver returns the final scores and true once the GameOver event has
// arrived.
func (c *Client) GameOver() (scores []wire.Score, over bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.world.GameOver()
}

// Stats returns measurements of the connection.
func (c *Client) Stats() Stats {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	ls := c.link.Stats()
	s := Stats{
		Loss:            c.link.Loss(now),
		BaselineAge:     c.baseAge,
		SnapshotTick:    c.snapTick,
		EventsDelivered: ls.EventsDelivered,
		Dropped:         c.dropped,
		Duplicates:      c.dups,
		NoBaseline:      c.noBase,
		Shed:            c.shed,
		Link:            ls,
		Version:         c.version,

		MinSnapshotsPerSec: c.codec.minSnapshots(),
	}
	s.RTT, s.HasRTT = c.link.RTT()
	if c.nsample > 0 {
		old := c.samples[0]
		if c.nsample >= rateSamples {
			old = c.samples[c.nsample%rateSamples]
		}
		if dt := now.Sub(old.at).Seconds(); dt > 0.05 {
			s.KbitIn = float64(c.in-old.in) * 8 / 1000 / dt
			s.KbitOut = float64(c.out-old.out) * 8 / 1000 / dt
			s.SnapshotsPerSec = float64(c.nsnaps-old.snapshots) / dt
		}
	}
	return s
}

// Done is closed when the session ends; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns why the session ended: nil while it runs, ErrClosed after
// Close, a *LogoutError when the server ended it (GameOver at the end of
// a game), an error matching ErrConnectionLost, a *LimitError (matching
// ErrTooMuch) when the server sent more than a client accepts, a
// *StallError (matching ErrStalled) when its snapshots went back, jumped
// ahead or stopped, or another error.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Close leaves the game: it sends Logout(Left), closes the sockets and
// waits for the client's goroutines. It is idempotent and always returns
// nil.
func (c *Client) Close() error {
	c.end(ErrClosed, true)
	c.wg.Wait()
	return nil
}

// Abandon ends the session without a word, as a crashed process would: it
// closes the TCP connection and the UDP socket without sending anything
// (no Logout), then waits for the client's goroutines. The server sees the
// TCP connection drop, which counts as Logout(Left) (1.2, 3.2). Err then
// returns ErrClosed. It is meant for tests: vanish as a crashed process
// would; a player's client calls Close.
func (c *Client) Abandon() {
	c.end(ErrClosed, false)
	c.wg.Wait()
}

// LocalAddr returns the local address of the client's UDP socket, the
// address the server sees the game's datagrams come from. Rebind changes
// it.
func (c *Client) LocalAddr() net.Addr {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.udp.LocalAddr()
}

// rebinding is a Rebind in progress: its new socket, and done, closed by
// the UDP reader when an Accept arrives on that socket.
type rebinding struct {
	conn     net.Conn
	done     chan struct{}
	accepted bool   // done is closed
	cookie   cookie // of the last Challenge to conn (v2, 7.3)
}

// Rebind moves the session to a new UDP socket, so to a new local port, as
// a client whose address changed does (3.4, Rebinding: a NAT rebinding, a
// new network). It opens the socket and sends Binds with the session's
// token from it every Config.BindInterval until an Accept arrives on it,
// for at most Config.BindTimeout. Then every datagram goes out of the new
// socket and the old one is closed. The session goes on unchanged:
// sequences, acknowledgements, events and snapshots continue (the Binds
// take their sequences like any datagram, 2.2). Meanwhile the Inputs keep
// going out of the old socket, and datagrams are read from both.
//
// Over a Config.Transport, whose datagram channel has no port of its own
// to change, Rebind returns ErrNoRebind at once.
//
// When no Accept comes in time, Rebind closes the new socket, keeps the
// old one and returns an error matching ErrBindTimeout; when the session
// ends meanwhile, it returns the session's error. Concurrent calls run one
// after the other.
func (c *Client) Rebind() error {
	if c.cfg.Transport != nil {
		return ErrNoRebind
	}
	c.rebindMu.Lock()
	defer c.rebindMu.Unlock()
	c.mu.Lock()
	raddr, _ := c.udp.RemoteAddr().(*net.UDPAddr)
	c.mu.Unlock()
	conn, err := dialUDP(raddr)
	if err != nil {
		return fmt.Errorf("cannot open a new UDP socket to %s: %w", raddr, err)
	}
	rb := &rebinding{conn: conn, done: make(chan struct{})}
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		conn.Close()
		<-c.done
		return c.err
	}
	c.rebind = rb
	// The send goroutine runs until Done is closed, and end sets closing
	// before that: the group's counter is not zero here.
	c.wg.Add(1)
	c.mu.Unlock()
	go func() { defer c.wg.Done(); c.readUDP(conn) }()

	fail := func(err error) error {
		c.mu.Lock()
		if c.rebind == rb {
			c.rebind = nil
		}
		c.mu.Unlock()
		conn.Close()
		return err
	}
	binds, err := c.sendBinds(context.Background(), conn, rb.done)
	if err != nil {
		if errors.Is(err, ErrBindTimeout) {
			c.log.Info("rebind failed", "binds", binds)
		}
		return fail(err)
	}
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		<-c.done
		return c.err // end closed both sockets
	}
	old := c.udp
	c.udp, c.rebind = conn, nil
	c.mu.Unlock()
	old.Close()
	c.log.Info("rebound", "binds", binds, "from", old.LocalAddr(), "to", conn.LocalAddr())
	return nil
}
