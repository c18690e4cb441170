package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"rtype/server"
	"rtype/web"
)

// pageFlags serve the game's page (package web): -web ADDR, https and
// http on that port. Browsers give WebTransport to secure pages only:
// https, or http from the browser's own machine. The https certificate
// is the operator's of -tls-cert and -tls-key when given (one browsers
// trust; its files are read again every 10 s, so a renewal needs no
// restart), else one made at start (browsers warn about it once).
type pageFlags struct {
	addr, join *string
}

var pagef = pageFlags{
	addr: flag.String("web", "", "serve the game's page on `ADDR` (host:port), https and http: players open it in a browser and play over WebTransport (-webtransport); https with the certificate of -tls-cert/-tls-key, else a self-made one"),
	join: flag.String("web-join", "", "with -web and no -rendezvous-listen: the `URL` of a rendezvous' lookup (https://rv.example.org/join, its -web page with a certificate browsers trust) through which the page joins hosted games by code"),
}

// start serves the page for srv until ctx ends; the channel gives the
// serving's end (closed at once when -web is not set), the port the
// page's TCP port (0 without -web).
func (p pageFlags) start(ctx context.Context, srv *server.Server, join http.Handler, log *slog.Logger) (<-chan error, uint16, error) {
	done := make(chan error, 1)
	if *p.addr == "" {
		close(done)
		return done, 0, nil
	}
	h, err := web.New(web.Config{Server: func() (web.Server, bool) {
		if srv == nil { // a rendezvous alone: browsers join hosted games by code
			return web.Server{}, false
		}
		info, ok := srv.WebTransport()
		return web.Server{Addr: info.Addr, CertHashes: info.CertHashes}, ok
	}, Join: join, JoinURL: *p.join, Logger: log})
	if err != nil {
		return nil, 0, err
	}
	var get func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	if certFile, keyFile := flagValue("tls-cert"), flagValue("tls-key"); certFile != "" && keyFile != "" {
		// Read again as the WebTransport binding does: a renewed
		// certificate serves the next handshake, without a restart.
		if get, err = server.OperatorCertificate(certFile, keyFile, 0, log); err != nil {
			return nil, 0, fmt.Errorf("-web: -tls-cert/-tls-key: %w", err)
		}
	} else {
		host, _, _ := net.SplitHostPort(*p.addr)
		cert, err := web.SelfSigned([]string{host, "localhost", "127.0.0.1"}, 30*24*time.Hour)
		if err != nil {
			return nil, 0, fmt.Errorf("-web: a certificate for the page: %w", err)
		}
		get = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &cert, nil }
	}
	ln, err := net.Listen("tcp", *p.addr)
	if err != nil {
		return nil, 0, fmt.Errorf("-web: %w", err)
	}
	if !h.HasGame() {
		log.Warn("the game's page has no game: build the server with ./build.sh build", "addr", ln.Addr())
	}
	if srv == nil {
		log.Info("the game's page joins hosted games by code through the rendezvous")
	} else if _, ok := srv.WebTransport(); !ok {
		log.Warn("the game's page is served, but the server does not speak WebTransport: browsers cannot play without -webtransport")
	}
	log.Info("serving the game's page", "addr", ln.Addr().String(), "url", "https://"+ln.Addr().String()+"/")
	go func() { done <- web.ServeCertificate(ctx, ln, h, get, log) }()
	return done, uint16(ln.Addr().(*net.TCPAddr).Port), nil
}

// flagValue is the value of the command-line flag name, "" when there
// is none.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}
