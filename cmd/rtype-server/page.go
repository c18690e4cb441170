package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"rtype/server"
	"rtype/web"
)

// pageFlags serve the game's page (package web): -web ADDR. Browsers
// give WebTransport to secure pages only: https, or http from this
// machine (localhost, 127.0.0.1). With -tls-cert and -tls-key (the
// certificate of the WebTransport binding, one browsers trust) the page
// is served over HTTPS.
type pageFlags struct {
	addr *string
}

var pagef = pageFlags{
	addr: flag.String("web", "", "serve the game's page on `ADDR` (host:port): players open it in a browser and play over WebTransport (-webtransport); over HTTPS with -tls-cert/-tls-key"),
}

// start serves the page for srv until ctx ends; the channel gives the
// serving's end (closed at once when -web is not set).
func (p pageFlags) start(ctx context.Context, srv *server.Server, log *slog.Logger) (<-chan error, error) {
	done := make(chan error, 1)
	if *p.addr == "" {
		close(done)
		return done, nil
	}
	h, err := web.New(web.Config{Server: func() (web.Server, bool) {
		info, ok := srv.WebTransport()
		return web.Server{Addr: info.Addr, CertHashes: info.CertHashes}, ok
	}, Logger: log})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", *p.addr)
	if err != nil {
		return nil, fmt.Errorf("-web: %w", err)
	}
	cert, key := flagValue("tls-cert"), flagValue("tls-key")
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	scheme := "http"
	if cert != "" && key != "" {
		scheme = "https"
	}
	if !h.HasGame() {
		log.Warn("the game's page has no game: build the server with ./build.sh build", "addr", ln.Addr())
	}
	if _, ok := srv.WebTransport(); !ok {
		log.Warn("the game's page is served, but the server does not speak WebTransport: browsers cannot play without -webtransport")
	}
	log.Info("serving the game's page", "url", scheme+"://"+ln.Addr().String()+"/")
	go func() {
		var err error
		if scheme == "https" {
			err = hs.ServeTLS(ln, cert, key)
		} else {
			err = hs.Serve(ln)
		}
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	return done, nil
}

// flagValue is the value of the command-line flag name, "" when there
// is none.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}
