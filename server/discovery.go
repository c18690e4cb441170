package server

import (
	"rtype/net/discovery"
	"rtype/net/wire"
)

// LAN discovery (PROTOCOL.md section 8): the server answers the queries
// that reach Config.Discovery with its port, name, modes, players and
// games.

// lanDiscovery is the server's LAN discovery: its responder, set by New
// and read-only afterwards.
type lanDiscovery struct {
	srv  *Server
	resp *discovery.Responder // or nil: the server answers no query
}

// open opens the discovery responder of cfg.Discovery, if any; a
// server whose discovery port is taken runs without it (8.1).
func (d *lanDiscovery) open() {
	s := d.srv
	if s.cfg.Discovery == "" {
		return
	}
	name := discovery.CleanName(s.cfg.Name)
	r, err := discovery.Listen(discovery.ResponderConfig{
		Listen:   s.cfg.Discovery,
		Info:     func() discovery.Info { return d.info(name) },
		Logger:   s.log,
		HostName: s.cfg.NameFromHost,
	})
	if err != nil {
		s.log.Warn("LAN discovery off: its port cannot be opened", "addr", s.cfg.Discovery, "err", err)
		return
	}
	d.resp = r
}

// DiscoveryAddr returns the address the discovery responder listens on,
// or "" when the server answers no discovery query.
func (s *Server) DiscoveryAddr() string {
	if s.disco.resp == nil {
		return ""
	}
	return s.disco.resp.Addr().String()
}

// serve starts answering discovery queries, until shutdown.
func (d *lanDiscovery) serve() {
	s := d.srv
	if d.resp == nil {
		return
	}
	s.log.Info("answering LAN discovery", "addr", s.DiscoveryAddr())
	s.wg.Add(1)
	go func() { defer s.wg.Done(); d.resp.Serve() }()
}

// close stops the responder, if any.
func (d *lanDiscovery) close() {
	if d.resp != nil {
		d.resp.Close()
	}
}

// info is what an Answer says of the server now (8.3): a mode
// is offered when a login asking for it would find a game (findGame).
func (d *lanDiscovery) info(name string) discovery.Info {
	s := d.srv
	info := discovery.Info{
		Port: uint16(s.Port()), DefaultMode: s.cfg.Mode, Versions: 0x03, Revision: wire.Revision,
		Capacity: uint16(min(s.cfg.MaxSessions, 0xFFFF)), MaxGames: uint16(min(s.cfg.MaxGames, 0xFFFF)), Name: name,
	}
	modes := []uint8{wire.ModeClassic, wire.ModeStage}
	if !wire.NewFeatures(uint8(s.cfg.MaxVersion), wire.Revision).Modes {
		// v1 logins play Classic (7.12).
		info.Versions, info.Revision, info.DefaultMode = 0x01, 0, wire.ModeClassic
		modes = modes[:1]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	running := 0
	var open uint8
	for _, g := range s.games {
		if g.empty() {
			continue
		}
		running++
		if !g.over && g.freePlayer() != wire.NoPlayer {
			open |= discovery.ModeBit(g.mode)
		}
	}
	info.Players = uint16(min(len(s.sessions), int(info.Capacity)))
	info.Games = uint16(min(running, int(info.MaxGames)))
	if len(s.sessions) < s.cfg.MaxSessions {
		for _, m := range modes {
			if running < s.cfg.MaxGames || open&discovery.ModeBit(m) != 0 {
				info.Modes |= discovery.ModeBit(m)
			}
		}
	}
	return info
}
