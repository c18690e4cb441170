package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/replay"
	"rtype/net/wire"
	"rtype/render"
)

// needDisplay skips t without an X display (the game opens a window) or
// with -short (it builds and runs the real binary).
func needDisplay(t *testing.T) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the game needs an X display (run under xvfb-run -a, as ./build.sh test does)")
	}
	if testing.Short() {
		t.Skip("-short")
	}
}

// startGame starts the game binary bin with args, muted, its settings file,
// configuration and data homes in dir (so its recordings too), and
// returns it and its stderr (its log).
func startGame(t *testing.T, ctx context.Context, bin, dir string, args ...string) (*exec.Cmd, io.ReadCloser) {
	t.Helper()
	game := exec.CommandContext(ctx, bin, append(args, "-mute", "-web", "127.0.0.1:0", "-config", filepath.Join(dir, "settings.json"))...)
	game.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir) // its settings, its recordings
	stderr, err := game.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := game.Start(); err != nil {
		t.Fatal(err)
	}
	return game, stderr
}

// stopGame ends a game as a signal does (SIGTERM: it leaves cleanly,
// logs "bye" and exits 0), once its log says what the test waited for,
// and returns its exit's error.
func stopGame(t *testing.T, game *exec.Cmd, log *logWatch) error {
	t.Helper()
	if err := game.Process.Signal(syscall.SIGTERM); err != nil {
		t.Logf("SIGTERM: %v", err)
	}
	log.end(t, testutil.Wait)
	return game.Wait()
}

// TestEndToEnd builds the real rtype binary, starts it hosting a game on
// the current display with a test input script (Right and Fire held for
// 1 s, then Fire) and a screenshot hook, joins a second player with
// net/client, and checks the screenshot: a dark starfield, the HUD with
// both players, the local ship in its colour, moved right of its spawn
// point. A spectator's window and the replay of the recording are
// checked the same way. Each screenshot is taken when the game draws what
// the test checks (-autotest-screenshot-players: both players in the HUD
// and the ship followed drawn solid), and each game is told to quit
// (SIGTERM) once the test has what it wants, never after a guessed time.
// An X screenshot of the game's window (ImageMagick's import) is checked
// too when available.
func TestEndToEnd(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	if keep := os.Getenv("RTYPE_E2E_DIR"); keep != "" {
		dir = keep // keep the screenshots to look at them
		os.MkdirAll(dir, 0o755)
	}
	start := time.Now()
	bin := buildGame(t, dir, raceEnabled)

	shot := filepath.Join(dir, "shot.png")
	rootShot := filepath.Join(dir, "root.png")
	os.Remove(shot)
	os.Remove(rootShot)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The ship flies right for 1 s, then stays and fires: well inside
	// the screen, where the Bydos entering from the right edge seldom
	// reach it while the spectator watches.
	game, stderr := startGame(t, ctx, bin, dir,
		"-host", "-port", strconv.Itoa(freePort(t)), "-name", "Tester",
		"-autotest-input", "right+fire:1s,fire:forever",
		"-autotest-screenshot", shot, "-autotest-screenshot-after", "1s", "-autotest-screenshot-players", "2",
		"-replays", filepath.Join(dir, "replays"))
	defer func() { game.Process.Kill() }()
	hostLog := watchLog(stderr)
	// The game logs "joined addr=127.0.0.1:PORT player=N" when its play
	// starts.
	m := regexp.MustCompile(`msg=joined addr=\S+:(\d+) player=(\d+)`).FindStringSubmatch(hostLog.wait(t, "msg=joined", 60*time.Second))
	if m == nil {
		t.Fatalf("the game's join line: %s", hostLog)
	}
	port, _ := strconv.Atoi(m[1])
	me, _ := strconv.Atoi(m[2])

	// A second player joins, and stays until the host quits.
	friend, err := client.Dial(ctx, client.Config{
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Name: "Bot",
		Logger: testutil.Logger(t),
	})
	if err != nil {
		t.Fatalf("the bot could not join: %v\n%s", err, hostLog)
	}
	defer friend.Close()
	// It plays as a bot: moves, dodges and fires, until the host quits.
	botDone := make(chan error, 1)
	go func() { botDone <- bot.Play(context.Background(), friend, rand.New(rand.NewPCG(1, 2))) }()

	if friend.Player() == uint8(me) {
		t.Fatalf("the bot and the game are both player %d", me)
	}

	// The X screenshot, taken once the game's own is saved: of the game's
	// window when xdotool finds it, else of the whole display.
	hostShip := shotShip(t, hostLog.wait(t, "msg=\"autotest screenshot\"", 60*time.Second))
	hostLog.wait(t, "screenshot saved", testutil.Wait)
	rootTaken := false
	if _, err := exec.LookPath("import"); err == nil {
		target := "root"
		if out, err := exec.Command("xdotool", "search", "--pid", strconv.Itoa(game.Process.Pid)).Output(); err == nil {
			if ids := strings.Fields(string(out)); len(ids) > 0 {
				target = ids[len(ids)-1]
			}
		}
		out, err := exec.Command("import", "-window", target, rootShot).CombinedOutput()
		rootTaken = err == nil
		if err != nil {
			t.Logf("import -window %s: %v %s", target, err, out)
		}
	}
	// A third window watches the game (7.17) while it runs, once the X
	// screenshot of the host's window is taken.
	specShot := filepath.Join(dir, "spectate.png")
	os.Remove(specShot)
	spec, specErr := startGame(t, ctx, bin, dir, "-spectate", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		"-name", "Watcher", "-replays", "none",
		"-autotest-screenshot", specShot, "-autotest-screenshot-after", "500ms", "-autotest-screenshot-players", "2")
	defer func() { spec.Process.Kill() }()
	specLog := watchLog(specErr)
	specLog.wait(t, "msg=watching", 60*time.Second)
	specShip := shotShip(t, specLog.wait(t, "msg=\"autotest screenshot\"", 60*time.Second))
	specLog.wait(t, "screenshot saved", testutil.Wait)
	if err := stopGame(t, spec, specLog); err != nil {
		t.Fatalf("rtype -spectate failed: %v\n%s", err, specLog)
	}
	if !strings.Contains(specLog.String(), "bye") {
		t.Errorf("the spectator's log lacks %q:\n%s", "bye", specLog)
	}
	// It follows the first player, the host: its panel marked, its ship.
	checkPlayScreen(t, loadPNG(t, specShot), "the spectator's screenshot", true, uint8(me), friend.Player(), specShip, false)

	if err := stopGame(t, game, hostLog); err != nil {
		t.Fatalf("the game failed: %v\n%s", err, hostLog)
	}
	t.Logf("the game ran %v", time.Since(start).Round(time.Millisecond))
	for _, want := range []string{"server stopped", "bye"} {
		if !strings.Contains(hostLog.String(), want) {
			t.Errorf("the game's log lacks %q:\n%s", want, hostLog)
		}
	}
	// The host quit cleanly: its server logged the bot out (or the game
	// was over before).
	select {
	case <-friend.Done():
		var le *client.LogoutError
		if err := friend.Err(); !errors.As(err, &le) || (le.Reason != wire.LogoutServerShutdown && le.Reason != wire.LogoutGameOver) {
			t.Errorf("the bot's session ended with %v, want Logout(ServerShutdown) or Logout(GameOver)", err)
		}
	case <-time.After(testutil.Wait):
		t.Error("the bot is still connected after the host quit")
	}
	select {
	case <-botDone:
	case <-time.After(testutil.Wait):
		t.Error("the bot still plays after its session ended")
	}

	img := loadPNG(t, shot)
	if b := img.Bounds(); b.Dx() != render.Width || b.Dy() != render.Height {
		t.Fatalf("screenshot is %v, want the logical %dx%d", b, render.Width, render.Height)
	}
	checkPlayScreen(t, img, "the game's screenshot", true, uint8(me), friend.Player(), hostShip, true)
	if rootTaken {
		// Taken a moment after the game's own, at no frame in
		// particular: the window shows the game (its ship may be
		// blinking or blowing up by then).
		x := loadPNG(t, rootShot)
		if b := x.Bounds(); float64(b.Dx())/float64(b.Dy()) > 1.7 && float64(b.Dx())/float64(b.Dy()) < 1.86 {
			checkPlayScreen(t, x, "the X screenshot", false, uint8(me), friend.Player(), nil, false)
		} else {
			t.Logf("X screenshot of %v: not the game's 16:9 window alone, not checked", b)
		}
	} else {
		t.Log("no X screenshot (ImageMagick's import missing or failed)")
	}
	watchReplay(t, bin, dir, friend.Player(), uint8(me))
}

// watchReplay opens the recording the game made of the game it hosted
// (the newest recording) with rtype -replay, at 2x, following the bot,
// and checks the screenshot of the replay, taken when it shows both
// players and the bot's ship: the game as it was played, the bot's panel
// marked and its ship in its colour.
func watchReplay(t *testing.T, bin, dir string, bot, host uint8) {
	t.Helper()
	list, err := replay.List(filepath.Join(dir, "replays"))
	if err != nil || len(list) == 0 {
		t.Fatalf("recordings %+v, %v: want the game's", list, err)
	}
	rep, err := replay.Open(list[0].Path)
	// The game lasted at least the host's screenshot (1 s of play) and the
	// spectator's (0.5 s of its own play, after its start).
	if err != nil || rep.Damage != nil || rep.Length < 1500*time.Millisecond {
		t.Fatalf("the recording: %v (damage %v), %v long", err, rep.Damage, rep.Length)
	}
	t.Logf("the recording: %v long", rep.Length.Round(time.Millisecond))
	shot := filepath.Join(dir, "replay.png")
	os.Remove(shot)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	game, stderr := startGame(t, ctx, bin, dir, "-replay", list[0].Path, "-replay-speed", "2",
		"-replay-follow", strconv.Itoa(int(bot)+1), "-replays", "none",
		"-autotest-screenshot", shot, "-autotest-screenshot-after", "500ms", "-autotest-screenshot-players", "2")
	defer func() { game.Process.Kill() }()
	log := watchLog(stderr)
	log.wait(t, "msg=replay ", 60*time.Second)
	ship := shotShip(t, log.wait(t, "msg=\"autotest screenshot\"", 60*time.Second))
	log.wait(t, "screenshot saved", testutil.Wait)
	if err := stopGame(t, game, log); err != nil {
		t.Fatalf("rtype -replay failed: %v\n%s", err, log)
	}
	if !strings.Contains(log.String(), "bye") {
		t.Errorf("the replay's log lacks %q:\n%s", "bye", log)
	}
	img := loadPNG(t, shot)
	checkPlayScreen(t, img, "the replay's screenshot", true, bot, host, ship, false)
}

// buildGame builds the rtype binary into dir, with the race detector
// when race is set (the test's own packages are cached that way), else
// as players get it.
func buildGame(t *testing.T, dir string, race bool) string {
	t.Helper()
	built, took, err := games.build(race)
	if err != nil {
		t.Fatal(err)
	}
	if took > 0 {
		t.Logf("built the game in %v", took.Round(time.Millisecond))
	}
	bin := filepath.Join(dir, "rtype")
	if err := os.Link(built, bin); err != nil { // another file system: a copy
		b, err := os.ReadFile(built)
		if err == nil {
			err = os.WriteFile(bin, b, 0o755)
		}
		if err != nil {
			t.Fatalf("the game built once, into the test's directory: %v", err)
		}
	}
	return bin
}

// games is the game's executables the tests run, built once per package
// run (with and without the race detector): each build links for 7 to 15
// s, and five tests run one. TestMain removes them.
var games builtGames

type builtGames struct {
	mu   sync.Mutex
	dir  string
	bins [2]string // without, with -race
}

// build returns the executable built with or without -race, building it
// the first time, and the time the build took (0: built before).
func (g *builtGames) build(race bool) (string, time.Duration, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := 0
	if race {
		i = 1
	}
	if g.bins[i] != "" {
		return g.bins[i], 0, nil
	}
	if g.dir == "" {
		dir, err := os.MkdirTemp("", "rtype-game-")
		if err != nil {
			return "", 0, err
		}
		g.dir = dir
	}
	bin := filepath.Join(g.dir, fmt.Sprintf("rtype-%d", i))
	args := []string{"build", "-tags", "autotest", "-o", bin} // the test hooks (autotest_hooks.go)
	if race {
		args = append(args, "-race")
	}
	start := time.Now()
	if out, err := exec.Command(goTool(), append(args, ".")...).CombinedOutput(); err != nil {
		return "", 0, fmt.Errorf("go build: %v\n%s", err, out)
	}
	g.bins[i] = bin
	return bin, time.Since(start), nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if games.dir != "" {
		os.RemoveAll(games.dir)
	}
	os.Exit(code)
}

// shotShip reads where the ship followed was drawn in a screenshot, from
// the game's "autotest screenshot" line (-autotest-screenshot-players).
func shotShip(t *testing.T, line string) *image.Point {
	t.Helper()
	m := regexp.MustCompile(`ship_x=(-?\d+) ship_y=(-?\d+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no ship in the screenshot's line: %s", line)
	}
	x, _ := strconv.Atoi(m[1])
	y, _ := strconv.Atoi(m[2])
	return &image.Point{x, y}
}

// checkPlayScreen checks a picture of the play screen. Coordinates are
// logical, scaled to the picture when it is not 1280 x 720 (the X
// screenshot shows the window at the top-left corner of the display).
// ship is where the game drew the ship followed, me's (nil: not
// checked, the picture was taken at no particular frame); moved says it
// must be right of its spawn point.
func checkPlayScreen(t *testing.T, img image.Image, what string, exact bool, me, bot uint8, ship *image.Point, moved bool) {
	t.Helper()
	b := img.Bounds()
	scale := 1.0
	if !exact {
		// The window, 1280 x 720 or resized.
		scale = float64(b.Dx()) / render.Width
	}
	at := func(x, y int) color.RGBA {
		r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
	}
	luma := func(c color.RGBA) int { return (299*int(c.R) + 587*int(c.G) + 114*int(c.B)) / 1000 }
	w, h := int(render.Width*scale), int(render.Height*scale)
	w, h = min(w, b.Dx()), min(h, b.Dy())
	top := int(120 * scale) // below the HUD and the notices

	// A dark background with many small bright stars.
	dark, bright, total := 0, 0, 0
	for y := top; y < h; y++ {
		for x := 0; x < w; x++ {
			l := luma(at(x, y))
			total++
			if l < 40 {
				dark++
			}
			if l > 90 {
				bright++
			}
		}
	}
	if dark < total*8/10 {
		t.Errorf("%s: %d of %d pixels dark, want a dark background", what, dark, total)
	}
	if bright < 60 {
		t.Errorf("%s: %d bright pixels, want a starfield", what, bright)
	}

	// The HUD: text in the local player's panel, the bot's panel in its
	// colour.
	x0, x1 := int(render.HUDSlotX(int(me))*scale), int((render.HUDSlotX(int(me))+render.HUDWidth)*scale)
	y0, y1 := int(render.HUDTop*scale), int((render.HUDTop+render.HUDHeight)*scale)
	text := 0
	for y := y0; y < y1; y++ {
		for x := x0 + int(10*scale); x < x1; x++ {
			if luma(at(x, y)) > 150 {
				text++
			}
		}
	}
	if text < int(60*scale*scale) {
		t.Errorf("%s: %d text pixels in the HUD panel, want the name and score", what, text)
	}
	near := func(c, want color.RGBA, d int) bool {
		abs := func(v int) int { return max(v, -v) }
		return abs(int(c.R)-int(want.R)) <= d && abs(int(c.G)-int(want.G)) <= d && abs(int(c.B)-int(want.B)) <= d
	}
	swatch := 0
	bx := int(render.HUDSlotX(int(bot)) * scale)
	for y := y0; y < y1; y++ {
		for x := bx; x < bx+int(6*scale)+1; x++ {
			if near(at(x, y), render.PlayerColors[bot], 50) {
				swatch++
			}
		}
	}
	if swatch < int(40*scale) {
		t.Errorf("%s: the bot's HUD panel has %d pixels of its colour, want its colour swatch", what, swatch)
	}

	// The ship followed: pixels of its colour (its tinted accents) where
	// the game says it drew it, right of its spawn point (x = 100) when
	// it moved. The colours are far apart: cyan, magenta, yellow, green.
	col := render.PlayerColors[me]
	n := 0
	if ship != nil {
		for y := int(float64(ship.Y-25) * scale); y < int(float64(ship.Y+25)*scale) && y < h; y++ {
			for x := max(0, int(float64(ship.X-40)*scale)); x < int(float64(ship.X+40)*scale) && x < w; x++ {
				if y >= 0 && near(at(x, y), col, 70) {
					n++
				}
			}
		}
		if n < 5 {
			t.Errorf("%s: %d pixels of the ship's colour %v around %v, where the game drew it", what, n, col, *ship)
		}
		if moved && ship.X <= 100+40 {
			t.Errorf("%s: the ship is at x=%d, want it moved right of its spawn x=100", what, ship.X)
		}
	}
	t.Logf("%s: %d dark / %d bright pixels, %d HUD text pixels, %d swatch pixels, ship at %v (%d pixels of %v)", what, dark, bright, text, swatch, ship, n, col)
}

func loadPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// freePort returns a port free for TCP and UDP right now.
func freePort(t *testing.T) int {
	for range 20 {
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", fmt.Sprintf(":%d", p))
		l.Close()
		if err == nil {
			u.Close()
			return p
		}
	}
	t.Fatal("no free port")
	return 0
}

// goTool is the go command that runs this test.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
