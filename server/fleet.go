package server

import (
	"context"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"rtype/net/wire"
	"rtype/server/fleet"
)

// Rooms across a fleet (PROTOCOL.md 7.18): with Config.Fleet, the server
// publishes its rooms to the fleet's Redis at every change and every
// FleetSync, and answers a lobby session's RoomJoin of a code it does
// not hold, or its RoomQuick when another server has a fuller public
// room, with RoomRedirect. The code lookup asks Redis from the session's
// reader goroutine, outside s.mu (bounded by the registry's timeout); the
// quick join reads what the last sync brought, under s.mu, without I/O.

// fleetLink is the server's side of its fleet: its counters and the
// loop that publishes the rooms (which it reads under Server.mu).
type fleetLink struct {
	srv       *Server
	poke      chan struct{} // cap 1: a room changed, sync now
	redirects [3]atomic.Uint64
	lookups   atomic.Uint64 // code lookups in Redis
}

// FleetStats counts what the fleet did, for monitoring.
type FleetStats struct {
	Enabled        bool   // Config.Fleet is set
	Up             bool   // the last Redis operation succeeded
	RedirectsCode  uint64 // RoomRedirect(Code) sent
	RedirectsQuick uint64 // RoomRedirect(Quick) sent
	Lookups        uint64 // codes looked up in Redis
	Errors         uint64 // Redis operations that failed
	Rejected       uint64 // entries read from Redis that did not verify under the fleet key, ignored
}

// FleetStats returns the fleet's counters.
func (s *Server) FleetStats() FleetStats {
	f := s.cfg.Fleet
	if f == nil {
		return FleetStats{}
	}
	return FleetStats{Enabled: true, Up: f.Up(), RedirectsCode: s.fleet.redirects[wire.RedirectCode].Load(),
		RedirectsQuick: s.fleet.redirects[wire.RedirectQuick].Load(), Lookups: s.fleet.lookups.Load(), Errors: f.Errors(),
		Rejected: f.Rejected()}
}

// pokeLocked asks the fleet loop to publish the rooms now.
func (fl *fleetLink) pokeLocked() {
	s := fl.srv
	if s.cfg.Fleet == nil {
		return
	}
	select {
	case fl.poke <- struct{}{}:
	default:
	}
}

// loop publishes the rooms until the server stops, then removes
// them from the fleet.
func (fl *fleetLink) loop() {
	s := fl.srv
	f := s.cfg.Fleet
	if f.PublicAddr() == "" {
		a := publicAddr(s.tcp.Addr().(*net.TCPAddr))
		if err := f.SetPublicAddr(a); err != nil {
			s.log.Error("fleet: no public address: set one (-public-addr)", "derived", a, "err", err)
			return
		}
		s.log.Info("fleet: public address derived from the listen address", "addr", a)
	}
	if !f.Signed() {
		s.log.Warn("fleet: no fleet key: entries are unsigned, and whoever can write to the Redis chooses where players are redirected")
	}
	t := time.NewTicker(s.cfg.FleetSync)
	defer t.Stop()
	for {
		fl.publishWebTransport()
		if err := f.Sync(context.Background(), fl.rooms()); err != nil {
			s.log.Debug("fleet sync", "err", err)
		}
		select {
		case <-s.done:
			if err := f.Sync(context.Background(), nil); err != nil {
				s.log.Warn("fleet: rooms not removed at the stop: they expire", "err", err)
			}
			return
		case <-t.C:
		case <-fl.poke:
		}
	}
}

// publishWebTransport tells the fleet where this server serves WebTransport
// and its certificates' hashes now (they rotate, 9.4), for the
// WebTransport fields of the RoomRedirects to it (7.18).
func (fl *fleetLink) publishWebTransport() {
	s := fl.srv
	info, ok := s.WebTransport()
	if !ok {
		return
	}
	s.cfg.Fleet.SetWebTransport(fleet.WebTransport{Addr: publicWTAddr(info.Addr, s.cfg.Fleet.PublicAddr()), CertHashes: info.CertHashes})
}

// publicWTAddr is the WebTransport binding's address as other servers
// send browsers to it: the binding's own, or, when it listens on every
// address, the public address's host with the binding's port.
func publicWTAddr(listen, public string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if h, _, err := net.SplitHostPort(public); err == nil {
			host = h
		}
	}
	return net.JoinHostPort(host, port)
}

// publicAddr derives the address other servers send players to from the
// listening one: its IP, or when it listens on every address, the
// machine's host name (os.Hostname); and its port.
func publicAddr(a *net.TCPAddr) string {
	host := a.IP.String()
	if a.IP.IsUnspecified() || a.IP == nil {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(a.Port))
}

// rooms returns the server's rooms as the fleet sees them.
func (fl *fleetLink) rooms() []fleet.Room {
	s := fl.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]fleet.Room, 0, len(s.rooms.byCode))
	for _, rm := range s.rooms.byCode {
		out = append(out, fleet.Room{Code: rm.code, Mode: rm.settings.Mode, State: rm.state, Players: uint8(rm.count()),
			Max: rm.settings.MaxPlayers, Flags: rm.settings.Flags, Created: rm.created.UnixMilli()})
	}
	return out
}

// fleetAnswer is what the fleet said of a RoomJoin's code.
type fleetAnswer struct {
	room   fleet.Room
	found  bool // another server holds it
	failed bool // Redis could not be asked
}

// lookup asks the fleet about the code of r, a RoomJoin of ss, when
// this server does not hold it; s.mu is not held.
func (fl *fleetLink) lookup(ss *session, r *wire.Room) (fleetAnswer, bool) {
	s := fl.srv
	f := s.cfg.Fleet
	if f == nil || r.Type != wire.MsgRoomJoin || !ss.features.Fleet || !r.Code.Valid() {
		return fleetAnswer{}, false
	}
	s.mu.Lock()
	_, local := s.rooms.byCode[r.Code]
	busy := ss.room != nil || ss.gone
	why, _ := s.rooms.codeLimitedLocked(ss.ip, time.Now()) // an address guessing codes costs Redis nothing
	limited := why != 0
	s.mu.Unlock()
	if local || busy || limited {
		return fleetAnswer{}, false
	}
	fl.lookups.Add(1)
	rm, found, err := f.Lookup(context.Background(), r.Code)
	if err != nil {
		s.log.Warn("fleet: cannot look up a room code", "session", ss.id, "err", err)
	}
	return fleetAnswer{room: rm, found: found, failed: err != nil}, true
}

// roomLocked answers r of ss from the fleet when 7.18 says so: a
// RoomJoin (whose code fleetLink.lookup asked about, a), or a RoomQuick. It
// reports whether it answered.
func (fl *fleetLink) roomLocked(ss *session, r *wire.Room, a fleetAnswer, asked bool, now time.Time) bool {
	s := fl.srv
	f := s.cfg.Fleet
	if f == nil || !ss.features.Fleet || ss.room != nil {
		return false
	}
	switch r.Type {
	case wire.MsgRoomJoin:
		if !asked || s.rooms.byCode[r.Code] != nil {
			return false
		}
		if why, _ := s.rooms.codeLimitedLocked(ss.ip, now); why != 0 {
			return false // RateLimited first (7.14)
		}
		switch {
		case a.found:
			fl.redirectLocked(ss, wire.RedirectCode, a.room)
		case a.failed: // NoSuchRoom, not counted as wrong
			s.rooms.refuseLocked(ss, wire.RoomNoSuchRoom, 0)
		default:
			return false // NoSuchRoom, counted (7.14)
		}
		return true
	case wire.MsgRoomQuick:
		mode := r.Mode
		if mode != wire.ModeClassic && mode != wire.ModeStage {
			mode = ss.mode
		}
		there := f.Public(mode)
		if len(there) == 0 {
			return false
		}
		if best := s.rooms.bestPublicLocked(mode, ss.name); best != nil && best.count() >= int(there[0].Players) {
			return false
		}
		fl.redirectLocked(ss, wire.RedirectQuick, there[0])
		return true
	}
	return false
}

// redirectLocked sends ss RoomRedirect to rm's server: rm, and the
// WebTransport binding of its server, are what entries that verified
// under the fleet key published (fleet.Registry), when it has one.
func (fl *fleetLink) redirectLocked(ss *session, why uint8, rm fleet.Room) {
	s := fl.srv
	fl.redirects[why].Add(1)
	wt, _ := s.cfg.Fleet.WebTransportOf(rm.Addr)
	s.log.Info("room redirect", "session", ss.id, "name", ss.name, "why", why, "room", rm.Code.String(), "to", rm.Addr,
		"webtransport", wt.Addr)
	s.rooms.buf = wire.AppendRedirect(s.rooms.buf[:0], &wire.Redirect{Why: why, Code: rm.Code, Addr: rm.Addr,
		WebTransport: wt.Addr, CertHashes: wt.CertHashes})
	s.chatHub.pushTo(ss, s.rooms.buf)
}
