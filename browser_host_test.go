package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rtype/internal/browsertest"
	"rtype/internal/testutil"
)

// TestBrowserJoinsHostedGame is issue 18's "open this link and play with
// us": the game hosts (-host), prints the URL of its page, and a browser
// opens it with the room's code and plays in the host's game, whose
// player it sees. Skipped while hosted games serve no WebTransport.
func TestBrowserJoinsHostedGame(t *testing.T) {
	needDisplay(t)
	browsertest.Chromium(t)
	dir := t.TempDir()
	bin := buildGame(t, dir, raceEnabled)
	gz, _ := browsertest.Wasm(t)
	wasm := filepath.Join(dir, "rtype.wasm.gz")
	if err := os.WriteFile(wasm, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	game := exec.CommandContext(ctx, bin, "-host", "-port", strconv.Itoa(freePort(t)), "-name", "Tester", "-mute",
		"-web", "127.0.0.1:0", "-config", filepath.Join(dir, "settings.json"), "-replays", "none", "-autotest-quit-after", "100s")
	game.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir, wasmEnv+"="+wasm)
	stdout, err := game.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := game.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := game.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		game.Wait()
	}()
	// The URL on stdout, the room's code in the log.
	urlCh, roomCh := make(chan string, 1), make(chan string, 1)
	var logMu sync.Mutex
	var logs strings.Builder
	scan := func(r io.Reader, re *regexp.Regexp, ch chan string) {
		sc := bufio.NewScanner(r)
		sent := false
		for sc.Scan() {
			logMu.Lock()
			logs.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil && !sent {
				ch <- m[1]
				sent = true
			}
		}
	}
	go scan(stdout, regexp.MustCompile(`open (https?://\S+/)\?room=CODE`), urlCh)
	go scan(stderr, regexp.MustCompile(`msg="room created".* room=(\S+)`), roomCh)
	var pageURL, room string
	for pageURL == "" || room == "" {
		select {
		case pageURL = <-urlCh:
		case room = <-roomCh:
		case <-ctx.Done():
			logMu.Lock()
			defer logMu.Unlock()
			t.Fatalf("no page URL (%q) or room (%q) from the game:\n%s", pageURL, room, logs.String())
		}
	}
	if !strings.HasPrefix(pageURL, "http://127.0.0.1:") {
		t.Fatalf("the game printed %s for -web 127.0.0.1:0", pageURL)
	}
	res, err := http.Get(pageURL + "config.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct{ Addr, NoServer string }
	json.NewDecoder(res.Body).Decode(&cfg)
	res.Body.Close()
	if cfg.Addr == "" {
		t.Skipf("the hosted game serves no WebTransport (issue 18's server side): %s", cfg.NoServer)
	}

	b := browsertest.New(t, 2*time.Minute)
	if err := chromedp.Do(b.Ctx, chromedp.Navigate(pageURL+"?room="+room+"&name=Friend&mute=1")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(b.Ctx, chromedp.Poll[bool](`globalThis.rtype && rtype.scene === "*game.PlayScene" && !!rtype.world`, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		logMu.Lock()
		defer logMu.Unlock()
		t.Fatalf("the browser did not join the hosted game: %v\npage log:\n%s\ngame log:\n%s", err, b.Log(), logs.String())
	}
	s, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`rtype.world`))
	if err != nil {
		t.Fatal(err)
	}
	var w struct{ Names []string }
	json.Unmarshal([]byte(s), &w)
	if !slices.Contains(w.Names, "Tester") || !slices.Contains(w.Names, "Friend") {
		t.Errorf("the browser's players %q: want the host, Tester, and itself, Friend", w.Names)
	}
	if lit, colours, ok := b.ShowsGame(t, "hosted.png", testutil.Wait); !ok {
		t.Errorf("the screenshot does not show the game: %d lit pixels, %d colours", lit, colours)
	}
}
