package server

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
	"unicode/utf8"

	"rtype/net/ipkey"
	"rtype/net/link"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// loginGate is the server's door (3.2, 3.3): the connections before
// their LoginRequest, counted per address (MaxPending, MaxPendingPerIP)
// and closed by shutdown, the login rate limit, and the login itself.
// Its state is guarded by Server.mu: a login adds its session to the
// server's and its game's.
type loginGate struct {
	srv     *Server
	pending int
	pendIP  map[netip.Addr]int // pending connections per IP address
	waiting map[net.Conn]bool  // the pending connections, closed by shutdown
	limiter *loginLimiter
}

// admit counts a new connection (TCP, or a WebTransport session's
// stream) from ip as pending until its login ends, unless MaxPending or
// MaxPendingPerIP are reached or the server is closing.
func (lg *loginGate) admit(c net.Conn, ip netip.Addr) bool {
	s := lg.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	key := ipkey.Of(ip)
	if lg.pending >= s.cfg.MaxPending || lg.pendIP[key] >= s.cfg.MaxPendingPerIP || s.closed {
		return false
	}
	lg.pending++
	lg.pendIP[key]++
	lg.waiting[c] = true
	return true
}

// admitted ends the pending of c, from ip, that admit counted: its login
// is over, accepted or not.
func (lg *loginGate) admitted(c net.Conn, ip netip.Addr) {
	s := lg.srv
	key := ipkey.Of(ip)
	s.mu.Lock()
	lg.pending--
	if lg.pendIP[key]--; lg.pendIP[key] <= 0 {
		delete(lg.pendIP, key)
	}
	delete(lg.waiting, c)
	s.mu.Unlock()
}

// reject answers LoginRejected, counts it by its reason and reports
// false.
func (lg *loginGate) reject(c net.Conn, reason uint8, text string) (*session, bool) {
	s := lg.srv
	if int(reason) < numLogins {
		s.stats.logins[reason].Add(1)
	}
	return writeReject(c, reason, text)
}

// writeReject answers LoginRejected and reports false.
func writeReject(c net.Conn, reason uint8, text string) (*session, bool) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	c.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRejected, Reason: reason, Text: text}))
	return nil, false
}

// login reads the LoginRequest and applies 3.2 and 3.3 in order: rate
// limit, version, body, name, then the sessions of the address
// (MaxSessionsPerIP) and room in a game.
func (lg *loginGate) login(c net.Conn) (*session, bool) {
	s := lg.srv
	c.SetReadDeadline(time.Now().Add(s.cfg.LoginTimeout))
	fr := wire.FrameReader{R: c}
	frame, err := fr.ReadFrame()
	if err != nil {
		if errors.Is(err, wire.ErrFrameLength) {
			kick(c)
		}
		return nil, false
	}
	ap, _ := netip.ParseAddrPort(c.RemoteAddr().String())
	ip := ap.Addr().Unmap()
	s.mu.Lock()
	allowed := lg.limiter.allow(ip, lg.limiter.now())
	s.mu.Unlock()
	if !allowed {
		s.log.Info("login refused", "addr", ip, "reason", "rate limited")
		return lg.reject(c, wire.RejectRateLimited, "too many logins from your address: wait 10 seconds")
	}
	version := uint8(wire.Version)
	if len(frame) >= 2 && frame[0] == byte(wire.MsgLoginRequest) {
		version = frame[1]
		if version < wire.Version || int(version) > s.cfg.MaxVersion {
			return lg.reject(c, wire.RejectVersionMismatch, lg.versionText())
		}
	}
	var m wire.Message
	if version == wire.Version2 {
		m, err = wire2.ParseMessage(frame)
	} else {
		m, err = wire.ParseMessage(frame)
	}
	if errors.Is(err, wire.ErrRevision) {
		// A v2 login of a revision below wire.Revision, or without one.
		s.log.Info("login refused", "addr", ip, "reason", "revision", "revision", m.Revision)
		return lg.reject(c, wire.RejectVersionMismatch,
			fmt.Sprintf("this server speaks protocol 2 of revision %d", wire.Revision))
	}
	if err != nil && badUTF8Name(frame) {
		// A well-framed name that is not UTF-8 is an invalid name, not a
		// protocol error (3.1 LoginRejected reasons, 3.2 names rule 1).
		return lg.reject(c, wire.RejectInvalidName, wire.ErrNameChars.Error())
	}
	if err != nil || m.Type != wire.MsgLoginRequest {
		s.log.Info("kicked", "addr", ip, "reason", "bad LoginRequest", "err", err)
		s.stats.logins[LoginMalformed].Add(1)
		kick(c)
		return nil, false
	}
	name, err := wire.NormalizeName(m.Name)
	if err != nil {
		return lg.reject(c, wire.RejectInvalidName, err.Error())
	}
	var tok wire.Token
	rand.Read(tok[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.shared.drain.Load() {
		return lg.reject(c, wire.RejectGameEnding, "the server is shutting down")
	}
	if b, ok := s.bans.bannedLocked(name, ip, time.Now()); ok {
		s.log.Info("login refused", "addr", ip, "name", name, "reason", "banned", "ban", b.ID, "until", b.Until)
		s.stats.logins[LoginBanned].Add(1)
		return writeReject(c, wire.RejectRateLimited, banText(b))
	}
	if n := lg.sessionsFrom(ip); n >= s.cfg.MaxSessionsPerIP {
		s.log.Info("login refused", "addr", ip, "name", name, "reason", "too many sessions from this address",
			"sessions", n, "max", s.cfg.MaxSessionsPerIP)
		return lg.reject(c, wire.RejectRateLimited,
			fmt.Sprintf("too many players from your address: at most %d at once", s.cfg.MaxSessionsPerIP))
	}
	features := wire.NewFeatures(version, m.Revision) // once, for the session's life
	mode := s.gameMode(features, &m)
	if features.Rooms && m.Flags&wire.LoginLobby != 0 {
		return lg.loginLobbyLocked(c, ap, name, tok, mode, features)
	}
	if features.Spectate && m.Flags&wire.LoginSpectate != 0 {
		return s.spect.loginLocked(c, ap, name, tok, &m, features) // 7.17
	}
	g, why, reason := s.findGame(name, mode)
	if g == nil {
		s.log.Info("login refused", "addr", ip, "name", name, "mode", wire.ModeName(mode), "reason", why)
		return lg.reject(c, reason, why)
	}
	ss := &session{
		srv:      s,
		id:       lg.newSessionID(),
		token:    tok,
		name:     name,
		conn:     c,
		ip:       ip,
		game:     g,
		player:   g.freePlayer(),
		room:     g.room,
		start:    time.Now(),
		version:  version,
		codec:    codecOf(version),
		features: features,
		mode:     mode,
	}
	accepted := wire.Message{Type: wire.MsgLoginAccepted, Player: ss.player, Session: ss.id, Token: tok, Tick: g.world.Tick()}
	var acc []byte
	if version == wire.Version2 {
		ss.newLink2(ss.start)
		accepted.Ext, accepted.Revision, accepted.Mode = lg.loginExt(), wire.Revision, g.mode
		acc = wire2.AppendMessage(nil, &accepted)
	} else {
		ss.link = link.New(ss.id, ss.start)
		ss.link.Baselines = &ss.hist
		acc = wire.AppendMessage(nil, &accepted)
	}
	if rm := g.room; rm != nil { // quick join of a room's game (7.14)
		ss.player = rm.freeSlot()
		rm.members[ss.player] = &member{ss: ss, name: name, ready: true}
	}
	g.sessions[ss.player] = ss
	g.recheck() // its bind timeout
	s.sessions[ss.id] = ss
	if !lg.acceptLocked(ss, acc) {
		return nil, false
	}
	if g.room != nil {
		s.rooms.sendStateLocked(g.room)
	}
	s.log.Info("login", "session", ss.id, "name", name, "player", ss.player, "game", g.id, "addr", ap,
		"version", version, "revision", accepted.Revision, "mode", wire.ModeName(g.mode))
	return ss, true
}

// loginLobbyLocked accepts a lobby login (7.14), of features f: the
// session is in no game (player 255, tick 0) until its room's game
// starts; s.mu is held.
func (lg *loginGate) loginLobbyLocked(c net.Conn, ap netip.AddrPort, name string, tok wire.Token, mode uint8, f wire.Features) (*session, bool) {
	s := lg.srv
	if len(s.sessions) >= s.cfg.MaxSessions {
		s.log.Info("login refused", "addr", ap, "name", name, "reason", "the server is full")
		return lg.reject(c, wire.RejectGameFull, "the server is full")
	}
	ss := &session{srv: s, id: lg.newSessionID(), token: tok, name: name, conn: c, ip: ap.Addr().Unmap(),
		player: wire.NoPlayer, start: time.Now(), version: wire.Version2, codec: v2Codec, features: f,
		mode: mode, lobby: true}
	ss.newLink2(ss.start)
	accepted := wire.Message{Type: wire.MsgLoginAccepted, Player: wire.NoPlayer, Session: ss.id, Token: tok,
		Ext: lg.loginExt(), Revision: wire.Revision, Mode: mode}
	s.sessions[ss.id] = ss
	if !lg.acceptLocked(ss, wire2.AppendMessage(nil, &accepted)) {
		return nil, false
	}
	s.log.Info("login", "session", ss.id, "name", name, "addr", ap, "version", 2, "revision", wire.Revision,
		"mode", wire.ModeName(mode), "lobby", true)
	return ss, true
}

// acceptLocked gives ss its chat, sends it its LoginAccepted, acc, and
// counts the login; a failed write drops the session and returns false.
// s.mu is held.
func (lg *loginGate) acceptLocked(ss *session, acc []byte) bool {
	s := lg.srv
	s.chatHub.attachLocked(ss)
	ss.conn.SetWriteDeadline(time.Now().Add(time.Second))
	if _, err := ss.conn.Write(acc); err != nil {
		s.dropLocked(ss)
		return false
	}
	s.stats.logins[LoginAccepted].Add(1)
	s.lifeLocked(PlayerJoined)
	return true
}

// versionText is the text of LoginRejected(VersionMismatch): a v1-only
// server's is v1's, byte for byte.
func (lg *loginGate) versionText() string {
	s := lg.srv
	if s.cfg.MaxVersion == wire.Version {
		return fmt.Sprintf("this server speaks protocol version %d", wire.Version)
	}
	return fmt.Sprintf("this server speaks protocol versions %d to %d", wire.Version, s.cfg.MaxVersion)
}

// loginExt is the extension of a v2 LoginAccepted: the rules a client
// predicts its ship with (7.1).
func (lg *loginGate) loginExt() wire.LoginExt {
	s := lg.srv
	r := s.cfg.Rules
	return wire.LoginExt{
		ShipSpeed: uint16(r.ShipSpeed), ShipW: uint8(r.ShipW), ShipH: uint8(r.ShipH),
		AreaW: uint16(r.AreaW), AreaH: uint16(r.AreaH), TickRate: uint8(r.TickRate),
		SnapshotTicks: uint8(s.cfg.SnapshotInterval), BlinkTicks: uint8(r.BlinkTicks),
	}
}

// sessionsFrom returns the number of sessions logged in from ip's key
// (ipkey.Of: from its IPv6 /64); s.mu is held. It walks every session:
// logins are rate limited and sessions capped (MaxSessions), so the walk
// is short and rare.
func (lg *loginGate) sessionsFrom(ip netip.Addr) int {
	s := lg.srv
	key := ipkey.Of(ip)
	n := 0
	for _, ss := range s.sessions {
		if ipkey.Of(ss.ip) == key {
			n++
		}
	}
	return n
}

// kick ends a connection with Logout(Kicked).
func kick(c net.Conn) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	c.Write(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutKicked}))
}

// newSessionID returns a random session id, not 0, not in use.
func (lg *loginGate) newSessionID() uint32 {
	s := lg.srv
	var b [4]byte
	for {
		rand.Read(b[:])
		id := binary.LittleEndian.Uint32(b[:])
		if _, used := s.sessions[id]; id != 0 && !used {
			return id
		}
	}
}

// badUTF8Name reports a LoginRequest frame (type and body) that is well
// formed but for its name, which is not valid UTF-8: InvalidName (3.2).
func badUTF8Name(frame []byte) bool {
	if len(frame) < 4 || frame[0] != byte(wire.MsgLoginRequest) {
		return false
	}
	n := int(binary.LittleEndian.Uint16(frame[2:]))
	if frame[1] == wire.Version2 { // bytes may follow the name (7.1)
		return n <= len(frame)-4 && !utf8.Valid(frame[4:4+n])
	}
	return n == len(frame)-4 && !utf8.Valid(frame[4:])
}
