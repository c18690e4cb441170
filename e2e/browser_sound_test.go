package e2e

import (
	"fmt"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"rtype/internal/browsertest"
	"rtype/web"
)

// gestureFrames is how many frames TestBrowserSoundStall watches after
// the first key: the sound's synthesis (the effects and the music) takes
// a few seconds, spread over these.
const gestureFrames = 120

// TestBrowserSoundStall measures, when RTYPE_MEASURE_STALL is set, the
// longest time between two frames once the first key has started the
// sound: it loads the page, waits for the title screen, clicks (browsers
// start audio on a gesture: the game makes its sound then) and reads
// rtype.maxFrameGap (game/page_js.go) gestureFrames frames later. It is
// a measurement, not a check: on a machine whose other work slows
// software WebGL to a few frames a second the gaps are noise, and the
// browser starting its audio alone takes the frame after the click about
// 1 s here (measured with no synthesis at all). The synthesis itself is
// checked by assets' TestSynthesisYields (GOOS=js, build.sh test).
func TestBrowserSoundStall(t *testing.T) {
	if os.Getenv("RTYPE_MEASURE_STALL") == "" {
		t.Skip("a measurement: set RTYPE_MEASURE_STALL=1")
	}
	browsertest.Chromium(t)
	gz, _ := browsertest.Wasm(t)
	h, err := web.New(web.Config{Wasm: gz})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	b := browsertest.New(t, 3*time.Minute)
	ctx := b.Ctx
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/")); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[int](`globalThis.rtype && rtype.scene == "*game.TitleScene" && rtype.frames > 30 ? rtype.frames : 0`,
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("no title screen: %v\npage log:\n%s", err, b.Log())
	}
	// A click in the corner, away from the menu, held for some frames: a
	// press and release between two of the game's ticks would go unseen.
	frames, err := chromedp.Run(ctx, chromedp.Evaluate[int](`rtype.frames`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, 4, 4, chromedp.ButtonLeft, chromedp.ClickCount(1))); err != nil {
		t.Fatalf("press the mouse button: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`rtype.frames > %d`, frames+5), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("the page stopped drawing: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, 4, 4, chromedp.ButtonLeft, chromedp.ClickCount(1))); err != nil {
		t.Fatalf("release the mouse button: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[int](fmt.Sprintf(`(rtype.gestureFrames || 0) >= %d ? rtype.gestureFrames : 0`, gestureFrames),
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`rtype.gestureFrames || 0`))
		gap, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`rtype.maxFrameGap || 0`))
		t.Fatalf("%d frames drawn after the first key, want %d (the longest time between two: %.0f ms): %v\npage log:\n%s", n, gestureFrames, gap, err, b.Log())
	}
	gap, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`rtype.maxFrameGap`))
	if err != nil {
		t.Fatal(err)
	}
	fps, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`rtype.fps`))
	at, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`rtype.maxFrameGapAt`))
	t.Logf("longest time between two frames in the %d after the first key: %.0f ms, before the %dth (%.0f fps at the end)", gestureFrames, gap, at, fps)
}
