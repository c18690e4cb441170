package game

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/core"
	"rtype/game/settings"
	"rtype/internal/ebitentest"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render"
	"rtype/server"
	"rtype/sim"
)

// The tests run inside Ebitengine's game loop (images, input and pixels
// need it), in a game's first Update (internal/ebitentest).
func TestMain(m *testing.M) { ebitentest.Main(m, render.Width, render.Height) }

func TestKeyNames(t *testing.T) {
	for _, k := range []string{"ArrowUp", "W", "Space", "J", "K", "ShiftLeft", "Escape", "Enter", "NumpadEnter", "F3"} {
		if !ValidKeyName(k) {
			t.Errorf("%q should be a key name", k)
		}
	}
	for _, k := range []string{"Bogus", ""} {
		if ValidKeyName(k) {
			t.Errorf("%q should not be a key name", k)
		}
	}
	if got := KeyLabel("ArrowLeft"); got != "Left" {
		t.Errorf("KeyLabel(ArrowLeft) = %q", got)
	}
	if got := KeyLabel("Space"); got != "Space" {
		t.Errorf("KeyLabel(Space) = %q", got)
	}
	// The defaults resolve to keys and controls.
	var in Input
	in.SetBindings(settings.DefaultKeymap(), settings.DefaultPadmap())
	for a := range settings.NumActions {
		if len(in.keys[a]) != len(settings.DefaultKeymap().Keys(a)) || len(in.controls[a]) == 0 {
			t.Errorf("%v: %d keys, %d controls resolved", a, len(in.keys[a]), len(in.controls[a]))
		}
	}
	// In text mode the keys that type do not navigate.
	for k, want := range map[ebiten.Key]bool{ebiten.KeyW: true, ebiten.KeySpace: true, ebiten.KeyDigit5: true, ebiten.KeyMinus: true,
		ebiten.KeyArrowUp: false, ebiten.KeyEnter: false, ebiten.KeyNumpadEnter: false, ebiten.KeyEscape: false} {
		if types(k) != want {
			t.Errorf("types(%v) = %v", k, !want)
		}
	}
}

func TestMenu(t *testing.T) {
	var got []string
	var adj int
	m := Menu{X: 100, Y: 100, W: 200, RowH: 40, Gap: 10}
	m.Items = []MenuItem{
		{Label: "a", Activate: func() { got = append(got, "a") }},
		{Label: "b", Disabled: true},
		{Label: "c", Adjust: func(d int) { adj += d }},
	}
	in := &Input{}
	in.Down = true
	m.Update(in)
	if m.Sel != 2 {
		t.Fatalf("Down skips the disabled row: sel %d", m.Sel)
	}
	*in = Input{Right: true}
	m.Update(in)
	*in = Input{Left: true}
	m.Update(in)
	m.Update(in)
	if adj != -1 {
		t.Errorf("adjust = %d, want -1", adj)
	}
	*in = Input{Down: true}
	m.Update(in) // wraps
	*in = Input{Confirm: true}
	m.Update(in)
	if m.Sel != 0 || len(got) != 1 {
		t.Errorf("wrap and confirm: sel %d, activated %v", m.Sel, got)
	}
	*in = Input{Up: true}
	m.Update(in)
	if m.Sel != 2 {
		t.Errorf("Up wraps to the last row: sel %d", m.Sel)
	}
	// The mouse selects and clicks.
	*in = Input{MouseX: 150, MouseY: 115, MouseMoved: true, Click: true}
	m.Update(in)
	if m.Sel != 0 || len(got) != 2 {
		t.Errorf("click: sel %d, activated %v", m.Sel, got)
	}
	// A click on a disabled row does nothing.
	*in = Input{MouseX: 150, MouseY: 165, MouseMoved: true, Click: true}
	m.Update(in)
	if m.Sel != 0 || len(got) != 2 {
		t.Errorf("click on a disabled row: sel %d, activated %v", m.Sel, got)
	}
}

func TestErrorTitles(t *testing.T) {
	cases := map[string]error{
		"Login refused":             &client.RejectedError{Reason: wire.RejectNameTaken},
		"Can't reach the server":    &client.ReachError{Addr: "x:1", Err: errors.New("refused")},
		"Connection lost":           fmt.Errorf("wrapped: %w", client.ErrConnectionLost),
		"No answer from the server": client.ErrBindTimeout,
		"The host ended the game":   &client.LogoutError{Reason: wire.LogoutServerShutdown},
		"Disconnected":              &client.LogoutError{Reason: wire.LogoutKicked},
		"Something went wrong":      errors.New("boom"),
	}
	for want, err := range cases {
		if got := errorTitle(err); got != want {
			t.Errorf("errorTitle(%v) = %q, want %q", err, got, want)
		}
	}
	if errorTip(client.ErrBindTimeout) == "" || errorTip(&client.RejectedError{Reason: wire.RejectNameTaken}) == "" {
		t.Error("missing tips")
	}
}

func TestStartHostTakesTheNextFreePort(t *testing.T) {
	// Hold a port (TCP and UDP), then host on it.
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	h, err := StartHost(port, HostConfig{}, testutil.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Stop()
	if h.Port == port {
		t.Fatalf("hosted on the taken port %d", port)
	}
	if h.Port < port || h.Port > port+10 {
		t.Logf("took port %d (any free port: the next ten were taken)", h.Port)
	}
	if last := h.Addrs[len(h.Addrs)-1]; last != fmt.Sprintf("127.0.0.1:%d", h.Port) {
		t.Errorf("addresses %v", h.Addrs)
	}
	// It answers a login.
	c, err := client.Dial(context.Background(), client.Config{Addr: h.LocalAddr(), Name: "Probe", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// newTestGame makes a game with its own settings file and no sound.
func newTestGame(t *testing.T, opt Options) *Game {
	t.Helper()
	opt.Mute = true
	opt.Logger = testutil.Logger(t)
	opt.SettingsPath = filepath.Join(t.TempDir(), "settings.json")
	g, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// run runs the game's loop (Update then Draw at 60 per second) until done
// returns true or the time is out (timeout: a deadlock guard,
// testutil.Wait).
func run(t *testing.T, g *Game, screen *ebiten.Image, timeout time.Duration, done func() bool) bool {
	t.Helper()
	end := time.Now().Add(timeout)
	for time.Now().Before(end) {
		if err := g.Update(); err != nil {
			t.Fatalf("Update: %v", err)
		}
		g.Draw(screen)
		if done() {
			return true
		}
		time.Sleep(time.Second / 60)
	}
	return false
}

// frames runs n frames of g.
func frames(t *testing.T, g *Game, screen *ebiten.Image, n int) {
	t.Helper()
	run(t, g, screen, testutil.Wait, func() bool { n--; return n <= 0 })
}

// waitScene runs g until its scene is an S, and returns it; it fails the
// test with what (the condition missed) if none came within d.
func waitScene[S Scene](t *testing.T, g *Game, screen *ebiten.Image, d time.Duration, what string) S {
	t.Helper()
	var s S
	if !run(t, g, screen, d, func() bool { var ok bool; s, ok = g.scene.(S); return ok }) {
		t.Fatalf("%s; scene %T", what, g.scene)
	}
	return s
}

func TestHostPlayAndAFriendJoins(t *testing.T) {
	script, _ := core.ParseInputScript("right+fire:forever")
	g := newTestGame(t, Options{Host: true, Port: 0, Name: "Tester", InputScript: script})
	defer g.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()

	play := func() *PlayScene { p, _ := g.scene.(*PlayScene); return p }
	myShip := func() (render.Sprite, bool) {
		if p := play(); p != nil {
			for _, s := range p.frame.Sprites {
				if s.Kind == wire.KindPlayerShip && s.Owner == p.view.Me() {
					return s, true
				}
			}
		}
		return render.Sprite{}, false
	}
	if !run(t, g, screen, testutil.Wait, func() bool { _, ok := myShip(); return ok }) {
		t.Fatalf("no ship; scene %T", g.scene)
	}
	if g.host == nil || !g.session.Hosting {
		t.Fatal("not hosting")
	}
	// The script holds Right and Fire: the ship moves right and shoots.
	// The own ship is drawn at the prediction, ahead of where the
	// interpolation would draw it.
	sawMissile := false
	lead, predicted := 0.0, 0
	if !run(t, g, screen, testutil.Wait, func() bool {
		for _, s := range play().frame.Sprites {
			sawMissile = sawMissile || s.Kind == wire.KindPlayerMissile
		}
		s, _ := myShip()
		if p := play(); p.frame.Own.Predicted && s.X < 1200 {
			predicted++
			lead = max(lead, s.X-p.frame.Own.InterpX)
		}
		return s.X > 300 && sawMissile
	}) {
		s, _ := myShip()
		t.Fatalf("ship at x=%v (spawn 100), missile seen %v", s.X, sawMissile)
	}
	t.Logf("own ship drawn up to %.1f px ahead of its interpolated position (%d predicted frames)", lead, predicted)
	if predicted == 0 || lead < 6 {
		t.Errorf("the own ship is not drawn ahead of the interpolation while holding right: lead %.1f px over %d predicted frames", lead, predicted)
	}

	// A friend joins: the HUD and a notice show it.
	friend, err := client.Dial(context.Background(), client.Config{Addr: g.host.LocalAddr(), Name: "Hicks", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if !run(t, g, screen, testutil.Wait, func() bool {
		p := play()
		if p == nil || !p.frame.HUD[friend.Player()].Present || p.frame.HUD[friend.Player()].Name != "Hicks" {
			return false
		}
		for _, n := range p.frame.Notices {
			if n.Text == "Hicks joined" {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the friend's join is not shown; notices %+v", play().frame.Notices)
	}
	// The friend leaves: a notice says so.
	friend.Close()
	if !run(t, g, screen, testutil.Wait, func() bool {
		for _, n := range play().frame.Notices {
			if strings.HasPrefix(n.Text, "Hicks left") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the friend's leaving is not shown; notices %+v", play().frame.Notices)
	}
	// Escape's pause menu: Leave game goes back to the title and stops the
	// server.
	p := play()
	p.paused = true
	p.pause.Sel = 1
	g.in = Input{}
	g.in.Confirm = true
	p.pause.Update(&g.in)
	if _, ok := g.scene.(*TitleScene); !ok || g.host != nil || g.session != nil {
		t.Fatalf("after Leave game: scene %T, host %v, session %v", g.scene, g.host, g.session)
	}
}

// startRulesHost hosts a one-game Classic server with the given rules, run by
// testserver until the test ends. Its Host.Stop closes the server (every
// session gets Logout ServerShutdown) and returns at once; the test's
// cleanup waits for the server's Run to return.
func startRulesHost(t *testing.T, r sim.Rules) *Host {
	t.Helper()
	srv := testserver.Start(t, server.Config{MaxGames: 1, Rules: &r, Mode: wire.ModeClassic, GameOverLinger: 500 * time.Millisecond})
	done := make(chan struct{})
	close(done)
	h := &Host{srv: srv, cancel: func() {}, done: done, Port: srv.Port(), Rules: r, Mode: wire.ModeClassic}
	h.Addrs = []string{h.LocalAddr()}
	return h
}

func TestGameOverShowsTheScores(t *testing.T) {
	// A deadly game: one life, fast Bydos that fire at once.
	r := sim.DefaultRules()
	r.Lives = 1
	r.JoinInvulnTicks = 0
	r.FirstWave = 1
	r.WaveSize = 8
	r.BydosFireMin, r.BydosFireMax = 2, 4
	r.EnemyMissileSpeed = 1500
	g := newTestGame(t, Options{Name: "Tester"})
	defer g.shutdown()
	g.host = startRulesHost(t, r)
	g.autoReady = true // the host's room starts at once, as with -host
	g.setScene(NewHostingScene(g))
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	over := waitScene[*GameOverScene](t, g, screen, testutil.Wait, "no game over")
	if len(over.ranked) != 1 || over.ranked[0].Name != "Tester" || over.ranked[0].Place != 1 {
		t.Fatalf("scores %+v", over.ranked)
	}
	// The server's Logout(GameOver), after its linger, is no error: the
	// scene stays, frames after it came.
	c := g.session.C
	if !run(t, g, screen, testutil.Wait, func() bool {
		select {
		case <-c.Done():
			return true
		default:
			return false
		}
	}) {
		t.Fatal("no Logout(GameOver) from the server")
	}
	frames(t, g, screen, 10)
	if _, ok := g.scene.(*GameOverScene); !ok {
		t.Fatalf("after the Logout: scene %T", g.scene)
	}
	// Enter goes back to the menu.
	g.in = Input{Confirm: true}
	over.menu.Update(&g.in)
	if _, ok := g.scene.(*TitleScene); !ok {
		t.Fatalf("Enter on the game over: scene %T", g.scene)
	}
}

func TestConnectionLostShowsTheError(t *testing.T) {
	h := startRulesHost(t, sim.DefaultRules())
	g := newTestGame(t, Options{Join: h.LocalAddr(), Name: "Tester"})
	defer g.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	waitScene[*PlayScene](t, g, screen, testutil.Wait, "not playing")
	// The join was remembered.
	if len(g.settings.Recent) == 0 || g.settings.Recent[0] != h.LocalAddr() {
		t.Errorf("recent servers %v", g.settings.Recent)
	}
	h.Stop()
	es := waitScene[*ErrorScene](t, g, screen, testutil.Wait, "no error screen after the server stopped")
	if es.title != "The host ended the game" {
		t.Errorf("title %q, lines %q", es.title, es.lines)
	}
	g.in = Input{Back: true}
	if err := es.Update(g); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.scene.(*TitleScene); !ok {
		t.Fatalf("Esc on the error: scene %T", g.scene)
	}
}

func TestJoinRefusedShowsTheError(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	g := newTestGame(t, Options{Join: addr, Name: "Tester"})
	defer g.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	es := waitScene[*ErrorScene](t, g, screen, testutil.Wait, "no error screen")
	if es.title != "Can't reach the server" || !strings.Contains(strings.Join(es.lines, " "), "refused") {
		t.Errorf("title %q, lines %q", es.title, es.lines)
	}
}

func TestFirstRunAsksTheName(t *testing.T) {
	g := newTestGame(t, Options{})
	if _, ok := g.scene.(*TitleScene); !ok {
		t.Fatalf("first scene %T", g.scene)
	}
	ts := g.scene.(*TitleScene)
	g.in = Input{Confirm: true} // Host game
	ts.Update(g)
	ns, ok := g.scene.(*NameScene)
	if !ok {
		t.Fatalf("Host game without a name: scene %T", g.scene)
	}
	ns.field.Text = "x" // too short
	g.in = Input{Confirm: true}
	ns.Update(g)
	if ns.errMsg == "" {
		t.Fatal("a 1-letter name is accepted")
	}
	ns.field.Text = "  Ellen   Ripley "
	ns.Update(g)
	if _, ok := g.scene.(*LobbyConnectScene); !ok {
		t.Fatalf("after the name: scene %T", g.scene)
	}
	g.in = Input{Back: true}
	g.scene.Update(g)
	if g.Name() != "Ellen Ripley" {
		t.Errorf("name %q", g.Name())
	}
	// Remembered in the settings file.
	s, err := settings.Load(g.settingsPath, settings.Checks{})
	if err != nil || s.Name != "Ellen Ripley" {
		t.Errorf("saved name %q, %v", s.Name, err)
	}
}

func TestNameTakenOffersAnotherName(t *testing.T) {
	h := startRulesHost(t, sim.DefaultRules())
	defer h.Stop()
	first, err := client.Dial(context.Background(), client.Config{Addr: h.LocalAddr(), Name: "Ripley", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	// The host plays Classic (startRulesHost): join that game, not a Stage one.
	g := newTestGame(t, Options{Join: h.LocalAddr(), Name: "ripley", Mode: wire.ModeClassic})
	defer g.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	es := waitScene[*ErrorScene](t, g, screen, testutil.Wait, "no error screen")
	if es.title != "Login refused" || es.menu.Items[0].Label != "Change name" {
		t.Fatalf("title %q, first choice %q", es.title, es.menu.Items[0].Label)
	}
	g.in = Input{Confirm: true}
	es.Update(g)
	ns, ok := g.scene.(*NameScene)
	if !ok {
		t.Fatalf("Change name: scene %T", g.scene)
	}
	ns.field.Text = "Dallas"
	ns.Update(g)
	waitScene[*PlayScene](t, g, screen, testutil.Wait, "not playing under the new name")
	if g.Name() != "Dallas" {
		t.Errorf("name %q", g.Name())
	}
}
