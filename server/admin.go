package server

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"rtype/net/wire"
	"rtype/server/store"
)

// The errors of the operator's actions.
var (
	// ErrNoSession is Kick's error for a session that is not logged in.
	ErrNoSession = errors.New("server: no such session")
	// ErrNoGame is CloseGame's error for a game that is not running.
	ErrNoGame = errors.New("server: no such game")
)

// BanList is where the server keeps its bans (Config.Bans) so that they
// survive a restart. *store.Store, the leaderboard's SQLite file, is one.
type BanList interface {
	// AddBan stores a ban durably and returns it with its ID set.
	AddBan(ctx context.Context, b store.Ban) (store.Ban, error)
	// RemoveBan deletes the ban of that ID.
	RemoveBan(ctx context.Context, id int64) error
	// Bans returns the bans in force at now.
	Bans(ctx context.Context, now time.Time) ([]store.Ban, error)
}

var _ BanList = (*store.Store)(nil)

// banTimeout bounds an operation of the ban list.
const banTimeout = 10 * time.Second

// loadBans reads the bans of cfg.Bans, for New.
func loadBans(bl BanList) ([]store.Ban, error) {
	if bl == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), banTimeout)
	defer cancel()
	bans, err := bl.Bans(ctx, time.Now())
	if err != nil {
		return nil, fmt.Errorf("server: load the bans: %w", err)
	}
	return bans, nil
}

// banList is the bans the server holds: those of Config.Bans, loaded by
// New and synced by the store loop, and those made since. Guarded by
// Server.mu: a login reads it.
type banList struct {
	all  []store.Ban // in force or ended lately (Ban, bannedLocked)
	next int64       // the last ID of a ban kept in memory only
}

// bannedLocked returns the ban in force at now of the name or the address,
// if any; s.mu is held. Names compare ignoring case (3.2).
func (bl *banList) bannedLocked(name string, ip netip.Addr, now time.Time) (store.Ban, bool) {
	for _, b := range bl.all {
		if b.Until.After(now) && ((b.Name != "" && equalFold(b.Name, name)) || (b.Addr.IsValid() && b.Addr == ip)) {
			return b, true
		}
	}
	return store.Ban{}, false
}

// addLocked adds b, forgetting the bans ended at now; without a ban list
// (local) it gives b the next ID first. s.mu is held.
func (bl *banList) addLocked(b store.Ban, local bool, now time.Time) store.Ban {
	if local {
		bl.next++
		b.ID = bl.next
	}
	bl.all = slices.DeleteFunc(bl.all, func(o store.Ban) bool { return !o.Until.After(now) })
	bl.all = append(bl.all, b)
	return b
}

// removeLocked forgets the ban of that ID; s.mu is held.
func (bl *banList) removeLocked(id int64) {
	bl.all = slices.DeleteFunc(bl.all, func(b store.Ban) bool { return b.ID == id })
}

// inForceLocked returns the bans in force at now, oldest first; s.mu is
// held.
func (bl *banList) inForceLocked(now time.Time) []store.Ban {
	var out []store.Ban
	for _, b := range bl.all {
		if b.Until.After(now) {
			out = append(out, b)
		}
	}
	return out
}

// banText is the text of the LoginRejected of a banned login.
func banText(b store.Ban) string {
	t := "you are banned until " + b.Until.UTC().Format("2006-01-02 15:04") + " UTC"
	if b.Reason != "" {
		t += ": " + b.Reason
	}
	return t
}

// PlayerInfo describes a logged-in player, for the operator.
type PlayerInfo struct {
	Session uint32
	Player  uint8 // 0 to 3: its colour
	Name    string
	Addr    netip.Addr // of its TCP connection
	Version uint8      // protocol version, 1 or 2
	Joined  bool       // in the game's world (its UDP address bound)
	Ping    time.Duration
	HasPing bool // Ping is measured (after a few acknowledgements)
	Score   uint32
	Lives   uint8
}

// GameInfo describes a running game (a room), for the operator.
type GameInfo struct {
	ID      int
	Mode    string // "classic" or "stage"
	Stage   string // the stage's name in Stage mode
	Tick    uint32
	Over    bool
	Players []PlayerInfo // by player number
	// Spectators are its spectators (7.17), in the order they came:
	// Player is wire.NoPlayer, Score and Lives 0.
	Spectators []PlayerInfo
}

// Games returns the games running now with their players.
func (s *Server) Games() []GameInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]GameInfo, 0, len(s.games))
	for _, g := range s.games {
		if g.empty() {
			continue
		}
		gi := GameInfo{ID: g.id, Mode: wire.ModeName(g.mode), Tick: g.world.Tick(), Over: g.over}
		if g.mode == wire.ModeStage {
			gi.Stage = s.cfg.Stage.Name
		}
		for _, ss := range g.sessions {
			if ss == nil {
				continue
			}
			rtt, ok := ss.link.RTT()
			gi.Players = append(gi.Players, PlayerInfo{Session: ss.id, Player: ss.player, Name: ss.name, Addr: ss.ip,
				Version: ss.version, Joined: ss.joined, Ping: rtt, HasPing: ok,
				Score: g.world.Score(ss.player), Lives: g.world.Lives(ss.player)})
		}
		for _, ss := range g.spectators {
			rtt, ok := ss.link.RTT()
			gi.Spectators = append(gi.Spectators, PlayerInfo{Session: ss.id, Player: wire.NoPlayer, Name: ss.name, Addr: ss.ip,
				Version: ss.version, Joined: ss.joined, Ping: rtt, HasPing: ok})
		}
		out = append(out, gi)
	}
	return out
}

// Kick ends a session with Logout(Kicked); the other players of its game
// see it leave (PlayerLeft(Kicked)).
func (s *Server) Kick(session uint32) error {
	s.mu.Lock()
	ss := s.sessions[session]
	s.mu.Unlock()
	if ss == nil {
		return fmt.Errorf("%w: %d", ErrNoSession, session)
	}
	s.log.Info("kicked", "session", ss.id, "name", ss.name, "reason", "by the operator")
	s.stats.kicks.Add(1)
	s.leave(ss, wire.LeftKicked, int(wire.LogoutKicked))
	return nil
}

// CloseGame ends a game: every session of it gets
// Logout(ServerShutdown), as when the server stops, and the game ends.
func (s *Server) CloseGame(id int) error {
	s.mu.Lock()
	var victims []*session
	found := false
	for _, g := range s.games {
		if g.id == id && !g.empty() {
			found = true
			for _, ss := range g.sessions {
				if ss != nil {
					victims = append(victims, ss)
				}
			}
			victims = append(victims, g.spectators...)
		}
	}
	s.mu.Unlock()
	if !found {
		return fmt.Errorf("%w: %d", ErrNoGame, id)
	}
	s.log.Info("game closed", "game", id, "reason", "by the operator", "players", len(victims))
	for _, ss := range victims {
		s.stats.kicks.Add(1)
		s.leave(ss, wire.LeftKicked, int(wire.LogoutServerShutdown))
	}
	return nil
}

// Ban refuses a name or an address until b.Until: it is stored in the
// ban list (Config.Bans; without one it lasts until the server stops),
// then the sessions it matches are kicked (Logout(Kicked)) and their
// logins refused (LoginRejected(RateLimited) with a text that gives the
// end and the reason). It returns the ban as stored and the sessions
// kicked.
func (s *Server) Ban(ctx context.Context, b store.Ban) (store.Ban, int, error) {
	b.Addr = b.Addr.Unmap()
	if s.cfg.Bans != nil {
		var err error
		if b, err = s.cfg.Bans.AddBan(ctx, b); err != nil {
			return b, 0, err
		}
	} else {
		if (b.Name == "") == !b.Addr.IsValid() || b.Until.IsZero() {
			return b, 0, fmt.Errorf("server: ban: want a name or an address, exactly one, and an end time")
		}
		if b.Created.IsZero() {
			b.Created = time.Now()
		}
	}
	now := time.Now()
	s.mu.Lock()
	b = s.bans.addLocked(b, s.cfg.Bans == nil, now)
	var victims []uint32
	for id, ss := range s.sessions {
		if (b.Name != "" && equalFold(b.Name, ss.name)) || (b.Addr.IsValid() && b.Addr == ss.ip) {
			victims = append(victims, id)
		}
	}
	s.mu.Unlock()
	s.stats.bansMade.Add(1)
	s.log.Info("ban", "ban", b.ID, "name", b.Name, "addr", b.Addr, "until", b.Until, "reason", b.Reason)
	n := 0
	for _, id := range victims {
		if s.Kick(id) == nil {
			n++
		}
	}
	return b, n, nil
}

// Unban lifts the ban of that ID.
func (s *Server) Unban(ctx context.Context, id int64) error {
	if s.cfg.Bans != nil {
		if err := s.cfg.Bans.RemoveBan(ctx, id); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.bans.removeLocked(id)
	s.mu.Unlock()
	s.log.Info("ban lifted", "ban", id)
	return nil
}

// Bans returns the bans in force now, oldest first.
func (s *Server) Bans() []store.Ban {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bans.inForceLocked(now)
}

// Ready reports whether the server serves (Run started), is not shutting
// down, and reaches what it shares with its fleet: Redis (Config.Fleet)
// and the database (storeLink.up).
func (s *Server) Ready() bool {
	s.mu.Lock()
	ok := s.serving && !s.closed
	s.mu.Unlock()
	return ok && s.shared.up()
}
