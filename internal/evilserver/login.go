package evilserver

import (
	"net"

	"rtype/net/wire"
	"rtype/net/wire2"
)

// login reads the LoginRequest on c and returns the session's codec, or
// false when it answered (Config.Login, or VersionMismatch) or the
// request is not one. A version 2 login is played in v2 with
// Config.Version2 only.
func (s *Server) login(c net.Conn, fr *wire.FrameReader) (codec, bool) {
	f, err := fr.ReadFrame()
	if err != nil || len(f) < 2 {
		return nil, false
	}
	parse := wire.ParseMessage
	if f[1] == wire.Version2 {
		parse = wire2.ParseMessage // the revision, mode and flags follow the name
	}
	m, err := parse(f)
	if err != nil || m.Type != wire.MsgLoginRequest {
		return nil, false
	}
	if s.cfg.Login != nil {
		c.Write(s.cfg.Login)
		return nil, false
	}
	switch {
	case m.Version == wire.Version:
		return codec1{}, true
	case m.Version == wire.Version2 && s.cfg.Version2:
		return codec2{}, true
	}
	c.Write(Rejected(wire.RejectVersionMismatch, []byte("this server speaks protocol version 1")))
	return nil, false
}
