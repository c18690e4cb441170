//go:build !js

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"rtype/game"
	"rtype/game/core"
	"rtype/web"
)

// defaultWebPort is where the game serves its page (-web), or the next
// free port of the ten after it.
const defaultWebPort = 4280

// serveWeb serves the game's page (package web) on addr, or on the next
// free port of the ten after addr's when that one is taken, for the game
// this process hosts (game.HostedWebTransport), until ctx ends. It
// returns the page's URLs: this machine's LAN addresses, then 127.0.0.1.
func serveWeb(ctx context.Context, addr string, log *slog.Logger) ([]string, error) {
	h, err := web.New(web.Config{Server: game.HostedWebTransport, Logger: log})
	if err != nil {
		return nil, err
	}
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("-web %q: want host:port, e.g. :%d: %w", addr, defaultWebPort, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("-web %q: bad port", addr)
	}
	var ln net.Listener
	for p := port; ; p++ {
		if ln, err = net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p))); err == nil || port == 0 || p >= port+10 {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("-web: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("the game's page stopped", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	var urls []string
	for _, a := range core.JoinAddrs(ln.Addr().(*net.TCPAddr).Port) {
		urls = append(urls, "http://"+a+"/")
	}
	if !h.HasGame() {
		log.Warn("the page has no game for browsers: ./build.sh build makes one", "addr", ln.Addr())
	}
	return urls, nil
}
