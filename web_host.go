//go:build !js

package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"rtype/game"
	"rtype/game/core"
	"rtype/web"
)

// wasmEnv names a test hook: the gzipped game the page serves instead of
// the one embedded (web/dist/rtype.wasm.gz), which a test's build of the
// game may lack.
const wasmEnv = "RTYPE_WEB_WASM"

// defaultWebPort is where the game serves its page (-web), or the next
// free port of the ten after it.
const defaultWebPort = 4280

// serveWeb serves the game's page (package web) on addr, or on the next
// free port of the ten after addr's when that one is taken, for the game
// this process hosts (game.HostedWebTransport), until ctx ends: https
// with a certificate made now (browsers give WebTransport to secure
// pages only, and a friend's page is not on this machine), and http on
// the same port. It returns the page's URLs: https on this machine's LAN
// addresses, then http on 127.0.0.1.
func serveWeb(ctx context.Context, addr string, log *slog.Logger) (urls []string, err error) {
	wc := web.Config{Server: game.HostedWebTransport, Logger: log}
	if f := os.Getenv(wasmEnv); f != "" {
		if wc.Wasm, err = os.ReadFile(f); err != nil {
			return nil, fmt.Errorf("$%s: %w", wasmEnv, err)
		}
	}
	h, err := web.New(wc)
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
	var hosts []string
	addrs := core.JoinAddrs(ln.Addr().(*net.TCPAddr).Port)
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		addrs = []string{ln.Addr().String()} // -web's host only
	}
	for _, a := range addrs {
		h, _, _ := net.SplitHostPort(a)
		hosts = append(hosts, h)
		if strings.HasPrefix(a, "127.") {
			urls = append(urls, "http://"+a+"/")
		} else {
			urls = append(urls, "https://"+a+"/")
		}
	}
	cert, err := web.SelfSigned(append(hosts, "localhost"), 30*24*time.Hour)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("-web: a certificate for the page: %w", err)
	}
	go func() {
		if err := web.Serve(ctx, ln, h, &cert, log); err != nil {
			log.Warn("the game's page stopped", "err", err)
		}
	}()
	if !h.HasGame() {
		log.Warn("the page has no game for browsers: ./build.sh build makes one", "addr", ln.Addr())
	}
	return urls, nil
}

// hostWebTransport makes the games hosted serve browsers when the page is
// served: on -webtransport's address, else on a free UDP port of -web's
// host (the page tells the browsers which).
func hostWebTransport(opt *game.Options) {
	if opt.Web == "" || opt.WebTransport != "" {
		return
	}
	host, _, err := net.SplitHostPort(opt.Web)
	if err != nil {
		return
	}
	opt.WebTransport = net.JoinHostPort(host, "0")
}
