// Package evilserver is a hostile server of protocol v1, and of v2 when
// Config.Version2 is set, for tests: it speaks the real protocol (a TCP
// login, a UDP bind, snapshots against acknowledged baselines, framed
// events) through net/wire and net/link, plays a small, normal game, and
// misbehaves on command: floods of Spawns or of snapshot datagrams, tick
// jumps, hostile text, random traffic. A v2 session gets the same game
// and the same attacks in v2's forms (PROTOCOL.md Part II): a cookie
// binding, v2 snapshots of Linear motions, v2 events.
//
// It serves one session at a time on 127.0.0.1 and never touches a
// display. Its methods are safe for concurrent use.
package evilserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"time"

	"rtype/internal/testutil"
	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// Config is a Server's configuration.
type Config struct {
	// Player is the player number of LoginAccepted. Default 0.
	Player uint8
	// Tick is the tick of LoginAccepted and of Accept, where the game's
	// clock starts. Default 600.
	Tick uint32
	// Login, when not nil, is sent on TCP in answer to the LoginRequest
	// instead of a LoginAccepted (raw bytes: a LoginRejected with invalid
	// UTF-8, say), and the connection is closed.
	Login []byte
	// Entities is the number of enemies of the normal game, at indices 10
	// and up. Default 8.
	Entities int
	// Logger receives the server's logs. Default: none.
	Logger *slog.Logger
	// Version2 accepts a LoginRequest of version 2 and plays that session
	// in v2 (7.x); without it the server speaks only version 1 and answers
	// version 2 with LoginRejected(VersionMismatch), as a v1 server does.
	// A v2 session is of revision wire.Revision, in a Classic game, and
	// its Snapshot datagrams end with an empty event tail (7.8).
	Version2 bool
}

// Server is a hostile server. Start makes one.
type Server struct {
	cfg Config
	log *slog.Logger
	tcp *net.TCPListener
	udp *net.UDPConn

	mu       sync.Mutex
	conn     net.Conn
	client   *net.UDPAddr
	link     *link.Link
	hist     link.History
	enc      wire.SnapshotEncoder
	buf      []byte
	payload  []byte
	evID     uint16 // next event id
	base     time.Time
	baseTick uint32
	paused   bool          // the clock sends no snapshot
	world    []wire.Entity // sorted by wire.Less
	players  []wire.PlayerState
	lastTick uint32 // tick of the last snapshot sent
	sent     uint64 // datagrams sent

	// codec is the session's protocol, from its login (nil before).
	codec codec
	// A v2 session's (Config.Version2 and a version 2 login).
	hist2    link2.History
	enc2     wire2.SnapshotEncoder
	ents2    []wire2.Entity
	players2 []wire2.Player
	evID2    uint32 // next v2 event id

	bound chan struct{}
	stop  chan struct{}
	wg    sync.WaitGroup
}

const session = 0x5EC7E7

var token = wire.Token{9, 8, 7, 6, 5, 4, 3, 2}

// Start listens on 127.0.0.1, TCP and UDP on the same free port, and
// serves the first client that logs in.
func Start(cfg Config) (*Server, error) {
	if cfg.Tick == 0 {
		cfg.Tick = 600
	}
	if cfg.Entities == 0 {
		cfg.Entities = 8
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	tcp, udp, err := testutil.ListenTCPUDP()
	if err != nil {
		return nil, fmt.Errorf("evilserver: %w", err)
	}
	udp.SetWriteBuffer(4 << 20)
	s := &Server{cfg: cfg, log: cfg.Logger.With("component", "evilserver"), tcp: tcp, udp: udp,
		baseTick: cfg.Tick, bound: make(chan struct{}), stop: make(chan struct{})}
	s.players = []wire.PlayerState{{Player: cfg.Player, HasShip: true, Ship: 1, Lives: 3}}
	s.world = []wire.Entity{wire.MakeEntity(1, wire.KindPlayerShip, 100, 360, 0, 0, 0)}
	for i := 0; i < cfg.Entities; i++ {
		s.world = append(s.world, wire.MakeEntity(uint32(10+i), wire.KindBydosSlave, 1000, float32(50+i%600), -100, 0, 0))
	}
	s.wg.Add(2)
	go func() { defer s.wg.Done(); s.acceptLoop() }()
	go func() { defer s.wg.Done(); s.readLoop() }()
	return s, nil
}

// Addr returns "127.0.0.1:port", for client.Config.Addr or -join.
func (s *Server) Addr() string { return s.tcp.Addr().String() }

// Sent returns the number of datagrams sent.
func (s *Server) Sent() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent
}

// Close stops the server and waits for its goroutines.
func (s *Server) Close() error {
	select {
	case <-s.stop:
		return nil
	default:
	}
	close(s.stop)
	s.tcp.Close()
	s.udp.Close()
	s.mu.Lock()
	if s.conn != nil {
		s.conn.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

func (s *Server) acceptLoop() {
	for {
		c, err := s.tcp.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.serve(c) }()
	}
}

func (s *Server) serve(c net.Conn) {
	defer c.Close()
	fr := wire.FrameReader{R: c}
	cd, ok := s.login(c, &fr)
	if !ok {
		return
	}
	now := time.Now()
	s.mu.Lock()
	if s.link != nil {
		s.mu.Unlock()
		return // one session
	}
	s.conn = c
	s.codec = cd
	s.link = cd.newLink(s, now)
	s.base = now
	s.mu.Unlock()
	acc := &wire.Message{Type: wire.MsgLoginAccepted, Player: s.cfg.Player, Session: session, Token: token, Tick: s.cfg.Tick}
	c.Write(cd.loginAccepted(acc))
	for {
		if _, err := fr.ReadMessage(); err != nil {
			return
		}
	}
}

func (s *Server) readLoop() {
	buf := make([]byte, wire.MaxDatagram)
	for {
		n, from, err := s.udp.ReadFromUDP(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		s.handle(buf[:n], from)
	}
}

// cookie is the evil server's cookie (7.3): always the same, a hostile
// server proves nothing.
var cookie = wire2.Cookie{0xC0, 0x0C, 0x1E, 5, 4, 3, 2, 1}

func (s *Server) handle(b []byte, from *net.UDPAddr) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	cd := s.codec
	if cd == nil {
		return // no session yet
	}
	h, p, err := cd.parseHeader(b)
	if err != nil || h.Session != session {
		return
	}
	if s.link.Seen(h.Seq) {
		return
	}
	accept := func() { s.link.Accept(h, len(b), now) }
	if h.Type == wire.TypeBind {
		if wire.Token(p[:wire.TokenSize]) != token {
			return
		}
		if !cd.bindCookie(s, p, from, now) {
			return
		}
		first := s.client == nil
		s.client = from
		accept()
		s.buf, _ = s.link.AppendDatagram(s.buf[:0], wire.TypeAccept,
			wire.AppendAccept(nil, wire.Accept{Player: s.cfg.Player, Tick: s.tickLocked(now)}), now)
		s.sendLocked(s.buf)
		if first {
			close(s.bound)
			s.wg.Add(1)
			go func() { defer s.wg.Done(); s.clock() }()
		}
		return
	}
	if s.client != nil && from.String() == s.client.String() {
		accept()
	}
}

func (s *Server) sendLocked(b []byte) {
	if s.client == nil {
		return
	}
	s.udp.WriteToUDP(b, s.client)
	s.sent++
}

// tickLocked is the game's clock: 60 ticks per second from Config.Tick,
// or from where Jump put it.
func (s *Server) tickLocked(now time.Time) uint32 {
	return s.baseTick + uint32(now.Sub(s.base)/wire.TickDuration)
}

// Tick returns the game's current tick.
func (s *Server) Tick() uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tickLocked(time.Now())
}

// Jump sets the game's clock to tick now: the next snapshots count on
// from there.
func (s *Server) Jump(tick uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.base, s.baseTick = time.Now(), tick
}

// Pause stops (true) or resumes (false) the snapshots of the clock.
func (s *Server) Pause(p bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paused = p
}

// clock sends a snapshot of the world every 50 ms (4.3), at the clock's
// tick, against the newest acknowledged snapshot (4.8).
func (s *Server) clock() {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		if !s.paused {
			s.snapshotLocked(time.Now())
		}
		s.mu.Unlock()
	}
}

// moveLocked moves the enemies of the world a little.
func (s *Server) moveLocked(tick uint32) {
	for i := range s.world {
		e := &s.world[i]
		if e.Kind == wire.KindBydosSlave {
			e.F[wire.FieldX] = int32(8 * (1300 - (tick*2+uint32(i)*37)%1400))
		}
	}
}

func (s *Server) snapshotLocked(now time.Time) {
	tick := s.tickLocked(now)
	if tick == s.lastTick {
		tick++
	}
	s.moveLocked(tick)
	s.sendSnapshotLocked(tick, s.world, now)
}

// sendSnapshotLocked sends the snapshot of tick showing entities, against
// the newest acknowledged one.
func (s *Server) sendSnapshotLocked(tick uint32, entities []wire.Entity, now time.Time) {
	if s.codec == nil {
		return // no session yet
	}
	s.codec.sendSnapshot(s, tick, entities, now)
}

// sendSnapshot1Locked is sendSnapshotLocked in a v1 session (4.3, 4.8).
func (s *Server) sendSnapshot1Locked(tick uint32, entities []wire.Entity, now time.Time) {
	baseTick, base, ok := s.hist.Baseline()
	if !ok || baseTick >= tick {
		base, baseTick = nil, 0
	}
	payloads := s.enc.Encode(tick, s.players, base, baseTick, entities)
	s.hist.Add(tick, entities)
	for _, p := range payloads {
		s.buf = s.link.AppendSnapshot(s.buf[:0], p, tick, now)
		s.sendLocked(s.buf)
	}
	s.lastTick = tick
}

// toV2 appends the v2 form of entities at tick (7.5): each a Linear motion
// from its position at tick, at its velocity; a ship's players record.
func toV2(dst []wire2.Entity, entities []wire.Entity, tick uint32) []wire2.Entity {
	for i := range entities {
		e := &entities[i]
		m := wire.Linear(tick, float64(e.X()), float64(e.Y()), float64(e.VX()), float64(e.VY()))
		dst = append(dst, wire2.MakeEntity(e.ID, e.Kind, &m, wire.Anim{Frame0: e.Frame()}))
	}
	return dst
}

// players2 returns the v2 player records of the world.
func (s *Server) players2Locked() []wire2.Player {
	s.players2 = s.players2[:0]
	for _, p := range s.players {
		s.players2 = append(s.players2, wire2.Player{PlayerState: p})
	}
	return s.players2
}

// sendSnapshot2Locked is sendSnapshotLocked in a v2 session (7.8): the
// entities as Linear motions from tick, against the newest snapshot the
// client acknowledged.
func (s *Server) sendSnapshot2Locked(tick uint32, entities []wire.Entity, now time.Time) {
	s.ents2 = toV2(s.ents2[:0], entities, tick)
	s.encode2Locked(tick, s.ents2, s.hist2.Baseline(), now)
}

// encode2Locked sends the v2 snapshot of tick with ents against base (nil:
// full).
func (s *Server) encode2Locked(tick uint32, ents []wire2.Entity, base *wire2.Frame, now time.Time) {
	if base != nil && base.Tick >= tick {
		base = nil
	}
	cur := wire2.Frame{Tick: tick, Players: s.players2Locked(), Entities: ents}
	payloads := s.enc2.EncodeFrame(&cur, base)
	s.hist2.Add(tick, cur.Players, ents)
	for _, p := range payloads {
		s.buf = s.link.AppendSnapshot(s.buf[:0], p, tick, now)
		s.sendLocked(s.buf)
	}
	s.lastTick = tick
}

// Snapshot sends at once a snapshot of tick showing the normal world.
func (s *Server) Snapshot(tick uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sendSnapshotLocked(tick, s.world, time.Now())
}

// Events sends evs in Event datagrams, as many per datagram as fit, each
// once (the floods do not need them resent; on 127.0.0.1 they arrive).
func (s *Server) Events(evs ...wire.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eventsLocked(evs, time.Now())
}

func (s *Server) eventsLocked(evs []wire.Event, now time.Time) {
	if s.codec == nil {
		return // no session yet
	}
	header, overhead := s.codec.eventSizes()
	var ev []byte
	for len(evs) > 0 {
		s.payload = append(s.payload[:0], 0)
		n := 0
		for n < len(evs) && n < 255 {
			ev = s.codec.appendEvent(ev[:0], evs[n])
			if len(ev) > wire.MaxEventSize || header+len(s.payload)+overhead+len(ev) > wire.MaxDatagram {
				if n == 0 {
					evs = evs[1:] // too large for any datagram
					continue
				}
				break
			}
			s.payload = s.codec.appendFrame(s, s.payload, ev)
			n++
		}
		if n == 0 {
			continue
		}
		s.payload[0] = byte(n)
		evs = evs[n:]
		s.buf, _ = s.link.AppendDatagram(s.buf[:0], wire.TypeEvent, s.payload, now)
		s.sendLocked(s.buf)
	}
}

// Datagram sends a datagram of type t with payload, with the session's
// header (sequence, acknowledgements).
func (s *Server) Datagram(t wire.Type, payload []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf, _ = s.link.AppendDatagram(s.buf[:0], t, payload, time.Now())
	s.sendLocked(s.buf)
}

// TCP writes b, raw bytes, on the session's TCP connection.
func (s *Server) TCP(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
		s.conn.Write(b)
	}
}

// Logout sends Logout(reason) on TCP and closes the connection.
func (s *Server) Logout(reason uint8) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: reason}))
		s.conn.Close()
	}
}

// pace calls step every millisecond with the number of items due at rate
// per second since start, until total items are done or ctx ends. It
// returns the number done.
func (s *Server) pace(ctx context.Context, rate, total int, step func(n int)) int {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	start := time.Now()
	done := 0
	for total <= 0 || done < total {
		select {
		case <-ctx.Done():
			return done
		case <-s.stop:
			return done
		case <-t.C:
		}
		due := int(time.Since(start).Seconds() * float64(rate))
		if total > 0 {
			due = min(due, total)
		}
		if due > done {
			step(due - done)
			done = due
		}
	}
	return done
}

// SpawnFlood sends n Spawns of distinct ids that are never destroyed, at
// rate per second, in reverse order of id (the costliest for a sorted
// store), while the normal snapshots go on. It returns the number sent
// when ctx ends first.
func (s *Server) SpawnFlood(ctx context.Context, n, rate int) int {
	next := uint32(n) + 100_000 // above the normal world's ids
	var evs []wire.Event
	return s.pace(ctx, rate, n, func(k int) {
		evs = evs[:0]
		s.mu.Lock()
		tick := s.tickLocked(time.Now())
		for range k {
			evs = append(evs, wire.Event{Type: wire.EventSpawn, Tick: tick, ID: next, Kind: wire.KindBydosSlave,
				X: float32(next % 1280), Y: float32(next % 720), VX: -60, Owner: wire.NoPlayer})
			next--
		}
		s.eventsLocked(evs, time.Now())
		s.mu.Unlock()
	})
}

// waitBaseline waits until the client acknowledged a snapshot.
func (s *Server) waitBaseline(ctx context.Context) (uint32, []wire.Entity, error) {
	for {
		s.mu.Lock()
		tick, base, ok := s.hist.Baseline()
		base = slices.Clone(base)
		s.mu.Unlock()
		if ok {
			return tick, base, nil
		}
		select {
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		case <-s.stop:
			return 0, nil, errors.New("evilserver: closed")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TickFlood sends datagrams Snapshot datagrams of one tick, all against a
// baseline the client acknowledged, each adding perDatagram entities of
// new ids (4.8 step 4: each one builds on what the earlier ones of the
// tick added), at rate per second. The normal snapshots pause meanwhile.
// It returns the number sent.
func (s *Server) TickFlood(ctx context.Context, datagrams, perDatagram, rate int) (int, error) {
	s.mu.Lock()
	cd := s.codec
	s.mu.Unlock()
	if cd == nil {
		return 0, errors.New("evilserver: TickFlood before a login")
	}
	return cd.tickFlood(s, ctx, datagrams, perDatagram, rate)
}

// tickFlood1 is TickFlood in a v1 session.
func (s *Server) tickFlood1(ctx context.Context, datagrams, perDatagram, rate int) (int, error) {
	baseTick, base, err := s.waitBaseline(ctx)
	if err != nil {
		return 0, err
	}
	s.Pause(true)
	defer s.Pause(false)
	s.mu.Lock()
	// A tick after every snapshot sent: one already sent (a snapshot of this
	// tick that went out just before the pause, on a loaded machine) is
	// rebuilt, and the client drops its parts as duplicates, unnumbered.
	tick := max(s.tickLocked(time.Now()), baseTick+1, s.lastTick+1)
	s.mu.Unlock()
	next := uint32(200_000)
	var cur []wire.Entity
	var enc wire.SnapshotEncoder
	sent := s.pace(ctx, rate, datagrams, func(k int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		now := time.Now()
		for range k {
			// The baseline and a run of new ids: the records are the new
			// ids alone, in one datagram or a few.
			cur = append(cur[:0], base...)
			for range perDatagram {
				cur = append(cur, wire.MakeEntity(next, wire.KindBydosSlave, 640, 360, 0, 0, 0))
				next++
			}
			slices.SortFunc(cur, byOrder)
			for _, p := range enc.Encode(tick, s.players, base, baseTick, cur) {
				s.buf = s.link.AppendSnapshot(s.buf[:0], p, tick, now)
				s.sendLocked(s.buf)
			}
		}
	})
	return sent, nil
}

// tickFlood2 is TickFlood in a v2 session.
func (s *Server) tickFlood2(ctx context.Context, datagrams, perDatagram, rate int) (int, error) {
	var base wire2.Frame
	for {
		s.mu.Lock()
		b := s.hist2.Baseline()
		if b != nil {
			base.Set(b.Tick, b.Players, b.Entities)
		}
		s.mu.Unlock()
		if b != nil {
			break
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-s.stop:
			return 0, errors.New("evilserver: closed")
		case <-time.After(10 * time.Millisecond):
		}
	}
	s.Pause(true)
	defer s.Pause(false)
	s.mu.Lock()
	tick := max(s.tickLocked(time.Now()), base.Tick+1, s.lastTick+1) // as in TickFlood
	s.mu.Unlock()
	next := uint32(200_000)
	var cur wire2.Frame
	var enc wire2.SnapshotEncoder
	m := wire.Stationary(tick, 640, 360)
	sent := s.pace(ctx, rate, datagrams, func(k int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		now := time.Now()
		for range k {
			cur.Set(tick, s.players2Locked(), base.Entities)
			for range perDatagram {
				cur.Entities = append(cur.Entities, wire2.MakeEntity(next, wire.KindBydosSlave, &m, wire.Anim{}))
				next++
			}
			slices.SortFunc(cur.Entities, func(a, b wire2.Entity) int { return cmpOrder(a.ID, b.ID) })
			for _, p := range enc.EncodeFrame(&cur, &base) {
				s.buf = s.link.AppendSnapshot(s.buf[:0], p, tick, now)
				s.sendLocked(s.buf)
			}
		}
	})
	return sent, nil
}
