package server

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
)

// ErrConfig reports a Config that New refuses: a mode that is neither
// Classic nor Stage, or a stage that does not start with its Warp.
var ErrConfig = errors.New("server: invalid configuration")

// Server hosts games over TCP sessions and UDP datagrams on one port.
type Server struct {
	cfg Config
	log *slog.Logger
	tcp *net.TCPListener
	udp *udpSocket

	mu       sync.Mutex
	sessions map[uint32]*session // by session id
	games    []*game
	phases   phases // the games' snapshot ticks spread over the loop's
	nextGame int
	closed   bool
	seed     uint64
	ticks    tickTimes
	stall    stallWatch  // the server's own pauses (stall.go)
	bans     banList     // admin.go
	serving  bool        // Run started: with !closed, ready (Metrics)
	stats    serverStats // counters for monitoring, atomic
	life     lifecycle   // Watch

	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
	gate      loginGate    // the logins (3.2, 3.3)
	disco     lanDiscovery // LAN discovery (section 8)
	chatHub   chatHub      // chat's clock and buffer (7.13)
	spect     spectatorHub // spectators (7.17)

	rx     *batchReader // the read loop's
	rxOut  *outbox      // what the read loop sends (under mu)
	in     udpIn        // the datagrams' handling (session.go, bind2.go, rxqueue.go)
	shards *shards      // the tick's goroutines, each with its outbox

	rooms roomTable // 7.14

	wt     *wtBinding        // the WebTransport binding (Part IV), or nil
	lb     leaderboardClient // 7.16: the scores' reads and recordings
	fleet  fleetLink         // 7.18, with Config.Fleet
	shared storeLink         // the database's checks (storeLink.loop)
}

// New binds the TCP and UDP sockets of cfg.Listen (the same port for both)
// and returns a server ready to Run.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if cfg.MaxVersion > 0xFF || !wire.Supported(uint8(cfg.MaxVersion)) {
		return nil, fmt.Errorf("server: MaxVersion %d: this server speaks protocol versions 1 and 2", cfg.MaxVersion)
	}
	if cfg.Mode != wire.ModeClassic && cfg.Mode != wire.ModeStage {
		return nil, fmt.Errorf("%w: Mode %d: want wire.ModeClassic (1) or wire.ModeStage (2)", ErrConfig, cfg.Mode)
	}
	if _, err := sim.NewStage(*cfg.Rules, cfg.Stage, 0, sim.StageOptions{Warp: cfg.Warp, Campaign: cfg.Campaign}); err != nil {
		return nil, fmt.Errorf("%w: stage %q with warp %q: %w", ErrConfig, cfg.Stage.Name, cfg.Warp, err)
	}
	bans, err := loadBans(cfg.Bans)
	if err != nil {
		return nil, err
	}
	tcp, udp, err := listen(cfg.Listen)
	if err != nil {
		return nil, err
	}
	sock, err := newUDPSocket(udp)
	var rx *batchReader
	var rxOut *outbox
	if err == nil {
		rx, err = newBatchReader(sock)
	}
	if err == nil {
		rxOut, err = newOutbox(sock)
	}
	var shs *shards
	if err == nil {
		shs, err = newShards(cfg.TickShards, func() (*outbox, error) { return newOutbox(sock) })
	}
	if err != nil {
		tcp.Close()
		udp.Close()
		if sock != nil {
			sock.release()
		}
		return nil, fmt.Errorf("server: UDP socket of %s: %w", cfg.Listen, err)
	}
	seed := cfg.Seed
	if seed == 0 {
		var b [8]byte
		rand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:])
	}
	secret := make([]byte, 32) // the cookie secret, drawn at start (7.3)
	rand.Read(secret)
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		tcp:      tcp,
		udp:      sock,
		sessions: make(map[uint32]*session),
		seed:     seed,
		bans:     banList{all: bans},
		done:     make(chan struct{}),
		rx:       rx,
		rxOut:    rxOut,
		shards:   shs,
		fleet:    fleetLink{poke: make(chan struct{}, 1)},
	}
	s.gate = loginGate{srv: s, pendIP: make(map[netip.Addr]int), waiting: make(map[net.Conn]bool),
		limiter: newLoginLimiter(cfg.LoginLimit, cfg.LoginWindow, cfg.LoginAddrs)}
	s.chatHub.srv, s.spect.srv, s.lb.srv, s.fleet.srv, s.shared.srv, s.disco.srv = s, s, s, s, s, s
	s.rooms = roomTable{srv: s, byCode: make(map[wire.RoomCode]*room), wrong: make(map[netip.Addr]*wrongCodes)}
	s.in = udpIn{srv: s, cookies: wire2.NewCookieMAC(secret), waitTick: waitsForTick(cfg.WaitForTick, sock.receiveBuffer())}
	shs.step, shs.flush = s.stepShardGame, flushShard
	rxOut.totals = &s.stats
	for _, sh := range shs.all {
		sh.out.totals = &s.stats
	}
	if err := s.openWebTransport(); err != nil {
		tcp.Close()
		sock.release()
		return nil, err
	}
	s.disco.open()
	return s, nil
}

// listen opens TCP and UDP on the same port. With port 0 it takes the
// port TCP got, trying again when UDP's is taken.
func listen(addr string) (*net.TCPListener, *net.UDPConn, error) {
	for try := 0; ; try++ {
		ta, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			return nil, nil, fmt.Errorf("server: listen address %q: %w", addr, err)
		}
		tcp, err := net.ListenTCP("tcp", ta)
		if err != nil {
			return nil, nil, fmt.Errorf("server: TCP listen on %s: %w", addr, err)
		}
		port := tcp.Addr().(*net.TCPAddr).Port
		udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: ta.IP, Port: port, Zone: ta.Zone})
		if err == nil {
			return tcp, udp, nil
		}
		tcp.Close()
		if ta.Port != 0 || try == 10 {
			return nil, nil, fmt.Errorf("server: UDP listen on port %d: %w", port, err)
		}
	}
}

// Addr returns the bound address, TCP and UDP alike ("host:port").
func (s *Server) Addr() string { return s.tcp.Addr().String() }

// Port returns the bound port.
func (s *Server) Port() int { return s.tcp.Addr().(*net.TCPAddr).Port }

// Run serves until ctx is done or Close is called, then ends every session
// with Logout(ServerShutdown). It returns nil after a clean stop.
func (s *Server) Run(ctx context.Context) error {
	s.mu.Lock()
	s.serving = true
	s.mu.Unlock()
	s.log.Info("server listening", "addr", s.Addr(), "max_games", s.cfg.MaxGames, "max_version", s.cfg.MaxVersion,
		"mode", wire.ModeName(s.cfg.Mode), "stage", s.cfg.Stage.Name, "warp", s.cfg.Warp)
	if rb := s.udp.receiveBuffer(); !s.in.waitTick && s.cfg.WaitForTick == 0 && rb > 0 {
		s.log.Info("UDP receive buffer under 4 MB: the read loop queues during ticks; raise net.core.rmem_max to 4194304 (OPERATING.md)",
			"receive_buffer", rb)
	}
	s.wg.Add(3 + len(s.shards.all) - 1)
	for _, sh := range s.shards.all[1:] {
		go func() { defer s.wg.Done(); s.shards.helper(sh) }()
	}
	go func() { defer s.wg.Done(); s.acceptLoop() }()
	go func() { defer s.wg.Done(); s.in.readLoop() }()
	go func() { defer s.wg.Done(); s.tickLoop() }()
	if s.wt != nil {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.runWebTransport() }()
	}
	if s.cfg.Fleet != nil {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.fleet.loop() }()
	}
	if s.cfg.Leaderboard != nil || s.cfg.Bans != nil {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.shared.loop() }()
	}
	s.disco.serve()
	s.mu.Lock()
	s.lifeLocked(Listening)
	s.mu.Unlock()
	select {
	case <-ctx.Done():
	case <-s.done:
	}
	s.shutdown()
	s.wg.Wait()
	s.udp.release()
	s.mu.Lock()
	for _, g := range s.games {
		g.endRecording()
	}
	s.mu.Unlock()
	s.log.Info("server stopped")
	return nil
}

// Close stops the server: every session gets Logout(ServerShutdown).
func (s *Server) Close() error {
	s.closeOnce.Do(func() { close(s.done) })
	return nil
}

func (s *Server) shutdown() {
	s.closeOnce.Do(func() { close(s.done) })
	s.mu.Lock()
	s.closed = true
	var conns []*session
	logged := make(map[net.Conn]bool, len(s.sessions))
	for _, ss := range s.sessions {
		conns = append(conns, ss)
		logged[ss.conn] = true
	}
	// Connections still before their LoginRequest would otherwise hold
	// Run until their LoginTimeout.
	for c := range s.gate.waiting {
		if !logged[c] {
			c.Close()
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, ss := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); ss.logout(wire.LogoutServerShutdown) }()
	}
	wg.Wait()
	s.closeWebTransport()
	s.tcp.Close()
	s.udp.close() // released when Run's goroutines are done
	s.disco.close()
}

// acceptLoop takes TCP connections and hands each to its session reader.
func (s *Server) acceptLoop() {
	for {
		c, err := s.tcp.AcceptTCP()
		if err != nil {
			select {
			case <-s.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.log.Warn("accept", "err", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		var ip netip.Addr
		if ra, ok := c.RemoteAddr().(*net.TCPAddr); ok {
			ip = ra.AddrPort().Addr().Unmap()
		}
		if !s.gate.admit(c, ip) {
			c.Close()
			continue
		}
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.serveConn(c, ip) }()
	}
}

// serveConn runs one TCP connection (or a WebTransport session's stream,
// 9.2): the login, then the reading of Logout or protocol errors until the
// session ends.
func (s *Server) serveConn(c net.Conn, ip netip.Addr) {
	ss, ok := s.gate.login(c)
	s.gate.admitted(c, ip)
	if !ok {
		closeGently(c)
		return
	}
	c.SetReadDeadline(time.Time{})
	defer s.chatHub.start(ss)()
	if ss.lobby && ss.chat != nil {
		defer s.watchLobbyIdle(ss)()
	}
	fr := wire.FrameReader{R: c}
	var scores scoresSession // 7.16
	for {
		m, err := ss.codec.readMessage(&fr, func(f []byte) error {
			if ss.chat != nil {
				ss.chat.heard.Store(time.Now().UnixNano())
			}
			if wire.IsRoomMessage(wire.MsgType(f[0])) {
				return s.rooms.message(ss, f) // 7.14
			}
			if wire.IsScoresMessage(wire.MsgType(f[0])) {
				return s.lb.scoresMessage(ss, &scores, f)
			}
			return s.chatHub.line(ss, f)
		})
		switch {
		case err == nil && m.Type == wire.MsgLogout:
			s.leave(ss, wire.LeftLeft, -1)
			return
		case err == nil || errors.Is(err, wire.ErrFrameLength) || errors.Is(err, wire.ErrMessageType) || errors.Is(err, wire.ErrMessageBody):
			s.log.Info("kicked", "session", ss.id, "name", ss.name, "reason", "protocol error on TCP", "err", err)
			s.leave(ss, wire.LeftKicked, int(wire.LogoutKicked))
			return
		default: // the connection closed without a Logout: Left (1.2)
			s.leave(ss, wire.LeftLeft, -1)
			return
		}
	}
}

// watchLobbyIdle ends the lobby session ss with Logout(TimedOut) when it
// sends nothing for LobbyIdle while in no game (7.14); the function it
// returns stops the watch (when the session's reader ends).
func (s *Server) watchLobbyIdle(ss *session) (stop func()) {
	c, idle := ss.chat, s.cfg.LobbyIdle
	c.heard.Store(time.Now().UnixNano())
	done := make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTimer(idle)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			now := time.Now()
			s.mu.Lock()
			if ss.gone {
				s.mu.Unlock()
				return
			}
			if ss.game != nil { // playing its room's game: not idle
				c.heard.Store(now.UnixNano())
			}
			since := now.Sub(time.Unix(0, c.heard.Load()))
			s.mu.Unlock()
			if since < idle {
				t.Reset(idle - since)
				continue
			}
			s.log.Info("lobby session idle", "session", ss.id, "name", ss.name, "addr", ss.ip, "idle", since,
				"max", idle)
			s.leave(ss, wire.LeftTimedOut, int(wire.LogoutTimedOut))
			return
		}
	}()
	return func() { close(done) }
}

// closeGently closes a connection so that what was written last reaches
// the peer: it shuts the sending side at once (the peer reads our last
// message, then EOF) and closes the socket a second later, so input the
// peer sent and we did not read cannot turn the close into a reset that
// would discard that message.
//
// At most maxLingering connections linger at once: past that, as under a
// flood of bad logins, they are closed at once.
func closeGently(c net.Conn) {
	tc, ok := c.(interface{ CloseWrite() error }) // TCP, or a WebTransport stream
	if !ok || lingering.Add(1) > maxLingering {
		if ok {
			lingering.Add(-1)
		}
		c.Close()
		return
	}
	tc.CloseWrite()
	time.AfterFunc(time.Second, func() { c.Close(); lingering.Add(-1) })
}

// maxLingering bounds the sockets closeGently keeps open, process-wide.
const maxLingering = 256

var lingering atomic.Int32

// findGame returns a running game of mode with a free player number and
// no player of that name, else a new game of mode; or a reason to refuse.
// MaxGames counts the games of both modes (7.12).
func (s *Server) findGame(name string, mode uint8) (*game, string, uint8) {
	if len(s.sessions) >= s.cfg.MaxSessions {
		return nil, "the server is full", wire.RejectGameFull
	}
	if g := s.rooms.publicGameLocked(name, mode); g != nil {
		return g, "", 0 // a public room's running game (7.14)
	}
	taken, ending, running := false, false, 0
	for _, g := range s.games {
		if g.room != nil {
			continue // a room's game: only its members play it (7.14)
		}
		if g.empty() {
			// Its last player left: the tick loop drops it, and the
			// next login starts a new game (3.3), even before that.
			continue
		}
		running++
		if g.mode != mode {
			continue
		}
		if g.over {
			ending = true
			continue
		}
		if g.hasName(name) {
			taken = true
			continue
		}
		if g.freePlayer() != wire.NoPlayer {
			return g, "", 0
		}
	}
	if running < s.cfg.MaxGames && running > 0 && overloaded(s.ticks.load(), s.cfg.MaxTickLoad) {
		// Back-pressure: the running games first.
		s.log.Warn("no new game: the tick loop is too busy", "load", s.ticks.load(), "max_tick_load", s.cfg.MaxTickLoad,
			"games", running)
		return nil, "the server is at capacity: try again in a minute", wire.RejectGameFull
	}
	if running < s.cfg.MaxGames {
		g, err := s.newGame(mode)
		if err != nil {
			s.log.Error("cannot start a game", "mode", wire.ModeName(mode), "err", err)
			return nil, "the server cannot start a game", wire.RejectGameFull
		}
		return g, "", 0
	}
	switch {
	case taken:
		return nil, "that name is already taken in this game", wire.RejectNameTaken
	case ending:
		return nil, "the game is ending: try again in a few seconds", wire.RejectGameEnding
	}
	return nil, "every game is full", wire.RejectGameFull
}

// newGame starts a game of mode.
func (s *Server) newGame(mode uint8) (*game, error) {
	id := s.nextGame
	w, err := s.newWorld(mode, s.seed+uint64(id))
	if err != nil {
		return nil, err
	}
	s.nextGame++
	g := &game{id: id, mode: mode, world: w}
	s.phases.start(g)
	if s.cfg.Recorder != nil {
		g.rec = s.cfg.Recorder(id, mode, s.gate.loginExt())
	}
	s.games = append(s.games, g)
	s.lifeLocked(GameStarted)
	s.log.Info("game started", "game", id, "mode", wire.ModeName(mode))
	return g, nil
}
