//go:build !js

// Package wtconn turns a WebTransport session (webtransport-go) into the
// two connections of a session of the protocol (PROTOCOL.md Part IV): its
// first stream, as the TCP connection, and its datagrams, as a connected
// UDP socket. The native clients' transports share it: net/wtclient and
// net/rendezvous.
package wtconn

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/quic-go/webtransport-go"
)

// Stream returns the session's stream str as a net.Conn: closing it
// closes the session.
func Stream(str *webtransport.Stream, sess *webtransport.Session) net.Conn {
	return &streamConn{Stream: str, sess: sess}
}

// Datagrams returns the datagram channel of the session of stream, which
// Stream made, or which a wrapper of it (such as a lobby's, net/lobby)
// returns from its NetConn method.
func Datagrams(stream net.Conn) (net.Conn, error) {
	for {
		w, ok := stream.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		stream = w.NetConn()
	}
	sc, ok := stream.(*streamConn)
	if !ok {
		return nil, fmt.Errorf("wtconn: the stream %T is not a WebTransport session's", stream)
	}
	ctx, cancel := context.WithCancel(sc.sess.Context())
	return &datagramConn{sess: sc.sess, ctx: ctx, cancel: cancel}, nil
}

// streamConn is the session's stream; closing it closes the session.
type streamConn struct {
	*webtransport.Stream
	sess *webtransport.Session
}

func (c *streamConn) Close() error {
	c.Stream.Close()
	return c.sess.CloseWithError(0, "")
}

func (c *streamConn) LocalAddr() net.Addr  { return c.sess.LocalAddr() }
func (c *streamConn) RemoteAddr() net.Addr { return c.sess.RemoteAddr() }

// datagramConn is the session's datagrams as a connected UDP socket: one
// datagram per Write and per Read (cut to the buffer, as UDP does).
type datagramConn struct {
	sess   *webtransport.Session
	ctx    context.Context // done when closed or when the session ends
	cancel context.CancelFunc

	mu       sync.Mutex
	deadline time.Time // of Read
}

func (c *datagramConn) Read(b []byte) (int, error) {
	ctx := c.ctx
	c.mu.Lock()
	d := c.deadline
	c.mu.Unlock()
	if !d.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d)
		defer cancel()
	}
	p, err := c.sess.ReceiveDatagram(ctx)
	if err != nil {
		if c.ctx.Err() != nil {
			return 0, fmt.Errorf("webtransport datagrams: %w", net.ErrClosed)
		}
		if ctx.Err() != nil {
			return 0, os.ErrDeadlineExceeded
		}
		return 0, fmt.Errorf("webtransport datagrams: %w: %v", net.ErrClosed, err)
	}
	return copy(b, p), nil
}

func (c *datagramConn) Write(b []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, fmt.Errorf("webtransport datagrams: %w", net.ErrClosed)
	}
	if err := c.sess.SendDatagram(b); err != nil {
		return 0, fmt.Errorf("webtransport datagram of %d bytes: %w", len(b), err)
	}
	return len(b), nil
}

func (c *datagramConn) Close() error {
	c.cancel()
	return nil
}

func (c *datagramConn) LocalAddr() net.Addr  { return c.sess.LocalAddr() }
func (c *datagramConn) RemoteAddr() net.Addr { return c.sess.RemoteAddr() }

func (c *datagramConn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

func (c *datagramConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return nil
}

// SetWriteDeadline does nothing: Write queues the datagram in QUIC's
// queue (blocking only while it holds 32).
func (c *datagramConn) SetWriteDeadline(time.Time) error { return nil }
