package game

import (
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/core"
	"rtype/net/discovery"
	"rtype/net/wire"
	"rtype/render"
)

// JoinScene is the server browser: an address field, the games that
// answered on the LAN (PROTOCOL.md section 8) and the recent servers.
// While it is open, and only then, it sends a discovery query every
// second to Options.Discovery.
type JoinScene struct {
	field  TextField
	errMsg string
	// focus is -1 for the field, else a row: the LAN servers first, then
	// the recent ones.
	focus int
	// q asks the LAN; nil when Options.Discovery is "" or it failed
	// (lanErr says why).
	q      *discovery.Querier
	lanErr string
	// lan are the servers q found, refreshed by Update; rows their rows.
	lan  []discovery.Server
	rows []core.LANRow
}

// NewJoinScene returns the join screen, the field holding the last server,
// and starts asking the LAN.
func NewJoinScene(g *Game) *JoinScene {
	s := &JoinScene{field: TextField{Max: 64, Allow: func(r rune) bool { return r > ' ' && r < 0x7f }}, focus: -1}
	if len(g.settings.Recent) > 0 {
		s.field.Text = g.settings.Recent[0]
	}
	if g.opt.Discovery == "" {
		s.lanErr = "LAN search off"
		return s
	}
	q, err := discovery.NewQuerier(discovery.QuerierConfig{Dest: g.opt.Discovery, Logger: g.log.With("component", "discovery")})
	if err != nil {
		g.log.Warn("LAN search off", "err", err)
		s.lanErr = "LAN search off: " + err.Error()
		return s
	}
	s.q = q
	return s
}

// stopLAN stops the queries of the join screen when another scene takes
// its place (next, nil at the end).
func (g *Game) stopLAN(next Scene) {
	if j, ok := g.scene.(*JoinScene); ok && j != next && j.q != nil {
		j.q.Close()
		j.q = nil
	}
}

const (
	joinFieldX = render.Width/2 - 330
	joinFieldW = 660
	joinFieldY = 230
	joinColW   = 540
	joinLANX   = render.Width/2 - 20 - joinColW
	joinRecX   = render.Width/2 + 20
	joinListY  = 400
	joinRowH   = 38
	// joinRows is how many rows a column shows.
	joinRows = 7
	// joinRefresh is how often, in ticks, the LAN list is read again.
	joinRefresh = 10
)

// connect joins what text names: a room code (7.14), on the server of
// the row chosen, else the first found on the LAN, else the last one
// joined; or a server's address, whose best public room it quick joins.
func (s *JoinScene) connect(g *Game, text string) {
	if code, ok := roomCode(text); ok {
		addr := ""
		switch {
		case s.focus >= 0:
			addr = s.rowAddr(g, s.focus)
		case len(s.lan) > 0:
			addr = s.lan[0].Addr.String()
		case len(g.settings.Recent) > 0:
			addr = g.settings.Recent[0]
		default:
			s.errMsg = "A room code needs its server: choose one below, or join it once by its address"
			return
		}
		g.setScene(NewLobbyConnectScene(g, addr, false, roomAction{code: code}))
		return
	}
	addr, err := core.NormalizeAddr(text)
	if err != nil {
		s.errMsg = capitalize(err.Error())
		return
	}
	g.setScene(NewLobbyConnectScene(g, addr, false, roomAction{mode: g.joinMode()}))
}

// roomCode reads text as a room code: 6 characters of the code alphabet,
// dashes and spaces aside, typed in capitals or with a digit (a host
// name in small letters stays a host name).
func roomCode(text string) (wire.RoomCode, bool) {
	c, ok := wire.ParseRoomCode(text)
	if !ok || strings.ContainsAny(text, ".:") {
		return c, false
	}
	return c, strings.ContainsAny(text, "23456789") || strings.ToUpper(text) == text
}

// recent returns the recent servers shown.
func (s *JoinScene) recent(g *Game) []string {
	return g.settings.Recent[:min(len(g.settings.Recent), joinRows)]
}

// rowRect returns where row i (LAN first, then recent) is drawn.
func (s *JoinScene) rowRect(i int) (x, y float64) {
	if i < len(s.lan) {
		return joinLANX, joinListY + float64(i)*joinRowH
	}
	return joinRecX, joinListY + float64(i-len(s.lan))*joinRowH
}

// rowAddr returns the address row i joins.
func (s *JoinScene) rowAddr(g *Game, i int) string {
	if i < len(s.lan) {
		return s.lan[i].Addr.String()
	}
	return s.recent(g)[i-len(s.lan)]
}

// Update implements Scene.
func (s *JoinScene) Update(g *Game) error {
	if s.q != nil && (s.lan == nil || g.ticks%joinRefresh == 0) {
		s.lan = s.q.Servers()
		s.lan = s.lan[:min(len(s.lan), joinRows)]
		s.rows = s.rows[:0]
		for _, sv := range s.lan {
			s.rows = append(s.rows, core.DescribeLAN(sv))
		}
	}
	n := len(s.lan) + len(s.recent(g))
	s.focus = min(s.focus, n-1)
	g.in.TextMode = s.focus < 0
	if s.focus < 0 && s.field.Update(&g.in) {
		s.errMsg = ""
	}
	for i := range n {
		x, y := s.rowRect(i)
		if g.in.In(x, y, joinColW, joinRowH-4) {
			if g.in.MouseMoved {
				s.focus = i
			}
			if g.in.Click {
				s.connect(g, s.rowAddr(g, i))
				return nil
			}
		}
	}
	if g.in.Click && g.in.In(joinFieldX, joinFieldY, joinFieldW, 68) {
		s.focus = -1
	}
	switch {
	case g.in.Back:
		g.setScene(NewTitleScene(g))
	case g.in.Down && s.focus < n-1:
		s.focus++
	case g.in.Up && s.focus >= 0:
		s.focus--
	case g.in.Confirm:
		if s.focus >= 0 {
			s.connect(g, s.rowAddr(g, s.focus))
		} else {
			s.connect(g, s.field.Text)
		}
	}
	return nil
}

// Draw implements Scene.
func (s *JoinScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	render.Text(screen, "Join a game", g.fonts.Title, render.Width/2, 90, render.Center, render.ColText)
	render.Text(screen, joinHint, g.fonts.Small, render.Width/2, 180, render.Center, render.ColDim)
	g.atlas.Field(screen, g.fonts, joinFieldX, joinFieldY, joinFieldW, 68, s.field.Text, "192.168.1.20", s.focus < 0, g.T())
	if s.errMsg != "" {
		render.Text(screen, s.errMsg, g.fonts.Small, render.Width/2, joinFieldY+78, render.Center, render.ColWarn)
	}
	head := render.Fade(render.ColDim, 0.8)
	render.Text(screen, "ON YOUR NETWORK", g.fonts.Tiny, joinLANX, joinListY-26, render.Left, head)
	switch {
	case s.lanErr != "":
		render.Text(screen, s.lanErr, g.fonts.Small, joinLANX, joinListY+6, render.Left, render.ColDim)
	case len(s.lan) == 0:
		render.Text(screen, "Searching…", g.fonts.Small, joinLANX, joinListY+6, render.Left, render.ColDim)
	}
	for i, r := range s.rows {
		x, y := s.rowRect(i)
		g.atlas.DrawItem(screen, g.fonts, render.Item{
			X: x, Y: y, W: joinColW, H: joinRowH - 4, Label: r.Name, Value: r.Info,
			Slider: -1, Selected: i == s.focus, Disabled: r.Full, Face: g.fonts.Small, Align: render.Left,
		}, g.T())
	}
	recent := s.recent(g)
	render.Text(screen, "RECENT SERVERS", g.fonts.Tiny, joinRecX, joinListY-26, render.Left, head)
	if len(recent) == 0 {
		render.Text(screen, "None yet", g.fonts.Small, joinRecX, joinListY+6, render.Left, render.ColDim)
	}
	for i, r := range recent {
		x, y := s.rowRect(len(s.lan) + i)
		g.atlas.DrawItem(screen, g.fonts, render.Item{
			X: x, Y: y, W: joinColW, H: joinRowH - 4,
			Label: r, Slider: -1, Selected: len(s.lan)+i == s.focus, Face: g.fonts.Mono, Align: render.Left,
		}, g.T())
	}
	if len(s.lan)+len(recent) > 0 {
		render.Hint(screen, g.fonts, "Enter: join  ·  Up/Down: servers found and recent  ·  Esc: back")
	} else {
		render.Hint(screen, g.fonts, "Enter: join  ·  Esc: back")
	}
}
