package game

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"rtype/game/core"
	"rtype/game/predict"
	"rtype/game/sound"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render"
	"rtype/sim"
)

// pendingFx is an effect of an event, shown when the interpolated world
// reaches the event's tick (so an explosion starts where the enemy is
// drawn, not 100 ms ahead of it).
type pendingFx struct {
	tick     uint32
	received float64
	fx       core.Effect
	hasFx    bool
	snd      sound.Effect
	hasSnd   bool
	vol      float64
}

// muzzleDX places the own ship's muzzle flash: the missile leaves from
// the nose (sim.Rules.MissileDX ahead of the ship's center), and the
// flash's bright core sits 4 px behind the sprite's center.
var muzzleDX = float32(sim.DefaultRules().MissileDX) - 4

// controlsHint is how long the controls show at the start of the play.
const controlsHint = 7.0

// controlsHint says the keys, from the bindings.
func (g *Game) controlsHint() string {
	km := g.settings.Keys
	label := func(a core.Action) string {
		if ks := km.Keys(a); len(ks) > 0 {
			return KeyLabel(ks[0])
		}
		return "?"
	}
	move := "Arrows"
	if label(core.ActUp) != "Up" || label(core.ActDown) != "Down" || label(core.ActLeft) != "Left" || label(core.ActRight) != "Right" {
		move = label(core.ActUp) + label(core.ActLeft) + label(core.ActDown) + label(core.ActRight)
	} else if ks := km.Keys(core.ActUp); len(ks) > 1 && ks[1] == "W" {
		move = "Arrows or WASD"
	}
	fire := label(core.ActFire)
	if ks := km.Keys(core.ActFire); len(ks) > 1 {
		fire += " or " + KeyLabel(ks[1])
	}
	return move + ": move  ·  " + fire + ": fire (hold)  ·  Esc: menu  ·  F3: network"
}

// fxMaxWait is the longest an effect waits for the render clock.
const fxMaxWait = 0.6

// burstQuiet is how long after the first events (the world as it was when
// we joined: its players and entities) the Spawns make no shot sound or
// flash and the players already there are "here" rather than "joined".
const burstQuiet = 0.1

// PlayScene is the game itself.
type PlayScene struct {
	me      uint8
	sprites []render.Sprite
	players [wire.MaxPlayers]client.Player
	hud     [wire.MaxPlayers]render.HUDPlayer
	fx      core.Effects
	notices core.Notices
	pending []pendingFx
	kinds   map[uint32]uint8 // kind of each live entity, from the Spawns
	paused  bool
	pause   Menu
	stats   client.Stats
	delay   time.Duration
	behind  time.Duration
	extrap  bool
	statsAt float64
	started float64
	hasShip bool
	outAt   float64 // when the local player ran out of lives, 0 if not
	firstEv float64 // when the first events arrived, 0 before
	hitAt   float64 // when the local ship blew up, 0 if never
	// joinTick is the tick of our own PlayerJoined, once seen.
	joinTick uint32
	joinSeen bool
	present  [wire.MaxPlayers]bool // joined and not left, from the events
	actions  uint8

	// pred predicts the own ship from the inputs the server has not
	// applied yet; predTick is the tick of the last snapshot fed to it,
	// predFed whether one was fed since the ship appeared.
	pred     *predict.Predictor
	predTick uint32
	predFed  bool
	// ownInterpX is where the interpolation would have drawn the own ship
	// in the last Update (for tests), ownPredicted whether it was drawn at
	// the prediction instead.
	ownInterpX   float64
	ownPredicted bool
}

// NewPlayScene starts showing the session's game.
func NewPlayScene(g *Game) *PlayScene {
	s := &PlayScene{me: g.session.C.Player(), kinds: map[uint32]uint8{}, started: g.T(), pred: predict.New(predict.Config{})}
	if g.session.Names[s.me] == "" {
		// Our own name, until the server's PlayerJoined says it.
		g.session.Names[s.me] = g.Name()
	}
	s.pause = Menu{X: render.Width/2 - 160, Y: 330, W: 320, RowH: 50, Gap: 10, Face: g.fonts.Body, Align: render.Center}
	s.pause.Items = []MenuItem{
		{Label: "Resume", Activate: func() { s.paused = false }},
		{Label: "Leave game", Activate: func() { g.log.Info("left the game"); g.toMenu() }},
	}
	return s
}

// Update implements Scene.
func (s *PlayScene) Update(g *Game) error {
	ss := g.session
	now := g.T()

	// The session ended: game over, or the connection is gone.
	select {
	case <-ss.C.Done():
		err := ss.C.Err()
		if scores, over := ss.C.GameOver(); over {
			s.gameOver(g, scores)
			return nil
		}
		if le, ok := errorsAs[*client.LogoutError](err); ok && le.Reason == wire.LogoutGameOver {
			s.gameOver(g, nil)
			return nil
		}
		if errors.Is(err, client.ErrClosed) {
			g.toMenu()
			return nil
		}
		g.log.Warn("connection ended", "err", err)
		g.endSession()
		g.stopHost()
		g.setScene(NewErrorScene(g, err, nil))
		return nil
	default:
	}

	// Input: the pause menu takes the keys; the ship keeps flying.
	if inpututil.IsKeyJustPressed(ebiten.KeyF3) {
		g.settings.ShowNetStats = !g.settings.ShowNetStats
		g.saveSettings()
	}
	var actions uint8
	if s.paused {
		if g.in.Back {
			s.paused = false
		} else {
			s.pause.Update(&g.in)
		}
		if g.scene != s {
			return nil
		}
	} else {
		if inpututil.IsKeyJustPressed(ebiten.KeyEscape) || s.pausePressed() {
			s.paused = true
			s.pause.Sel = 0
		}
		actions = g.in.Actions()
	}
	if len(g.opt.InputScript) > 0 {
		actions |= core.ScriptActions(g.opt.InputScript, time.Since(g.playStart))
	}
	s.actions = actions
	ss.C.SetInput(actions)
	wall := time.Now()
	s.pred.Input(actions, wall)

	// The world, interpolated, and the events since the last tick.
	drawn, events := ss.Update(wall)
	s.feedPrediction(ss, wall)
	px, py, pframe, predicted := s.pred.Position(wall)
	// The own missiles are drawn at their present position on the
	// server's clock: the interpolation shows them as they were
	// Behind() + one way (rtt/2) ago, while the own ship is drawn at the
	// prediction, ahead of the interpolation; moved forward along their
	// velocity (straight lines), they leave from the predicted ship's nose
	// rather than from where the ship was ~100 ms ago.
	lead := float32((ss.IP.Behind() + s.stats.RTT/2).Seconds())
	s.sprites = s.sprites[:0]
	s.ownPredicted = false
	for i := range drawn {
		d := &drawn[i]
		sp := render.Sprite{ID: d.ID, Kind: d.Kind, Owner: d.Owner, Frame: d.Frame, X: float64(d.DrawX), Y: float64(d.DrawY)}
		if d.Owner == s.me {
			switch d.Kind {
			case wire.KindPlayerShip:
				s.ownInterpX = sp.X
				if predicted {
					s.ownPredicted = true
					sp.X, sp.Y = float64(px), float64(py)
					if sp.Frame != sim.ShipFrameInvuln { // the blink is the server's
						sp.Frame = pframe
					}
				}
			case wire.KindPlayerMissile:
				sp.X += float64(d.VX * lead)
				sp.Y += float64(d.VY * lead)
			}
		}
		s.sprites = append(s.sprites, sp)
	}
	s.players = ss.C.Players()
	for _, ev := range events {
		if ev.Type == wire.EventGameOver {
			s.gameOver(g, ev.Scores[:min(ev.NumScores, wire.MaxPlayers)])
			return nil
		}
		s.event(g, &ev, now)
	}
	// Effects due: the render clock reached their tick, or waited enough.
	rt := ss.IP.RenderTick()
	keep := s.pending[:0]
	for _, p := range s.pending {
		if float64(p.tick) > rt && now-p.received < fxMaxWait {
			keep = append(keep, p)
			continue
		}
		if p.hasFx {
			p.fx.Start = now
			s.fx.Add(p.fx)
			if p.fx.Kind == core.FxShipExplosion && p.fx.Owner == s.me {
				s.hitAt = now
			}
		}
		if p.hasSnd {
			g.snd.Play(p.snd, p.vol)
		}
	}
	s.pending = keep
	s.fx.Update(now)
	s.notices.Update(now)

	s.updateHUD(g)
	me := s.players[s.me]
	s.hasShip = me.HasShip
	if me.Present && !me.HasShip && me.Lives == 0 && now-s.started > 1 {
		if s.outAt == 0 {
			s.outAt = now
		}
	} else {
		s.outAt = 0
	}
	if now-s.statsAt >= 0.25 {
		s.statsAt = now
		s.stats = ss.C.Stats()
		s.delay, s.behind, s.extrap = ss.IP.Delay(), ss.IP.Behind(), ss.IP.Extrapolating()
	}
	return nil
}

// feedPrediction gives the predictor the own ship's position in the newest
// frame when its tick is newer than the last one fed, and forgets the ship
// when the newest frame has none.
func (s *PlayScene) feedPrediction(ss *Session, now time.Time) {
	if len(ss.frames) == 0 {
		return
	}
	f := &ss.frames[len(ss.frames)-1] // oldest first
	for i := range ss.frames {
		if ss.frames[i].Tick > f.Tick {
			f = &ss.frames[i]
		}
	}
	if f.Tick <= s.predTick && s.predFed {
		return
	}
	pl := f.Players[s.me]
	if !pl.HasShip {
		s.pred.Reset()
		s.predFed = false
		return
	}
	i, ok := slices.BinarySearchFunc(f.Entities, pl.Ship, func(e client.Entity, id uint32) int { return cmp.Compare(e.ID, id) })
	if !ok {
		return
	}
	e := &f.Entities[i]
	received := f.Received
	if received.IsZero() {
		received = now
	}
	respawned := s.predFed && e.Respawned > s.predTick
	s.pred.Snapshot(e.X, e.Y, f.Tick, received, s.stats.RTT, respawned)
	s.predTick, s.predFed = f.Tick, true
}

// updateHUD builds the HUD's lines from the player table.
func (s *PlayScene) updateHUD(g *Game) {
	hud := &s.hud
	var present [wire.MaxPlayers]bool
	var scores [wire.MaxPlayers]uint32
	for p, pl := range s.players {
		present[p], scores[p] = pl.Present, pl.Score
		name := pl.Name
		if name == "" {
			name = g.session.Names[p]
		}
		hud[p] = render.HUDPlayer{Present: pl.Present, Name: name, Score: pl.Score, Lives: int(pl.Lives), HasShip: pl.HasShip, Local: uint8(p) == s.me}
	}
	for _, sp := range s.sprites {
		if sp.Kind == wire.KindPlayerShip || sp.Kind == wire.KindBydosSlave || sp.Kind == wire.KindEnemyMissile {
			if p := render.HUDSlotAt(sp.X, sp.Y, 16); p >= 0 {
				hud[p].Behind = true
			}
		}
	}
	if lead, ok := core.Leader(present, scores); ok {
		hud[lead].Leader = true
	}
}

// pausePressed reports the gamepads' Start button.
func (s *PlayScene) pausePressed() bool {
	for _, id := range ebiten.AppendGamepadIDs(nil) {
		if ebiten.IsStandardGamepadLayoutAvailable(id) && inpututil.IsStandardGamepadButtonJustPressed(id, ebiten.StandardGamepadButtonCenterRight) {
			return true
		}
	}
	return false
}

// event turns a server event into effects, sounds and notices.
func (s *PlayScene) event(g *Game, ev *wire.Event, now float64) {
	ss := g.session
	if s.firstEv == 0 {
		s.firstEv = now
	}
	if ev.Type == wire.EventPlayerJoined && ev.Player == s.me && !s.joinSeen {
		s.joinSeen, s.joinTick = true, ev.Tick
	}
	// The world as it was when we joined comes as events of the tick of
	// our own PlayerJoined (or, if the server does not send us ours, in
	// the first moments).
	quiet := (s.joinSeen && ev.Tick <= s.joinTick) || (!s.joinSeen && now-s.firstEv < burstQuiet)
	queue := func(p pendingFx) {
		p.tick, p.received = ev.Tick, now
		s.pending = append(s.pending, p)
	}
	switch ev.Type {
	case wire.EventSpawn:
		s.kinds[ev.ID] = ev.Kind
		if ev.Kind == wire.KindPlayerMissile && !quiet {
			vol := 0.35
			if ev.Owner == s.me {
				vol = 0.8
			}
			queue(pendingFx{
				fx:    core.Effect{Kind: core.FxMuzzle, X: float64(ev.X) - 4, Y: float64(ev.Y), Owner: ev.Owner},
				hasFx: true, snd: sound.Shot, hasSnd: true, vol: vol,
			})
			if x, y, _, ok := s.pred.Position(time.Now()); ev.Owner == s.me && ok {
				// The own ship is drawn ahead of the world, at the
				// prediction: its shot flashes (and sounds) at once, at
				// that ship's nose, not where the ship was when the
				// interpolated world reaches the shot.
				p := &s.pending[len(s.pending)-1]
				p.tick = 0
				p.fx.X, p.fx.Y = float64(x+muzzleDX), float64(y)
			}
		}
	case wire.EventDestroy:
		kind := s.kinds[ev.ID]
		delete(s.kinds, ev.ID)
		killed := ev.Reason == wire.DestroyKilled || ev.Reason > wire.DestroyPlayerLeft
		if killed && kind != wire.KindPlayerShip { // a ship's explosion came with its Death
			queue(pendingFx{
				fx:    core.Effect{Kind: core.FxExplosion, X: float64(ev.X), Y: float64(ev.Y), Owner: wire.NoPlayer},
				hasFx: true, snd: sound.Explosion, hasSnd: true, vol: 0.7,
			})
		}
	case wire.EventDeath:
		queue(pendingFx{
			fx:    core.Effect{Kind: core.FxShipExplosion, X: float64(ev.X), Y: float64(ev.Y), Owner: ev.Player},
			hasFx: true, snd: sound.Death, hasSnd: true, vol: 1,
		})
		if ev.Player != s.me && ev.Player < wire.MaxPlayers && ev.Lives == 0 {
			s.notices.Add(core.Notice{Text: ss.Names[ev.Player] + " is out of lives", Start: now, Player: ev.Player})
		}
	case wire.EventPlayerJoined:
		if ev.Player >= wire.MaxPlayers {
			return
		}
		if s.present[ev.Player] && ss.Names[ev.Player] == ev.Name {
			return // told twice
		}
		s.present[ev.Player] = true
		ss.Names[ev.Player] = ev.Name
		switch {
		case ev.Player == s.me:
			s.notices.Add(core.Notice{Text: fmt.Sprintf("You fly the %s ship, %s", render.PlayerColorNames[ev.Player], ev.Name), Start: now, Player: ev.Player})
		case quiet:
			s.notices.Add(core.Notice{Text: ev.Name + " is here", Start: now, Player: ev.Player})
		default:
			s.notices.Add(core.Notice{Text: ev.Name + " joined", Start: now, Player: ev.Player})
			g.snd.Play(sound.Join, 0.8)
		}
	case wire.EventPlayerLeft:
		if ev.Player >= wire.MaxPlayers {
			return
		}
		s.present[ev.Player] = false
		name := ss.Names[ev.Player]
		if name == "" {
			name = fmt.Sprintf("Player %d", ev.Player+1)
		}
		why := ""
		switch ev.Reason {
		case wire.LeftTimedOut:
			why = " (timed out)"
		case wire.LeftKicked:
			why = " (kicked)"
		}
		s.notices.Add(core.Notice{Text: name + " left" + why, Start: now, Player: ev.Player})
	}
}

// gameOver shows the final scores.
func (s *PlayScene) gameOver(g *Game, scores []wire.Score) {
	ss := g.session
	if scores == nil {
		// The event was lost with the session: rank the last known scores.
		for p, pl := range s.players {
			if pl.Present {
				scores = append(scores, wire.Score{Player: uint8(p), Score: pl.Score})
			}
		}
	}
	names := ss.Names
	for p, pl := range s.players {
		if pl.Name != "" {
			names[p] = pl.Name
		}
	}
	ranked := core.Rank(scores, func(p uint8) string {
		if p < wire.MaxPlayers {
			return names[p]
		}
		return ""
	})
	g.log.Info("game over", "scores", fmt.Sprint(ranked))
	g.setScene(NewGameOverScene(g, ranked, s.me))
}

// Draw implements Scene.
func (s *PlayScene) Draw(screen *ebiten.Image, g *Game) {
	now := g.T()
	a := g.atlas
	a.Backdrop(screen)
	g.stars.Draw(screen, a, now)
	a.DrawWorld(screen, s.sprites, now)
	a.DrawEffects(screen, s.fx.List, now)
	s.drawShipLabels(screen, g)

	a.DrawHUD(screen, g.fonts, s.hud)
	a.DrawNotices(screen, g.fonts, s.notices.List, now)
	if s.hitAt > 0 && now-s.hitAt < 0.4 {
		a.FillRect(screen, 0, 0, render.Width, render.Height, render.Fade(render.ColWarn, 0.22*(1-(now-s.hitAt)/0.4)))
	}
	if st := now - s.started; st < controlsHint {
		al := min(1, (controlsHint-st)/0.8)
		render.ShadowText(screen, g.controlsHint(), g.fonts.Small, render.Width/2, render.Height-40, render.Center, render.Fade(render.ColText, 0.85*al))
	}

	if s.outAt > 0 {
		al := min(1, (now-s.outAt)/0.5)
		render.ShadowText(screen, "You are out — watching", g.fonts.Title, render.Width/2, render.Height/2-60, render.Center, render.Fade(render.ColWarn, al))
		render.ShadowText(screen, "The game goes on while your friends have lives. Esc to leave.", g.fonts.Small, render.Width/2, render.Height/2+6, render.Center, render.Fade(render.ColText, al*0.85))
	}
	if g.session.Hosting && g.host != nil && len(g.host.Addrs) > 0 {
		render.ShadowText(screen, "Hosting · friends join at "+g.host.Addrs[0], g.fonts.Tiny, render.Width-16, render.Height-26, render.Right, render.Fade(render.ColDim, 0.85))
	}
	if g.settings.ShowNetStats {
		a.DrawNetOverlay(screen, g.fonts, s.netLines())
	}
	if s.paused {
		s.drawPause(screen, g)
	}
}

// drawShipLabels writes the players' names under the other players' ships.
func (s *PlayScene) drawShipLabels(screen *ebiten.Image, g *Game) {
	for _, sp := range s.sprites {
		if sp.Kind != wire.KindPlayerShip || sp.Owner >= wire.MaxPlayers {
			continue
		}
		name := s.players[sp.Owner].Name
		if name == "" {
			name = g.session.Names[sp.Owner]
		}
		if sp.Owner == s.me {
			if g.T()-s.started > 6 {
				continue
			}
			name = "YOU"
		}
		render.Text(screen, name, g.fonts.Tiny, sp.X, sp.Y+13, render.Center, render.Fade(render.PlayerColor(sp.Owner), 0.75))
	}
}

func (s *PlayScene) netLines() []render.NetLine {
	st := s.stats
	rtt := "—"
	if st.HasRTT {
		rtt = fmt.Sprintf("%.1f ms", float64(st.RTT.Microseconds())/1000)
	}
	return []render.NetLine{
		{Label: "round trip", Value: rtt, Warn: st.HasRTT && st.RTT > 150*time.Millisecond},
		{Label: "loss", Value: fmt.Sprintf("%.1f %%", st.Loss*100), Warn: st.Loss > 0.05},
		{Label: "in / out", Value: fmt.Sprintf("%.1f / %.1f kbit/s", st.KbitIn, st.KbitOut)},
		{Label: "snapshots", Value: fmt.Sprintf("%.1f /s", st.SnapshotsPerSec), Warn: st.SnapshotsPerSec < 15},
		{Label: "baseline age", Value: fmt.Sprintf("%d ticks", st.BaselineAge)},
		{Label: "interp delay", Value: fmt.Sprintf("%d ms", s.delay.Milliseconds())},
		{Label: "behind newest", Value: fmt.Sprintf("%d ms", s.behind.Milliseconds())},
		{Label: "extrapolating", Value: yesNo(s.extrap), Warn: s.extrap},
		{Label: "input", Value: fmt.Sprintf("%05b", s.actions)},
		{Label: "fps / tps", Value: fmt.Sprintf("%.0f / %.0f", ebiten.ActualFPS(), ebiten.ActualTPS())},
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func (s *PlayScene) drawPause(screen *ebiten.Image, g *Game) {
	g.atlas.Dim(screen, 0.55)
	const w = 560.0
	h := 300.0
	if g.session.Hosting && g.host != nil {
		h = 300 + 40*float64(min(len(g.host.Addrs), 3))
	}
	x, y := render.Width/2-w/2, 200.0
	g.atlas.Panel(screen, x, y, w, h)
	render.Text(screen, "Paused", g.fonts.Title, render.Width/2, y+24, render.Center, render.ColText)
	render.Text(screen, "The game goes on: it is a network game.", g.fonts.Small, render.Width/2, y+90, render.Center, render.ColDim)
	s.pause.Draw(screen, g)
	if g.session.Hosting && g.host != nil {
		render.Text(screen, "You are the host: leaving ends the game for everyone. Friends join at:", g.fonts.Tiny, render.Width/2, y+260, render.Center, render.ColDim)
		for i, addr := range g.host.Addrs[:min(len(g.host.Addrs), 3)] {
			render.Text(screen, addr, g.fonts.Mono, render.Width/2, y+290+float64(i)*30, render.Center, render.ColAccent)
		}
	}
}
