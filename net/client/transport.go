package client

import (
	"context"
	"errors"
	"net"
)

// Transport opens the two channels of a session to a server: the reliable
// stream that carries what TCP carries (the login and the session's
// messages, 3.1) and the datagram channel that carries what UDP carries
// (section 2 onwards), the same bytes under the same rules.
//
// The default, used when Config.Transport is nil, is TCP and UDP on the
// server's one port (1.1). The WebTransport binding (PROTOCOL.md,
// "WebTransport binding") opens one bidirectional stream and the
// session's datagrams of an HTTP/3 connection to https://HOST:PORT/rtype.
type Transport interface {
	// DialStream opens the reliable stream to addr ("host:port"). The
	// returned conn honours deadlines; closing it ends the session.
	DialStream(ctx context.Context, addr string) (net.Conn, error)
	// DialDatagrams opens the datagram channel of the session whose
	// stream is stream: each Write sends one datagram, each Read returns
	// one, and read deadlines are honoured.
	DialDatagrams(ctx context.Context, stream net.Conn) (net.Conn, error)
}

// ErrNoRebind is Rebind's error over a Config.Transport: only a UDP
// socket has a local port to move (3.4, Rebinding).
var ErrNoRebind = errors.New("client: Rebind moves a UDP socket: this session's transport has none")

// transportOf returns cfg's Transport, TCP and UDP when it has none.
func transportOf(cfg Config) Transport {
	if cfg.Transport != nil {
		return cfg.Transport
	}
	return tcpUDP{}
}
