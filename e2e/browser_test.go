package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"rtype/web"
)

// The game in a real browser (issue 18): headless Chromium, driven over
// the DevTools protocol by chromedp, loads the page of package web and
// runs the game built for GOOS=js. The page publishes what it draws in
// globalThis.rtype (game/page_js.go).

// wasmBuild is the game built for the browser, gzipped, once per test
// binary.
var wasmBuild struct {
	once sync.Once
	gz   []byte
	raw  int
	err  error
}

// gameWasm builds the game for the browser as build.sh does
// (-trimpath -ldflags=-s -w) and gzips it at the best compression.
func gameWasm(t *testing.T) []byte {
	t.Helper()
	wasmBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "rtype-wasm-")
		if err != nil {
			wasmBuild.err = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "rtype.wasm")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "rtype")
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			wasmBuild.err = fmt.Errorf("GOOS=js go build: %v\n%s", err, b)
			return
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			wasmBuild.err = err
			return
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(raw)
		zw.Close()
		wasmBuild.gz, wasmBuild.raw = buf.Bytes(), len(raw)
	})
	if wasmBuild.err != nil {
		t.Fatal(wasmBuild.err)
	}
	return wasmBuild.gz
}

// chromium returns Debian's chromium, or skips the test when it is
// missing and this is not CI (./build.sh deps installs it).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is missing on CI: ./build.sh deps installs Debian's chromium package")
	}
	t.Skip("chromium is missing: install Debian's chromium package (./build.sh deps) to run the browser tests")
	return ""
}

// newBrowser starts headless Chromium (WebGL on SwiftShader, a profile
// of its own) and returns a tab's context; it ends with the test.
func newBrowser(t *testing.T, timeout time.Duration, flags ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 720),
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("ignore-gpu-blocklist", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
	)
	opts = append(opts, flags...)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelT := context.WithTimeout(actx, timeout)
	ctx, cancelC := chromedp.NewContext(ctx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		cancelC()
		cancelT()
		cancelA()
	})
	chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			for _, a := range ev.Args {
				pageLog.add(string(a.Value))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			if d.Exception != nil {
				pageLog.add("exception: " + d.Text + " " + d.Exception.Description)
			} else {
				pageLog.add("exception: " + d.Text)
			}
		}
	})
	return ctx
}

// pageLog keeps the last lines the page logged (the game's logs go to
// the console), for the failure messages.
var pageLog lines

type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.l) >= 200 {
		l.l = l.l[1:]
	}
	l.l = append(l.l, s)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b bytes.Buffer
	for _, s := range l.l {
		fmt.Fprintln(&b, s)
	}
	return b.String()
}

// screenshot captures the page and saves it in the test's directory (and
// in $RTYPE_SHOTS, when set, to look at it).
func screenshot(t *testing.T, ctx context.Context, name string) image.Image {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if dir := os.Getenv("RTYPE_SHOTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	return img
}

// colourful counts the pixels of img that are not the dark background,
// and its distinct colours (quantised).
func colourful(img image.Image) (lit int, colours int) {
	seen := map[uint32]bool{}
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8+g>>8+b>>8 > 150 {
				lit++
			}
			seen[(r>>12)<<8|(g>>12)<<4|b>>12] = true
		}
	}
	return lit, len(seen)
}

// maxTitle is the longest TestBrowserTitle accepts from the page's load
// to the title screen: the target is 3 s, but a test is no benchmark on
// a shared machine; beyond this the start is broken, not slow.
const maxTitle = 20 * time.Second

// TestBrowserTitle loads the page and waits for the title screen's
// first frame, and the screenshot must show the title screen (its text
// and starfield, not a blank canvas). It logs the time from the page's
// load to that frame (performance.now() of it; the target is 3 s on
// loopback, BENCHMARKS.md), and fails only beyond maxTitle: under the
// whole suite's load it took 5.8 s here, against 2.2 s alone.
func TestBrowserTitle(t *testing.T) {
	chromium(t)
	gz := gameWasm(t)
	h, err := web.New(web.Config{Wasm: gz})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	ctx := newBrowser(t, 90*time.Second)

	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/?mute=1")); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	title, err := chromedp.Run(ctx, chromedp.Poll[float64](`globalThis.rtype && rtype.first["*game.TitleScene"]`, chromedp.WithPollingTimeout(60*time.Second)))
	if err != nil {
		t.Fatalf("no title screen in the browser after %v: %v\npage log:\n%s", time.Since(start), err, &pageLog)
	}
	t.Logf("first frame of the title screen %.0f ms after the page's load (wasm %d bytes gzipped, %d raw)", title, len(gz), wasmBuild.raw)
	// Let the title's fade in end (0.2 s), then look.
	if _, err := chromedp.Run(ctx, chromedp.Poll[int](`rtype.frames > 30 ? rtype.frames : 0`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the title screen stopped drawing: %v", err)
	}
	img := screenshot(t, ctx, "title.png")
	lit, colours := colourful(img)
	t.Logf("title screenshot %v: %d lit pixels of %d sampled, %d colours", img.Bounds().Size(), lit, img.Bounds().Dx()*img.Bounds().Dy()/4, colours)
	if lit < 500 || colours < 8 {
		t.Errorf("the screenshot does not show the title screen: %d lit pixels, %d colours", lit, colours)
	}
	if title > maxTitle.Seconds()*1000 {
		t.Errorf("the title screen's first frame came %.0f ms after the page's load, want under %v (3 s on an idle machine)", title, maxTitle)
	}
}
