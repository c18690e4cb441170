package server

import (
	"context"
	"runtime/trace"
	"time"

	"rtype/net/link"
	"rtype/net/link2"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/sim"
	"rtype/vocab"
)

// game is one running game: its world and the sessions of its players.
type game struct {
	id       int
	mode     uint8 // wire.ModeClassic or wire.ModeStage (7.12)
	world    *sim.World
	sessions [wire.MaxPlayers]*session
	over     bool
	overAt   time.Time
	// timeoutAt is the first time at which a session of the game can
	// time out (endSessions); zero: at the next tick.
	timeoutAt time.Time
	// snapOff is added to the world's tick to find its snapshot ticks,
	// snapClass the class of loop ticks they fall on (phases), phased
	// whether they were chosen.
	snapOff   uint32
	snapClass int
	phased    bool
	scores    gameScores   // its GameOver, held until the leaderboard has it
	rec       GameRecorder // Config.Recorder's, or nil

	// Buffers reused every tick.
	events    []wire.Event      // the world's, with motions (v2), valid until its next change
	events1   []wire.Event      // the same as v1 carries them, for Config.OnEvents
	enc       link.EncodedEvent // the event deliver queues, encoded once per version
	spawns    []wire.Event
	pls       []vocab.Player // the players at the snapshot tick
	entities  []wire.Entity  // in v1 records
	players   []wire.PlayerState
	snaps     link.SnapshotSender
	entities2 []wire2.Entity
	players2  []wire2.Player
	mine2     []wire2.Player // players2 with one client's last_step
	snaps2    link2.SnapshotSender

	stage stageState // Stage games: what a joining session needs (7.12)

	room *room // the room whose game it is (7.14), or nil: an open game

	spectators []*session            // its spectators (7.17), in the order they came
	watchSnaps link2.SharedSnapshots // their snapshots, encoded once per baseline
	bots       Bots                  // its room's bots, or nil
}

// freePlayer returns the lowest free player number, or wire.NoPlayer.
func (g *game) freePlayer() uint8 {
	for p, ss := range g.sessions {
		if ss == nil {
			return uint8(p)
		}
	}
	return wire.NoPlayer
}

// hasName reports whether a player of the game has name, ignoring case.
func (g *game) hasName(name string) bool {
	for _, ss := range g.sessions {
		if ss != nil && equalFold(ss.name, name) {
			return true
		}
	}
	return false
}

// tickLoop steps every game at wire.TickRate, on a clock of its own: a late
// wake-up runs the ticks it missed (at most a quarter second of them).
func (s *Server) tickLoop() {
	const period = time.Second / wire.TickRate
	start := time.Now()
	var done uint64
	t := time.NewTicker(period)
	defer t.Stop()
	defer s.shards.stop() // the shards' helpers end with the tick loop
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			due := uint64(now.Sub(start) / period)
			if due-done > wire.TickRate/4 {
				done = due - wire.TickRate/4
			}
			for ; done < due; done++ {
				begin := time.Now()
				s.tick(begin)
				d := time.Since(begin)
				s.stats.observeTick(d)
				s.mu.Lock()
				s.ticks.add(d)
				s.mu.Unlock()
			}
		}
	}
}

// tick advances every game by one tick and sends what it produced.
func (s *Server) tick(now time.Time) {
	begin := time.Now()
	defer trace.StartRegion(context.Background(), "tick").End()
	s.mu.Lock()
	defer s.mu.Unlock()
	locked := time.Now()
	if d := s.stall.tick(now); d > 0 {
		s.log.Warn("the server stalled: the sessions' silences count from now", "stalled", d.Round(time.Millisecond))
	}
	s.in.handleQueuedInTick()
	queued := time.Now()
	s.phases.tick()
	lost := s.stepAll(now)
	stepped := time.Now()
	s.phases.place(s.cfg.SnapshotInterval)
	kept := s.games[:0]
	for _, g := range s.games {
		if g.empty() {
			s.spect.endLocked(g) // 7.17
			s.log.Info("game ended", "game", g.id, "ticks", g.world.Tick())
			g.endRecording()
			s.phases.end(g)
			s.rooms.gameEndedLocked(g)
			continue
		}
		kept = append(kept, g)
	}
	ended := len(s.games) - len(kept)
	clear(s.games[len(kept):])
	s.games = kept
	for range ended {
		s.lifeLocked(GameEnded)
	}
	for _, ss := range lost {
		go ss.logout(ss.logoutReason)
	}
	s.recordParts(begin, locked, queued, stepped, time.Now(), int(s.phases.loop%uint32(s.cfg.SnapshotInterval)))
}

// endRecording ends the game's recording, if any.
func (g *game) endRecording() {
	if g.rec != nil {
		g.rec.End()
		g.rec = nil
	}
}

// empty reports whether no session is left in the game.
func (g *game) empty() bool { return g.freePlayerCount() == wire.MaxPlayers }

func (g *game) freePlayerCount() int {
	n := 0
	for _, ss := range g.sessions {
		if ss == nil {
			n++
		}
	}
	return n
}

// stepGame runs one tick of g: timeouts, the simulation step, events to
// every joined session, then snapshots every SnapshotInterval ticks.
// It runs on one of the tick's shards (stepAll): it touches g, its
// sessions and out, and the server's session map only through dropInTick.
func (s *Server) stepGame(g *game, now time.Time, out *outbox, lost []*session) []*session {
	// Sessions that end: silent too long, never bound, too many events
	// unacknowledged, or done with a finished game. None can time out
	// before g.timeoutAt: its sessions are walked only from then on.
	if g.over || !now.Before(g.timeoutAt) {
		lost = s.endSessions(g, now, lost)
	}
	lost = s.spect.step(g, now, lost) // 7.17
	// After GameOver the world steps on too (entities fly on, no wave
	// comes: sim.World.Over), so that snapshots keep coming 20 times a
	// second with increasing ticks until the Logouts (5.5, 4.8).
	if g.hasJoined() {
		if g.bots != nil && !g.over {
			g.bots.Drive(g.world)
		}
		g.applySteps(s.cfg.OnStep)
		g.world.Step()
	}
	s.distribute(g)
	if !g.over && g.world.Over() {
		g.over, g.overAt = true, now
		s.log.Info("game over", "game", g.id, "tick", g.world.Tick())
	}
	// The tick's events go out before its snapshot: a client knows an
	// entity from its Spawn before the first record of it arrives (4.3),
	// and a joining client has its joining events first (4.6).
	// A v2 session's events wait for the next snapshot tick (7.9);
	// a world that does not step (nobody joined) sends no snapshot, and
	// its events go at once.
	joined := g.hasJoined()
	snapTick := g.snapshotTick(s.cfg.SnapshotInterval)
	for _, ss := range g.sessions {
		if ss != nil && ss.bound && ss.eventsNow(snapTick, joined) {
			s.flushEvents(out, ss, now)
		}
	}
	s.spect.flush(g, out, now)
	if snapTick && joined {
		s.sendSnapshots(g, now, out)
	}
	return lost
}

// endSessions ends the sessions of g that are silent too long, never
// bound, have too many events unacknowledged (5.3, 5.5), or are done with
// a finished game, and returns lost with them. It sets g.timeoutAt to the
// first time at which one of those left could time out: until then, or
// until that changes (a session comes, binds, or overflows: g.recheck),
// stepGame skips the walk, which would read every session's link, written
// by the read loop, each tick.
func (s *Server) endSessions(g *game, now time.Time, lost []*session) []*session {
	next := now.Add(max(s.cfg.SessionTimeout, s.cfg.BindTimeout))
	for _, ss := range g.sessions {
		if ss == nil {
			continue
		}
		var why uint8
		var logout uint8
		switch {
		case ss.overflow || (ss.bound && s.stall.silence(ss.link, now) >= s.cfg.SessionTimeout):
			why, logout = wire.LeftTimedOut, wire.LogoutTimedOut
		case !ss.bound && s.stall.since(ss.start, now) >= s.cfg.BindTimeout:
			why, logout = wire.LeftTimedOut, wire.LogoutTimedOut
		case g.over && s.lb.gameOverSent(g) && (ss.link.Unacked() == 0 || now.Sub(g.overAt) >= s.cfg.GameOverLinger):
			if ss.lobby && ss.room != nil && ss.room == g.room { // 7.14: the room stays together
				s.backToRoomInTick(ss)
				continue
			}
			s.dropInTick(ss)
			ss.logoutReason = wire.LogoutGameOver
			lost = append(lost, ss)
			s.log.Info("game over for player", "session", ss.id, "name", ss.name, "game", g.id)
			continue
		default:
			var at time.Time
			if ss.bound {
				at = now.Add(s.cfg.SessionTimeout - s.stall.silence(ss.link, now))
			} else {
				at = now.Add(s.cfg.BindTimeout - s.stall.since(ss.start, now))
			}
			if at.Before(next) {
				next = at
			}
			continue
		}
		s.log.Info("player timed out", "session", ss.id, "name", ss.name, "game", g.id, "bound", ss.bound)
		s.dropInTick(ss)
		if ss.joined && !g.over {
			g.world.RemovePlayer(ss.player, why)
		}
		ss.logoutReason = logout
		lost = append(lost, ss)
	}
	g.timeoutAt = next
	return lost
}

// recheck makes the next tick walk the sessions of g for their timeouts
// (stepGame): one of them may time out sooner than g.timeoutAt says.
func (g *game) recheck() { g.timeoutAt = time.Time{} }

// snapshotTick reports whether the world's tick is one of the game's
// snapshot ticks: every interval ticks, shifted by its phase (phases).
func (g *game) snapshotTick(interval int) bool {
	return (g.world.Tick()+g.snapOff)%uint32(interval) == 0
}

// applySteps gives the world the actions each player holds for its next
// step (codec.actions: a v2 player's next input step, 7.4; a v1 player's
// newest Input, 4.2), and tells onStep (Config.OnStep, nil: none) the
// step applied.
func (g *game) applySteps(onStep func(game int, tick uint32, player uint8, step uint32)) {
	for _, ss := range g.sessions {
		if ss != nil && ss.joined {
			a, step, has := ss.codec.actions(ss)
			if !g.over {
				g.world.SetInput(ss.player, a)
			}
			if onStep != nil && has {
				onStep(g.id, g.world.Tick()+1, ss.player, step)
			}
		}
	}
}

// distribute queues the events the world produced since the last call to
// every session in the world. The game produces each event once; each
// session's link encodes it in the session's version (a v1 Spawn from its
// position and velocity, a v2 one from its motion, 7.11).
func (s *Server) distribute(g *game) {
	g.events = s.lb.holdForScores(g, g.world.TakeEvents())
	s.deliver(g, g.events)
}

// deliver queues events of g, in order, to every session in its world;
// a Stage game keeps what a joining session needs of them (7.12).
func (s *Server) deliver(g *game, events []wire.Event) {
	if len(events) == 0 {
		return
	}
	if g.rec != nil {
		g.rec.Events(events)
	}
	if s.cfg.OnEvents != nil {
		g.events1 = append(g.events1[:0], events...)
		for i := range g.events1 {
			g.events1[i].Motion, g.events1[i].Anim = wire.Motion{}, wire.Anim{}
		}
		s.cfg.OnEvents(g.id, g.events1)
	}
	if g.bots != nil {
		g.bots.Note(events)
	}
	for i := range events {
		if g.mode == wire.ModeStage {
			g.stage.observe(&events[i])
		}
		g.enc.Set(&events[i])
		for _, ss := range g.sessions {
			if ss != nil && ss.joined {
				queueEncoded(ss, &g.enc)
			}
		}
		queueSpectators(g, &g.enc) // 7.17
	}
}

// hasJoined reports whether any session of g is in its world.
func (g *game) hasJoined() bool {
	for _, ss := range g.sessions {
		if ss != nil && ss.joined {
			return true
		}
	}
	return false
}

// sendSnapshots sends the state of g to every bound session, each against
// its newest fully acknowledged snapshot (4.8), in its version: v1
// records of the positions, or v2 records of the motions with the rate
// rule of 7.9 (7.11).
func (s *Server) sendSnapshots(g *game, now time.Time, out *outbox) {
	tick := g.world.Tick()
	var v1, v2 bool
	for _, ss := range g.sessions {
		if ss != nil && ss.bound {
			m := ss.codec.motions()
			v1, v2 = v1 || !m, v2 || m
		}
	}
	v1 = v1 || s.cfg.OnSnapshot != nil
	v2 = v2 || g.rec != nil || len(g.spectators) > 0
	if v1 || v2 {
		g.pls = g.world.AppendPlayers(g.pls[:0])
		g.entities = g.entities[:0]
		if v2 {
			// Built in the memory of g.snaps2's next shared frame: it
			// sends them without a copy (link2.SnapshotSender.NextEntities).
			g.entities2 = g.snaps2.NextEntities()
		}
		g.world.EachEntity(func(e *vocab.Entity) { // in each version's records at once
			if v1 {
				g.entities = wire.AppendEntity(g.entities, tick, e)
			}
			if v2 {
				g.entities2 = wire2.AppendEntity(g.entities2, e)
			}
		})
	}
	if v1 {
		g.players = wire.AppendPlayers(g.players[:0], g.pls)
	}
	if v2 {
		g.players2 = wire2.AppendPlayers(g.players2[:0], g.pls)
	}
	if g.rec != nil {
		g.rec.Snapshot(tick, g.players2, g.entities2)
	}
	if s.cfg.OnSnapshot != nil {
		s.cfg.OnSnapshot(g.id, Snapshot{Tick: tick, Players: g.players, Entities: g.entities})
	}
	for _, ss := range g.sessions {
		if ss == nil || !ss.bound {
			continue
		}
		ds, events := ss.codec.snapshot(s, g, ss, tick, now, out) // the Event datagrams first in ds
		for i, d := range ds {
			out.add(d, ss.addr)
			if i < events {
				out.eventBytes += uint64(len(d))
			} else {
				out.snapshotBytes += uint64(len(d))
			}
		}
	}
	s.spect.snapshot(g, tick, now, out) // 7.17
}

// playersFor returns the v2 player records of the snapshot for ss: its
// own carries the last step applied (7.8), the others none.
func (g *game) playersFor(ss *session) []wire2.Player {
	g.mine2 = append(g.mine2[:0], g.players2...)
	for i := range g.mine2 {
		if g.mine2[i].Player == ss.player {
			g.mine2[i].HasStep, g.mine2[i].LastStep = ss.steps.has, ss.steps.last
		}
	}
	return g.mine2
}

// flushEvents queues the session's due events (5.3) in out.
func (s *Server) flushEvents(out *outbox, ss *session, now time.Time) {
	for {
		b, ok := ss.link.AppendEvents(out.next(), now)
		if !ok {
			return
		}
		out.push(b, ss.addr)
		out.eventBytes += uint64(len(b))
	}
}

// eventsNow reports whether the tick loop sends ss its due events in Event
// datagrams at this tick (flushEvents), snapTick telling whether the tick
// is one of the game's snapshot ticks and stepping whether its world steps
// (a session joined it). A world that does not step sends no snapshot:
// the events go at once (7.9). At a snapshot tick a v2 session's go
// with its snapshot instead (7.8, sendSnapshots), and between them they
// wait for the next one (7.9); a v1 session's go at every tick (5.3).
func (ss *session) eventsNow(snapTick, stepping bool) bool {
	switch {
	case !stepping:
		return true
	case snapTick:
		return !ss.tail()
	default:
		return !ss.holdEvents()
	}
}
