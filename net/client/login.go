package client

import (
	"context"
	"fmt"
	"net"

	"rtype/net/wire"
)

// LogIn logs in to the server of cfg.Addr as cfg.Name with protocol
// cfg.Version (1, or 2 when 0: no fallback), and returns the session's TCP
// connection and its LoginAccepted, for a caller that binds and plays the
// session itself (internal/load: many light sessions from one process).
// Closing the connection ends the session. The errors are Dial's.
func LogIn(ctx context.Context, cfg Config) (net.Conn, wire.Message, error) {
	cfg = cfg.withDefaults()
	version := cfg.Version
	if version == 0 {
		version = wire.Version2
	}
	if version > wire.Version2 {
		return nil, wire.Message{}, fmt.Errorf("client: protocol version %d unknown: 1 or 2", version)
	}
	return dialLogin(ctx, cfg, version)
}
