package game

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/settings"
	"rtype/net/client"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/render"
	"rtype/sim/stage"
)

// Rooms (PROTOCOL.md 7.14) in the client: hosting opens the lobby of the
// host's room; joining a server quick joins its best public room; a room
// code joins that room. The lobby shows the players with their colours
// and ready state, the chat, and the owner's controls; when the room's
// game starts, the play begins; after its game over, Play again comes
// back here.

// roomAction is what a lobby does once logged in.
type roomAction struct {
	create bool
	st     wire.RoomSettings // create
	code   wire.RoomCode     // join; zero: quick join
	mode   uint8             // quick join
	// tr opens the session (a code joined through a rendezvous,
	// codeTransport); nil: Options.Transport.
	tr client.Transport
}

// lobbyDial is the result of a lobby's dial.
type lobbyDial struct {
	l   *lobby.Lobby
	err error
}

// closeWhenDialed logs out the lobby a dial given up on brings, if any,
// when it comes.
func closeWhenDialed(d <-chan lobbyDial) {
	go func() {
		if r := <-d; r.l != nil {
			r.l.Close()
		}
	}()
}

// LobbyConnectScene logs in for rooms and does its action; a server
// without rooms falls back to joining its game directly.
type LobbyConnectScene struct {
	addr    string
	hosting bool
	tr      client.Transport // roomAction's
	cancel  context.CancelFunc
	res     chan lobbyDial
}

// NewLobbyConnectScene starts joining addr's rooms.
func NewLobbyConnectScene(g *Game, addr string, hosting bool, act roomAction) *LobbyConnectScene {
	ctx, cancel := context.WithTimeout(g.opt.Context, dialTimeout)
	s := &LobbyConnectScene{addr: addr, hosting: hosting, tr: act.tr, cancel: cancel, res: make(chan lobbyDial, 1)}
	tr := act.tr
	if tr == nil {
		tr = g.opt.Transport
	}
	name, mode := g.Name(), g.joinMode()
	log := g.log.With("component", "lobby")
	g.log.Info("joining rooms", "addr", addr, "name", name, "create", act.create, "code", act.code.String())
	go func() {
		l, err := lobby.Dial(ctx, lobby.Config{Addr: addr, Name: name, Mode: mode, Logger: log, Transport: tr})
		err = codeError(err, addr)
		if err == nil {
			switch {
			case act.create:
				err = l.Create(act.st)
			case act.code != (wire.RoomCode{}):
				err = l.Join(act.code)
			default:
				err = l.Quick(act.mode)
			}
			if err != nil {
				l.Close()
				l = nil
			}
		}
		s.res <- lobbyDial{l, err}
	}()
	return s
}

// Update implements Scene.
func (s *LobbyConnectScene) Update(g *Game) error {
	if g.in.Back {
		s.cancel()
		closeWhenDialed(s.res)
		g.toMenu()
		return nil
	}
	select {
	case r := <-s.res:
		s.cancel()
		var rej *client.RejectedError
		if s.tr == nil && (errors.Is(r.err, lobby.ErrNoRooms) || (errors.As(r.err, &rej) && rej.Reason == wire.RejectVersionMismatch)) {
			// An older server: its game, as before rooms.
			g.setScene(NewConnectingScene(g, s.addr, s.hosting))
			return nil
		}
		if r.err != nil {
			g.connected(dialResult{err: r.err}, s.addr, s.hosting)
			return nil
		}
		g.lobby = r.l
		if !s.hosting && s.tr == nil { // a code joined through a rendezvous is no server to remember
			g.settings.Recent = settings.AddRecent(g.settings.Recent, s.addr)
			g.saveSettings()
		}
		if s.tr != nil {
			g.via = lobbyVia{l: r.l, tr: s.tr}
		}
		g.setScene(NewLobbyScene(g, s.addr, s.hosting))
	default:
	}
	return nil
}

// Draw implements Scene.
func (s *LobbyConnectScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	render.Text(screen, "Connecting", g.fonts.Title, render.Width/2, 240, render.Center, render.ColText)
	render.Text(screen, s.addr, g.fonts.MonoBig, render.Width/2, 320, render.Center, render.ColAccent)
	if s.tr != nil {
		render.Text(screen, "Finding the room's host through the rendezvous", g.fonts.Small, render.Width/2, 370, render.Center, render.ColDim)
	}
	drawSpinner(screen, g, render.Width/2, 410)
	render.Hint(screen, g.fonts, "Esc: cancel")
}

// LobbyScene is a room's lobby.
type LobbyScene struct {
	addr    string
	hosting bool
	st      wire.Room
	in      bool // st holds a RoomState
	menu    Menu
	chat    chatBox
	notice  string
	// play is the dial of the room's game while it binds.
	play chan dialResult
	// readySent: the automatic Ready (Game.autoReady) went out.
	readySent bool
	// browse: out of a room (left, kicked, or refused): the server's
	// public rooms are listed, with their ping.
	browse  bool
	listing wire.Room
	ping    time.Duration
	// friends and browser are the hosted lobby's lines of how friends
	// join, last logged.
	friends, browser string
}

// listEvery is how often, in ticks, the public rooms are asked for while
// they are listed.
const listEvery = 120

// NewLobbyScene shows the lobby of g.lobby's room.
func NewLobbyScene(g *Game, addr string, hosting bool) *LobbyScene {
	s := &LobbyScene{addr: addr, hosting: hosting}
	s.chat.src = g.lobby
	s.menu = Menu{X: render.Width - 480, Y: 150, W: 440, RowH: 40, Gap: 6, Face: g.fonts.Small, Align: render.Left}
	s.refresh(g)
	return s
}

// owner reports whether the local player owns the room.
func (s *LobbyScene) owner() bool { return s.in && s.st.Owner == s.st.You }

// refresh takes the lobby's state and rebuilds the menu.
func (s *LobbyScene) refresh(g *Game) {
	l := g.lobby
	s.st, s.in = l.State()
	for _, r := range l.Refusals() {
		s.notice = capitalize(wire.RoomReason(r.Reason))
		if !s.in && !s.browse {
			s.browse = true
			l.List()
		}
	}
	if s.in {
		s.browse = false
	}
	s.listing, s.ping = l.Listing()
	sel := s.menu.Sel
	s.menu.Items = s.menu.Items[:0]
	if !s.in {
		if s.browse {
			for _, r := range s.listing.Rooms[:s.listing.Count] {
				code := r.Code
				state := map[uint8]string{wire.RoomLobby: "waiting", wire.RoomPlaying: "playing", wire.RoomOver: "game over"}[r.State]
				s.menu.Items = append(s.menu.Items, MenuItem{Label: code.String(),
					Value:    func() string { return fmt.Sprintf("%s · %d/%d · %s", listedMode(r), r.Players, r.Max, state) },
					Activate: func() { s.notice = ""; l.Join(code) }})
				if r.State == wire.RoomPlaying && l.Features().Spectate { // 7.17
					s.menu.Items = append(s.menu.Items, MenuItem{Label: "  Spectate " + code.String(),
						Activate: func() { g.watchFromLobby(watchTarget{addr: s.addr, code: code}) }})
				}
			}
			s.menu.Items = append(s.menu.Items,
				MenuItem{Label: "Quick join", Activate: func() { s.notice = ""; l.Quick(g.joinMode()) }},
				MenuItem{Label: "Create a room", Activate: func() {
					s.notice = ""
					l.Create(wire.RoomSettings{Mode: l.Mode(), Difficulty: wire.DifficultyNormal, MaxPlayers: wire.MaxPlayers,
						Flags: wire.RoomPublic | wire.RoomJoinLate})
				}})
		}
		s.menu.Items = append(s.menu.Items, s.leaderboardItem(g), MenuItem{Label: "Back to menu", Activate: func() { g.toMenu() }})
		s.menu.Sel = min(sel, len(s.menu.Items)-1)
		return
	}
	me := s.st.Members[0]
	for _, m := range s.st.Members[:s.st.Count] {
		if m.Player == s.st.You {
			me = m
		}
	}
	st := s.st.Settings
	set := func(change func(*wire.RoomSettings)) func() {
		return func() { n := st; change(&n); l.Settings(n) }
	}
	flag := func(f uint8) func() { return set(func(n *wire.RoomSettings) { n.Flags ^= f }) }
	yes := func(f uint8) func() string {
		return func() string {
			if st.Flags&f != 0 {
				return "Yes"
			}
			return "No"
		}
	}
	switch s.st.State {
	case wire.RoomLobby:
		ready := me.Flags&wire.MemberReady != 0
		if g.autoReady && !ready && !s.readySent {
			s.readySent = true
			l.Ready(true)
		}
		label := "Ready"
		if ready {
			label = "Not ready"
		}
		s.menu.Items = append(s.menu.Items, MenuItem{Label: label, Activate: func() { l.Ready(!ready) }})
	case wire.RoomOver:
		s.menu.Items = append(s.menu.Items, MenuItem{Label: "Play again", Activate: func() { l.Again() }})
	}
	if s.owner() {
		playing := s.st.State == wire.RoomPlaying
		s.menu.Items = append(s.menu.Items,
			MenuItem{Label: "Start now", Activate: func() { l.Start() }, Disabled: s.st.State != wire.RoomLobby},
			MenuItem{Label: "Add a bot", Activate: func() { l.AddBot() }, Disabled: playing},
			MenuItem{Label: "Remove a bot", Activate: func() { l.RemoveBot(wire.NoPlayer) }, Disabled: playing},
			MenuItem{Label: "Mode", Value: func() string { return modeTitle(st.Mode) }, Disabled: playing,
				Activate: set(otherMode), Adjust: func(int) { set(otherMode)() }},
		)
		if st.Mode == wire.ModeStage { // the stage its games start at
			n := len(campaignTitles())
			s.menu.Items = append(s.menu.Items, MenuItem{Label: "Stage", Disabled: playing || n == 0,
				Value:    func() string { return render.Fit(stageTitle(st.Stage), g.fonts.Small, 300) },
				Activate: set(func(r *wire.RoomSettings) { r.Stage = uint8(int(r.Stage)%max(n, 1) + 1) }),
				Adjust: func(d int) {
					set(func(r *wire.RoomSettings) { r.Stage = uint8(max(1, min(n, int(r.Stage)+d))) })()
				}})
		}
		s.menu.Items = append(s.menu.Items,
			MenuItem{Label: "Difficulty", Value: func() string { return difficultyName(st.Difficulty) }, Disabled: playing,
				Activate: set(func(n *wire.RoomSettings) { n.Difficulty = (n.Difficulty + 1) % 3 }),
				Adjust: func(d int) {
					set(func(n *wire.RoomSettings) { n.Difficulty = uint8((int(n.Difficulty) + 3 + d) % 3) })()
				}},
			MenuItem{Label: "Players", Value: func() string { return fmt.Sprint(st.MaxPlayers) }, Disabled: playing,
				Activate: set(func(n *wire.RoomSettings) { n.MaxPlayers = n.MaxPlayers%wire.MaxPlayers + 1 }),
				Adjust: func(d int) {
					set(func(n *wire.RoomSettings) { n.MaxPlayers = uint8(max(1, min(wire.MaxPlayers, int(n.MaxPlayers)+d))) })()
				}},
			MenuItem{Label: "Public", Value: yes(wire.RoomPublic), Activate: flag(wire.RoomPublic), Adjust: func(int) { flag(wire.RoomPublic)() }},
			MenuItem{Label: "Join in progress", Value: yes(wire.RoomJoinLate), Activate: flag(wire.RoomJoinLate), Adjust: func(int) { flag(wire.RoomJoinLate)() }},
			MenuItem{Label: "Locked", Value: yes(wire.RoomLocked), Activate: flag(wire.RoomLocked), Adjust: func(int) { flag(wire.RoomLocked)() }},
		)
		for _, m := range s.st.Members[:s.st.Count] {
			if m.Player == s.st.You {
				continue
			}
			p := m.Player
			s.menu.Items = append(s.menu.Items, MenuItem{Label: "Kick " + render.Fit(m.Name, g.fonts.Small, 220),
				Activate: func() { l.Kick(p) }})
		}
	}
	s.menu.Items = append(s.menu.Items, s.leaderboardItem(g), MenuItem{Label: "Leave room", Activate: func() {
		l.Leave()
		s.browse, s.notice = true, ""
		l.List()
		s.refresh(g)
	}})
	s.menu.Sel = min(sel, len(s.menu.Items)-1)
}

// leaderboardItem opens the server's leaderboard (7.16), for servers
// that have one.
func (s *LobbyScene) leaderboardItem(g *Game) MenuItem {
	return MenuItem{Label: "Leaderboard", Disabled: !g.lobby.HasScores(),
		Activate: func() { g.setScene(NewLeaderboardScene(g, s)) }}
}

// otherMode turns a room to the other mode: Stage rooms start at the
// server's own stage (0), Classic rooms have none.
func otherMode(n *wire.RoomSettings) { n.Mode, n.Stage = 3-n.Mode, 0 }

// campaignTitles are the titles of this build's campaign (stage.Campaign),
// for the stage a room starts at (7.14): a server of the same version
// has the same campaign. A title "STAGE 2 - THE WARSHIP" is kept as "THE
// WARSHIP": the number is shown apart.
var campaignTitles = sync.OnceValue(func() []string {
	var titles []string
	for _, st := range stage.Campaign() {
		t := st.Title
		if head, rest, ok := strings.Cut(t, " - "); ok && strings.EqualFold(head, "STAGE "+st.Name) && rest != "" {
			t = rest
		}
		titles = append(titles, t)
	}
	return titles
})

// stageTitle names the stage a room starts at for the screen: its number
// and title ("2 THE WARSHIP"), its number alone when this build's campaign
// has no such stage, "Server's own" for 0 (a stage file the server plays).
func stageTitle(n uint8) string {
	titles := campaignTitles()
	switch {
	case n == 0:
		return "Server's own"
	case int(n) <= len(titles):
		return fmt.Sprintf("%d %s", n, titles[n-1])
	}
	return fmt.Sprint(n)
}

// roomModeTitle names a room's mode for the screen, with its stage in
// Stage mode: "Classic", "Stage: 2 THE WARSHIP".
func roomModeTitle(st wire.RoomSettings) string {
	if st.Mode == wire.ModeClassic {
		return modeTitle(st.Mode)
	}
	return "Stage: " + stageTitle(st.Stage)
}

// listedMode names a listed room's mode, short: "Classic", "Stage 2"
// ("Stage" at the server's own stage).
func listedMode(r wire.RoomInfo) string {
	if r.Mode == wire.ModeClassic || r.Stage == 0 {
		return modeTitle(r.Mode)
	}
	return fmt.Sprintf("Stage %d", r.Stage)
}

// modeTitle names a mode for the screen.
func modeTitle(m uint8) string {
	if m == wire.ModeClassic {
		return "Classic"
	}
	return "Stage"
}

// difficultyName names a difficulty for the screen.
func difficultyName(d uint8) string {
	switch d {
	case wire.DifficultyEasy:
		return "Easy"
	case wire.DifficultyHard:
		return "Hard"
	}
	return "Normal"
}

// Update implements Scene.
func (s *LobbyScene) Update(g *Game) error {
	l := g.lobby
	s.addr = l.Addr() // a RoomRedirect (7.18) moves the lobby to another server
	select {
	case <-l.Done():
		err := l.Err()
		g.lobby = nil
		g.endSession()
		g.stopHost()
		g.setScene(NewErrorScene(g, err, nil))
		return nil
	default:
	}
	select {
	case <-l.Changed():
		s.refresh(g)
	default:
	}
	if s.hosting && s.in && g.host != nil { // the lines that say how friends join, logged as they change
		r := g.host.Reach()
		if line, b := friendsLine(r, s.st.Code.String()), browserLine(r, s.browserURL(g), s.st.Code.String()); line != s.friends || b != s.browser {
			s.friends, s.browser = line, b
			g.log.Info("hosted lobby", "friends", line, "browser", b)
		}
	}
	if s.browse && !s.in && g.ticks%listEvery == 0 {
		l.List()
	}
	if s.play != nil {
		select {
		case r := <-s.play:
			s.play = nil
			if r.err != nil {
				s.notice = "Could not join the game: " + r.err.Error()
				g.log.Warn("room game", "err", r.err)
				break
			}
			g.session = NewSession(r.c, s.addr, s.hosting)
			g.session.rec = r.rec
			g.session.Path = g.lobbyPath()
			g.log.Info("joined", "addr", s.addr, "player", r.c.Player(), "room", s.st.Code.String())
			g.setScene(NewPlayScene(g))
			return nil
		default:
		}
	} else if s.in && s.st.State == wire.RoomPlaying && g.session == nil {
		s.play = make(chan dialResult, 1)
		log := g.log.With("component", "client")
		dir, limit, name := g.opt.ReplayDir, int64(g.settings.ReplayCapMB)<<20, g.Name()
		go func() {
			ctx, cancel := context.WithTimeout(g.opt.Context, dialTimeout)
			defer cancel()
			rec := startRecording(dir, limit, name, g.log)
			c, err := l.Play(ctx, client.Config{Logger: log, Tap: rec.tap()})
			if err != nil {
				rec.discard()
				rec = nil
			}
			s.play <- dialResult{c, rec, err}
		}()
	}
	s.chat.drain(g)
	if s.chat.update(g) {
		return nil
	}
	if g.in.Back {
		g.toMenu()
		return nil
	}
	s.menu.Update(&g.in)
	return nil
}

// Draw implements Scene.
func (s *LobbyScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	if !s.in {
		title := "Joining a room…"
		if s.browse {
			title = "Rooms on " + s.addr
			if s.ping > 0 {
				title += fmt.Sprintf(" · %d ms", max(1, s.ping.Milliseconds()))
			}
		}
		render.Text(screen, title, g.fonts.Title, 60, 40, render.Left, render.ColText)
		if s.notice != "" {
			render.Text(screen, s.notice, g.fonts.Body, 60, 110, render.Left, render.ColWarn)
		}
		if s.browse && s.listing.Count == 0 {
			render.Text(screen, "No public room: quick join or create one", g.fonts.Small, 60, 150, render.Left, render.ColDim)
		}
		s.menu.Draw(screen, g)
		render.Hint(screen, g.fonts, "Enter: choose  ·  Esc: back to menu")
		return
	}
	title := "Room " + s.st.Code.String()
	render.Text(screen, title, g.fonts.Title, 60, 40, render.Left, render.ColText)
	if s.hosting && s.in && g.host != nil {
		code, r := s.st.Code.String(), g.host.Reach()
		col := render.ColAccent
		if r.Rendezvous == "" || r.Err != "" || !r.Registered && r.Waited >= rendezvousPatience {
			col = render.ColDim
		}
		render.Text(screen, render.Fit(friendsLine(r, code), g.fonts.Tiny, 700), g.fonts.Tiny, 60, 124, render.Left, col)
		if b := browserLine(r, s.browserURL(g), s.st.Code.String()); b != "" {
			render.Text(screen, render.Fit(b, g.fonts.Tiny, 700), g.fonts.Tiny, 60, 150+4*72+34, render.Left, render.ColDim)
		}
	}
	state := map[uint8]string{wire.RoomLobby: "Waiting for everyone to be ready", wire.RoomPlaying: "Playing: joining the game…",
		wire.RoomOver: "Game over"}[s.st.State]
	st := s.st.Settings
	render.Text(screen, fmt.Sprintf("%s · %s · %s · %d players", state, roomModeTitle(st), difficultyName(st.Difficulty), st.MaxPlayers),
		g.fonts.Small, 60, 100, render.Left, render.ColDim)
	const x, w, rowH = 60.0, 700.0, 64.0
	for i, m := range s.st.Members[:s.st.Count] {
		y := 150 + float64(i)*(rowH+8)
		col := render.PlayerColor(m.Colour)
		g.atlas.FillRect(screen, x, y, w, rowH, render.Fade(render.ColPanel, 0.85))
		g.atlas.FillRect(screen, x, y, 8, rowH, col)
		render.DrawSprite(screen, g.atlas.Ship[0], x+50, y+rowH/2, render.DrawOpts{})
		render.DrawSprite(screen, g.atlas.ShipAccent[0], x+50, y+rowH/2, render.DrawOpts{Tint: col})
		name := render.Fit(m.Name, g.fonts.Body, 330)
		render.Text(screen, name, g.fonts.Body, x+100, y+16, render.Left, render.ColText)
		var tags string
		switch {
		case m.Player == s.st.Owner:
			tags = "owner"
		case m.Flags&wire.MemberBot != 0:
			tags = "bot"
		}
		if m.Player == s.st.You {
			tags += " (you)"
		}
		render.Text(screen, tags, g.fonts.Tiny, x+440, y+22, render.Left, render.ColDim)
		ready, rc := "not ready", render.ColDim
		if m.Flags&wire.MemberReady != 0 {
			ready, rc = "READY", render.ColAccent
		}
		render.Text(screen, ready, g.fonts.Small, x+w-20, y+20, render.Right, rc)
	}
	if s.notice != "" {
		render.Text(screen, s.notice, g.fonts.Small, x, 150+4*(rowH+8)+10, render.Left, render.ColWarn)
	}
	s.menu.Draw(screen, g)
	s.chat.draw(screen, g)
	render.Hint(screen, g.fonts, "Enter: choose  ·  "+g.chatKey()+": chat  ·  Esc: leave the room")
}

// browserURL is the link a friend's browser opens to join the room of
// the game hosted here: the page's URL the command printed (Options.WebURL)
// with the room's code; "" when this game hosts none, serves no page, or
// is not in its room yet. browserLine says where it works.
func (s *LobbyScene) browserURL(g *Game) string {
	if !s.hosting || !s.in || g.opt.WebURL == "" || s.st.Code == (wire.RoomCode{}) {
		return ""
	}
	return g.opt.WebURL + "?room=" + s.st.Code.String()
}
