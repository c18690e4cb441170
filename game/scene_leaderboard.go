package game

import (
	"context"
	"fmt"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/core"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/render"
	"rtype/sim/stage"
)

// LeaderboardScene shows the best scores of the server the player is on
// (PROTOCOL.md 7.16): of a board (Classic, the campaign, a stage of the
// built-in campaign or its second loop: core.Boards), of all time or of
// this week.
// From a room's lobby it asks through the lobby's session; from the title
// it logs in for the lobby on the last server joined, and logs out when
// it leaves.
type LeaderboardScene struct {
	addr string
	back *LobbyScene // the lobby to go back to; nil: the title
	l    *lobby.Lobby
	own  bool           // l was dialed here: closed when leaving
	dial chan lobbyDial // the dial from the title, until it answers
	stop context.CancelFunc

	boards []core.Board
	board  int // boards' index shown
	period uint8
	// asked: a request for the board and period is out; retry: the tick
	// to ask again at (after RateLimited), 0 for none.
	asked bool
	retry uint64
	sc    wire.Scores // the answer for the board and period
	have  bool
	err   string
	menu  Menu
}

// NewLeaderboardScene shows the leaderboard of the lobby back's server,
// or, with back nil, of the last server joined.
func NewLeaderboardScene(g *Game, back *LobbyScene) *LeaderboardScene {
	s := &LeaderboardScene{back: back, boards: core.Boards(stage.Names()), period: wire.PeriodAllTime}
	s.showMode(g.joinMode())
	s.menu = Menu{X: render.Width - 420, Y: 170, W: 380, RowH: 40, Gap: 6, Face: g.fonts.Small, Align: render.Left}
	turn := func(d int) { s.board = (s.board + d + len(s.boards)) % len(s.boards); s.ask(g) }
	togglePeriod := func() { s.period = 1 - s.period; s.ask(g) }
	s.menu.Items = []MenuItem{
		{Label: "Board", Value: func() string { return s.boards[s.board].Title() }, Activate: func() { turn(1) }, Adjust: turn},
		{Label: "Period", Value: func() string { return periodTitle(s.period) }, Activate: togglePeriod, Adjust: func(int) { togglePeriod() }},
		{Label: "Refresh", Activate: func() { s.ask(g) }},
		{Label: "Back", Activate: func() { s.leave(g) }},
	}
	switch {
	case back != nil:
		s.addr, s.l = back.addr, g.lobby
		if st, ok := s.l.State(); ok {
			s.showMode(st.Settings.Mode)
		}
		s.ask(g)
	case len(g.settings.Recent) == 0:
		s.err = "Join a server first: its leaderboard shows here"
	default:
		s.addr, s.own = g.settings.Recent[0], true
		ctx, cancel := context.WithTimeout(g.opt.Context, dialTimeout)
		s.stop, s.dial = cancel, make(chan lobbyDial, 1)
		cfg := lobby.Config{Addr: s.addr, Name: g.Name(), Mode: s.boards[s.board].Mode, Logger: g.log.With("component", "lobby")}
		go func() {
			l, err := lobby.Dial(ctx, cfg)
			s.dial <- lobbyDial{l, err}
		}()
	}
	return s
}

// showMode shows the first board of mode: Classic, or the campaign.
func (s *LeaderboardScene) showMode(mode uint8) {
	for i, b := range s.boards {
		if b.Mode == mode || mode != wire.ModeClassic && b.Mode == wire.ModeStage {
			s.board = i
			return
		}
	}
}

// periodTitle names a period for the screen.
func periodTitle(p uint8) string {
	if p == wire.PeriodWeek {
		return "This week"
	}
	return "All time"
}

// ask asks for the leaderboard of the board and period shown.
func (s *LeaderboardScene) ask(g *Game) {
	s.have, s.retry = false, 0
	if s.l == nil {
		return
	}
	b := s.boards[s.board]
	if err := s.l.AskScores(b.Mode, s.period, wire.MaxScoreRows, b.Stage); err != nil {
		s.err = capitalize(err.Error())
		return
	}
	s.asked, s.err = true, ""
}

// leave goes back where the scene came from.
func (s *LeaderboardScene) leave(g *Game) {
	s.release()
	if s.back != nil && g.lobby != nil {
		s.back.refresh(g)
		g.setScene(s.back)
		return
	}
	g.setScene(NewTitleScene(g))
}

// release logs out the session the scene dialed, if any.
func (s *LeaderboardScene) release() {
	if s.stop != nil {
		s.stop()
	}
	if s.own {
		if s.l != nil {
			s.l.Close()
		} else if s.dial != nil {
			closeWhenDialed(s.dial)
		}
		s.l, s.dial = nil, nil
	}
}

// Update implements Scene.
func (s *LeaderboardScene) Update(g *Game) error {
	if s.dial != nil {
		select {
		case r := <-s.dial:
			s.dial = nil
			s.stop()
			if r.err != nil {
				s.err = capitalize(r.err.Error())
				break
			}
			s.l = r.l
			s.ask(g)
		default:
		}
	}
	if s.own && s.l != nil {
		select {
		case <-s.l.Done(): // the server went away
			s.err, s.asked, s.retry = capitalize(s.l.Err().Error()), false, 0
			s.l = nil
		default:
		}
	}
	if s.back != nil {
		// The room's game starts, or the session ends: the lobby takes
		// over.
		st, in := s.l.State()
		select {
		case <-s.l.Done():
			s.leave(g)
			return nil
		default:
		}
		if in && st.State == wire.RoomPlaying && g.session == nil {
			s.leave(g)
			return nil
		}
	}
	if s.l != nil && s.asked {
		if sc, ok := s.l.Scores(); ok && s.answers(&sc) {
			s.asked = false
			switch sc.Status {
			case wire.ScoresOK:
				s.sc, s.have = sc, true
				first := ""
				if sc.Count > 0 {
					first = fmt.Sprintf("%s %d", sc.Rows[0].Name, sc.Rows[0].Score)
				}
				g.log.Info("leaderboard", "addr", s.addr, "mode", wire.ModeName(sc.Mode), "board", sc.Stage,
					"period", periodTitle(sc.Period), "rows", sc.Count, "first", first)
			case wire.ScoresRateLimited:
				s.retry = g.ticks + uint64(sc.Wait)*60/1000 + 1
			default:
				s.err = capitalize(wire.ScoresStatus(sc.Status))
			}
		}
	}
	if s.retry != 0 && g.ticks >= s.retry {
		s.ask(g)
	}
	if g.in.Back {
		s.leave(g)
		return nil
	}
	s.menu.Update(&g.in)
	return nil
}

// answers reports whether sc answers the request for the board and
// period shown (a refusal names no board: PROTOCOL.md 7.16).
func (s *LeaderboardScene) answers(sc *wire.Scores) bool {
	b := s.boards[s.board]
	return sc.Mode == b.Mode && sc.Period == s.period &&
		(b.Mode == wire.ModeClassic || sc.Stage == b.Stage || sc.Status != wire.ScoresOK && sc.Status != wire.ScoresUnavailable)
}

// Draw implements Scene.
func (s *LeaderboardScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	render.Text(screen, "Leaderboard", g.fonts.Title, 60, 40, render.Left, render.ColText)
	sub := s.addr
	if s.have {
		title := core.Board{Mode: s.sc.Mode, Stage: s.sc.Stage}.Title()
		sub += " · " + render.Fit(title, g.fonts.Small, 300) + " · " + periodTitle(s.sc.Period)
	}
	render.Text(screen, sub, g.fonts.Small, 60, 100, render.Left, render.ColDim)
	const x, w, rowH = 60.0, 740.0, 44.0
	switch {
	case s.err != "":
		render.Text(screen, s.err, g.fonts.Body, x, 170, render.Left, render.ColWarn)
	case s.retry != 0:
		render.Text(screen, "Asking again in a moment…", g.fonts.Body, x, 170, render.Left, render.ColDim)
	case !s.have:
		drawSpinner(screen, g, x+30, 200)
	case s.sc.Count == 0:
		render.Text(screen, "No score yet: play a game on this server", g.fonts.Body, x, 170, render.Left, render.ColDim)
	}
	if s.have && s.err == "" {
		head := render.Fade(render.ColDim, 0.8)
		render.Text(screen, "#", g.fonts.Tiny, x+16, 150, render.Left, head)
		render.Text(screen, "PILOT", g.fonts.Tiny, x+70, 150, render.Left, head)
		render.Text(screen, "SCORE", g.fonts.Tiny, x+480, 150, render.Right, head)
		render.Text(screen, "PILOTS", g.fonts.Tiny, x+560, 150, render.Center, head)
		render.Text(screen, "DATE", g.fonts.Tiny, x+w-16, 150, render.Right, head)
		for i, r := range s.sc.Rows[:s.sc.Count] {
			y := 176 + float64(i)*(rowH+4)
			col := render.ColText
			if r.Name == g.Name() {
				col = render.ColAccent
			}
			g.atlas.FillRect(screen, x, y, w, rowH, render.Fade(render.ColPanel, 0.85))
			render.Text(screen, fmt.Sprint(i+1), g.fonts.Body, x+16, y+8, render.Left, render.ColDim)
			render.Text(screen, render.Fit(r.Name, g.fonts.Body, 340), g.fonts.Body, x+70, y+8, render.Left, col)
			render.Text(screen, fmt.Sprint(r.Score), g.fonts.Mono, x+480, y+10, render.Right, col)
			render.Text(screen, fmt.Sprint(r.Players), g.fonts.Small, x+560, y+10, render.Center, render.ColDim)
			date := time.Unix(int64(r.Finished), 0).Local().Format("2006-01-02")
			render.Text(screen, date, g.fonts.Small, x+w-16, y+10, render.Right, render.ColDim)
		}
	}
	s.menu.Draw(screen, g)
	render.Hint(screen, g.fonts, "Left/Right: board and period  ·  Enter: choose  ·  Esc: back")
}
