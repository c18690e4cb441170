package game

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/settings"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render"
)

// dialTimeout bounds a whole dial (TCP connect, login, bind), so that an
// address that never answers ends on an error screen.
const dialTimeout = 12 * time.Second

// dialer runs client.Dial in a goroutine; the scene polls it each tick.
type dialer struct {
	addr   string
	cancel context.CancelFunc
	res    chan dialResult
}

type dialResult struct {
	c   *client.Client
	rec *recording
	err error
}

// startDial joins addr asking for mode (wire.Mode*).
func startDial(g *Game, addr string, mode uint8) *dialer {
	return startDialWith(g, addr, client.Config{Mode: mode})
}

// startDialWith joins addr with cfg, whose address, name, logger,
// version and recording it fills in.
func startDialWith(g *Game, addr string, cfg client.Config) *dialer {
	ctx, cancel := context.WithTimeout(g.opt.Context, dialTimeout)
	d := &dialer{addr: addr, cancel: cancel, res: make(chan dialResult, 1)}
	name := g.Name()
	log := g.log.With("component", "client")
	g.log.Info("connecting", "addr", addr, "name", name, "mode", wire.ModeName(cfg.Mode), "spectate", cfg.Spectate)
	dir, limit := g.opt.ReplayDir, int64(g.settings.ReplayCapMB)<<20
	cfg.Addr, cfg.Name, cfg.Logger, cfg.Version = addr, name, log, g.opt.Protocol
	if cfg.Transport == nil {
		cfg.Transport = g.opt.Transport // WebTransport in the browser
	}
	if cfg.Spectate && cfg.Version != 0 && !wire.NewFeatures(cfg.Version, wire.Revision).Spectate {
		cfg.Version = 0 // spectators are v2's (7.17): Dial says so
	}
	go func() {
		for try := 0; ; try++ {
			rec := startRecording(dir, limit, name, g.log)
			cfg.Tap = rec.tap()
			c, err := client.Dial(ctx, cfg)
			if err != nil {
				rec.discard()
				rec = nil
			}
			// A game that just ended takes a moment to make room for the
			// next one ("Play again"): try again a few times.
			if rej, ok := errorsAs[*client.RejectedError](err); ok && rej.Reason == wire.RejectGameEnding && try < 6 {
				select {
				case <-time.After(time.Second):
					continue
				case <-ctx.Done():
				}
			}
			d.res <- dialResult{c, rec, err}
			return
		}
	}()
	return d
}

// poll returns the result once Dial has returned.
func (d *dialer) poll() (dialResult, bool) {
	select {
	case r := <-d.res:
		d.cancel()
		return r, true
	default:
		return dialResult{}, false
	}
}

// abort cancels the dial; a client that connects anyway is closed.
func (d *dialer) abort() {
	d.cancel()
	go func() {
		if r := <-d.res; r.c != nil {
			r.c.Close()
			r.rec.close()
		}
	}()
}

// ConnectingScene joins a server, with a way to cancel.
type ConnectingScene struct {
	addr    string
	hosting bool
	d       *dialer
	watch   *watchTarget // spectating (7.17), or nil
}

// NewConnectingScene starts joining addr.
func NewConnectingScene(g *Game, addr string, hosting bool) *ConnectingScene {
	return &ConnectingScene{addr: addr, hosting: hosting, d: startDial(g, addr, g.joinMode())}
}

// Update implements Scene.
func (s *ConnectingScene) Update(g *Game) error {
	if g.in.Back || (g.in.Click && g.in.In(render.Width/2-120, 470, 240, 50)) {
		s.d.abort()
		g.log.Info("connection cancelled", "addr", s.addr)
		g.toMenu()
		return nil
	}
	if r, ok := s.d.poll(); ok {
		if s.watch != nil {
			g.watching(r, *s.watch)
			return nil
		}
		g.connected(r, s.addr, s.hosting)
	}
	return nil
}

// connected goes on after a dial: to the play, or to the error screen.
func (g *Game) connected(r dialResult, addr string, hosting bool) {
	if r.err != nil {
		g.log.Warn("could not join", "addr", addr, "err", r.err)
		g.stopHost()
		retry := func() Scene { return NewConnectingScene(g, addr, false) }
		if hosting {
			retry = func() Scene { return NewHostingScene(g) }
		}
		g.setScene(NewErrorScene(g, r.err, retry))
		return
	}
	if !hosting {
		g.settings.Recent = settings.AddRecent(g.settings.Recent, addr)
		g.saveSettings()
	}
	g.session = NewSession(r.c, addr, hosting)
	g.session.rec = r.rec
	g.log.Info("joined", "addr", addr, "player", r.c.Player())
	g.setScene(NewPlayScene(g))
}

// Draw implements Scene.
func (s *ConnectingScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	title := "Connecting"
	if s.watch != nil {
		title = "Connecting to watch"
	}
	render.Text(screen, title, g.fonts.Title, render.Width/2, 240, render.Center, render.ColText)
	render.Text(screen, s.addr, g.fonts.MonoBig, render.Width/2, 320, render.Center, render.ColAccent)
	drawSpinner(screen, g, render.Width/2, 410)
	g.atlas.DrawItem(screen, g.fonts, render.Item{X: render.Width/2 - 120, Y: 470, W: 240, H: 50, Label: "Cancel", Slider: -1, Selected: true}, g.T())
	render.Hint(screen, g.fonts, "Esc: cancel")
}

func drawSpinner(screen *ebiten.Image, g *Game, cx, cy float64) {
	t := g.T()
	for i := range 8 {
		a := float64(i) / 8 * 2 * math.Pi
		phase := math.Mod(t*1.5-float64(i)/8+8, 1)
		g.atlas.FillRect(screen, cx+22*math.Cos(a)-4, cy+22*math.Sin(a)-4, 8, 8, render.Fade(render.ColAccent, 0.2+0.8*(1-phase)))
	}
}

// NewHostingScene starts hosting what g.hostCfg says (or shows why it
// cannot), unless a host runs, and opens the lobby of the host's room
// (7.14): a public room of the hosted mode that takes players in while it
// plays; the host owns it.
func NewHostingScene(g *Game) Scene {
	if g.host == nil {
		hc := g.hostCfg
		hc.Name, hc.Discovery, hc.WebTransport = g.Name(), g.opt.DiscoveryListen, g.opt.WebTransport
		hc.Rendezvous, hc.PortMap, hc.WebPort = g.rendezvousAddr(), g.opt.PortMap, urlPort(g.opt.WebURL)
		h, err := StartHost(g.hostPort(), hc, g.log)
		if err != nil {
			return NewErrorScene(g, err, func() Scene { return NewHostingScene(g) })
		}
		g.host = h
	}
	return NewLobbyConnectScene(g, g.host.LocalAddr(), true, roomAction{create: true, st: wire.RoomSettings{
		Mode: g.host.Mode, Difficulty: wire.DifficultyNormal, MaxPlayers: wire.MaxPlayers, Flags: wire.RoomPublic | wire.RoomJoinLate}})
}

func (g *Game) hostPort() int {
	if g.opt.Port >= 0 {
		return g.opt.Port
	}
	return wire.DefaultPort
}

// ErrorScene shows why joining failed or the connection ended, then goes
// back to the menu.
type ErrorScene struct {
	title string
	lines []string
	tip   string
	menu  Menu
	top   float64
	h     float64
}

// NewErrorScene explains err; retry, when not nil, is offered as "Try
// again".
func NewErrorScene(g *Game, err error, retry func() Scene) *ErrorScene {
	msg := capitalize(err.Error())
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "?") && !strings.HasSuffix(msg, "\"") {
		msg += "."
	}
	s := &ErrorScene{title: errorTitle(err), tip: errorTip(err)}
	// The message may carry a server's text: WrapText makes it lines that
	// fit the panel, even when it has no space to break at.
	s.lines = render.WrapText(msg, g.fonts.Body, errorPanelW-80)
	if len(s.lines) > 6 {
		s.lines = append(s.lines[:5], "…")
	}
	s.h = 130 + 34*float64(len(s.lines))
	if s.tip != "" {
		s.h += 44
	}
	s.top = max(60, (render.Height-s.h-200)/2)
	var items []MenuItem
	if rej, ok := errorsAs[*client.RejectedError](err); ok && (rej.Reason == wire.RejectNameTaken || rej.Reason == wire.RejectInvalidName) && retry != nil {
		items = append(items, MenuItem{Label: "Change name", Activate: func() {
			g.setScene(NewNameScene(g, retry, func() Scene { return NewTitleScene(g) }))
		}})
	}
	if retry != nil {
		items = append(items, MenuItem{Label: "Try again", Activate: func() { g.setScene(retry()) }})
	}
	items = append(items, MenuItem{Label: "Back to menu", Activate: func() { g.toMenu() }})
	s.menu = Menu{Items: items, X: render.Width/2 - 170, W: 340, RowH: 50, Gap: 10, Face: g.fonts.Body, Align: render.Center}
	s.menu.Y = s.top + s.h + 40
	g.log.Info("error shown", "title", s.title, "text", msg)
	return s
}

const errorPanelW = 820.0

// errorTip suggests what to do about err, or "".
func errorTip(err error) string {
	if tip, ok := browserTip(err); ok {
		return tip
	}
	if re, ok := errorsAs[*client.ReachError](err); ok {
		if strings.Contains(re.Error(), "refused") {
			return "Check the address, and that your friend's game is on the hosting screen or playing."
		}
		return "Check the address. A firewall may block the port (TCP and UDP)."
	}
	if rej, ok := errorsAs[*client.RejectedError](err); ok {
		switch rej.Reason {
		case wire.RejectNameTaken, wire.RejectInvalidName:
			return "Choose another name and try again."
		case wire.RejectGameFull:
			return "A game takes 4 pilots at most."
		}
		return ""
	}
	switch {
	case errors.Is(err, client.ErrTooMuch), errors.Is(err, client.ErrStalled):
		return "This server does not follow the protocol: the game left it. Join another one."
	case errors.Is(err, client.ErrBindTimeout):
		return "The host must let UDP through on the same port as TCP."
	case errors.Is(err, client.ErrConnectionLost):
		return "The host may have quit, or the network dropped."
	}
	return ""
}

// errorTitle names an error in a few words.
func errorTitle(err error) string {
	if le, ok := errorsAs[*client.LogoutError](err); ok {
		switch le.Reason {
		case wire.LogoutServerShutdown:
			return "The host ended the game"
		case wire.LogoutGameOver:
			return "Game over"
		}
		return "Disconnected"
	}
	if _, ok := errorsAs[*client.RejectedError](err); ok {
		return "Login refused"
	}
	if _, ok := errorsAs[*client.ReachError](err); ok {
		return "Can't reach the server"
	}
	switch {
	case errors.Is(err, client.ErrConnectionLost):
		return "Connection lost"
	case errors.Is(err, client.ErrBindTimeout), errors.Is(err, client.ErrLoginTimeout):
		return "No answer from the server"
	case errors.Is(err, client.ErrTooMuch), errors.Is(err, client.ErrStalled):
		return "The server broke the rules"
	case errors.Is(err, client.ErrProtocol):
		return "Incompatible server"
	case strings.Contains(err.Error(), "host the game"):
		return "Can't host"
	}
	return "Something went wrong"
}

// Update implements Scene.
func (s *ErrorScene) Update(g *Game) error {
	if g.in.Back {
		g.toMenu()
		return nil
	}
	s.menu.Update(&g.in)
	return nil
}

// Draw implements Scene.
func (s *ErrorScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	x := render.Width/2 - errorPanelW/2
	g.atlas.Panel(screen, x, s.top, errorPanelW, s.h)
	render.Text(screen, s.title, g.fonts.Title, render.Width/2, s.top+28, render.Center, render.ColWarn)
	y := s.top + 110
	for _, l := range s.lines {
		render.Text(screen, l, g.fonts.Body, render.Width/2, y, render.Center, render.ColText)
		y += 34
	}
	if s.tip != "" {
		render.Text(screen, s.tip, g.fonts.Small, render.Width/2, y+14, render.Center, render.ColDim)
	}
	s.menu.Draw(screen, g)
	render.Hint(screen, g.fonts, "Enter: choose  ·  Esc: back to menu")
}
