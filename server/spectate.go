package server

import (
	"net"
	"net/netip"
	"slices"
	"time"

	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// Spectators (PROTOCOL.md 7.17): a v2 session that logs in with the
// flag LoginSpectate watches a running game. It has no ship and takes no
// player number: it is kept in the game's spectators, not its sessions, so
// that nothing that counts players (a free slot, quick join, MaxPlayers,
// the end of an empty game, game over) sees it. It binds as a player does
// (7.3), gets the joining events, every event and the snapshots, and sends
// only Acks: an Input of a spectator is dropped unacknowledged.

// spectatorHub is the server's handling of spectators (7.17). Its
// state is the spectators of each game (game.spectators), guarded by
// Server.mu: the tick sends them their events and snapshots.
type spectatorHub struct {
	srv *Server
}

// loginLocked accepts a spectating login (7.17) into the game it
// asks for, or refuses it; s.mu is held.
func (h *spectatorHub) loginLocked(c net.Conn, ap netip.AddrPort, name string, tok wire.Token, m *wire.Message, f wire.Features) (*session, bool) {
	s := h.srv
	ip := ap.Addr().Unmap()
	if len(s.sessions) >= s.cfg.MaxSessions {
		s.log.Info("login refused", "addr", ap, "name", name, "reason", "the server is full", "spectate", true)
		return s.gate.reject(c, wire.RejectGameFull, "the server is full")
	}
	g, why, reason := h.gameToWatchLocked(ip, m, time.Now())
	if g == nil {
		s.log.Info("login refused", "addr", ap, "name", name, "reason", why, "spectate", true)
		return s.gate.reject(c, reason, why)
	}
	ss := &session{srv: s, id: s.gate.newSessionID(), token: tok, name: name, conn: c, ip: ip, game: g,
		player: wire.NoPlayer, start: time.Now(), version: wire.Version2, codec: v2Codec, features: f,
		mode: g.mode, spectator: true}
	ss.newLink2(ss.start)
	accepted := wire.Message{Type: wire.MsgLoginAccepted, Player: wire.NoPlayer, Session: ss.id, Token: tok,
		Tick: g.world.Tick(), Ext: s.gate.loginExt(), Revision: wire.Revision, Mode: g.mode}
	g.spectators = append(g.spectators, ss)
	s.sessions[ss.id] = ss
	if !s.gate.acceptLocked(ss, wire2.AppendMessage(nil, &accepted)) {
		return nil, false
	}
	room := ""
	if g.room != nil {
		room = g.room.code.String()
	}
	s.log.Info("login", "session", ss.id, "name", name, "game", g.id, "addr", ap, "version", 2, "revision", wire.Revision,
		"mode", wire.ModeName(g.mode), "spectate", true, "room", room, "spectators", len(g.spectators))
	return ss, true
}

// gameToWatchLocked returns the game a spectating login asks for, or why
// not and the LoginRejected reason: with a code, its room's game (after
// the rate limit of wrong codes, 7.14); without, the running game of the
// login's mode (any mode for Any) with the most players, the oldest of
// equals, among open games and public rooms' games. A game over, or one
// with MaxSpectators spectators, takes no more.
func (h *spectatorHub) gameToWatchLocked(ip netip.Addr, m *wire.Message, now time.Time) (*game, string, uint8) {
	s := h.srv
	if m.Code != (wire.RoomCode{}) {
		if why, _ := s.rooms.codeLimitedLocked(ip, now); why != 0 {
			return nil, "too many wrong room codes from your address: wait a minute", wire.RejectRateLimited
		}
		rm := s.rooms.byCode[m.Code]
		switch {
		case rm == nil:
			s.rooms.wrongCodeLocked(ip, now)
			return nil, "no room has the code " + wire.CleanName(m.Code.String()), wire.RejectGameFull
		case rm.settings.Flags&wire.RoomLocked != 0:
			return nil, "the room " + rm.code.String() + " is locked", wire.RejectGameFull
		case rm.state != wire.RoomPlaying || rm.game == nil || rm.game.over:
			return nil, "the room " + rm.code.String() + " is not playing: try again when its game has started", wire.RejectGameEnding
		case len(rm.game.spectators) >= wire.MaxSpectators:
			return nil, "the game of room " + rm.code.String() + " has 8 spectators already, the most it takes", wire.RejectGameFull
		}
		return rm.game, "", 0
	}
	var best *game
	full := false
	for _, g := range s.games {
		if g.over || g.empty() || (m.Mode == wire.ModeClassic || m.Mode == wire.ModeStage) && g.mode != m.Mode ||
			g.room != nil && (g.room.game != g || g.room.settings.Flags&(wire.RoomPublic|wire.RoomLocked) != wire.RoomPublic) {
			continue
		}
		if len(g.spectators) >= wire.MaxSpectators {
			full = true
			continue
		}
		if n := wire.MaxPlayers - g.freePlayerCount(); best == nil || n > wire.MaxPlayers-best.freePlayerCount() {
			best = g
		}
	}
	switch {
	case best != nil:
		return best, "", 0
	case full:
		return nil, "every game has 8 spectators already, the most it takes", wire.RejectGameFull
	}
	return nil, "no game to watch: nobody plays on this server now", wire.RejectGameFull
}

// removeLocked takes ss out of its game's spectators and tells
// the others; s.mu is held (or the tick's drop lock, dropInTick).
func (h *spectatorHub) removeLocked(ss *session) {
	g := ss.game
	if g == nil {
		return
	}
	for i, o := range g.spectators {
		if o == ss {
			g.spectators = slices.Delete(g.spectators, i, i+1)
			break
		}
	}
	h.sendListLocked(g, nil)
}

// bindLocked brings a spectator into its game's stream at its
// first binding: the joining events of 4.6 and 7.12 (the players, every
// entity, the Stage's state), but no ship; then the game's spectators.
func (h *spectatorHub) bindLocked(ss *session) {
	s := h.srv
	g := ss.game
	s.distribute(g)
	ss.joined = true
	g.spawns = g.world.AppendJoins(g.spawns[:0])
	g.spawns = g.world.AppendSpawns(g.spawns)
	if g.mode == wire.ModeStage {
		g.spawns = g.stage.appendJoin(g.spawns)
	}
	for i := range g.spawns {
		queue(ss, &g.spawns[i])
	}
	s.log.Info("spectator joined", "session", ss.id, "name", ss.name, "game", g.id, "addr", ss.addr)
	h.sendListLocked(g, nil)
}

// sendListLocked sends the Spectators message of g (7.17) to every
// session of g with Features.Spectate that has joined its world, players and
// spectators, or only to to when it is not nil.
func (h *spectatorHub) sendListLocked(g *game, to *session) {
	s := h.srv
	var sp wire.Spectators
	for _, o := range g.spectators {
		if o.joined && int(sp.Count) < wire.MaxSpectators {
			sp.Names[sp.Count] = o.name
			sp.Count++
		}
	}
	frame := wire.AppendSpectators(nil, &sp)
	send := func(o *session) {
		if o != nil && o.joined && o.features.Spectate && o.chat != nil && !o.gone {
			s.chatHub.pushTo(o, frame)
		}
	}
	if to != nil {
		send(to)
		return
	}
	for _, o := range g.sessions {
		send(o)
	}
	for _, o := range g.spectators {
		send(o)
	}
}

// step ends the spectators of g that time out or whose game is
// over (as stepGame does for players) and returns lost with them. It
// runs on a tick's shard.
func (h *spectatorHub) step(g *game, now time.Time, lost []*session) []*session {
	s := h.srv
	for i := 0; i < len(g.spectators); i++ {
		ss := g.spectators[i]
		switch {
		case ss.overflow || (ss.bound && s.stall.silence(ss.link, now) >= s.cfg.SessionTimeout),
			!ss.bound && s.stall.since(ss.start, now) >= s.cfg.BindTimeout:
			ss.logoutReason = wire.LogoutTimedOut
			s.log.Info("spectator timed out", "session", ss.id, "name", ss.name, "game", g.id, "bound", ss.bound)
		case g.over && s.lb.gameOverSent(g) && (ss.link.Unacked() == 0 || now.Sub(g.overAt) >= s.cfg.GameOverLinger):
			ss.logoutReason = wire.LogoutGameOver
			s.log.Info("game over for spectator", "session", ss.id, "name", ss.name, "game", g.id)
		default:
			continue
		}
		s.dropInTick(ss)
		lost = append(lost, ss)
		i--
	}
	return lost
}

// endLocked logs out the spectators of g, which ends because
// no player is left in it: their game is over.
func (h *spectatorHub) endLocked(g *game) {
	s := h.srv
	for len(g.spectators) > 0 {
		ss := g.spectators[0]
		s.dropLocked(ss)
		s.log.Info("game ended for spectator", "session", ss.id, "name", ss.name, "game", g.id)
		go ss.logout(wire.LogoutGameOver)
	}
}

// flush queues the due events of g's bound spectators.
func (h *spectatorHub) flush(g *game, out *outbox, now time.Time) {
	s := h.srv
	for _, ss := range g.spectators {
		if ss.bound {
			s.flushEvents(out, ss, now)
		}
	}
}

// queueSpectators queues an event of g, encoded once for all, to its
// joined spectators.
func queueSpectators(g *game, enc *link.EncodedEvent) {
	for _, ss := range g.spectators {
		if ss.joined {
			queueEncoded(ss, enc)
		}
	}
}

// snapshot sends the tick's snapshot to g's bound spectators:
// the players' records without a last step (7.8: none is theirs). They
// all get the same records, so spectators with the same baseline share
// its encoding (link2.SharedSnapshots): a spectator costs less than a
// player, whose own step makes its snapshot its own.
func (h *spectatorHub) snapshot(g *game, tick uint32, now time.Time, out *outbox) {
	if len(g.spectators) == 0 {
		return
	}
	for _, ss := range g.spectators {
		if !ss.bound {
			continue
		}
		for _, d := range g.watchSnaps.Datagrams(ss.link, tick, g.players2, g.entities2, now) {
			out.add(d, ss.addr)
			out.snapshotBytes += uint64(len(d))
		}
	}
}

// chatLocked queues a ChatMessage frame of g's game (or of its
// room) to g's spectators: they read the game's chat (7.17).
func (h *spectatorHub) chatLocked(g *game, frame []byte) {
	s := h.srv
	for _, o := range g.spectators {
		if o.chat != nil && !o.gone {
			s.chatHub.pushTo(o, frame)
		}
	}
}
