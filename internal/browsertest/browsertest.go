// Package browsertest runs the game built for the browser in headless
// Chromium, for the tests (issue 18): it builds the wasm, starts
// Debian's chromium through chromedp (WebGL on SwiftShader, a profile of
// its own), keeps what the page logs, and takes screenshots.
package browsertest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// wasmBuild is the game built for the browser, once per test binary.
var wasmBuild struct {
	once sync.Once
	gz   []byte
	raw  int
	err  error
}

// gzipBest compresses b, the file at path, as build.sh does (gzip -9 -n):
// with the gzip command where there is one, which the race detector does
// not slow down (compress/gzip in a test binary built with -race took
// seconds for the game's 15 MB), else with compress/gzip.
func gzipBest(path string, b []byte) []byte {
	if out, err := exec.Command("gzip", "-9", "-n", "-c", path).Output(); err == nil {
		return out
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// Wasm builds the game for the browser as build.sh does (-trimpath
// -ldflags=-s -w), once per test binary, and returns it gzipped at the
// best compression and its size unzipped.
func Wasm(t testing.TB) (gz []byte, raw int) {
	t.Helper()
	gz, raw, err := BuildWasm()
	if err != nil {
		t.Fatal(err)
	}
	return gz, raw
}

// BuildWasm is Wasm for a program (rtype-bench): it builds the game in
// the module of the working directory with the go command, once per
// process.
func BuildWasm() (gz []byte, raw int, err error) {
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
		b, err := os.ReadFile(out)
		if err != nil {
			wasmBuild.err = err
			return
		}
		wasmBuild.gz, wasmBuild.raw = gzipBest(out, b), len(b)
	})
	return wasmBuild.gz, wasmBuild.raw, wasmBuild.err
}

// Chromium returns Debian's chromium, or skips the test when it is
// missing and this is not CI (./build.sh deps installs it).
func Chromium(t testing.TB) string {
	t.Helper()
	if p, ok := FindChromium(); ok {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is missing on CI: ./build.sh deps installs Debian's chromium package")
	}
	t.Skip("chromium is missing: install Debian's chromium package (./build.sh deps) to run the browser tests")
	return ""
}

// FindChromium returns the path of Debian's chromium, and false when it
// is not installed.
func FindChromium() (string, bool) {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// Browser is a headless Chromium tab.
type Browser struct {
	// Ctx runs chromedp actions in the tab.
	Ctx context.Context
	log lines
}

// New starts headless Chromium and returns its tab; it ends with the
// test, or after timeout.
func New(t testing.TB, timeout time.Duration, flags ...chromedp.ExecAllocatorOption) *Browser {
	t.Helper()
	b, stop := Start(Chromium(t), t.TempDir(), timeout, t.Logf, flags...)
	t.Cleanup(stop)
	return b
}

// Start is New for a program (rtype-bench): it starts the chromium at
// path with its profile in dir, logs chromedp's messages with logf, and
// returns the tab and the function that ends the browser.
func Start(path, dir string, timeout time.Duration, logf func(string, ...any), flags ...chromedp.ExecAllocatorOption) (*Browser, func()) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.UserDataDir(dir),
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
	ctx, cancelC := chromedp.NewContext(ctx, chromedp.WithLogf(logf))
	stop := func() {
		cancelC()
		cancelT()
		cancelA()
	}
	b := &Browser{Ctx: ctx}
	chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			for _, a := range ev.Args {
				b.log.add(string(a.Value))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			if d.Exception != nil {
				b.log.add("exception: " + d.Text + " " + d.Exception.Description)
			} else {
				b.log.add("exception: " + d.Text)
			}
		}
	})
	return b, stop
}

// Log returns the last lines the page logged (the game logs to the
// console), for failure messages.
func (b *Browser) Log() string { return b.log.String() }

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

// Screenshot captures the page (and saves it in $RTYPE_SHOTS, when set,
// as name, to look at it).
func (b *Browser) Screenshot(t testing.TB, name string) image.Image {
	t.Helper()
	png1, err := chromedp.Run(b.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(png1))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if dir := os.Getenv("RTYPE_SHOTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, name), png1, 0o644)
	}
	return img
}

// Colourful counts the pixels of img that are not the dark background,
// and its distinct colours (quantised), over every other pixel.
func Colourful(img image.Image) (lit int, colours int) {
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

// ShowsGame takes screenshots (saved as name) until one shows the game,
// at least 300 lit pixels and 8 colours of Colourful's sample, or within
// has passed: a scene that has just started may not have drawn its
// sprites yet. It returns the last one's figures and whether it did.
func (b *Browser) ShowsGame(t testing.TB, name string, within time.Duration) (lit, colours int, ok bool) {
	t.Helper()
	for end := time.Now().Add(within); ; time.Sleep(250 * time.Millisecond) {
		lit, colours = Colourful(b.Screenshot(t, name))
		if lit >= 300 && colours >= 8 {
			return lit, colours, true
		}
		if time.Now().After(end) {
			return lit, colours, false
		}
	}
}
