package web

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"rtype/net/selfcert"
	"sync"
	"time"
)

// Browsers give WebTransport to secure pages only: https, or http from
// this machine (localhost, 127.0.0.1). A friend on the LAN opens the
// page by the host's address, so the page must come over https: Serve
// answers https and http on one port (a TLS handshake starts with byte
// 0x16, which no HTTP request does), with a certificate of its own
// unless the operator gives one. The browser warns about a self-made
// certificate once; the game's own connection is trusted through the
// hashes of config.json.

// SelfSigned makes a self-signed ECDSA certificate for hosts (names or
// IP addresses), valid for validity.
func SelfSigned(hosts []string, validity time.Duration) (tls.Certificate, error) {
	now := time.Now()
	return selfcert.Make("R-Type game page", hosts, now.Add(-time.Hour), now.Add(validity))
}

// Serve serves h on ln until ctx ends: https with cert (when not nil)
// and http on the same port. It returns when the serving ends.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, cert *tls.Certificate, log *slog.Logger) error {
	var get func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	if cert != nil {
		get = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return cert, nil }
	}
	return ServeCertificate(ctx, ln, h, get, log)
}

// ServeCertificate is Serve with the https certificate of each handshake
// given by get (a certificate that follows its operator's renewals, say);
// a nil get serves http only.
func ServeCertificate(ctx context.Context, ln net.Listener, h http.Handler, get func(*tls.ClientHelloInfo) (*tls.Certificate, error), log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	go func() {
		<-ctx.Done()
		ln.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if get == nil {
		err := hs.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
	cfg := &tls.Config{GetCertificate: get, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12}
	hs.TLSConfig = cfg
	plain := newChanListener(ln.Addr())
	tlsl := newChanListener(ln.Addr())
	go func() {
		err := hs.Serve(plain)
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Debug("web: http", "err", err)
		}
	}()
	go func() {
		err := hs.Serve(tls.NewListener(tlsl, cfg))
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Debug("web: https", "err", err)
		}
	}()
	defer plain.Close()
	defer tlsl.Close()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		go sniff(c, plain, tlsl)
	}
}

// sniff reads the first byte of c (within 5 s) and hands c to the https
// listener when it starts a TLS handshake, else to the http one.
func sniff(c net.Conn, plain, tlsl *chanListener) {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReaderSize(c, 512)
	b, err := br.Peek(1)
	if err != nil {
		c.Close()
		return
	}
	c.SetReadDeadline(time.Time{})
	pc := &peekedConn{Conn: c, r: br}
	if b[0] == 0x16 {
		tlsl.push(pc)
	} else {
		plain.push(pc)
	}
}

// peekedConn is a conn whose first bytes were read into r.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// chanListener is a net.Listener of the conns pushed to it.
type chanListener struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, conns: make(chan net.Conn), closed: make(chan struct{})}
}

// push hands c to Accept, or closes it once the listener is closed.
func (l *chanListener) push(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.closed:
		c.Close()
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return l.addr }

var _ net.Listener = (*chanListener)(nil)
