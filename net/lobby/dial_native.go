//go:build !js

package lobby

import (
	"context"
	"net"
	"time"
)

// dialTCP opens a login's TCP connection to addr, within timeout.
func dialTCP(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	return d.DialContext(ctx, "tcp", addr)
}
