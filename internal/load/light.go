package load

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"rtype/net/client"
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// The light clients: a session is a few hundred bytes of state (its
// link, its cookie, its recent inputs) and no world. Sessions share UDP
// sockets, PerSocket to a socket: the server tells sessions apart by the
// session number of each datagram's header and checks that it comes from
// the address the session bound (7.10), so sessions bound from one
// address are as real as sessions bound from many. The Inputs of a
// socket's sessions go out together, one sendmmsg per socket and tick,
// from one driving goroutine, which also reads every socket at each tick,
// before it sends, in batches (recvmmsg) without waiting: a client that
// reads its socket once a frame, as a game's loop does. With
// Config.Parked a socket is read instead by a goroutine of its own,
// parked in the runtime's poller until a datagram comes (on loopback
// each datagram wakes it, in the server's send: see BENCHMARKS.md, "Sixth
// pass (b)").
//
// What a light client does, of the protocol: it logs in over TCP (3.2,
// 7.1) and keeps the connection, ending on a Logout or a closed
// connection; binds with Binds every 100 ms, answering a Challenge at
// once with its cookie (3.4, 7.3); sends an Input per tick (4.2, 7.4: the
// step and the 7 before it); records every valid datagram in its link and
// acknowledges with every datagram it sends (5.1), an Event datagram at
// once with an Ack (5.3, 7.7), or in v2 with its next Input,
// as the reference client does (7.7), and takes its events once each
// (its link's window, 5.3, 7.7). It records a Snapshot whose header is valid
// without rebuilding it: the server cannot tell, since it delta-encodes
// only against snapshots the client acknowledged, all of which it
// received. In v2 (7.8) it decodes a Snapshot's records only
// to reach the event tail after them, whose events it takes as an Event
// datagram's. It gives up on a session silent for 5 s (5.5).

// batch is how many datagrams one batched syscall carries at most.
const batch = 64

// lsess is one light session. Its fields after the login are guarded by
// its group's mutex.
type lsess struct {
	i      int
	id     uint32
	token  wire.Token
	player uint8
	// features are what the session does beyond v1, from its login.
	features wire.Features
	tcp      net.Conn
	link     *link.Link
	g        *group

	bound     bool
	cookie    wire2.Cookie
	hasCookie bool
	answer    bool // a Challenge to answer at once
	ackNow    bool // an Event datagram accepted since the last datagram sent
	sendNext  bool // in the group's list of sessions to send to at once

	step    uint32
	actions [wire2.MaxInputActions]uint8 // newest first
	play    play

	lastIn            time.Time
	snapshots, events uint64
	in, out           uint64 // datagrams
	evIn, evFrames    uint64 // Event datagrams received, and their and the tails' frames (repeats included)
	tailIn            uint64 // Snapshots whose tail carried events (7.8)
	acks              uint64 // Ack datagrams sent
	bin, bout         uint64 // bytes
	base              lcount // counters at the last Mark
	done              bool
	err               error
	frames            []wire.EventFrame
}

type lcount struct {
	snapshots, events, in, out, bin, bout uint64
	evIn, evFrames, acks                  uint64
	tailIn                                uint64
}

func (ss *lsess) count() lcount {
	return lcount{ss.snapshots, ss.events, ss.in, ss.out, ss.bin, ss.bout, ss.evIn, ss.evFrames, ss.acks, ss.tailIn}
}

// group is one UDP socket and its sessions.
type group struct {
	mu   sync.Mutex
	conn *net.UDPConn
	bc   *batchConn
	ss   map[uint32]*lsess
	list []*lsess
	now  []*lsess       // sessions with a datagram to send at once
	bufs [batch][]byte  // the datagrams of one write, reused
	snap wire2.Snapshot // scratch of a v2 snapshot's decoding (7.8)
	out  [][]byte       // the datagrams queued

	// polled: the socket is read by drive at each tick, not by a
	// goroutine parked on it, and conn is nil (bc only).
	polled bool
}

// light is a running light load.
type light struct {
	cfg    Config
	codec  lcodec   // of cfg.Protocol
	ss     []*lsess // nil where the login failed
	groups []*group
	failed int
	stop   chan struct{}
	wg     sync.WaitGroup
}

// startLight logs cfg.N light sessions in and binds them.
func startLight(ctx context.Context, cfg Config) (*light, error) {
	l := &light{cfg: cfg, codec: lcodecOf(cfg.Protocol), ss: make([]*lsess, cfg.N), stop: make(chan struct{})}
	l.failed = logIn(cfg, func(i int) error {
		conn, acc, err := client.LogIn(ctx, client.Config{Addr: cfg.Addr, Name: clientName(i),
			Logger: cfg.Logger, Version: cfg.Protocol})
		if err != nil {
			return err
		}
		ss := &lsess{i: i, id: acc.Session, token: acc.Token, player: acc.Player, tcp: conn,
			features: wire.NewFeatures(cfg.Protocol, acc.Revision),
			play:     play{rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)))}}
		ss.link = l.codec.newLink(acc.Session, ss.features, time.Now())
		l.ss[i] = ss
		return nil
	})
	if err := l.openGroups(); err != nil {
		l.close()
		return nil, err
	}
	if len(l.groups) == 0 {
		l.close()
		return nil, errors.New("load: no client logged in")
	}
	for _, g := range l.groups {
		if !g.polled {
			l.wg.Add(1)
			go func() { defer l.wg.Done(); l.readGroup(g) }()
		}
		for _, ss := range g.list {
			l.wg.Add(1)
			go func() { defer l.wg.Done(); l.readTCP(ss) }()
		}
	}
	l.wg.Add(1)
	go func() { defer l.wg.Done(); l.drive() }()
	// Every session binds within 5 s or gives up (3.4, 7.3).
	deadline := time.Now().Add(bindTimeout)
	for {
		waiting := 0
		for _, g := range l.groups {
			g.mu.Lock()
			for _, ss := range g.list {
				if !ss.bound && !ss.done {
					if time.Now().After(deadline) {
						l.endLocked(ss, errors.New("no Accept within 5 s of binding"))
					} else {
						waiting++
					}
				}
			}
			g.mu.Unlock()
		}
		if waiting == 0 {
			break
		}
		select {
		case <-ctx.Done():
			l.close()
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	for _, g := range l.groups {
		g.mu.Lock()
		for _, ss := range g.list {
			if !ss.bound {
				l.failed++
			}
		}
		g.mu.Unlock()
	}
	if l.clients() == 0 {
		l.close()
		return nil, errors.New("load: no client bound")
	}
	return l, nil
}

const (
	bindTimeout  = 5 * time.Second
	bindEvery    = 6 // ticks between Binds: 100 ms (3.4)
	silenceLimit = link.Timeout
)

// openGroups opens the UDP sockets, PerSocket sessions to each, connected
// to the server's UDP port (its TCP address).
func (l *light) openGroups() error {
	var g *group
	for _, ss := range l.ss {
		if ss == nil {
			continue
		}
		if g == nil || len(g.list) == l.cfg.PerSocket {
			ta, _ := ss.tcp.RemoteAddr().(*net.TCPAddr)
			if ta == nil {
				return errors.New("load: the TCP connection has no IP address")
			}
			var err error
			if g, err = openGroup(&net.UDPAddr{IP: ta.IP, Port: ta.Port, Zone: ta.Zone}, !l.cfg.Parked && canPoll); err != nil {
				return err
			}
			l.groups = append(l.groups, g)
		}
		ss.g = g
		ss.lastIn = time.Now()
		g.ss[ss.id] = ss
		g.list = append(g.list, ss)
	}
	return nil
}

// openGroup opens a group's UDP socket, connected to to: polled by
// drive, or read by a goroutine of its own.
func openGroup(to *net.UDPAddr, polled bool) (*group, error) {
	g := &group{ss: make(map[uint32]*lsess), polled: polled}
	var err error
	if polled {
		g.bc, err = newPolledConn(to)
	} else if g.conn, err = net.DialUDP("udp", nil, to); err == nil {
		if g.bc, err = newBatchConn(g.conn); err != nil {
			g.conn.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("load: UDP socket to %s: %w", to, err)
	}
	for i := range g.bufs {
		g.bufs[i] = make([]byte, 0, wire.MaxDatagram)
	}
	return g, nil
}

func (l *light) clients() int {
	n := 0
	for _, g := range l.groups {
		g.mu.Lock()
		for _, ss := range g.list {
			if ss.bound {
				n++
			}
		}
		g.mu.Unlock()
	}
	return n
}

// endLocked ends a session: it sends Logout(Left) in the background and
// closes the connection. Its group's mutex is held.
func (l *light) endLocked(ss *lsess, err error) {
	if ss.done {
		return
	}
	ss.done, ss.err = true, err
	go func() {
		ss.tcp.SetWriteDeadline(time.Now().Add(time.Second))
		ss.tcp.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutLeft}))
		ss.tcp.Close()
	}()
}

// readTCP reads a session's TCP messages until its connection ends: a
// Logout or a closed connection ends the session; anything else (chat,
// a later revision's message) is ignored.
func (l *light) readTCP(ss *lsess) {
	fr := wire.FrameReader{R: ss.tcp}
	var err error
	for {
		var b []byte
		if b, err = fr.ReadFrame(); err != nil {
			break
		}
		if len(b) > 0 && wire.MsgType(b[0]) == wire.MsgLogout {
			err = errors.New("logged out by the server")
			break
		}
	}
	ss.g.mu.Lock()
	if !ss.done {
		ss.done, ss.err = true, err
		ss.tcp.Close()
	}
	ss.g.mu.Unlock()
}

// readGroup reads the datagrams of a group's socket, parked until they
// come, until it is closed, and answers at once what is to be
// (Challenges, Event datagrams).
func (l *light) readGroup(g *group) {
	for {
		ds, err := g.bc.read()
		if err != nil {
			return
		}
		g.mu.Lock()
		l.receiveBatch(g, ds, time.Now())
		g.flush()
		g.mu.Unlock()
	}
}

// pollGroup reads what a polled group's socket holds, without waiting,
// and queues the answers; g.mu is held. The caller flushes.
func (l *light) pollGroup(g *group, now time.Time) {
	for {
		ds := g.bc.poll()
		l.receiveBatch(g, ds, now)
		if len(ds) < batch {
			return
		}
	}
}

// receiveBatch handles a batch of datagrams of a group's socket and
// queues what is answered at once; g.mu is held. The caller flushes.
func (l *light) receiveBatch(g *group, ds [][]byte, now time.Time) {
	for _, d := range ds {
		l.receive(g, d, now)
	}
	for _, ss := range g.now {
		ss.sendNext = false
		switch {
		case ss.done:
		case ss.answer:
			l.queueBind(g, ss, now)
		case ss.ackNow && !ss.ackRidesInput():
			g.queue(ss, wire.TypeAck, nil, now)
			ss.acks++
		}
	}
	g.now = g.now[:0]
}

// receive handles a datagram of the group's socket; g.mu is held.
func (l *light) receive(g *group, b []byte, now time.Time) {
	h, p, err := l.codec.parseHeader(b)
	if err != nil {
		return
	}
	ss := g.ss[h.Session]
	if ss == nil || ss.done || ss.link.Seen(h.Seq) {
		return
	}
	ss.in++
	ss.bin += uint64(len(b))
	switch h.Type {
	case wire.TypeAccept:
		a, err := wire.ParseAccept(p)
		if err != nil || a.Player != ss.player {
			return
		}
		ss.bound = true
	case wire.TypeSnapshot:
		if len(p) == 0 {
			return
		}
		if ss.link.Tail { // 7.8: the events before the snapshot
			tail, err := g.snap.DecodeTail(p)
			if err != nil {
				return
			}
			if tail[0] > 0 {
				ss.tailIn++
				l.takeEvents(g, ss, tail) // framed as an Event payload (7.7)
			}
		}
		ss.snapshots++
	case wire.TypeEvent:
		ss.evIn++
		if !l.takeEvents(g, ss, p) {
			return
		}
	case wire.TypeChallenge:
		c, err := wire2.ParseChallenge(p)
		if err != nil {
			return
		}
		ss.cookie, ss.hasCookie, ss.answer = c, true, true
		g.soon(ss)
	case wire.TypeAck:
	default:
		return
	}
	ss.lastIn = now
	ss.link.Accept(h, len(b), now)
}

// takeEvents takes the events of an Event payload, or of a v2
// Snapshot's tail (7.8), each once (its link's window, 5.3, 7.7), counts
// them, and has them acknowledged at once or with the next Input; it
// reports false, taking none, for a payload badly framed. g.mu is held.
func (l *light) takeEvents(g *group, ss *lsess, p []byte) bool {
	if len(p) > 0 {
		ss.evFrames += uint64(p[0]) // the count (5.2, 7.7)
	}
	var err error
	ss.frames, err = ss.link.ReceiveEvents(p, ss.frames[:0]) // new events of a payload or a tail (5.3, 7.7)
	n := len(ss.frames)
	ss.events += uint64(n)
	if err != nil {
		return false
	}
	ss.ackNow = true
	g.soon(ss)
	return true
}

// ackRidesInput reports whether the acknowledgement of an Event datagram
// waits for the session's next Input, at most a tick away (7.7,
// "Acknowledgement with the Input"): a bound session with
// Features.EventsAtSnapshots sends one every tick. Otherwise an Ack goes
// at once (7.7). g.mu is held.
func (ss *lsess) ackRidesInput() bool {
	return ss.features.EventsAtSnapshots && ss.bound
}

// soon lists ss among the sessions to send a datagram at once.
func (g *group) soon(ss *lsess) {
	if !ss.sendNext {
		ss.sendNext = true
		g.now = append(g.now, ss)
	}
}

// queue appends a datagram of ss to the group's next write; g.mu is held.
func (g *group) queue(ss *lsess, t wire.Type, payload []byte, now time.Time) {
	if len(g.out) == batch {
		g.flush()
	}
	b, _ := ss.link.AppendDatagram(g.bufs[len(g.out)][:0], t, payload, now)
	g.bufs[len(g.out)] = b
	g.out = append(g.out, b)
	ss.ackNow = false
	ss.out++
	ss.bout += uint64(len(b))
}

// flush writes the queued datagrams; g.mu is held.
func (g *group) flush() {
	if len(g.out) > 0 {
		g.bc.write(g.out)
		g.out = g.out[:0]
	}
}

// queueBind queues a Bind of ss: its token, and in v2 the cookie of its
// last Challenge (3.4, 7.3).
func (l *light) queueBind(g *group, ss *lsess, now time.Time) {
	var payload [wire.TokenSize + wire2.CookieSize]byte
	n := copy(payload[:], ss.token[:])
	if ss.hasCookie && l.codec.cookies() {
		n += copy(payload[n:], ss.cookie[:])
	}
	ss.answer = false
	g.queue(ss, wire.TypeBind, payload[:n], now)
}

// drive sends, 60 times a second, every bound session's Input, and the
// Binds of the others every 100 ms, a socket's in one batch. The sockets
// take their turns spread over the tick (Config.Phases), as real clients,
// whose clocks are not in step, send at any moment of a tick.
func (l *light) drive() {
	phases := max(min(l.cfg.Phases, len(l.groups)), 1)
	tick := time.NewTicker(time.Second / wire.TickRate / time.Duration(phases))
	defer tick.Stop()
	var n uint64
	var payload []byte
	phase := 0
	for {
		now := time.Now()
		for gi := phase; gi < len(l.groups); gi += phases {
			g := l.groups[gi]
			g.mu.Lock()
			if g.polled {
				l.pollGroup(g, now)
			}
			for _, ss := range g.list {
				switch {
				case ss.done:
				case now.Sub(ss.lastIn) >= silenceLimit:
					l.endLocked(ss, errors.New("no datagram from the server for 5 s"))
				case !ss.bound:
					if n%bindEvery == 0 || ss.answer {
						l.queueBind(g, ss, now)
					}
				default:
					payload = l.codec.input(payload[:0], ss, ss.play.actions(n))
					g.queue(ss, wire.TypeInput, payload, now)
				}
			}
			g.flush()
			g.mu.Unlock()
		}
		select {
		case <-l.stop:
			return
		case <-tick.C:
			if phase++; phase == phases {
				phase = 0
				n++
			}
		}
	}
}

// play is how a client plays: a move up, down or none held for 0.25 to
// 1.5 s, and fire pressed and released every 8 ticks.
type play struct {
	rng  *rand.Rand
	move uint8 // ActionUp, ActionDown or 0
	left int   // ticks until move changes
}

// actions returns the actions of tick n.
func (p *play) actions(n uint64) uint8 {
	if p.left--; p.left <= 0 {
		p.move = [...]uint8{0, wire.ActionUp, wire.ActionDown}[p.rng.IntN(3)]
		p.left = 15 + p.rng.IntN(76)
	}
	act := p.move
	if n/8%2 == 0 {
		act |= wire.ActionFire
	}
	return act
}

// mark starts the counters again.
func (l *light) mark() {
	for _, g := range l.groups {
		g.mu.Lock()
		for _, ss := range g.list {
			ss.base = ss.count()
		}
		g.mu.Unlock()
	}
}

// report fills rep with the counters since the last mark.
func (l *light) report(rep *Report) {
	rep.PerClient = make([]ClientCount, len(l.ss))
	for _, g := range l.groups {
		g.mu.Lock()
		for _, ss := range g.list {
			if !ss.bound {
				continue
			}
			rep.Clients++
			c := ss.count()
			rep.DatagramsIn += c.in - ss.base.in
			rep.DatagramsOut += c.out - ss.base.out
			rep.BytesIn += c.bin - ss.base.bin
			rep.BytesOut += c.bout - ss.base.bout
			rep.EventDatagrams += c.evIn - ss.base.evIn
			rep.EventFrames += c.evFrames - ss.base.evFrames
			rep.Acks += c.acks - ss.base.acks
			rep.TailSnapshots += c.tailIn - ss.base.tailIn
			cc := ClientCount{Snapshots: c.snapshots - ss.base.snapshots, Events: c.events - ss.base.events}
			if ss.done {
				cc.Err = ss.err
				if cc.Err == nil {
					cc.Err = errors.New("ended")
				}
			} else {
				rep.Connected++
			}
			rep.Snapshots += cc.Snapshots
			rep.Events += cc.Events
			rep.PerClient[ss.i] = cc
		}
		g.mu.Unlock()
	}
}

// close logs every session out and closes the sockets.
func (l *light) close() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	for _, ss := range l.ss {
		if ss != nil && ss.g == nil {
			ss.tcp.Close() // logged in, never given a socket
		}
	}
	var wg sync.WaitGroup
	for _, g := range l.groups {
		g.mu.Lock()
		for _, ss := range g.list {
			if !ss.done {
				ss.done = true
				wg.Add(1)
				go func() {
					defer wg.Done()
					ss.tcp.SetWriteDeadline(time.Now().Add(time.Second))
					ss.tcp.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutLeft}))
					ss.tcp.Close()
				}()
			}
		}
		g.mu.Unlock()
	}
	wg.Wait()
	for _, g := range l.groups {
		if g.conn != nil {
			g.conn.Close() // its reader returns
		}
	}
	l.wg.Wait()
	for _, g := range l.groups {
		g.bc.close() // a polled socket: drive has returned
	}
}
