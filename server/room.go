package server

import (
	"cmp"
	"crypto/rand"
	"fmt"
	"math/big"
	"net/netip"
	"slices"
	"time"

	"rtype/net/ipkey"
	"rtype/net/wire"
)

// Rooms (PROTOCOL.md 7.14): a lobby session (LoginRequest flag Lobby)
// starts in no game; it lists, creates and joins rooms, and plays its
// room's games. A room holds no world until its game starts, so nobody
// loses lives while waiting; after the game over its members come back to
// it. Everything here runs under s.mu; room messages go out through the
// sessions' chat outboxes (7.13), so a slow reader holds nobody.

// The rate of RoomList per session (7.14): a bucket of roomListBurst
// listings, refilled at one a second; a RoomList with the bucket empty
// is dropped, unanswered.
const (
	roomListBurst = 4
	roomListEvery = time.Second
)

// allowList takes a RoomList from the bucket of c at now, and reports
// whether the bucket had one.
func (c *chatState) allowList(now time.Time) bool {
	if c.listAt.IsZero() {
		c.listAt, c.listTokens = now, roomListBurst
	}
	if n := int(now.Sub(c.listAt) / roomListEvery); n > 0 {
		c.listTokens = min(roomListBurst, c.listTokens+n)
		c.listAt = c.listAt.Add(time.Duration(n) * roomListEvery)
	}
	if c.listTokens == roomListBurst {
		c.listAt = now // a full bucket refills from its first take
	}
	if c.listTokens == 0 {
		return false
	}
	c.listTokens--
	return true
}

// roomTable is the server's rooms (7.14): the table by code, the count
// of rooms created, the wrong codes by address and the buffers of the
// room messages being sent. Guarded by Server.mu: the tick reads the
// rooms of its games.
type roomTable struct {
	srv    *Server
	byCode map[wire.RoomCode]*room
	seq    uint64                     // rooms created so far
	wrong  map[netip.Addr]*wrongCodes // wrong room codes by address
	buf    []byte                     // a room frame being sent
	out    wire.Room                  // a room message being sent
}

// room is one room: its members by player number, and its game while it
// plays.
type room struct {
	code     wire.RoomCode
	settings wire.RoomSettings
	state    uint8 // wire.RoomLobby, RoomPlaying or RoomOver
	owner    uint8
	seq      uint64 // creation order: quick join prefers the oldest of equals
	created  time.Time
	members  [wire.MaxPlayers]*member
	game     *game // while Playing; its members' sessions play in it
}

// member is a member of a room: a lobby session, or a bot (ss nil).
type member struct {
	ss    *session
	name  string
	ready bool
}

// wrongCodes is an address's last wrong room codes: when all of them
// are younger than WrongCodeWindow, its RoomJoins are refused.
type wrongCodes struct {
	at   []time.Time // cfg.WrongCodes, a ring; the oldest at next
	next int
}

// humans returns the number of members with a session.
func (rm *room) humans() int {
	n := 0
	for _, m := range rm.members {
		if m != nil && m.ss != nil {
			n++
		}
	}
	return n
}

// count returns the number of members, bots included.
func (rm *room) count() int {
	n := 0
	for _, m := range rm.members {
		if m != nil {
			n++
		}
	}
	return n
}

// freeSlot returns the lowest free player number below the room's max,
// or wire.NoPlayer.
func (rm *room) freeSlot() uint8 {
	for p := range min(int(rm.settings.MaxPlayers), wire.MaxPlayers) {
		if rm.members[p] == nil {
			return uint8(p)
		}
	}
	return wire.NoPlayer
}

// hasName reports whether a member has name, ignoring case.
func (rm *room) hasName(name string) bool {
	for _, m := range rm.members {
		if m != nil && equalFold(m.name, name) {
			return true
		}
	}
	return false
}

// allReady reports whether every member is ready (bots always are).
func (rm *room) allReady() bool {
	for _, m := range rm.members {
		if m != nil && !m.ready {
			return false
		}
	}
	return true
}

// publicGameLocked returns the running game of the best public room of
// mode that a login without rooms may join (7.14: v1, and v2
// without Lobby, quick join the rooms that play and take players in): the
// one with the most human players, the oldest of equals; or nil.
func (t *roomTable) publicGameLocked(name string, mode uint8) *game {
	var best *room
	for _, rm := range t.byCode {
		if rm.settings.Mode != mode || rm.settings.Flags&wire.RoomPublic == 0 || rm.state != wire.RoomPlaying ||
			rm.game == nil || rm.game.over || rm.joinable(name) != 0 {
			continue
		}
		if best == nil || rm.humans() > best.humans() || (rm.humans() == best.humans() && rm.seq < best.seq) {
			best = rm
		}
	}
	if best == nil {
		return nil
	}
	return best.game
}

// ownedByLocked returns the number of rooms whose owner logged in from
// ip, or from its IPv6 /64 (ipkey.Of): MaxRoomsPerIP caps it. Rooms
// waiting hold no game (MaxGames counts the games that run), so this cap
// and MaxRooms are what bound them.
func (t *roomTable) ownedByLocked(ip netip.Addr) int {
	key := ipkey.Of(ip)
	n := 0
	for _, rm := range t.byCode {
		if m := rm.members[rm.owner]; m != nil && m.ss != nil && ipkey.Of(m.ss.ip) == key {
			n++
		}
	}
	return n
}

// joinable returns why a player named name cannot join rm, or 0.
func (rm *room) joinable(name string) uint8 {
	switch {
	case rm.settings.Flags&wire.RoomLocked != 0:
		return wire.RoomIsLocked
	case rm.state == wire.RoomPlaying && rm.settings.Flags&wire.RoomJoinLate == 0:
		return wire.RoomInProgress
	case rm.freeSlot() == wire.NoPlayer:
		return wire.RoomFull
	case rm.hasName(name):
		return wire.RoomNameTaken
	}
	return 0
}

// message handles a room frame (its type and body) of ss. A session
// that did not log in for the lobby skips room messages (unknown types,
// 7.1); a malformed one, or one of the server's, is an error that ends
// the session (3.1).
func (t *roomTable) message(ss *session, f []byte) error {
	s := t.srv
	if !ss.lobby {
		return nil
	}
	var r wire.Room
	if err := wire.ParseRoom(f, &r); err != nil {
		return err
	}
	if r.Type >= wire.MsgRoomListing {
		return fmt.Errorf("%w: %#x from a client", wire.ErrMessageType, r.Type)
	}
	a, asked := s.fleet.lookup(ss, &r) // 7.18: may ask Redis, so before s.mu
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.gone || s.fleet.roomLocked(ss, &r, a, asked, time.Now()) {
		return nil
	}
	if why, wait := t.requestLocked(ss, &r, time.Now()); why != 0 {
		t.refuseLocked(ss, why, wait)
	}
	return nil
}

// refuseLocked sends ss RoomRefused.
func (t *roomTable) refuseLocked(ss *session, why uint8, wait uint16) {
	s := t.srv
	s.log.Info("room request refused", "session", ss.id, "name", ss.name, "reason", wire.RoomReason(why))
	t.buf = wire.AppendRoom(t.buf[:0], &wire.Room{Type: wire.MsgRoomRefused, Reason: why, Wait: wait})
	s.chatHub.pushTo(ss, t.buf)
}

// requestLocked applies the rules of 7.14 to a request of ss; it
// returns the reason to refuse it (and the wait of RateLimited), or 0.
// Each kind of request has its method; a request the owner alone may
// make (any other type) is refused NotOwner to the others.
func (t *roomTable) requestLocked(ss *session, r *wire.Room, now time.Time) (uint8, uint16) {
	switch r.Type {
	case wire.MsgRoomList:
		if ss.chat != nil && ss.chat.allowList(t.srv.chatHub.clock()) {
			t.sendListingLocked(ss)
		} // else dropped, unanswered: the bucket is empty
		return 0, 0
	case wire.MsgRoomCreate, wire.MsgRoomJoin, wire.MsgRoomQuick:
		if ss.room != nil {
			return wire.RoomInRoom, 0
		}
		return t.enterLocked(ss, r, now)
	}
	rm := ss.room
	if rm == nil {
		return wire.RoomNotInRoom, 0
	}
	me := ss.player
	switch r.Type {
	case wire.MsgRoomReady:
		return t.readyLocked(rm, me, r.Value != 0, now), 0
	case wire.MsgRoomLeave:
		t.removeMemberLocked(rm, me, true)
		return 0, 0
	case wire.MsgRoomAgain:
		return t.againLocked(rm), 0
	}
	if rm.owner != me {
		return wire.RoomNotOwner, 0
	}
	var why uint8
	switch r.Type {
	case wire.MsgRoomStart:
		why = t.startLocked(rm, now)
	case wire.MsgRoomKick:
		return t.kickLocked(rm, me, r.Value), 0 // removeMemberLocked told the others
	case wire.MsgRoomSettings:
		why = t.settingsLocked(rm, r.Settings)
	case wire.MsgRoomBot:
		why = t.botLocked(rm, r)
	}
	if why != 0 {
		return why, 0
	}
	t.sendStateLocked(rm)
	return 0, 0
}

// enterLocked handles RoomCreate, RoomJoin and RoomQuick of ss, in no
// room.
func (t *roomTable) enterLocked(ss *session, r *wire.Room, now time.Time) (uint8, uint16) {
	switch r.Type {
	case wire.MsgRoomCreate:
		st, ok := t.srv.roomSettings(r.Settings)
		if !ok || !st.Valid() {
			return wire.RoomInvalid, 0
		}
		return t.createLocked(ss, st, now), 0
	case wire.MsgRoomJoin:
		return t.joinByCodeLocked(ss, r.Code, now)
	}
	return t.quickJoinLocked(ss, r.Mode, now), 0
}

// readyLocked handles RoomReady of member me: when every member is
// ready, the game starts.
func (t *roomTable) readyLocked(rm *room, me uint8, ready bool, now time.Time) uint8 {
	if rm.state != wire.RoomLobby {
		return wire.RoomInvalid
	}
	rm.members[me].ready = ready
	if rm.allReady() {
		if why := t.startGameLocked(rm, now); why != 0 {
			return why
		}
	}
	t.sendStateLocked(rm)
	return 0
}

// againLocked handles RoomAgain: an Over room waits again, its humans
// not ready.
func (t *roomTable) againLocked(rm *room) uint8 {
	if rm.state != wire.RoomOver {
		return wire.RoomInvalid
	}
	rm.state = wire.RoomLobby
	for _, m := range rm.members {
		if m != nil {
			m.ready = m.ss == nil
		}
	}
	t.sendStateLocked(rm)
	return 0
}

// startLocked handles the owner's RoomStart.
func (t *roomTable) startLocked(rm *room, now time.Time) uint8 {
	if rm.state != wire.RoomLobby {
		return wire.RoomInvalid
	}
	return t.startGameLocked(rm, now)
}

// kickLocked handles the owner's (me) RoomKick of player p.
func (t *roomTable) kickLocked(rm *room, me, p uint8) uint8 {
	s := t.srv
	if p >= wire.MaxPlayers || rm.members[p] == nil || p == me {
		return wire.RoomInvalid
	}
	kicked := rm.members[p].ss
	s.log.Info("room kick", "room", rm.code.String(), "player", p, "name", rm.members[p].name)
	t.removeMemberLocked(rm, p, true)
	switch {
	case kicked != nil && kicked.lobby:
		t.refuseLocked(kicked, wire.RoomKicked, 0)
	case kicked != nil: // a login without rooms: out of the server (3.2)
		s.dropLocked(kicked)
		go kicked.logout(wire.LogoutKicked)
	}
	return 0
}

// settingsLocked handles the owner's RoomSettings: while the room plays
// only its flags change, and no member may be past its MaxPlayers.
func (t *roomTable) settingsLocked(rm *room, st wire.RoomSettings) uint8 {
	st, ok := t.srv.roomSettings(st)
	if !ok || !st.Valid() {
		return wire.RoomInvalid
	}
	if rm.state == wire.RoomPlaying {
		was := rm.settings
		was.Flags = st.Flags
		if was != st {
			return wire.RoomInvalid
		}
	}
	for p, m := range rm.members {
		if m != nil && p >= int(st.MaxPlayers) {
			return wire.RoomInvalid
		}
	}
	rm.settings = st
	return 0
}

// botLocked handles the owner's RoomBot: Value 1 adds a bot at the
// lowest free slot, 0 removes the bot r.Player (NoPlayer: the highest).
func (t *roomTable) botLocked(rm *room, r *wire.Room) uint8 {
	if rm.state == wire.RoomPlaying {
		return wire.RoomInvalid
	}
	if r.Value != 0 {
		if t.srv.cfg.Bots == nil {
			return wire.RoomInvalid // a server without bots
		}
		p := rm.freeSlot()
		if p == wire.NoPlayer {
			return wire.RoomFull
		}
		rm.members[p] = &member{name: fmt.Sprintf("Bot %d", p+1), ready: true}
		return 0
	}
	p := r.Player
	if p == wire.NoPlayer {
		for q := wire.MaxPlayers - 1; q >= 0; q-- {
			if m := rm.members[q]; m != nil && m.ss == nil {
				p = uint8(q)
				break
			}
		}
	}
	if p >= wire.MaxPlayers || rm.members[p] == nil || rm.members[p].ss != nil {
		return wire.RoomInvalid
	}
	rm.members[p] = nil
	return 0
}

// newCode draws a code no room has.
func (t *roomTable) newCode() wire.RoomCode {
	n := big.NewInt(int64(len(wire.RoomCodeAlphabet)))
	for {
		var c wire.RoomCode
		for i := range c {
			k, _ := rand.Int(rand.Reader, n)
			c[i] = wire.RoomCodeAlphabet[k.Int64()]
		}
		if _, used := t.byCode[c]; !used {
			return c
		}
	}
}

// createLocked creates a room of settings owned by ss.
func (t *roomTable) createLocked(ss *session, st wire.RoomSettings, now time.Time) uint8 {
	s := t.srv
	if len(t.byCode) >= s.cfg.MaxRooms {
		return wire.RoomTooMany
	}
	if n := t.ownedByLocked(ss.ip); n >= s.cfg.MaxRoomsPerIP {
		s.log.Info("room refused: too many rooms from this address", "session", ss.id, "addr", ss.ip,
			"rooms", n, "max", s.cfg.MaxRoomsPerIP)
		return wire.RoomTooMany
	}
	t.seq++
	rm := &room{code: t.newCode(), settings: st, state: wire.RoomLobby, seq: t.seq, created: now}
	t.byCode[rm.code] = rm
	s.log.Info("room created", "room", rm.code.String(), "owner", ss.name, "mode", wire.ModeName(st.Mode),
		"stage", st.Stage, "max", st.MaxPlayers, "flags", st.Flags)
	t.addMemberLocked(rm, ss, now)
	rm.owner = ss.player
	t.sendStateLocked(rm)
	return 0
}

// joinByCodeLocked joins ss to the room of code, after the rate limit of
// wrong codes of its address.
func (t *roomTable) joinByCodeLocked(ss *session, code wire.RoomCode, now time.Time) (uint8, uint16) {
	s := t.srv
	if why, wait := t.codeLimitedLocked(ss.ip, now); why != 0 {
		return why, wait
	}
	rm := t.byCode[code]
	if rm == nil {
		t.wrongCodeLocked(ss.ip, now)
		s.log.Info("wrong room code", "session", ss.id, "addr", ss.ip)
		return wire.RoomNoSuchRoom, 0
	}
	if why := rm.joinable(ss.name); why != 0 {
		return why, 0
	}
	t.addMemberLocked(rm, ss, now)
	t.sendStateLocked(rm)
	return 0, 0
}

// codeLimitedLocked returns RoomRateLimited and the wait when ip (with
// its IPv6 /64, ipkey.Of) sent WrongCodes wrong codes within
// WrongCodeWindow, else 0.
func (t *roomTable) codeLimitedLocked(ip netip.Addr, now time.Time) (uint8, uint16) {
	s := t.srv
	ip = ipkey.Of(ip)
	window := s.cfg.WrongCodeWindow
	if w := t.wrong[ip]; w != nil {
		if oldest := w.at[w.next]; !oldest.IsZero() && now.Sub(oldest) < window {
			wait := (window - now.Sub(oldest) + time.Millisecond - 1) / time.Millisecond
			return wire.RoomRateLimited, uint16(min(wait, 65535))
		}
	}
	return 0, 0
}

// wrongCodeLocked counts a wrong code of ip (of its IPv6 /64).
func (t *roomTable) wrongCodeLocked(ip netip.Addr, now time.Time) {
	s := t.srv
	ip = ipkey.Of(ip)
	w := t.wrong[ip]
	if w == nil {
		t.pruneWrongLocked(now)
		w = &wrongCodes{at: make([]time.Time, s.cfg.WrongCodes)}
		t.wrong[ip] = w
	}
	w.at[w.next] = now
	w.next = (w.next + 1) % len(w.at)
}

// pruneWrongLocked forgets the addresses whose wrong codes are all older
// than the window, when there are many.
func (t *roomTable) pruneWrongLocked(now time.Time) {
	s := t.srv
	if len(t.wrong) < 1024 {
		return
	}
	for ip, w := range t.wrong {
		last := w.at[(w.next+len(w.at)-1)%len(w.at)]
		if now.Sub(last) >= s.cfg.WrongCodeWindow {
			delete(t.wrong, ip)
		}
	}
}

// quickJoinLocked joins ss to the best public room of mode, else creates
// one (7.14).
func (t *roomTable) quickJoinLocked(ss *session, mode uint8, now time.Time) uint8 {
	if mode != wire.ModeClassic && mode != wire.ModeStage {
		mode = ss.mode
	}
	best := t.bestPublicLocked(mode, ss.name)
	if best == nil {
		st, _ := t.srv.roomSettings(wire.RoomSettings{Mode: mode, Difficulty: wire.DifficultyNormal,
			MaxPlayers: wire.MaxPlayers, Flags: wire.RoomPublic | wire.RoomJoinLate})
		return t.createLocked(ss, st, now)
	}
	t.addMemberLocked(best, ss, now)
	t.sendStateLocked(best)
	return 0
}

// bestPublicLocked returns the public room of mode, not Over, that a
// player named name may join, with the most human players (the oldest of
// equals; bots do not draw players), or nil.
func (t *roomTable) bestPublicLocked(mode uint8, name string) *room {
	var best *room
	for _, rm := range t.byCode {
		if rm.settings.Mode != mode || rm.settings.Flags&wire.RoomPublic == 0 || rm.state == wire.RoomOver ||
			rm.joinable(name) != 0 {
			continue
		}
		if best == nil || rm.humans() > best.humans() || (rm.humans() == best.humans() && rm.seq < best.seq) {
			best = rm
		}
	}
	return best
}

// addMemberLocked makes ss a member of rm at its lowest free slot (the
// caller checked there is one); in a Playing room it joins the game.
func (t *roomTable) addMemberLocked(rm *room, ss *session, now time.Time) {
	s := t.srv
	p := rm.freeSlot()
	rm.members[p] = &member{ss: ss, name: ss.name}
	ss.room, ss.player = rm, p
	s.log.Info("room join", "room", rm.code.String(), "session", ss.id, "name", ss.name, "player", p)
	if rm.state == wire.RoomPlaying && rm.game != nil {
		t.enterGameLocked(rm.game, ss, now)
	}
}

// removeMemberLocked takes player p out of rm. With detach, a session
// also leaves its game (its ship leaves the world); without, the caller
// (dropLocked) does that. A room left with no human is deleted; the
// owner's leaving gives the room to the lowest human.
func (t *roomTable) removeMemberLocked(rm *room, p uint8, detach bool) {
	s := t.srv
	m := rm.members[p]
	if m == nil {
		return
	}
	rm.members[p] = nil
	if ss := m.ss; ss != nil {
		ss.room = nil
		if detach {
			t.leaveGameLocked(ss, wire.LeftLeft)
			ss.player = wire.NoPlayer
		}
	} else if g := rm.game; g != nil && g.bots != nil {
		g.bots.Remove(p)
		if !g.over {
			g.world.RemovePlayer(p, wire.LeftLeft)
		}
	}
	s.log.Info("room leave", "room", rm.code.String(), "player", p, "name", m.name)
	if rm.humans() == 0 {
		t.deleteLocked(rm)
		return
	}
	if rm.owner == p {
		for q, o := range rm.members {
			if o != nil && o.ss != nil {
				rm.owner = uint8(q)
				break
			}
		}
	}
	t.sendStateLocked(rm)
}

// deleteLocked forgets rm; its game, if any, ends when its last
// session leaves it (its bots with it).
func (t *roomTable) deleteLocked(rm *room) {
	s := t.srv
	for p, m := range rm.members {
		if m != nil && m.ss != nil {
			m.ss.room = nil
		}
		rm.members[p] = nil
	}
	rm.game = nil // its game keeps g.room: it is a room's, no open game
	delete(t.byCode, rm.code)
	s.fleet.pokeLocked()
	s.log.Info("room deleted", "room", rm.code.String())
}

// startGameLocked starts rm's game: a new world of its settings, its
// members in it with their room numbers; bots enter at once, sessions
// when they bind.
func (t *roomTable) startGameLocked(rm *room, now time.Time) uint8 {
	s := t.srv
	running := 0
	for _, g := range s.games {
		if !g.empty() {
			running++
		}
	}
	if running >= s.cfg.MaxGames {
		return wire.RoomTooMany
	}
	id := s.nextGame
	w, err := s.newWorldOf(rm.settings.Mode, rm.settings.Difficulty, rm.settings.Stage, s.seed+uint64(id))
	if err != nil {
		s.log.Error("cannot start a room's game", "room", rm.code.String(), "err", err)
		return wire.RoomTooMany
	}
	s.nextGame++
	g := &game{id: id, mode: rm.settings.Mode, world: w, room: rm}
	s.phases.start(g)
	s.games = append(s.games, g)
	s.lifeLocked(GameStarted)
	rm.game, rm.state = g, wire.RoomPlaying
	for p, m := range rm.members {
		switch {
		case m == nil:
		case m.ss != nil:
			t.enterGameLocked(g, m.ss, now)
		default:
			if g.bots == nil {
				g.bots = s.cfg.Bots(g.mode, s.seed+uint64(id))
			}
			g.bots.Add(uint8(p))
			w.AddPlayer(uint8(p), m.name)
		}
	}
	s.log.Info("game started", "game", id, "mode", wire.ModeName(g.mode), "stage", rm.settings.Stage, "room", rm.code.String())
	return 0
}

// enterGameLocked puts a member's session in g at its room number, with
// a new link: it binds as after a login (3.4, 7.3).
func (t *roomTable) enterGameLocked(g *game, ss *session, now time.Time) {
	s := t.srv
	t.leaveGameLocked(ss, wire.LeftLeft)
	ss.game = g
	g.sessions[ss.player] = ss
	ss.start = now
	g.recheck() // its bind timeout
	s.log.Info("room member enters its game", "session", ss.id, "name", ss.name, "game", g.id, "player", ss.player)
}

// leaveGameLocked takes ss out of its game, if it is in one: its ship
// leaves the world, its UDP binding ends (a new link for the next game).
func (t *roomTable) leaveGameLocked(ss *session, why uint8) {
	g := ss.game
	if g == nil {
		return
	}
	if g.sessions[ss.player] == ss {
		g.sessions[ss.player] = nil
	}
	if ss.joined && !g.over {
		g.world.RemovePlayer(ss.player, why)
	}
	ss.game = nil
	if ss.chat != nil { // back in the lobby: its idle time starts (LobbyIdle)
		ss.chat.heard.Store(time.Now().UnixNano())
	}
	ss.bound, ss.joined, ss.addr = false, false, netip.AddrPort{}
	ss.newLink2(time.Now())
	ss.steps = stepQueue{}
	ss.hasInput, ss.held, ss.overflow = false, 0, false
}

// backToRoomLocked brings ss back from its game over to its room, which
// is then Over (7.14).
func (t *roomTable) backToRoomLocked(ss *session) {
	s := t.srv
	rm := ss.room
	t.leaveGameLocked(ss, wire.LeftLeft)
	s.log.Info("game over for player, back to its room", "session", ss.id, "name", ss.name, "room", rm.code.String())
	if rm.state == wire.RoomPlaying {
		rm.state, rm.game = wire.RoomOver, nil
		for _, m := range rm.members {
			if m != nil {
				m.ready = m.ss == nil
			}
		}
	}
	t.sendStateLocked(rm)
}

// gameEndedLocked is told that g, empty, ends: its room, if it still
// plays it, is Over.
func (t *roomTable) gameEndedLocked(g *game) {
	if rm := g.room; rm != nil && rm.game == g {
		rm.game = nil
		if rm.state == wire.RoomPlaying {
			rm.state = wire.RoomOver
			t.sendStateLocked(rm)
		}
	}
}

// sendStateLocked sends every member of rm its RoomState (and the fleet
// its change, 7.18).
func (t *roomTable) sendStateLocked(rm *room) {
	s := t.srv
	s.fleet.pokeLocked()
	r := &t.out
	*r = wire.Room{Type: wire.MsgRoomState, Code: rm.code, State: rm.state, Owner: rm.owner, Settings: rm.settings}
	for p, m := range rm.members {
		if m == nil {
			continue
		}
		flags := uint8(0)
		if m.ready {
			flags |= wire.MemberReady
		}
		if m.ss == nil {
			flags |= wire.MemberBot
		}
		r.Members[r.Count] = wire.RoomMember{Player: uint8(p), Colour: uint8(p), Flags: flags, Name: m.name}
		r.Count++
	}
	for p, m := range rm.members {
		if m == nil || m.ss == nil || m.ss.chat == nil || !m.ss.lobby {
			continue // bots, and logins without rooms, get no room messages
		}
		r.You = uint8(p)
		t.buf = wire.AppendRoom(t.buf[:0], r)
		s.chatHub.pushTo(m.ss, t.buf)
	}
}

// sendListingLocked sends ss the public rooms, those with the most
// players first (the oldest of equals), at most wire.MaxListedRooms.
func (t *roomTable) sendListingLocked(ss *session) {
	s := t.srv
	list := make([]*room, 0, len(t.byCode))
	for _, rm := range t.byCode {
		if rm.settings.Flags&wire.RoomPublic != 0 {
			list = append(list, rm)
		}
	}
	slices.SortFunc(list, func(a, b *room) int {
		if c := cmp.Compare(b.count(), a.count()); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	r := &t.out
	*r = wire.Room{Type: wire.MsgRoomListing}
	for _, rm := range list[:min(len(list), wire.MaxListedRooms)] {
		r.Rooms[r.Count] = wire.RoomInfo{Code: rm.code, Mode: rm.settings.Mode, State: rm.state,
			Players: uint8(rm.count()), Max: rm.settings.MaxPlayers, Flags: rm.settings.Flags, Stage: rm.settings.Stage}
		r.Count++
	}
	if ss.chat == nil {
		return
	}
	t.buf = wire.AppendRoom(t.buf[:0], r)
	s.chatHub.pushTo(ss, t.buf)
}
