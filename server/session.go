package server

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// session is one logged-in player: its TCP connection, its bound UDP
// address, its link and its snapshot history. Its fields are guarded by
// the server's mutex, except conn writes, which logoutOnce serializes.
type session struct {
	// What the read loop reads of every datagram of the session comes
	// first, in three cache lines (a session is 1.9 kB; 5 or 6 lines of
	// it were loaded per Input before): TestSessionLayout.

	// version is the session's protocol version, 1 or 2 (PROTOCOL.md
	// 7.1): every datagram of another version is dropped.
	version uint8
	// codec reads and writes the session's datagrams and messages in its
	// version (codecOf).
	codec codec
	// features are what the session does beyond v1, negotiated at its
	// login (wire.NewFeatures): the zero Features in v1.
	features wire.Features
	bound    bool
	joined   bool // in the game's world (after its first Bind)
	gone     bool
	hasInput bool
	// spectator: logged in with LoginSpectate (7.17), in its game's
	// spectators with player wire.NoPlayer, never in its sessions.
	spectator bool
	inputSeq  uint16
	held      uint8 // v1: the actions of the newest Input (4.2)
	addr      netip.AddrPort
	link      *link.Link
	steps     stepQueue // v2: the inputs by step (7.4)

	srv    *Server
	id     uint32
	token  wire.Token
	name   string
	player uint8
	game   *game
	conn   net.Conn
	start  time.Time
	ip     netip.Addr // of the TCP connection: MaxSessionsPerIP counts it

	hist         link.History
	logoutReason uint8 // the Logout to send when the tick loop ends it
	overflow     bool  // more than link.MaxUnacked events unacknowledged

	chat *chatState // with Features.Chat: its chat (7.13), set once under the lock

	mode  uint8 // the mode of its login (7.12): quick join's default
	lobby bool  // logged in for rooms (7.14): in no game until its room plays
	room  *room // its room, or nil

	logoutOnce sync.Once
}

// holdEvents reports whether the tick loop sends ss's events only at the
// ticks it considers a snapshot (every SnapshotInterval ticks), those of
// the ticks since in one Event datagram or in its Snapshot datagram
// (tail): a v2 session (Features.EventsAtSnapshots). v1 sessions get
// each tick's events at that tick (5.3).
func (ss *session) holdEvents() bool { return ss.features.EventsAtSnapshots }

// tail reports whether ss's Snapshot datagrams carry its events
// (Features.EventsInSnapshot); a spectator's carry an empty tail (the
// shared encoding), its events going in Event datagrams.
func (ss *session) tail() bool { return ss.features.EventsInSnapshot }

// newLink2 gives ss a new v2 Link, started at now, whose Snapshot
// datagrams end with an event tail (Features.EventsInSnapshot).
func (ss *session) newLink2(now time.Time) {
	ss.link = link.NewV2(ss.id, now)
	ss.link.Tail = ss.tail()
}

// logout sends Logout(reason) on the TCP connection and closes it, once.
// It blocks for at most a second; the reader goroutine then ends.
func (ss *session) logout(reason uint8) {
	ss.logoutOnce.Do(func() {
		ss.conn.SetWriteDeadline(time.Now().Add(time.Second))
		ss.conn.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: reason}))
		closeGently(ss.conn)
	})
}

// leave removes a session from its game and the server: the other players
// get PlayerLeft and the Destroy of its ship (4.6). With logout >= 0 the
// session is also told why with Logout (in the background).
func (s *Server) leave(ss *session, why uint8, logout int) {
	s.mu.Lock()
	already := ss.gone
	s.dropLocked(ss)
	gid := -1
	if g := ss.game; g != nil {
		gid = g.id
		if !already && ss.joined && !g.over && !ss.spectator {
			g.world.RemovePlayer(ss.player, why)
		}
	}
	s.mu.Unlock()
	if already {
		return
	}
	s.log.Info("player left", "session", ss.id, "name", ss.name, "game", gid, "reason", leftReason(why))
	if logout >= 0 {
		go ss.logout(uint8(logout))
	} else {
		ss.conn.Close()
	}
}

func leftReason(r uint8) string {
	switch r {
	case wire.LeftTimedOut:
		return "timed out"
	case wire.LeftKicked:
		return "kicked"
	}
	return "left"
}

// dropLocked forgets a session; s.mu is held.
func (s *Server) dropLocked(ss *session) {
	if ss.gone {
		return
	}
	ss.gone = true
	delete(s.sessions, ss.id)
	if ss.spectator { // 7.17
		s.spect.removeLocked(ss)
	} else if g := ss.game; g != nil && g.sessions[ss.player] == ss {
		g.sessions[ss.player] = nil
	}
	if rm := ss.room; rm != nil { // 7.14
		s.rooms.removeMemberLocked(rm, ss.player, false)
	}
	s.lifeLocked(PlayerLeft)
}

// readLoop receives every datagram, checks it (6.1, 7.10) with the rules
// of its version (header byte 4) and routes it to its session, if the
// session has that version (7.1). Nothing is ever answered but a matching
// Bind; the answer is written under the lock, so that no datagram of the
// tick loop overtakes it. The datagrams come and go in batches (recvmmsg
// and sendmmsg on Linux: batchReader, outbox).
func (u *udpIn) readLoop() {
	s := u.srv
	var rd reader
	for {
		t0 := time.Now()
		ds, err := s.rx.read()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			select {
			case <-s.done:
				return
			default:
				continue
			}
		}
		if s.wt != nil {
			ds = dropSpoofed(ds) // no UDP datagram comes from a WebTransport session (9.3)
		}
		u.receiveOrQueue(&rd, ds, time.Now()) // rxqueue.go
		if p := s.cfg.ReadPause; p > 0 && len(ds) < batchSize {
			time.Sleep(p - time.Since(t0)) // Config.ReadPause: let the next datagrams gather
		}
	}
}

// receive handles a batch of datagrams under one lock, and sends what they
// are answered with (one batch) before it lets go of the lock.
func (u *udpIn) receive(rd *reader, ds []datagram, now time.Time) {
	s := u.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	u.receiveAllLocked(rd, ds, nil, now)
	s.rxOut.flush()
}

// receiveAllLocked handles ds in order, each read at at[i], or at now
// when at is nil; s.mu is held. It goes through them batchSize at a
// time: first it looks up the sessions of a batch and loads the memory
// their handling reads (gatherLocked), then it handles each datagram.
// The sessions and links of a busy server's datagrams are out of the
// cache (the tick went through everything else since), and loaded one by
// one, a datagram at a time, their misses came in turn; gathered, they
// overlap.
func (u *udpIn) receiveAllLocked(rd *reader, ds []datagram, at []time.Time, now time.Time) {
	for len(ds) > 0 {
		n := min(len(ds), batchSize)
		u.gatherLocked(rd, ds[:n])
		for i := range n {
			t := now
			if at != nil {
				t = at[i]
			}
			u.receiveLocked(rd, ds[i].b, ds[i].addr, t, rd.ss[i])
		}
		clear(rd.ss[:n]) // no session kept alive by the reader
		ds = ds[n:]
		if at != nil {
			at = at[n:]
		}
	}
}

// gatherLocked sets rd.ss[i] to the session named by ds[i]'s header, or
// nil, and loads what handling its datagram reads first: the session's
// first lines and its link's (link.Link.Warm). Each loop's loads are
// independent of one another, so that the processor has a batch's cache
// misses in flight at once. s.mu is held.
func (u *udpIn) gatherLocked(rd *reader, ds []datagram) {
	s := u.srv
	for i := range ds {
		var ss *session
		if b := ds[i].b; len(b) >= wire.HeaderSize {
			ss = s.sessions[binary.LittleEndian.Uint32(b[14:])] // 2.1, 7.2
		}
		rd.ss[i] = ss
	}
	var sink uint64
	for i := range ds {
		if ss := rd.ss[i]; ss != nil {
			rd.links[i] = ss.link
			sink += uint64(ss.steps.n) + uint64(ss.steps.acts[maxSteps-1])
		}
	}
	for i := range ds {
		if l := rd.links[i]; l != nil {
			sink += l.Warm(binary.LittleEndian.Uint16(ds[i].b[8:])) // ack (2.1, 7.2)
			rd.links[i] = nil
		}
	}
	rd.sink = sink
}

// receiveLocked checks one datagram and routes it to its session, ss,
// which gatherLocked looked up (nil: none); s.mu is held.
func (u *udpIn) receiveLocked(rd *reader, b []byte, from netip.AddrPort, now time.Time, ss *session) {
	s := u.srv
	ver, _ := wire.DatagramVersion(b)
	cd := codecOf(ver)
	if cd == nil {
		s.stats.dropped[DropVersion].Add(1)
		return // no magic, or a version no session has (6.1)
	}
	h, payload, err := cd.parseHeader(b)
	if err != nil {
		s.stats.dropped[DropHeader].Add(1)
		return
	}
	// ss is s.sessions[h.Session] as it was when the batch was gathered;
	// a session the handling of an earlier datagram ended is gone.
	if ss != nil && !ss.gone && ss.codec == cd {
		cd.handleLocked(u, rd, ss, h, payload, from, len(b), now)
	} else {
		s.stats.dropped[DropSession].Add(1)
	}
}

// reader holds the read loop's buffers, reused for every datagram.
type reader struct {
	reply  []byte
	frames []wire.EventFrame
	input  wire2.Input
	ss     [batchSize]*session   // the sessions of a batch (gatherLocked)
	links  [batchSize]*link.Link // their links, for a moment
	sink   uint64                // what gatherLocked loaded, kept
}

// bindToLocked binds ss to from, whose Bind was accepted (3.4, 7.3), and
// appends the Accept to reply. The first binding brings the player into
// the game and queues it the joining events (4.6), in its version.
func (u *udpIn) bindToLocked(ss *session, from netip.AddrPort, now time.Time, reply []byte) []byte {
	s := u.srv
	if ss.bound && ss.addr != from {
		s.log.Info("rebind", "session", ss.id, "name", ss.name, "from", ss.addr, "to", from)
	}
	ss.bound, ss.addr = true, from
	g := ss.game
	// Its session timeout counts from now on.
	g.recheck()
	if ss.spectator && !ss.joined { // 7.17: no ship
		s.spect.bindLocked(ss)
	}
	if !ss.joined {
		// Events still pending belong to the world before this player:
		// they go to the others, and the burst below covers them for it.
		s.distribute(g)
		ss.joined = true
		g.spawns = g.world.AppendJoins(g.spawns[:0])
		g.spawns = g.world.AppendSpawns(g.spawns)
		if g.mode == wire.ModeStage {
			g.spawns = g.stage.appendJoin(g.spawns) // 7.12
		}
		for i := range g.spawns {
			queue(ss, &g.spawns[i])
		}
		// The player enters the world: everyone, itself included, gets
		// its PlayerJoined and the Spawn of its ship with the tick's
		// events.
		g.world.AddPlayer(ss.player, ss.name)
		if len(g.spectators) > 0 {
			s.spect.sendListLocked(g, ss) // 7.17
		}
		s.log.Info("player joined", "session", ss.id, "name", ss.name, "player", ss.player, "game", g.id,
			"addr", from, "version", ss.version)
	}
	var acc [5]byte
	reply, _ = ss.link.AppendDatagram(reply, wire.TypeAccept,
		wire.AppendAccept(acc[:0], wire.Accept{Player: ss.player, Tick: g.world.Tick()}), now)
	return reply
}

// queue queues an event for a session; too many unacknowledged events
// end it (5.3), which the tick loop notices.
func queue(ss *session, ev *wire.Event) {
	if err := ss.link.QueueEvent(ev); err != nil {
		ss.overflowed()
	}
}

// queueEncoded is queue for an event that every session of a game gets:
// encoded once per protocol version, not once per session.
func queueEncoded(ss *session, enc *link.EncodedEvent) {
	if err := ss.link.QueueEncoded(enc); err != nil {
		ss.overflowed()
	}
}

// overflowed ends ss at the next tick: too many events unacknowledged.
func (ss *session) overflowed() {
	ss.overflow = true
	if ss.game != nil {
		ss.game.recheck()
	}
}

// equalFold compares two names ignoring case (3.2).
func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
