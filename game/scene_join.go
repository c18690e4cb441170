package game

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/core"
	"rtype/game/settings"
	"rtype/net/discovery"
	"rtype/net/lobby"
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
	// rooms lists the public rooms (7.14) of the server row focused last;
	// inRooms: the focus is on its rows (roomSel), not on the servers.
	rooms    *roomBrowser
	inRooms  bool
	roomSel  int
	focusAt  uint64 // the tick the focus last moved
	lastFocs int
}

// roomBrowser is a lobby session (7.14) that lists one server's public
// rooms for the join screen. Joining one of them, or quick joining the
// server, goes on with the same session.
type roomBrowser struct {
	addr    string
	l       *lobby.Lobby
	dial    chan lobbyDial // until the login answers
	cancel  context.CancelFunc
	err     string
	listing wire.Room
	ping    time.Duration
}

// browseRooms starts listing addr's rooms.
func browseRooms(g *Game, addr string) *roomBrowser {
	ctx, cancel := context.WithTimeout(g.opt.Context, dialTimeout)
	b := &roomBrowser{addr: addr, dial: make(chan lobbyDial, 1), cancel: cancel}
	cfg := lobby.Config{Addr: addr, Name: g.Name(), Mode: g.joinMode(), Logger: g.log.With("component", "lobby")}
	go func() {
		l, err := lobby.Dial(ctx, cfg)
		if err == nil {
			err = l.List()
		}
		b.dial <- lobbyDial{l, err}
	}()
	return b
}

// update takes the login's answer and the listings; it asks for the
// rooms again every listEvery ticks.
func (b *roomBrowser) update(g *Game) {
	if b.dial != nil {
		select {
		case r := <-b.dial:
			b.dial = nil
			b.cancel()
			if r.err != nil {
				b.err = "No rooms: " + r.err.Error()
				if r.l != nil {
					r.l.Close()
				}
				break
			}
			b.l = r.l
		default:
		}
	}
	if b.l == nil {
		return
	}
	select {
	case <-b.l.Done():
		b.err, b.l = "No rooms: "+b.l.Err().Error(), nil
		return
	default:
	}
	b.listing, b.ping = b.l.Listing()
	if g.ticks%listEvery == 0 {
		b.l.List()
	}
}

// close ends the browser's session, once it answered.
func (b *roomBrowser) close() {
	if b == nil {
		return
	}
	b.cancel()
	if b.l != nil {
		b.l.Close()
		b.l = nil
	}
	if d := b.dial; d != nil {
		b.dial = nil
		closeWhenDialed(d)
	}
}

// take hands the browser's session over to the game (g.lobby), to join a
// room of addr; nil when it is not logged in to addr.
func (s *JoinScene) take(addr string) *lobby.Lobby {
	b := s.rooms
	if b == nil || b.addr != addr || b.l == nil {
		return nil
	}
	l := b.l
	b.l = nil
	return l
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
	if j, ok := g.scene.(*JoinScene); ok && j != next {
		if j.q != nil {
			j.q.Close()
			j.q = nil
		}
		j.rooms.close()
		j.rooms = nil
	}
}

const (
	joinFieldX = render.Width/2 - 330
	joinFieldW = 660
	joinFieldY = 230
	joinColW   = 390
	joinLANX   = 35
	joinRecX   = joinLANX + joinColW + 20
	joinRoomX  = joinRecX + joinColW + 20
	joinListY  = 400
	joinRowH   = 38
	// joinRows is how many rows a column shows.
	joinRows = 7
	// joinRefresh is how often, in ticks, the LAN list is read again.
	joinRefresh = 10
	// joinBrowseAfter is how long, in ticks, the focus stays on a server
	// before its rooms are asked for (a login: not one per row passed).
	joinBrowseAfter = 20
)

// connect joins what text names: a room code (7.14), found through the
// rendezvous when one is set (PROTOCOL.md Part V), else on the server of
// the row chosen, else the first found on the LAN, else the last one
// joined; or a server's address, whose best public room it quick joins.
func (s *JoinScene) connect(g *Game, text string) {
	if code, ok := roomCode(text); ok {
		if sc := g.codeJoin(text); sc != nil && s.focus < 0 {
			g.setScene(sc())
			return
		}
		addr := ""
		switch {
		case s.focus >= 0:
			addr = s.rowAddr(g, s.focus)
		case len(s.lan) > 0:
			addr = s.lan[0].Addr.String()
		case len(g.settings.Recent) > 0:
			addr = g.settings.Recent[0]
		default:
			s.errMsg = "A room code needs its server: choose one below, join it once by its address, or set a rendezvous in Settings"
			return
		}
		s.enter(g, addr, roomAction{code: code})
		return
	}
	addr, err := core.NormalizeAddr(text)
	if err != nil {
		s.errMsg = capitalize(err.Error())
		return
	}
	s.enter(g, addr, roomAction{mode: g.joinMode()})
}

// enter does act on addr: with the rooms' session of addr when the
// browser has one, else with a new login.
func (s *JoinScene) enter(g *Game, addr string, act roomAction) {
	l := s.take(addr)
	if l == nil {
		g.setScene(NewLobbyConnectScene(g, addr, false, act))
		return
	}
	var err error
	if act.code != (wire.RoomCode{}) {
		err = l.Join(act.code)
	} else {
		err = l.Quick(act.mode)
	}
	if err != nil {
		l.Close()
		g.setScene(NewLobbyConnectScene(g, addr, false, act))
		return
	}
	g.log.Info("joining rooms", "addr", addr, "name", g.Name(), "code", act.code.String(), "from", "room browser")
	g.lobby = l
	g.settings.Recent = settings.AddRecent(g.settings.Recent, addr)
	g.saveSettings()
	g.setScene(NewLobbyScene(g, addr, false))
}

// roomRows returns the rooms listed by the browser that are shown.
func (s *JoinScene) roomRows() []wire.RoomInfo {
	if s.rooms == nil {
		return nil
	}
	return s.rooms.listing.Rooms[:min(int(s.rooms.listing.Count), joinRows)]
}

// roomRect returns where room row i is drawn.
func roomRect(i int) (x, y float64) { return joinRoomX, joinListY + float64(i)*joinRowH }

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
	// The rooms of the server focused (7.14), once the focus rests on it.
	if s.focus != s.lastFocs {
		s.lastFocs, s.focusAt = s.focus, g.ticks
	}
	if s.focus >= 0 && g.ticks-s.focusAt >= joinBrowseAfter {
		if addr := s.rowAddr(g, s.focus); s.rooms == nil || s.rooms.addr != addr {
			s.rooms.close()
			s.rooms, s.inRooms, s.roomSel = browseRooms(g, addr), false, 0
		}
	}
	if s.rooms != nil {
		s.rooms.update(g)
	}
	rooms := s.roomRows()
	if s.inRooms && len(rooms) == 0 {
		s.inRooms = false
	}
	s.roomSel = max(0, min(s.roomSel, len(rooms)-1))
	for i, r := range rooms {
		x, y := roomRect(i)
		if g.in.In(x, y, joinColW, joinRowH-4) {
			if g.in.MouseMoved {
				s.inRooms, s.roomSel = true, i
			}
			if g.in.Click {
				s.enter(g, s.rooms.addr, roomAction{code: r.Code})
				return nil
			}
		}
	}
	if s.inRooms {
		g.in.TextMode = false
		switch {
		case g.in.Back, g.in.Left:
			s.inRooms = false
		case g.in.Down && s.roomSel < len(rooms)-1:
			s.roomSel++
		case g.in.Up && s.roomSel > 0:
			s.roomSel--
		case g.in.Confirm:
			s.enter(g, s.rooms.addr, roomAction{code: rooms[s.roomSel].Code})
		}
		return nil
	}
	if g.in.Right && s.focus >= 0 && len(rooms) > 0 && s.rooms.addr == s.rowAddr(g, s.focus) {
		s.inRooms = true
		return nil
	}
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
	} else if rv := g.rendezvousAddr(); rv != "" && canHost {
		render.Text(screen, render.Fit("A room code alone joins a game hosted anywhere, found through the rendezvous "+rv, g.fonts.Tiny, joinFieldW+200),
			g.fonts.Tiny, render.Width/2, joinFieldY+82, render.Center, render.ColDim)
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
	s.drawRooms(screen, g)
	switch {
	case s.inRooms:
		render.Hint(screen, g.fonts, "Enter: join the room  ·  Up/Down: rooms  ·  Left or Esc: servers")
	case len(s.lan)+len(recent) > 0:
		render.Hint(screen, g.fonts, "Enter: join  ·  Up/Down: servers found and recent  ·  Right: its rooms  ·  Esc: back")
	default:
		render.Hint(screen, g.fonts, "Enter: join  ·  Esc: back")
	}
}

// drawRooms draws the public rooms of the server focused last.
func (s *JoinScene) drawRooms(screen *ebiten.Image, g *Game) {
	head := render.Fade(render.ColDim, 0.8)
	b := s.rooms
	title := "ROOMS"
	if b != nil {
		title = "ROOMS ON " + b.addr
		if b.ping > 0 {
			title += fmt.Sprintf(" · %d MS", max(1, b.ping.Milliseconds()))
		}
	}
	render.Text(screen, render.Fit(title, g.fonts.Tiny, joinColW), g.fonts.Tiny, joinRoomX, joinListY-26, render.Left, head)
	say := ""
	switch {
	case b == nil:
		say = "Choose a server to see its rooms"
	case b.err != "":
		say = b.err
	case b.l == nil:
		say = "Asking…"
	case b.listing.Count == 0:
		say = "No public room: Enter quick joins"
	}
	if say != "" {
		render.Text(screen, render.Fit(say, g.fonts.Small, joinColW), g.fonts.Small, joinRoomX, joinListY+6, render.Left, render.ColDim)
	}
	for i, r := range s.roomRows() {
		x, y := roomRect(i)
		state := map[uint8]string{wire.RoomLobby: "waiting", wire.RoomPlaying: "playing", wire.RoomOver: "over"}[r.State]
		g.atlas.DrawItem(screen, g.fonts, render.Item{
			X: x, Y: y, W: joinColW, H: joinRowH - 4, Label: r.Code.String(),
			Value:  fmt.Sprintf("%s · %d/%d · %s", listedMode(r), r.Players, r.Max, state),
			Slider: -1, Selected: s.inRooms && i == s.roomSel, Disabled: r.Players >= r.Max || r.Flags&wire.RoomLocked != 0,
			Face: g.fonts.Small, Align: render.Left,
		}, g.T())
	}
}
