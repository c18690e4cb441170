package main

// The game in the browser (GOOS=js): the page (package web) loads the
// wasm; the game joins the page's server over WebTransport (net/wtjs).
// Its options come from the page's address and from what the page
// learnt of its server (globalThis.rtypeConfig, set by index.html from
// web's config.json):
//
//	/?room=CODE&name=NAME   join that room at once (PROTOCOL.md 7.14)
//	/?code=CODE             join a hosted game by its code, looked up at
//	                        the page's server's rendezvous (10.8)
//	&addr=HOST:PORT         the server's WebTransport address
//	&hash=HEX[,HEX]         SHA-256 hashes of its certificates
//	&mode=classic|stage     the mode asked for
//	&mute=1  &debug=1       no sound; debug logs (the console)
//
// The settings live in the page's localStorage (game/settings); there is
// no hosting (game.StartHost fails) and no recording of replays.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game"
	"rtype/internal/version"
	"rtype/net/webaddr"
	"rtype/net/wire"
	"rtype/net/wtjs"
	"rtype/render"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "rtype:", err)
		showError(err)
		os.Exit(1)
	}
}

func run() error {
	opt, level, err := browserOptions(js.Global())
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)
	log.Info("rtype starting in the browser", "version", version.String(), "server", opt.Server, "room", opt.Room)
	opt.Context, opt.Logger = context.Background(), log
	g, err := game.New(opt)
	if err != nil {
		return err
	}
	ebiten.SetWindowTitle("R-Type")
	ebiten.SetWindowSize(render.Width, render.Height)
	ebiten.SetRunnableOnUnfocused(true)
	if err := ebiten.RunGame(g); err != nil && !errors.Is(err, ebiten.Termination) {
		return err
	}
	return nil
}

// browserOptions reads the game's options from the page's address and
// from globalThis.rtypeConfig ({addr, certHashes: [hex]}); the address's
// parameters win.
func browserOptions(global js.Value) (game.Options, slog.Level, error) {
	var opt game.Options
	loc := global.Get("location")
	q, err := url.ParseQuery(strings.TrimPrefix(loc.Get("search").String(), "?"))
	if err != nil {
		return opt, 0, fmt.Errorf("the page's address has a bad query (%v): use /?room=CODE&name=NAME", err)
	}
	addr, hashes, join := "", "", ""
	if cfg := global.Get("rtypeConfig"); cfg.Type() == js.TypeObject {
		if j := cfg.Get("join"); j.Type() == js.TypeString {
			join = j.String()
		}
		if a := cfg.Get("addr"); a.Type() == js.TypeString {
			addr = a.String()
		}
		if h := cfg.Get("certHashes"); h.Type() == js.TypeObject {
			var list []string
			for i := range min(h.Length(), 8) {
				list = append(list, h.Index(i).String())
			}
			hashes = strings.Join(list, ",")
		}
	}
	if a := q.Get("addr"); a != "" {
		addr = a
	}
	if h := q.Get("hash"); h != "" {
		hashes = h
	}
	hs, err := webaddr.ParseHashes(strings.Split(hashes, ","))
	if err != nil {
		return opt, 0, fmt.Errorf("the certificate hash %w", err)
	}
	t := &wtjs.Transport{CertHashes: hs}
	if addr != "" {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return opt, 0, fmt.Errorf("the server's address %q is not HOST:PORT", addr)
		}
	}
	opt.Transport = t
	opt.Server = addr
	opt.Name = q.Get("name")
	opt.Mute = q.Get("mute") == "1" || q.Get("mute") == "true"
	opt.Port = -1
	if room := q.Get("room"); room != "" {
		if addr == "" {
			return opt, 0, errors.New("this page does not know its game server, so it cannot join a room: open the link the server gives")
		}
		opt.Join, opt.Room = addr, room
	}
	if join != "" {
		opt.Rendezvous = join
	}
	if code := strings.TrimSpace(q.Get("code")); code != "" && opt.Room == "" {
		if join == "" {
			return opt, 0, errors.New("this page's server runs no rendezvous, so it cannot join a game by its code: open the game's page on your rendezvous")
		}
		if _, ok := wire.ParseRoomCode(strings.ToUpper(code)); !ok {
			return opt, 0, fmt.Errorf("%q is not a room code: 6 letters and digits, as your friend's lobby shows it", code)
		}
		opt.Join = strings.ToUpper(code)
	}
	switch q.Get("mode") {
	case "":
	case "classic":
		opt.Mode = wire.ModeClassic
	case "stage":
		opt.Mode = wire.ModeStage
	default:
		return opt, 0, fmt.Errorf("the mode %q: classic or stage", q.Get("mode"))
	}
	level := slog.LevelInfo
	if q.Get("debug") == "1" {
		level = slog.LevelDebug
	}
	return opt, level, nil
}

// showError tells the page why the game could not start (the page shows
// it in place of the game).
func showError(err error) {
	if f := js.Global().Get("rtypeFailed"); f.Type() == js.TypeFunction {
		f.Invoke(err.Error())
	}
}
