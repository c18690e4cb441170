package game

import (
	"context"
	"strings"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/internal/evilserver"
	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render"
)

func TestErrorTitlesOfABrokenServer(t *testing.T) {
	for _, err := range []error{
		&client.LimitError{What: "a Spawn beyond 8192 live entities"},
		&client.StallError{What: "its tick jumped from 1 to 2"},
	} {
		if got := errorTitle(err); got != "The server broke the rules" {
			t.Errorf("errorTitle(%v) = %q", err, got)
		}
		if errorTip(err) == "" {
			t.Errorf("no tip for %v", err)
		}
	}
}

// joinEvil starts a hostile server, joins it with the game and plays
// until the play scene runs.
func joinEvil(t *testing.T, cfg evilserver.Config) (*Game, *evilserver.Server, *ebiten.Image) {
	t.Helper()
	cfg.Logger = testutil.Logger(t)
	s, err := evilserver.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g := newTestGame(t, Options{Join: s.Addr(), Name: "Tester"})
	t.Cleanup(func() { g.shutdown() })
	screen := ebiten.NewImage(render.Width, render.Height)
	t.Cleanup(screen.Deallocate)
	waitScene[*PlayScene](t, g, screen, testutil.Wait, "not playing")
	return g, s, screen
}

// errorShown runs the game until its error scene shows, and checks it.
func errorShown(t *testing.T, g *Game, screen *ebiten.Image, want string) {
	t.Helper()
	es := waitScene[*ErrorScene](t, g, screen, testutil.Wait, "no error screen")
	text := strings.Join(es.lines, " ")
	if es.title != "The server broke the rules" || !strings.Contains(text, want) {
		t.Fatalf("title %q, lines %q; want the message %q", es.title, es.lines, want)
	}
	g.in = Input{Back: true}
	if err := es.Update(g); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.scene.(*TitleScene); !ok {
		t.Fatalf("Esc on the error: scene %T", g.scene)
	}
}

// A tick jump ends the play with the message, and the menu follows.
func TestTickJumpShowsTheError(t *testing.T) {
	g, s, screen := joinEvil(t, evilserver.Config{})
	s.Jump(0xFFFFFFF0)
	errorShown(t, g, screen, "The server broke the protocol: its tick jumped from")
}

// A Spawn flood ends the play with the message; the game keeps drawing
// meanwhile.
func TestSpawnFloodShowsTheError(t *testing.T) {
	g, s, screen := joinEvil(t, evilserver.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.SpawnFlood(ctx, 100_000, 20_000)
	errorShown(t, g, screen, "The server sent more than the protocol allows: a Spawn beyond 8192 live entities")
}

// Hostile names reach the HUD cleaned: one line, no bidi override, at
// most 20 characters.
func TestHostileNamesCleaned(t *testing.T) {
	g, s, screen := joinEvil(t, evilserver.Config{Player: 0})
	s.Names("Tester", "Evil\nName\u202E", strings.Repeat("W", 200), "\x1b[2JBell\x07")
	var p *PlayScene
	if !run(t, g, screen, testutil.Wait, func() bool {
		p, _ = g.scene.(*PlayScene)
		return p != nil && p.frame.HUD[3].Name != ""
	}) {
		t.Fatal("the names did not arrive")
	}
	want := []string{"Tester", "Evil Name", strings.Repeat("W", wire.MaxNameLen), "2JBell"}
	for i, w := range want {
		if p.frame.HUD[i].Name != w {
			t.Errorf("HUD name %d: %q, want %q", i, p.frame.HUD[i].Name, w)
		}
	}
}

// A long rejection text without a space wraps inside the panel.
func TestLongRejectionWraps(t *testing.T) {
	s, err := evilserver.Start(evilserver.Config{Logger: testutil.Logger(t),
		Login: evilserver.Rejected(wire.RejectGameFull, []byte(strings.Repeat("X", 600)))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := newTestGame(t, Options{Join: s.Addr(), Name: "Tester"})
	defer g.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	es := waitScene[*ErrorScene](t, g, screen, testutil.Wait, "no error screen")
	if es.title != "Login refused" || len(es.lines) < 3 {
		t.Fatalf("title %q, lines %q", es.title, es.lines)
	}
	for _, l := range es.lines {
		if w, _ := render.Measure(l, g.fonts.Body); w > errorPanelW-80 {
			t.Errorf("line %q is %v wide, the panel's text %v", l, w, errorPanelW-80)
		}
	}
}
