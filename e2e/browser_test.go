package e2e

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rtype/internal/browsertest"
	"rtype/web"
)

// The game in a real browser (issue 18): headless Chromium, driven over
// the DevTools protocol by chromedp (internal/browsertest), loads the
// page of package web and runs the game built for GOOS=js. The page
// publishes what it draws in globalThis.rtype (game/page_js.go).

// TestBrowserTitle loads the page and waits for the title screen's
// first frame, and the screenshot must show the title screen (its text
// and starfield, not a blank canvas). It logs the time from the page's
// load to that frame (performance.now() of it; the target is 3 s on
// loopback, BENCHMARKS.md): under the whole suite's load it took 5.8 s
// here, against 2.2 s alone, a figure of the machine that fails nothing.
func TestBrowserTitle(t *testing.T) {
	browsertest.Chromium(t)
	gz, raw := browsertest.Wasm(t)
	h, err := web.New(web.Config{Wasm: gz})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	b := browsertest.New(t, 90*time.Second)
	ctx := b.Ctx

	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/")); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	title, err := chromedp.Run(ctx, chromedp.Poll[float64](`globalThis.rtype && rtype.first["*game.TitleScene"]`, chromedp.WithPollingTimeout(60*time.Second)))
	if err != nil {
		t.Fatalf("no title screen in the browser after %v: %v\npage log:\n%s", time.Since(start), err, b.Log())
	}
	t.Logf("first frame of the title screen %.0f ms after the page's load (wasm %d bytes gzipped, %d raw)", title, len(gz), raw)
	// Let the title's fade in end (0.2 s), then look.
	if _, err := chromedp.Run(ctx, chromedp.Poll[int](`rtype.frames > 30 ? rtype.frames : 0`, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("the title screen stopped drawing: %v", err)
	}
	img := b.Screenshot(t, "title.png")
	lit, colours := browsertest.Colourful(img)
	t.Logf("title screenshot %v: %d lit pixels of %d sampled, %d colours", img.Bounds().Size(), lit, img.Bounds().Dx()*img.Bounds().Dy()/4, colours)
	if lit < 500 || colours < 8 {
		t.Errorf("the screenshot does not show the title screen: %d lit pixels, %d colours", lit, colours)
	}
}
