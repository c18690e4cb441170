package ops

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"rtype/internal/testutil"
	"rtype/net/wire"
)

// browser is a headless Chromium driven over the DevTools protocol (CDP):
// JSON commands on the page's websocket.
type browser struct {
	t    *testing.T
	cmd  *exec.Cmd
	ws   *websocket.Conn
	next int
}

// chromiumPath returns Debian's chromium, or skips the test when it is
// missing and this is not CI (./build.sh deps installs it; CI must have it).
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is missing on CI: ./build.sh deps installs Debian's chromium package")
	}
	t.Skip("chromium is missing: install Debian's chromium package (./build.sh deps) to run the status page's browser test")
	return ""
}

// startBrowser starts headless Chromium on a blank page, with a profile
// of its own, and connects to the page's DevTools websocket.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := chromiumPath(t)
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
		"--disable-background-networking", "--window-size=1200,900", "--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0", "--remote-allow-origins=http://127.0.0.1",
		"--user-data-dir="+t.TempDir(), "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers die with it (Cleanup)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	b := &browser{t: t, cmd: cmd}
	t.Cleanup(b.close)
	// "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID"
	found := make(chan string, 1)
	var log bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`DevTools listening on ws://([^/]+)/`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			} else if log.Len() < 4096 {
				log.WriteString(sc.Text() + "\n")
			}
		}
	}()
	var hostport string
	select {
	case hostport = <-found:
	case <-time.After(30 * time.Second):
		t.Fatalf("chromium did not open its DevTools port within 30 s")
	}
	// The page target, from the DevTools HTTP endpoint.
	var targets []struct {
		Type, URL, WebSocketDebuggerURL string
	}
	testutil.WaitFor(t, 10*time.Second, "chromium's page target", func() bool {
		_, body := get(t, "http://"+hostport+"/json/list")
		targets = nil
		if json.Unmarshal([]byte(body), &targets) != nil {
			return false
		}
		for _, tg := range targets {
			if tg.Type == "page" && tg.WebSocketDebuggerURL != "" {
				return true
			}
		}
		return false
	})
	for _, tg := range targets {
		if tg.Type == "page" {
			if b.ws, err = websocket.Dial(tg.WebSocketDebuggerURL, "", "http://127.0.0.1"); err != nil {
				t.Fatalf("DevTools websocket %s: %v", tg.WebSocketDebuggerURL, err)
			}
			break
		}
	}
	b.call("Page.enable", nil, nil)
	return b
}

// close ends Chromium and its helper processes (its process group).
func (b *browser) close() {
	if b.ws != nil {
		b.ws.Close()
	}
	syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	b.cmd.Wait()
}

// call sends a CDP command and decodes its result into out (if not nil),
// skipping the events that arrive meanwhile.
func (b *browser) call(method string, params, out any) {
	b.t.Helper()
	b.next++
	id := b.next
	if params == nil {
		params = struct{}{}
	}
	if err := websocket.JSON.Send(b.ws, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		b.t.Fatalf("CDP %s: %v", method, err)
	}
	b.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := websocket.JSON.Receive(b.ws, &msg); err != nil {
			b.t.Fatalf("CDP %s: %v", method, err)
		}
		if msg.ID != id {
			continue // an event, or an older answer
		}
		if msg.Error != nil {
			b.t.Fatalf("CDP %s: %s", method, msg.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(msg.Result, out); err != nil {
				b.t.Fatalf("CDP %s result: %v", method, err)
			}
		}
		return
	}
}

// eval evaluates a JavaScript expression in the page and returns its
// value as JSON.
func (b *browser) eval(expr string) json.RawMessage {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	if r.ExceptionDetails != nil {
		b.t.Fatalf("evaluate %s: %s", expr, r.ExceptionDetails.Text)
	}
	return r.Result.Value
}

// waitTrue waits until a JavaScript condition holds in the loaded page.
func (b *browser) waitTrue(what, cond string) {
	b.t.Helper()
	expr := `document.readyState === "complete" && !!(` + cond + `)`
	if !testutil.Eventually(testutil.Wait, func() bool { return string(b.eval(expr)) == "true" }) {
		b.t.Fatalf("the page never showed %s; it shows:\n%s", what, b.eval(`document.body ? document.body.innerText : ""`))
	}
}

// screenshot captures the page as PNG, checks it is an image with
// something on it (and the colour want somewhere, if not nil: a player's
// swatch), and
// saves it in the test's temporary directory, or $RTYPE_SCREENSHOT_DIR.
func (b *browser) screenshot(name string, want *[3]uint8) {
	b.t.Helper()
	var r struct {
		Data string `json:"data"`
	}
	b.call("Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	raw, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil || len(raw) == 0 {
		b.t.Fatalf("screenshot %s: %d bytes, %v", name, len(raw), err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		b.t.Fatalf("screenshot %s is not a PNG: %v", name, err)
	}
	colours := map[[3]uint8]bool{}
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}] = true
		}
	}
	if bd.Dx() < 400 || bd.Dy() < 300 || len(colours) < 8 {
		b.t.Fatalf("screenshot %s: %v with %d colours: blank?", name, bd, len(colours))
	}
	if want != nil && !colours[*want] {
		b.t.Errorf("screenshot %s has no pixel of colour %v (the player's swatch)", name, want)
	}
	dir := os.Getenv("RTYPE_SCREENSHOT_DIR")
	if dir == "" {
		dir = b.t.TempDir()
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s: %v, %d bytes, %d colours: %s", name, bd, len(raw), len(colours), path)
}

// The status page in a real headless Chromium: it shows a connected
// player with its colour, and an operator signs in with the token and
// kicks the player through the page's form: the client gets
// Logout(Kicked), and the page shows the kick and no longer the player.
func TestStatusPageInChromium(t *testing.T) {
	b := startBrowser(t)
	e := start(t, testToken)
	c := e.dial(t, "Alice")
	sid := strconv.FormatUint(uint64(c.Session()), 10)

	b.call("Page.navigate", map[string]any{"url": e.base + "/"}, nil)
	b.waitTrue("Alice's row", `document.querySelector('tr.player[data-name="Alice"]')`)
	if got := string(b.eval(`document.querySelector('tr.player[data-name="Alice"] .name').innerText`)); got != `"Alice"` {
		t.Errorf("the player's name cell: %s", got)
	}
	b.screenshot("status", &[3]uint8{0x22, 0xe4, 0xff}) // Alice is player 0: cyan

	// Sign in with the token, as an operator types it.
	b.eval(fmt.Sprintf(`document.getElementById("token").value = %q; document.querySelector("#signin button").click(); true`, testToken))
	b.waitTrue("the kick button", `document.getElementById("kick-`+sid+`")`)
	b.eval(`document.getElementById("kick-` + sid + `").click(); true`)
	waitLogout(t, c, wire.LogoutKicked)
	b.waitTrue("the kick in the latest actions", `document.getElementById("actions") && document.getElementById("actions").innerText.includes("kicked Alice (session `+sid+`)")`)
	if string(b.eval(`document.querySelector('tr.player[data-name="Alice"]') === null`)) != "true" {
		t.Error("the page still lists Alice after the kick")
	}
	var dom string
	json.Unmarshal(b.eval(`document.documentElement.outerHTML`), &dom)
	if !regexp.MustCompile(`kicked Alice \(session \d+\)`).MatchString(dom) || !bytes.Contains([]byte(dom), []byte("No game is running")) {
		t.Errorf("the page's DOM after the kick:\n%s", dom)
	}
	if g := e.srv.Games(); len(g) != 0 {
		t.Errorf("games after the kick: %+v", g)
	}
	b.screenshot("kicked", nil)
}
