package game

import (
	"errors"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"rtype/game/core"
	"rtype/game/sound"
	"rtype/game/view"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render"
	"rtype/sim"
)

// controlsHint is how long the controls show at the start of the play.
const controlsHint = 7.0

// PlayScene is the game itself: the keys go to the view (package
// game/view, which owns the world, the prediction and the effects), and
// what the view shows at each drawn frame's own time goes to package
// render.
type PlayScene struct {
	view   *view.View
	frame  view.Frame // the last drawn frame (Draw's scratch)
	paused bool
	pause  Menu
	// shaken is where the play area is drawn while the screen shakes.
	shaken *ebiten.Image
	chat   chatBox
	// watchers are the game's spectators (7.17), Draw's scratch; chose:
	// a spectator's follow was chosen (the first player, or a key).
	watchers []string
	chose    bool
}

// sounds maps the view's sounds to the game's.
var sounds = [...]sound.Effect{
	view.SoundShot:      sound.Shot,
	view.SoundExplosion: sound.Explosion,
	view.SoundDeath:     sound.Death,
	view.SoundJoin:      sound.Join,
	// Stage mode.
	view.SoundBeam:          sound.Beam,
	view.SoundPickup:        sound.Pickup,
	view.SoundForceAttach:   sound.ForceAttach,
	view.SoundForceLaunch:   sound.ForceLaunch,
	view.SoundBossAlarm:     sound.BossAlarm,
	view.SoundBossExplosion: sound.BossExplosion,
}

// tracks maps the view's music to the game's.
var tracks = [...]sound.Track{
	view.MusicMain:        sound.TrackMain,
	view.MusicStage:       sound.TrackStage,
	view.MusicBoss:        sound.TrackBoss,
	view.MusicClear:       sound.TrackClear,
	view.MusicNone:        sound.TrackNone,
	view.MusicWarship:     sound.TrackWarship,
	view.MusicWarshipBoss: sound.TrackWarshipBoss,
}

// NewPlayScene starts showing the session's game.
func NewPlayScene(g *Game) *PlayScene {
	// The view's time goes on from the game's (the starfield does not
	// jump), on the wall clock from here.
	epoch := time.Now().Add(-time.Duration(g.T() * float64(time.Second)))
	cfg := view.Config{Rules: g.serverRules(), Epoch: epoch, Name: g.Name(),
		Palette: render.CurrentStyle().Palette, HUDHeight: render.HUDPanelHeight(g.fonts.Scale()), Log: g.log}
	if g.session.Hosting && g.host != nil { // the stage it plays: its terrain
		cfg.Stage, cfg.Warp = g.host.Stage, g.host.Warp
	}
	s := &PlayScene{view: view.New(g.session.C, cfg)}
	s.pause = Menu{X: render.Width/2 - 160, Y: 330, W: 320, RowH: 50, Gap: 10, Face: g.fonts.Body, Align: render.Center}
	s.setPauseItems(g)
	return s
}

// setPauseItems makes the pause menu: Resume, a row per other player to
// mute its chat, Leave game.
func (s *PlayScene) setPauseItems(g *Game) {
	mutes := s.chat.muteItems(g, s.view)
	s.pause.Items = append(append([]MenuItem{{Label: "Resume", Activate: func() { s.paused = false }}}, mutes...),
		MenuItem{Label: "Leave game", Activate: func() { g.log.Info("left the game"); g.toMenu() }})
	if len(mutes) > 0 { // smaller rows, so that the panel fits
		s.pause.RowH, s.pause.Gap, s.pause.Face = 38, 6, g.fonts.Small
		s.pause.W, s.pause.X = 420, render.Width/2-210
	}
	y, _, _ := s.pauseLayout(g)
	s.pause.Y = y + 130
}

// serverRules are the rules of the server the session plays on, which
// the protocol does not carry: those of the in-process server when
// hosting, else those of the reference server (sim.DefaultRules).
func (g *Game) serverRules() sim.Rules {
	if g.session.Hosting && g.host != nil {
		return g.host.Rules
	}
	return sim.DefaultRules()
}

// Update implements Scene: the session's end, the keys, then the view.
func (s *PlayScene) Update(g *Game) error {
	if s.ended(g) {
		return nil
	}
	s.chat.drain(g)
	actions, stay := s.input(g)
	if !stay {
		return nil
	}
	res := s.view.Update(actions)
	if res.GameOver {
		s.gameOver(g, res.Scores)
		return nil
	}
	for _, c := range res.Sounds {
		g.snd.Play(sounds[c.Sound], c.Volume)
	}
	g.snd.SetTrack(tracks[res.Music])
	g.snd.SetCharge(res.Charge)
	return nil
}

// ended moves on when the session ended: to the scores, to the menu after
// our own leaving, or to the error screen; it reports whether it did.
func (s *PlayScene) ended(g *Game) bool {
	c := g.session.C
	select {
	case <-c.Done():
	default:
		return false
	}
	err := c.Err()
	if scores, over := c.GameOver(); over {
		s.gameOver(g, scores)
		return true
	}
	if le, ok := errorsAs[*client.LogoutError](err); ok && le.Reason == wire.LogoutGameOver {
		s.gameOver(g, nil)
		return true
	}
	if errors.Is(err, client.ErrClosed) {
		g.toMenu()
		return true
	}
	g.log.Warn("connection ended", "err", err)
	g.endSession()
	g.stopHost()
	g.setScene(NewErrorScene(g, err, nil))
	return true
}

// input reads the keys: F3, the pause menu (which takes the keys while
// the ship keeps flying), and the actions held, with the test script's.
// stay is false when the pause menu left the scene.
func (s *PlayScene) input(g *Game) (actions uint8, stay bool) {
	if inpututil.IsKeyJustPressed(ebiten.KeyF3) {
		g.settings.ShowNetStats = !g.settings.ShowNetStats
		g.saveSettings()
	}
	if s.paused {
		if g.in.Back {
			s.paused = false
		} else {
			s.pause.Update(&g.in)
		}
		if g.scene != s {
			return 0, false
		}
	} else if !s.chat.update(g) { // while typing, the ship gets nothing
		if g.in.Pause {
			s.paused = true
			s.setPauseItems(g)
			s.pause.Sel = 0
		}
		actions = g.in.Actions()
		if s.view.Watching() {
			s.watchInput()
		}
	}
	if len(g.opt.InputScript) > 0 {
		actions |= core.ScriptActions(g.opt.InputScript, time.Since(g.playStart))
	}
	return actions, true
}

// Draw implements Scene: what the view shows at this frame's own time.
func (s *PlayScene) Draw(screen *ebiten.Image, g *Game) {
	f := s.view.Frame(&s.frame, s.view.Now())
	a := g.atlas
	g.drawFrame(screen, f, &s.shaken)
	if s.view.Watching() {
		s.drawWatch(screen, g)
	} else if f.Age < controlsHint {
		al := min(1, (controlsHint-f.Age)/0.8)
		hint := g.controlsHint(f.Stage.Active)
		if g.session.C.CanChat() {
			hint += "  ·  " + g.chatKey() + ": chat"
		}
		render.ShadowText(screen, hint, g.fonts.Small, render.Width/2, render.HintY(&f.Stage), render.Center, render.Fade(render.ColText, 0.85*al))
	}
	if y, show := render.NoticeY(&f.Stage, render.Height/2-60); f.Out > 0 && show {
		// Clear of a Stage banner (LOOP 2, WARNING) and of the results.
		render.ShadowText(screen, "You are out — watching", g.fonts.Title, render.Width/2, y, render.Center, render.Fade(render.ColWarn, f.Out))
		why := "The game goes on while your friends have lives. Esc to leave."
		if f.Stage.Active {
			why = "You come back at the next checkpoint while a friend still flies. Esc to leave."
		}
		render.ShadowText(screen, why, g.fonts.Small, render.Width/2, y+66, render.Center, render.Fade(render.ColText, f.Out*0.85))
	}
	if g.session.Hosting && g.host != nil && len(g.host.Addrs) > 0 {
		render.ShadowText(screen, g.hostingLine(), g.fonts.Tiny, render.Width-16, render.Height-26, render.Right, render.Fade(render.ColDim, 0.85))
	}
	s.drawSpectators(screen, g)
	if g.settings.ShowNetStats {
		a.DrawNetOverlay(screen, g.fonts, netLines(&f.Net, g.session.Path))
	}
	s.chat.draw(screen, g)
	if s.paused {
		s.drawPause(screen, g)
	}
}

// drawFrame draws what a View's Frame shows: the play area (shaken, drawn
// apart in *shaken, when the player wants), the labels, the HUD, the
// notices and the hit flash. The play and the replays draw with it.
func (g *Game) drawFrame(screen *ebiten.Image, f *view.Frame, shaken **ebiten.Image) {
	a := g.atlas
	world := screen
	if g.settings.ScreenShake && f.Shake > 0 {
		// The play area shakes, drawn apart and moved; the HUD stays.
		if *shaken == nil {
			*shaken = ebiten.NewImage(render.Width, render.Height)
		}
		world = *shaken
		screen.Fill(render.ColBackground) // the edge the shake uncovers
	}
	a.Backdrop(world)
	g.stars.Draw(world, a, f.T)
	a.DrawTerrain(world, &f.Terrain)
	a.DrawWorld(world, f.Sprites, f.T)
	a.DrawEffects(world, f.Effects, f.T)
	for _, l := range f.Labels {
		render.Text(world, l.Text, g.fonts.Tiny, l.X, l.Y, render.Center, render.Fade(render.PlayerColor(l.Player), 0.75))
	}
	if world != screen {
		var op ebiten.DrawImageOptions
		op.GeoM.Translate(view.ShakeAt(f.Shake, f.T))
		screen.DrawImage(world, &op)
	}
	a.DrawHUD(screen, g.fonts, f.HUD)
	a.DrawStageHUD(screen, g.fonts, &f.Stage, f.T)
	a.DrawNotices(screen, g.fonts, f.Notices, f.T)
	if f.HitFlash > 0 && g.settings.Flashes {
		a.FillRect(screen, 0, 0, render.Width, render.Height, render.Fade(render.ColWarn, 0.22*f.HitFlash))
	}
	if g.shotWait && !g.shotDue && !g.shotDone {
		g.shotWhenShown(f)
	}
}

// shotWhenShown is the -autotest-screenshot-players hook: the screenshot
// is due (taken at the end of this Draw) when f shows as many players in
// the HUD as asked and the ship followed drawn solid, the scene past its
// fade-in, no Stage banner over the play.
func (g *Game) shotWhenShown(f *view.Frame) {
	if g.SceneTime() < sceneFade || f.Stage.BannerAlpha > 0 {
		return
	}
	players := 0
	for _, p := range f.HUD {
		if p.Present {
			players++
		}
	}
	if players < g.opt.ScreenshotPlayers || !f.Own.Shown {
		return
	}
	for _, sp := range f.Sprites {
		if sp.Kind == wire.KindPlayerShip && sp.X == f.Own.X && sp.Y == f.Own.Y && sp.Frame&3 != render.Invulnerable {
			g.shotDue = true
			g.log.Info("autotest screenshot", "players", players, "ship_x", int(sp.X), "ship_y", int(sp.Y))
			return
		}
	}
}
