package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"

	"rtype/bot"
	"rtype/internal/browsertest"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/lobby"
	"rtype/net/wire"
	"rtype/server"
	"rtype/sim"
	"rtype/web"
)

// TestBrowserProfile profiles the game in the browser while it plays a
// busy game (full-strength waves, three room bots): Chrome's CPU
// profiler samples the page for profileFor, and the test logs the
// functions with the most time, on their own and with what they call.
// The wasm is built without -s so that the profile has Go's function
// names. It is a tool, not a check: it runs with RTYPE_BROWSER_PROFILE=1.
//
//	RTYPE_BROWSER_PROFILE=1 go test -run TestBrowserProfile -v ./e2e/
func TestBrowserProfile(t *testing.T) {
	if os.Getenv("RTYPE_BROWSER_PROFILE") == "" {
		t.Skip("a tool: set RTYPE_BROWSER_PROFILE=1")
	}
	browsertest.Chromium(t)
	const profileFor = 8 * time.Second
	out := filepath.Join(t.TempDir(), "rtype.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "rtype")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js go build: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}

	rules := sim.DefaultRules()
	rules.Lives, rules.JoinInvulnTicks = 255, 1<<30
	rules.WaveSize, rules.WaveInterval, rules.WaveSpeedStep = rules.WaveSizeMax, rules.WaveIntervalMin, rules.WaveSpeedMax
	cfg := server.Config{MaxGames: 2, Seed: 11, Rules: &rules, WebTransportAddr: "127.0.0.1:0",
		Bots: func(mode uint8, seed uint64) server.Bots { return bot.NewRoomBots(mode, seed) }}
	srv := testserver.Start(t, cfg)
	info, _ := srv.WebTransport()
	h, err := web.New(web.Config{Wasm: gzipBytes(raw), Server: func() (web.Server, bool) {
		return web.Server{Addr: info.Addr, CertHashes: info.CertHashes}, true
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l, err := lobby.Dial(ctx, lobby.Config{Addr: srv.Addr(), Name: "Native", Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: wire.MaxPlayers, Flags: wire.RoomJoinLate}); err != nil {
		t.Fatal(err)
	}
	room := waitRoom(t, l, "the room", func(r wire.Room) bool { return r.Code != (wire.RoomCode{}) })
	for range 2 {
		if err := l.AddBot(); err != nil {
			t.Fatal(err)
		}
	}
	var flags []chromedp.ExecAllocatorOption
	if w := os.Getenv("RTYPE_BROWSER_WINDOW"); w != "" {
		var x, y int
		fmt.Sscanf(w, "%dx%d", &x, &y)
		flags = append(flags, chromedp.WindowSize(x, y))
	}
	br := browsertest.New(t, 2*time.Minute, flags...)
	// Count the WebGL calls by name (glCount), to tell how much the page
	// asks of the GPU process per frame.
	if _, err := chromedp.Run(br.Ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: glCount})
		return cdp.Empty{}, err
	}); err != nil {
		t.Fatal(err)
	}
	q := url.Values{"room": {room.Code.String()}, "name": {"Webby"}, "mute": {"1"}}
	if err := chromedp.Do(br.Ctx, chromedp.Navigate(hs.URL+"/?"+q.Encode())); err != nil {
		t.Fatal(err)
	}
	waitRoom(t, l, "the browser in the room", func(r wire.Room) bool { return r.Count == 4 })
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(br.Ctx, chromedp.Poll[bool](`globalThis.rtype && rtype.scene === "*game.PlayScene"`, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("the browser did not start playing: %v\npage log:\n%s", err, br.Log())
	}
	time.Sleep(3 * time.Second) // the game under way; not a synchronisation
	f0, _ := chromedp.Run(br.Ctx, chromedp.Evaluate[int](`rtype.frames`))
	gl0, _ := chromedp.Run(br.Ctx, chromedp.Evaluate[map[string]float64](`({...glCalls})`))
	prof, err := chromedp.Run(br.Ctx, func(ctx context.Context, tg *chromedp.Target) (*profiler.Profile, error) {
		if _, err := cdp.Call(ctx, tg, profiler.Enable, cdp.Empty{}); err != nil {
			return nil, err
		}
		if _, err := cdp.Call(ctx, tg, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
			return nil, err
		}
		if _, err := cdp.Call(ctx, tg, profiler.Start, cdp.Empty{}); err != nil {
			return nil, err
		}
		select {
		case <-time.After(profileFor):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		r, err := cdp.Call(ctx, tg, profiler.Stop, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		return r.Profile, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f1, _ := chromedp.Run(br.Ctx, chromedp.Evaluate[int](`rtype.frames`))
	gl1, _ := chromedp.Run(br.Ctx, chromedp.Evaluate[map[string]float64](`({...glCalls})`))
	t.Logf("%d frames in %v: %.1f fps", f1-f0, profileFor, float64(f1-f0)/profileFor.Seconds())
	var calls []string
	for k, v := range gl1 {
		if n := (v - gl0[k]) / float64(max(1, f1-f0)); n >= 0.5 {
			calls = append(calls, fmt.Sprintf("%s %.1f", k, n))
		}
	}
	slices.Sort(calls)
	t.Logf("WebGL calls per frame: %s", strings.Join(calls, ", "))
	logProfile(t, prof, f1-f0)
	traceThreads(t, br, profileFor/2)
}

// traceThreads records Chrome's trace for d (every process: the page's,
// the GPU process's) and logs, per thread, the time its tasks ran, per
// frame the page drew: which thread holds the frames back.
func traceThreads(t *testing.T, br *browsertest.Browser, d time.Duration) {
	type ev struct {
		Name string          `json:"name"`
		Ph   string          `json:"ph"`
		Pid  int             `json:"pid"`
		Tid  int             `json:"tid"`
		Dur  float64         `json:"dur"`
		Args json.RawMessage `json:"args"`
	}
	var mu sync.Mutex
	var evs []ev
	done := make(chan struct{})
	chromedp.Listen(br.Ctx, func(e any) {
		switch e := e.(type) {
		case *tracing.EventDataCollected:
			mu.Lock()
			for _, v := range e.Value {
				var x ev
				if b, err := json.Marshal(v); err == nil && json.Unmarshal(b, &x) == nil {
					evs = append(evs, x)
				}
			}
			mu.Unlock()
		case *tracing.EventTracingComplete:
			close(done)
		}
	})
	f0, _ := chromedp.Run(br.Ctx, chromedp.Evaluate[int](`rtype.frames`))
	if _, err := chromedp.Run(br.Ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, tracing.Start, tracing.StartParams{TraceConfig: &tracing.TraceConfig{
			IncludedCategories: []string{"toplevel", "gpu", "viz", "cc", "disabled-by-default-devtools.timeline"}}})
	}); err != nil {
		t.Logf("no trace: %v", err)
		return
	}
	time.Sleep(d) // the trace's length
	f1, _ := chromedp.Run(br.Ctx, chromedp.Evaluate[int](`rtype.frames`))
	if _, err := chromedp.Run(br.Ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, tracing.End, cdp.Empty{})
	}); err != nil {
		t.Logf("no trace: %v", err)
		return
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Log("the trace did not complete")
		return
	}
	mu.Lock()
	defer mu.Unlock()
	names := map[[2]int]string{}
	for _, e := range evs {
		if e.Ph == "M" && e.Name == "thread_name" {
			var a struct {
				Name string `json:"name"`
			}
			json.Unmarshal(e.Args, &a)
			names[[2]int{e.Pid, e.Tid}] = a.Name
		}
	}
	busy := map[string]float64{}
	for _, e := range evs {
		if e.Ph == "X" && (e.Name == "ThreadControllerImpl::RunTask" || e.Name == "ThreadPool_RunTask") {
			busy[fmt.Sprintf("%s (pid %d)", names[[2]int{e.Pid, e.Tid}], e.Pid)] += e.Dur
		}
	}
	frames := max(1, f1-f0)
	gpu := map[string]float64{}
	for _, e := range evs {
		if e.Ph == "X" && names[[2]int{e.Pid, e.Tid}] == "CrGpuMain" {
			gpu[e.Name] += e.Dur
		}
	}
	t.Logf("the GPU process's main thread, events by name (nested ones counted in each):\n%s", perFrame(gpu, frames, 2))
	t.Logf("trace: %d frames in %v, %d events; tasks' time per thread:\n%s", frames, d, len(evs), perFrame(busy, frames, 1))
}

// perFrame lists the entries of m (µs) of at least least ms per frame,
// the largest first.
func perFrame(m map[string]float64, frames int, least float64) string {
	var lines []string
	for k, us := range m {
		if ms := us / 1000 / float64(frames); ms >= least {
			lines = append(lines, fmt.Sprintf("%7.1f ms/frame  %s", ms, k))
		}
	}
	slices.Sort(lines)
	slices.Reverse(lines)
	return strings.Join(lines, "\n")
}

// glCount wraps every method of WebGL2RenderingContext to count its
// calls in globalThis.glCalls.
const glCount = `globalThis.glCalls = {};
for (const k of Object.getOwnPropertyNames(WebGL2RenderingContext.prototype)) {
	const d = Object.getOwnPropertyDescriptor(WebGL2RenderingContext.prototype, k);
	if (typeof d.value !== "function" || k === "constructor") continue;
	const f = d.value;
	WebGL2RenderingContext.prototype[k] = function(...a) { glCalls[k] = (glCalls[k] || 0) + 1; return f.apply(this, a); };
}`

// logProfile logs the functions of a CPU profile with the most samples,
// on their own (self) and with their callees (total), in ms per frame.
func logProfile(t *testing.T, p *profiler.Profile, frames int) {
	byID := map[int64]*profiler.ProfileNode{}
	parent := map[int64]int64{}
	for _, n := range p.Nodes {
		byID[n.ID] = n
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	dt := map[int64]float64{} // µs per node, from the samples
	for i, id := range p.Samples {
		if i+1 < len(p.TimeDeltas) {
			dt[id] += float64(p.TimeDeltas[i+1])
		}
	}
	name := func(n *profiler.ProfileNode) string {
		f := n.CallFrame.FunctionName
		if f == "" {
			f = "(anonymous " + filepath.Base(n.CallFrame.URL) + ")"
		}
		return f
	}
	self, total := map[string]float64{}, map[string]float64{}
	var all float64
	for id, us := range dt {
		all += us
		self[name(byID[id])] += us
		seen := map[string]bool{}
		for n := id; ; {
			nm := name(byID[n])
			if !seen[nm] {
				seen[nm] = true
				total[nm] += us
			}
			pid, ok := parent[n]
			if !ok {
				break
			}
			n = pid
		}
	}
	per := func(us float64) float64 { return us / 1000 / float64(max(frames, 1)) }
	top := func(m map[string]float64, k int) string {
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		slices.SortFunc(names, func(a, b string) int {
			if m[a] > m[b] {
				return -1
			}
			if m[a] < m[b] {
				return 1
			}
			return strings.Compare(a, b)
		})
		var b strings.Builder
		for _, n := range names[:min(k, len(names))] {
			fmt.Fprintf(&b, "  %6.2f ms/frame %5.1f%%  %s\n", per(m[n]), 100*m[n]/all, n)
		}
		return b.String()
	}
	t.Logf("profile: %.0f ms sampled, %.1f ms per frame\nself:\n%s\ntotal:\n%s", all/1000, per(all), top(self, 40), top(total, 60))
}

// gzipBytes gzips b, as the page serves the game.
func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}
