package game

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"rtype/game/view"
	"rtype/net/replay"
	"rtype/net/wire"
	"rtype/render"
	"rtype/sim"
)

// seekStep is how far Left and Right seek in a replay.
const seekStep = 5 * time.Second

// ReplayScene shows a recording (net/replay) through the View, as the
// play showed it: Space pauses, Left and Right seek 5 s, Up and Down
// change the speed (0.25x to 4x), 1 to 4 or Tab follow a player, Escape
// goes back.
type ReplayScene struct {
	r      *view.Replayer
	frame  view.Frame
	shaken *ebiten.Image
	names  [wire.MaxPlayers]string
	title  string
	damage string // where the file is damaged, "" for a whole file
	back   func() Scene
}

// NewReplayScene shows rep (read from path); back is the scene Escape
// goes to.
func NewReplayScene(g *Game, rep *replay.Replay, path string, back func() Scene) *ReplayScene {
	r := view.NewReplayer(rep, view.Config{Rules: sim.DefaultRules(), Palette: render.CurrentStyle().Palette,
		HUDHeight: render.HUDPanelHeight(g.fonts.Scale())})
	s := &ReplayScene{r: r, names: rep.Players(), back: back,
		title: fmt.Sprintf("%s · %s", filepath.Base(path), rep.Header.Start.Local().Format("2006-01-02 15:04"))}
	if rep.Damage != nil {
		s.damage = "Damaged file: plays up to " + fmtDur(rep.Length) + " (" + rep.Damage.Error() + ")"
		g.log.Warn("replay damaged", "file", path, "err", rep.Damage)
	}
	g.log.Info("replay", "file", path, "length", rep.Length.Round(time.Millisecond), "records", len(rep.Records), "player", rep.Header.Player)
	return s
}

// openReplay reads the recording of path and shows it; a file that
// cannot be read shows the error screen.
func (g *Game) openReplay(path string, back func() Scene) Scene {
	rep, err := replay.Open(path)
	if err != nil {
		g.log.Warn("replay not opened", "file", path, "err", err)
		return NewErrorScene(g, err, nil)
	}
	return NewReplayScene(g, rep, path, back)
}

// Update implements Scene: the keys, then 1/60 s of the recording.
func (s *ReplayScene) Update(g *Game) error {
	r := s.r
	switch {
	case g.in.Back:
		g.setScene(s.back())
		return nil
	case inpututil.IsKeyJustPressed(ebiten.KeySpace) || g.in.Confirm:
		r.SetPaused(!r.Paused())
	case g.in.Left:
		r.Seek(r.Pos() - seekStep)
	case g.in.Right:
		r.Seek(r.Pos() + seekStep)
	case g.in.Up:
		r.SetSpeed(r.Speed() * 2)
	case g.in.Down:
		r.SetSpeed(r.Speed() / 2)
	case inpututil.IsKeyJustPressed(ebiten.KeyTab):
		s.followNext()
	}
	for p, k := range []ebiten.Key{ebiten.Key1, ebiten.Key2, ebiten.Key3, ebiten.Key4} {
		if inpututil.IsKeyJustPressed(k) && s.names[p] != "" {
			r.Follow(uint8(p))
		}
	}
	res := r.Update()
	for _, c := range res.Sounds {
		g.snd.Play(sounds[c.Sound], c.Volume)
	}
	g.snd.SetTrack(tracks[res.Music])
	return nil
}

// followNext follows the next player of the recording.
func (s *ReplayScene) followNext() {
	f := s.r.Following()
	for i := uint8(1); i <= wire.MaxPlayers; i++ {
		p := (f + i) % wire.MaxPlayers
		if s.names[p] != "" {
			s.r.Follow(p)
			return
		}
	}
}

// Draw implements Scene: the View's Frame, then the replay's bar.
func (s *ReplayScene) Draw(screen *ebiten.Image, g *Game) {
	r := s.r
	f := r.Frame(&s.frame)
	g.drawFrame(screen, f, &s.shaken)
	a := g.atlas
	y := float64(render.Height - 104) // above the Stage HUD's beam gauge
	a.FillRect(screen, 0, y-8, render.Width, 48, render.Fade(render.ColBackground, 0.7))
	w := float64(render.Width - 32)
	a.FillRect(screen, 16, y, w, 6, render.Fade(render.ColDim, 0.6))
	if l := r.Length(); l > 0 {
		a.FillRect(screen, 16, y, w*float64(r.Pos())/float64(l), 6, render.PlayerColor(r.Following()))
	}
	state := "Playing"
	if r.Paused() {
		state = "Paused"
	} else if r.Ended() {
		state = "Ended"
	}
	who := s.names[r.Following()]
	if who == "" {
		who = fmt.Sprintf("player %d", r.Following()+1)
	}
	line := fmt.Sprintf("REPLAY  %s  %s / %s  ·  %s×  ·  following %s", state, fmtDur(r.Pos()), fmtDur(r.Length()), fmtSpeed(r.Speed()), who)
	render.ShadowText(screen, line, g.fonts.Small, 16, y+12, render.Left, render.PlayerColor(r.Following()))
	render.ShadowText(screen, "Space pause · ←/→ seek 5 s · ↑/↓ speed · 1-4 or Tab follow · Esc back", g.fonts.Tiny, render.Width-16, y+16, render.Right, render.Fade(render.ColText, 0.75))
	if s.damage != "" {
		render.ShadowText(screen, s.damage, g.fonts.Tiny, render.Width/2, y-28, render.Center, render.ColWarn)
	}
}

// fmtDur writes d as m:ss.
func fmtDur(d time.Duration) string {
	sec := int(d / time.Second)
	return fmt.Sprintf("%d:%02d", sec/60, sec%60)
}

// fmtSpeed writes a speed as 0.25, 0.5, 1, 2 or 4.
func fmtSpeed(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
}

// ReplaysScene lists the recordings of the games played, newest first:
// Enter plays one, Escape goes back to the title.
type ReplaysScene struct {
	menu  Menu
	dir   string
	empty string
}

// maxListed bounds the recordings the list shows.
const maxListed = 100

// NewReplaysScene lists the recordings of g's replay directory.
func NewReplaysScene(g *Game) *ReplaysScene {
	s := &ReplaysScene{dir: g.opt.ReplayDir}
	s.menu = Menu{X: render.Width/2 - 330, Y: 150, W: 660, RowH: 36, Gap: 4, Face: g.fonts.Small, Align: render.Left}
	list, err := replay.List(s.dir)
	switch {
	case s.dir == "":
		s.empty = "No replay directory: games are not recorded."
	case err != nil:
		s.empty = "Cannot read " + s.dir + ": " + err.Error()
	case len(list) == 0:
		s.empty = "No recordings yet: every game you play is recorded in " + s.dir
	}
	for i, e := range list {
		if i == maxListed {
			break
		}
		path := e.Path
		s.menu.Items = append(s.menu.Items, MenuItem{Label: replayLabel(e), Activate: func() {
			g.setScene(g.openReplay(path, func() Scene { return NewReplaysScene(g) }))
		}})
	}
	s.menu.Items = append(s.menu.Items, MenuItem{Label: "Back", Activate: func() { g.setScene(NewTitleScene(g)) }})
	return s
}

// replayLabel names a recording: when, who, how big.
func replayLabel(e replay.Entry) string {
	who, mode := "?", ""
	if f, err := os.Open(e.Path); err == nil {
		if rd, err := replay.NewReader(f); err == nil {
			who, mode = rd.Header.Name, wire.ModeName(rd.Header.Mode)
		}
		f.Close()
	}
	return fmt.Sprintf("%s  ·  %s  ·  %s  ·  %d KB", e.ModTime.Local().Format("Jan 2 15:04"), who, mode, (e.Size+1023)/1024)
}

// Update implements Scene.
func (s *ReplaysScene) Update(g *Game) error {
	if g.in.Back {
		g.setScene(NewTitleScene(g))
		return nil
	}
	s.menu.Update(&g.in)
	return nil
}

// Draw implements Scene.
func (s *ReplaysScene) Draw(screen *ebiten.Image, g *Game) {
	g.drawBackdrop(screen)
	render.Text(screen, "Replays", g.fonts.Title, render.Width/2, 60, render.Center, render.ColText)
	if s.empty != "" {
		render.Text(screen, s.empty, g.fonts.Small, render.Width/2, 112, render.Center, render.ColDim)
	}
	s.menu.Draw(screen, g)
	render.Hint(screen, g.fonts, "Enter to watch  ·  Esc back")
}
