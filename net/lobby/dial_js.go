//go:build js

package lobby

import (
	"context"
	"errors"
	"net"
	"time"
)

// dialTCP is a login's TCP connection, which a browser does not have:
// it logs in through Config.Transport (WebTransport). Leaving the dialer
// out of the browser's build leaves out package net's resolver.
func dialTCP(context.Context, string, time.Duration) (net.Conn, error) {
	return nil, errors.New("lobby: a browser has no TCP: set Config.Transport (WebTransport)")
}
