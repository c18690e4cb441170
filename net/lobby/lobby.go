// Package lobby is the client side of rooms (PROTOCOL.md 7.14): a v2
// session logged in for the lobby, which lists, creates and joins rooms,
// chats in them, plays its room's games with package client (Play), and
// asks for the server's leaderboard (7.16). Sent to another server
// of a fleet (RoomRedirect, 7.18), it moves there by itself, once per
// request. It never imports Ebitengine.
package lobby

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// Redirectable is a Transport that follows a RoomRedirect (7.18) to
// another server's WebTransport binding: Redirected returns a Transport
// like it that trusts the certificates of hashes (none: the usual way).
// A Config.Transport that is not one dials the redirect's WebTransport
// address with the trust it has.
type Redirectable interface {
	Redirected(hashes [][32]byte) client.Transport
}

// Config says where and as whom a lobby logs in.
type Config struct {
	// Addr is the server's host:port.
	Addr string
	// Name is the player's name.
	Name string
	// Mode is the mode asked for at the login (7.12): quick join's
	// default. Default wire.ModeAny, the server's.
	Mode uint8
	// LoginTimeout bounds the connection and the login. Default 5 s.
	LoginTimeout time.Duration
	// Logger receives the lobby's logs. Default slog.Default().
	Logger *slog.Logger
	// Transport opens the session's stream, and the datagram channel of
	// the room's game (Play) unless Play's config has its own. Default
	// nil: TCP and UDP (client.Config.Transport).
	Transport client.Transport
	// KeepAlive is the longest the lobby stays silent out of a game: past
	// it, it asks for the room list, so that a player who waits in a room
	// is not ended by the server's idle limit for lobby sessions
	// (PROTOCOL.md 7.14, the server's LobbyIdle, 5 minutes by default).
	// Default 1 minute; negative: never.
	KeepAlive time.Duration
}

// Errors of a lobby.
var (
	// ErrNoRooms: the server answered the lobby login with a player
	// number: it has no rooms (7.14).
	ErrNoRooms = errors.New("lobby: this server has no rooms")
	// ErrNotPlaying: Play was called while the room's game does not run.
	ErrNotPlaying = errors.New("lobby: the room's game is not running")
	// ErrNoScores: the session has no leaderboard messages
	// (Features.Scores, 7.16).
	ErrNoScores = errors.New("lobby: this server shows no leaderboard")
)

// maxChats is how many received lines wait for DrainChat.
const maxChats = 64

// Lobby is a session logged in for rooms. Its methods are safe for
// concurrent use.
type Lobby struct {
	cfg Config // cfg.Addr: the server now (a redirect changes it), under mu

	wmu   sync.Mutex // writes to conn
	wrote time.Time  // the last write, under wmu

	log  *slog.Logger // under mu
	conn net.Conn     // under mu and wmu: changed by a redirect
	acc  wire.Message // under mu
	// features are what the session does, negotiated at its login (and
	// again at a redirect's); under mu.
	features wire.Features
	hops     int // redirects followed since the last Join or Quick (7.18)

	mu       sync.Mutex
	state    wire.Room // the last RoomState; Type 0 before one
	listing  wire.Room
	listSent time.Time
	ping     time.Duration
	refusals []wire.Room
	chats    []client.Chat
	game     *gameConn   // the stream of the attached client, while it plays
	scores   wire.Scores // the last Scores (7.16); Type 0 before one
	err      error
	// keepAlives and listings count the room lists asked for by
	// keepAlive and the listings received.
	keepAlives, listings int

	changed chan struct{} // cap 1: something changed
	done    chan struct{}
	once    sync.Once
}

// Dial connects to cfg.Addr and logs in with v2 for the lobby.
func Dial(ctx context.Context, cfg Config) (*Lobby, error) {
	if cfg.LoginTimeout <= 0 {
		cfg.LoginTimeout = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	conn, fr, m, err := login(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.KeepAlive == 0 {
		cfg.KeepAlive = time.Minute
	}
	l := &Lobby{cfg: cfg, log: cfg.Logger.With("server", cfg.Addr, "name", cfg.Name, "session", m.Session),
		conn: conn, acc: m, features: wire.NewFeatures(wire.Version2, m.Revision), changed: make(chan struct{}, 1), done: make(chan struct{}), wrote: time.Now()}
	go l.read(fr)
	if cfg.KeepAlive > 0 {
		go l.keepAlive(cfg.KeepAlive)
	}
	l.log.Info("lobby login accepted")
	return l, nil
}

// login connects to cfg.Addr and logs in for the lobby.
func login(ctx context.Context, cfg Config) (net.Conn, *wire.FrameReader, wire.Message, error) {
	fail := func(err error) (net.Conn, *wire.FrameReader, wire.Message, error) {
		return nil, nil, wire.Message{}, err
	}
	var conn net.Conn
	var err error
	if cfg.Transport != nil {
		dctx, cancel := context.WithTimeout(ctx, cfg.LoginTimeout)
		conn, err = cfg.Transport.DialStream(dctx, cfg.Addr)
		cancel()
	} else {
		conn, err = dialTCP(ctx, cfg.Addr, cfg.LoginTimeout)
	}
	if err != nil {
		return fail(&client.ReachError{Addr: cfg.Addr, Err: err})
	}
	conn.SetDeadline(time.Now().Add(cfg.LoginTimeout))
	req := wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: cfg.Name,
		Revision: wire.Revision, Mode: cfg.Mode, Flags: wire.LoginLobby})
	if _, err := conn.Write(req); err != nil {
		conn.Close()
		return fail(fmt.Errorf("lobby: login to %s: %w", cfg.Addr, err))
	}
	fr := &wire.FrameReader{R: conn}
	f, err := fr.ReadFrame()
	if err != nil {
		conn.Close()
		return fail(fmt.Errorf("lobby: login to %s: %w", cfg.Addr, err))
	}
	m, err := wire2.ParseMessage(f)
	if err != nil {
		conn.Close()
		return fail(fmt.Errorf("lobby: answer to the login from %s: %w", cfg.Addr, err))
	}
	switch {
	case m.Type == wire.MsgLoginRejected:
		conn.Close()
		return fail(&client.RejectedError{Reason: m.Reason, Text: wire.CleanText(m.Text), Version: wire.Version2})
	case m.Type != wire.MsgLoginAccepted:
		conn.Close()
		return fail(fmt.Errorf("lobby: %v in answer to the login from %s", m.Type, cfg.Addr))
	case m.Player != wire.NoPlayer || !wire.NewFeatures(wire.Version2, m.Revision).Rooms:
		conn.Close()
		return fail(ErrNoRooms)
	}
	conn.SetDeadline(time.Time{})
	return conn, fr, m, nil
}

// Mode returns the session's mode, as the server accepted it.
func (l *Lobby) Mode() uint8 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acc.Mode
}

// Addr returns the address of the server the lobby is logged in to: the
// one it dialled, or the one a RoomRedirect sent it to (7.18).
func (l *Lobby) Addr() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg.Addr
}

// c returns the connection now.
func (l *Lobby) c() net.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conn
}

// Features returns what the session does beyond v1, as its login
// negotiated: Spectate when the server takes spectators (7.17), Scores
// when it answers leaderboard requests (7.16).
func (l *Lobby) Features() wire.Features {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.features
}

// read reads the session's stream until it ends.
func (l *Lobby) read(fr *wire.FrameReader) {
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			l.end(fmt.Errorf("lobby: the server closed the session: %w", err))
			return
		}
		t := wire.MsgType(f[0])
		switch {
		case t == wire.MsgRoomRedirect:
			var d wire.Redirect
			if err := wire.ParseRedirect(f, &d); err != nil {
				l.end(fmt.Errorf("lobby: bad room message from the server: %w", err))
				return
			}
			if nfr := l.follow(&d); nfr != nil {
				fr = nfr
			}
		case wire.IsRoomMessage(t):
			var r wire.Room
			if err := wire.ParseRoom(f, &r); err != nil || r.Type < wire.MsgRoomListing {
				l.end(fmt.Errorf("lobby: bad room message from the server: %v", err))
				return
			}
			l.room(&r)
		case wire.IsScoresMessage(t):
			var sc wire.Scores
			if err := wire.ParseScores(f, &sc); err != nil || sc.Type != wire.MsgScores {
				l.end(fmt.Errorf("lobby: bad leaderboard message from the server: %v", err))
				return
			}
			l.mu.Lock()
			l.scores = sc
			l.mu.Unlock()
			l.poke()
		case t == wire.MsgChatMessage || t == wire.MsgChatRefused:
			m, err := wire2.ParseMessage(f)
			if err != nil {
				l.end(fmt.Errorf("lobby: bad chat message from the server: %w", err))
				return
			}
			l.chat(&m, f)
		case t == wire.MsgSpectators: // 7.17: the playing client's to read
			l.mu.Lock()
			if g := l.game; g != nil {
				g.push(append([]byte{byte(len(f)), byte(len(f) >> 8)}, f...))
			}
			l.mu.Unlock()
		case t == wire.MsgLogout:
			m, _ := wire2.ParseMessage(f)
			l.end(&client.LogoutError{Reason: m.Reason})
			return
		}
	}
}

// room takes a room message of the server.
func (l *Lobby) room(r *wire.Room) {
	l.mu.Lock()
	switch r.Type {
	case wire.MsgRoomState:
		was := l.state
		l.state = *r
		if g := l.game; g != nil && was.State == wire.RoomPlaying && r.State != wire.RoomPlaying {
			// The game is over for us: its client ends as an open game's
			// does, with Logout(GameOver).
			g.push(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutGameOver}))
			l.game = nil
		}
	case wire.MsgRoomListing:
		l.listings++
		l.listing = *r
		if !l.listSent.IsZero() {
			l.ping, l.listSent = time.Since(l.listSent), time.Time{}
		}
	case wire.MsgRoomRefused:
		if r.Reason == wire.RoomKicked {
			l.state = wire.Room{}
		}
		if len(l.refusals) < maxChats {
			l.refusals = append(l.refusals, *r)
		}
	}
	l.mu.Unlock()
	l.poke()
}

// chat keeps a line, and passes it to the playing client.
func (l *Lobby) chat(m *wire.Message, frame []byte) {
	c := client.Chat{Tick: m.Tick, Player: m.Player, Name: wire.CleanName(m.Name), Text: wire.CleanChat(m.Text)}
	if m.Type == wire.MsgChatRefused {
		c = client.Chat{Refused: m.Reason, Wait: time.Duration(m.Wait) * time.Millisecond}
	}
	l.mu.Lock()
	if g := l.game; g != nil {
		g.push(append([]byte{byte(len(frame)), byte(len(frame) >> 8)}, frame...))
	} else if c.Refused != 0 || c.Text != "" {
		if len(l.chats) == maxChats {
			l.chats = append(l.chats[:0], l.chats[1:]...)
		}
		l.chats = append(l.chats, c)
	}
	l.mu.Unlock()
	l.poke()
}

func (l *Lobby) poke() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// end ends the lobby with err, once.
func (l *Lobby) end(err error) {
	l.once.Do(func() {
		l.mu.Lock()
		l.err = err
		if g := l.game; g != nil {
			g.Close()
			l.game = nil
		}
		conn, log := l.conn, l.log
		l.mu.Unlock()
		conn.Close()
		close(l.done)
		log.Info("lobby ended", "err", err)
	})
}

// Changed is signalled when the room, the listing, a refusal, the chat
// or the leaderboard changed.
func (l *Lobby) Changed() <-chan struct{} { return l.changed }

// Done is closed when the session has ended; Err says why.
func (l *Lobby) Done() <-chan struct{} { return l.done }

// Err returns why the session ended, or nil while it runs.
func (l *Lobby) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// State returns the last RoomState, and false when the client is in no
// room.
func (l *Lobby) State() (wire.Room, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state, l.state.Type == wire.MsgRoomState
}

// AwaitRoom waits until the client is in a room whose state satisfies
// ok, and returns that state, looking again at each Changed. It fails
// when the session ends (with Err's reason) or ctx does (ctx's error).
// Refusals are not its concern: a caller that must see them reads
// Refusals.
func (l *Lobby) AwaitRoom(ctx context.Context, ok func(wire.Room) bool) (wire.Room, error) {
	for {
		if st, in := l.State(); in && ok(st) {
			return st, nil
		}
		select {
		case <-l.Changed():
		case <-l.Done():
			if err := l.Err(); err != nil {
				return wire.Room{}, fmt.Errorf("lobby: the session ended: %w", err)
			}
			return wire.Room{}, errors.New("lobby: the session ended")
		case <-ctx.Done():
			return wire.Room{}, ctx.Err()
		}
	}
}

// Listing returns the last RoomListing and the ping it measured.
func (l *Lobby) Listing() (wire.Room, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.listing, l.ping
}

// Refusals returns the refusals received since the last call.
func (l *Lobby) Refusals() []wire.Room {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.refusals
	l.refusals = nil
	return r
}

// DrainChat appends the lines received since the last call to dst.
func (l *Lobby) DrainChat(dst []client.Chat) []client.Chat {
	l.mu.Lock()
	defer l.mu.Unlock()
	dst = append(dst, l.chats...)
	l.chats = l.chats[:0]
	return dst
}

// write writes one frame to the server.
func (l *Lobby) write(b []byte) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	c := l.c()
	l.wrote = time.Now()
	c.SetWriteDeadline(l.wrote.Add(5 * time.Second))
	_, err := c.Write(b)
	if err != nil {
		return fmt.Errorf("lobby: writing to %s: %w", c.RemoteAddr(), err)
	}
	return nil
}

func (l *Lobby) send(r wire.Room) error { return l.write(wire.AppendRoom(nil, &r)) }

// keepAlive asks for the room list when the lobby has written nothing
// for every, out of a game, until the lobby ends (Config.KeepAlive).
func (l *Lobby) keepAlive(every time.Duration) {
	t := time.NewTicker(every / 4)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
		}
		l.wmu.Lock()
		silent := time.Since(l.wrote)
		l.wmu.Unlock()
		l.mu.Lock()
		playing := l.game != nil
		l.mu.Unlock()
		if silent >= every && !playing {
			l.mu.Lock()
			l.keepAlives++
			l.mu.Unlock()
			l.List()
		}
	}
}

// List asks for the public rooms.
func (l *Lobby) List() error {
	l.mu.Lock()
	l.listSent = time.Now()
	l.mu.Unlock()
	return l.send(wire.Room{Type: wire.MsgRoomList})
}

// Create creates a room of st and joins it as its owner. A Stage room's
// st.Stage is the stage of the server's campaign its games start at (0:
// the server's own); the room's State says which.
func (l *Lobby) Create(st wire.RoomSettings) error {
	return l.send(wire.Room{Type: wire.MsgRoomCreate, Settings: st})
}

// Join joins the room of code.
func (l *Lobby) Join(code wire.RoomCode) error {
	l.mu.Lock()
	l.hops = 0
	l.mu.Unlock()
	return l.send(wire.Room{Type: wire.MsgRoomJoin, Code: code})
}

// Quick joins the best public room of mode (0: the login's), or creates
// one.
func (l *Lobby) Quick(mode uint8) error {
	l.mu.Lock()
	l.hops = 0
	l.mu.Unlock()
	return l.send(wire.Room{Type: wire.MsgRoomQuick, Mode: mode})
}

// Ready says whether the player is ready.
func (l *Lobby) Ready(ready bool) error {
	v := uint8(0)
	if ready {
		v = 1
	}
	return l.send(wire.Room{Type: wire.MsgRoomReady, Value: v})
}

// Start starts the room's game (owner).
func (l *Lobby) Start() error { return l.send(wire.Room{Type: wire.MsgRoomStart}) }

// Kick puts player p out of the room (owner).
func (l *Lobby) Kick(p uint8) error { return l.send(wire.Room{Type: wire.MsgRoomKick, Value: p}) }

// Settings changes the room's settings (owner).
func (l *Lobby) Settings(st wire.RoomSettings) error {
	return l.send(wire.Room{Type: wire.MsgRoomSettings, Settings: st})
}

// AddBot adds a bot (owner).
func (l *Lobby) AddBot() error {
	return l.send(wire.Room{Type: wire.MsgRoomBot, Value: 1, Player: wire.NoPlayer})
}

// RemoveBot removes the bot of player p, or with wire.NoPlayer the last
// one (owner).
func (l *Lobby) RemoveBot(p uint8) error {
	return l.send(wire.Room{Type: wire.MsgRoomBot, Value: 0, Player: p})
}

// Again brings the room back to its lobby after a game over.
func (l *Lobby) Again() error { return l.send(wire.Room{Type: wire.MsgRoomAgain}) }

// Leave leaves the room.
func (l *Lobby) Leave() error {
	l.mu.Lock()
	l.state = wire.Room{}
	l.mu.Unlock()
	return l.send(wire.Room{Type: wire.MsgRoomLeave})
}

// HasScores reports whether the server answers leaderboard requests
// (Features.Scores, 7.1, 7.16).
func (l *Lobby) HasScores() bool { return l.Features().Scores }

// AskScores asks for the best count scores (0: wire.MaxScoreRows) of a
// mode, period and stage ("" the server's) (7.16); Scores returns the
// answer when it came. It returns ErrNoScores when the server has no
// leaderboard messages.
func (l *Lobby) AskScores(mode, period, count uint8, stage string) error {
	if !l.HasScores() {
		return ErrNoScores
	}
	return l.write(wire.AppendScores(nil, &wire.Scores{Type: wire.MsgScoresRequest, Mode: mode, Period: period, Count: count, Stage: stage}))
}

// Scores returns the last leaderboard the server sent, its names
// cleaned, and false before the first.
func (l *Lobby) Scores() (wire.Scores, bool) {
	l.mu.Lock()
	sc := l.scores
	l.mu.Unlock()
	for i := range sc.Rows[:sc.Count] {
		sc.Rows[i].Name = wire.CleanName(sc.Rows[i].Name)
	}
	return sc, sc.Type == wire.MsgScores
}

// SendChat sends a chat line to the room (7.13).
func (l *Lobby) SendChat(text string) error {
	if _, why := wire.NormalizeChatString(nil, text); why != 0 {
		return &client.ChatError{Reason: why}
	}
	return l.write(wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: text}))
}

// Play plays the room's game, which must be running: it binds and
// returns the client of the game (client.Attach). The client ends with
// Logout(GameOver) when the room's game is over; the lobby goes on.
// Closing the client logs the session out of the server.
func (l *Lobby) Play(ctx context.Context, cfg client.Config) (*client.Client, error) {
	l.mu.Lock()
	st := l.state
	if st.Type != wire.MsgRoomState || st.State != wire.RoomPlaying || l.err != nil {
		l.mu.Unlock()
		return nil, ErrNotPlaying
	}
	if l.game != nil {
		l.game.Close()
	}
	g := &gameConn{l: l, in: make(chan []byte, 64), closed: make(chan struct{})}
	l.game = g
	acc := l.acc
	acc.Player, acc.Tick = st.You, 0
	cfg.Addr, cfg.Name = l.cfg.Addr, l.cfg.Name
	if cfg.Transport == nil || l.cfg.Transport != nil {
		// The lobby's: after a redirect (7.18), the one to its new server.
		cfg.Transport = l.cfg.Transport
	}
	l.mu.Unlock()
	c, err := client.Attach(ctx, cfg, g, acc)
	if err != nil {
		l.mu.Lock()
		if l.game == g {
			l.game = nil
		}
		l.mu.Unlock()
		g.Close()
	}
	return c, err
}

// Close logs out (Logout Left) and closes the connection.
func (l *Lobby) Close() error {
	l.write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutLeft}))
	l.end(client.ErrClosed)
	return nil
}

// gameConn is the session's stream as an attached client sees it: it
// reads what the lobby pushes (the game's chat, the final Logout) and
// writes to the server.
type gameConn struct {
	l      *Lobby
	in     chan []byte
	buf    []byte
	closed chan struct{}
	once   sync.Once
}

// push queues frames for the client; when it reads too slowly they are
// dropped (chat lines), as the server drops them (7.13).
func (g *gameConn) push(b []byte) {
	select {
	case g.in <- b:
	default:
	}
}

func (g *gameConn) Read(p []byte) (int, error) {
	if len(g.buf) == 0 {
		select {
		case g.buf = <-g.in:
		case <-g.closed:
			return 0, io.EOF
		}
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func (g *gameConn) Write(p []byte) (int, error) {
	select {
	case <-g.closed:
		return 0, net.ErrClosed
	default:
	}
	if err := g.l.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (g *gameConn) Close() error {
	g.once.Do(func() { close(g.closed) })
	return nil
}

// NetConn returns the lobby's connection, whose transport opens the
// game's datagram channel (client.Transport.DialDatagrams).
func (g *gameConn) NetConn() net.Conn { return g.l.c() }

func (g *gameConn) LocalAddr() net.Addr                { return g.l.c().LocalAddr() }
func (g *gameConn) RemoteAddr() net.Addr               { return g.l.c().RemoteAddr() }
func (g *gameConn) SetDeadline(t time.Time) error      { return nil }
func (g *gameConn) SetReadDeadline(t time.Time) error  { return nil }
func (g *gameConn) SetWriteDeadline(t time.Time) error { return nil }

// CanChat reports true: a lobby session is v2, it has chat (7.13).
func (l *Lobby) CanChat() bool { return true }

// follow moves the lobby to the server of a RoomRedirect (7.18): it logs
// in there, joins the code, and logs out here; it returns the frame
// reader of the new connection, or nil when it stays here. It follows
// one redirect per Join or Quick: another is refused as NoSuchRoom, and
// so is a server it cannot reach or log in to.
func (l *Lobby) follow(d *wire.Redirect) *wire.FrameReader {
	l.mu.Lock()
	cfg, hops := l.cfg, l.hops
	l.hops++
	l.mu.Unlock()
	refuse := func(why string, err error) *wire.FrameReader {
		l.mu.Lock()
		log := l.log
		l.mu.Unlock()
		log.Info("room redirect not followed", "to", d.Addr, "room", d.Code.String(), "why", why, "err", err)
		l.room(&wire.Room{Type: wire.MsgRoomRefused, Reason: wire.RoomNoSuchRoom})
		return nil
	}
	if hops > 0 {
		return refuse("a second redirect", nil)
	}
	cfg.Addr = d.Addr
	if cfg.Transport != nil {
		// Over WebTransport (a browser): to the WebTransport fields, with
		// their hashes; no fields, no way there.
		if d.WebTransport == "" {
			return refuse("the server there gives no WebTransport address", nil)
		}
		cfg.Addr = d.WebTransport
		if rt, ok := cfg.Transport.(Redirectable); ok {
			cfg.Transport = rt.Redirected(d.CertHashes)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.LoginTimeout)
	defer cancel()
	conn, fr, m, err := login(ctx, cfg)
	if err != nil {
		return refuse("cannot log in there", err)
	}
	join := wire.AppendRoom(nil, &wire.Room{Type: wire.MsgRoomJoin, Code: d.Code})
	conn.SetWriteDeadline(time.Now().Add(cfg.LoginTimeout))
	if _, err := conn.Write(join); err != nil {
		conn.Close()
		return refuse("cannot join there", err)
	}
	l.wmu.Lock()
	l.mu.Lock()
	old := l.conn
	l.conn, l.acc, l.cfg.Addr, l.cfg.Transport = conn, m, cfg.Addr, cfg.Transport
	l.features = wire.NewFeatures(wire.Version2, m.Revision)
	l.log = cfg.Logger.With("server", cfg.Addr, "name", cfg.Name, "session", m.Session)
	log := l.log
	l.mu.Unlock()
	old.SetWriteDeadline(time.Now().Add(time.Second))
	old.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutLeft}))
	old.Close()
	l.wmu.Unlock()
	log.Info("room redirect followed", "room", d.Code.String(), "why", d.Why)
	return fr
}
