package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"rtype/bot"
	"rtype/internal/browsertest"
	"rtype/internal/testrules"
	"rtype/internal/wirecount"
	"rtype/net/client"
	"rtype/net/lobby"
	"rtype/net/webaddr"
	"rtype/net/wire"
	"rtype/net/wtclient"
	"rtype/server"
	"rtype/web"
)

// Section 7: the browser against native clients (issue 18's target:
// bandwidth and smoothness within 10%). One game at full strength (the
// waves of section 1), in a room that a room bot plays, has three more
// players side by side, none of them pressing anything:
//
//   - "UDP": a native client over TCP and UDP (the room's owner);
//   - "WT": a native client over WebTransport (net/wtclient, quic-go);
//   - "browser": the game built for the browser, in headless Chromium
//     (internal/browsertest), over the browser's own WebTransport.
//
// Each client's UDP goes through a counting relay of its own (the
// browser's and WT's QUIC, the native's datagrams; the native's TCP
// stream, idle in play, is not counted). For each client over the same
// window:
//
//   - payload: the bytes of our protocol's datagrams received and sent
//     (link.Stats; the page publishes the browser's);
//   - wire: the UDP datagrams the relay carried, each with the 28 bytes
//     of IPv4 and UDP: for WebTransport QUIC's headers, encryption,
//     acknowledgements and the stream's frames too;
//   - smoothness: section 5's measure, the distance between where a Bydos
//     is drawn and where the server's motion puts it at the frame's
//     render tick, over every Bydos on screen at every frame drawn (the
//     natives draw on a 60 Hz grid as section 5's; the browser at its own
//     frames, which the page records: game/page_js.go's recordDrawn).
//     Protocol v2 draws the motions at the render tick, so that is 0 for
//     a correct client; also "on the clock": the same distance at the
//     server's tick at the frame's time less the client's mean delay
//     (how evenly the drawn world advances), and that delay;
//   - frames per second drawn.
//
// Then, in the same browser, the frame rate of a bare page that clears a
// WebGL canvas of the game's size at each requestAnimationFrame (and of
// one that draws nothing, and one that also blends full-canvas quads):
// this machine's ceiling, apart from our client.

// brClient is what the section measures of one client.
type brClient struct {
	name    string
	secs    float64          // the window
	payload wirecount.Counts // our datagrams: bytes and datagrams
	wire    wirecount.Counts // on the wire, with IP and UDP headers
	frames  []brFrame        // drawn in the window
	bydos   []brBydos        // on screen, at those frames
	fps     float64          // frames drawn per second over the window
}

// brFrame is one frame drawn: when (Unix time, s) and its render tick.
type brFrame struct{ t, renderTick float64 }

// brBydos is a Bydos drawn at frames[f].
type brBydos struct {
	f    int
	id   uint32
	x, y float64
}

// add records a frame drawn at t (Unix time, s) at renderTick.
func (c *brClient) add(t, renderTick float64) {
	c.frames = append(c.frames, brFrame{t, renderTick})
}

// addBydos records a Bydos drawn on the last frame, if on screen.
func (c *brClient) addBydos(id uint32, x, y float64) {
	const half = 16 // a Bydos is 32 px wide
	if x-half >= 1280 || x+half <= 0 {
		return
	}
	c.bydos = append(c.bydos, brBydos{len(c.frames) - 1, id, x, y})
}

// brSmooth is a client's smoothness.
type brSmooth struct {
	atRender      []float64 // px: section 5's, against the path at the frame's render tick
	atClock       []float64 // px: against the path at the frame's time, less the mean delay
	delay         float64   // ms: the mean of the server's tick at the frame's time less the render tick
	jitter        []float64 // ms: |that - its mean| at each frame
	unknown       int       // Bydos whose Spawn the path has not seen
	fromSpawnsErr string
}

// smoothness measures c against the server's path (truth) and clock
// (tick = a + b t, t in Unix seconds).
func (c *brClient) smoothness(truth *serverPath, a, b float64) brSmooth {
	var sm brSmooth
	delays := make([]float64, len(c.frames))
	for i, f := range c.frames {
		delays[i] = a + b*f.t - f.renderTick
		sm.delay += delays[i]
	}
	mean := sm.delay / float64(max(1, len(delays)))
	sm.delay = mean * 1000 / 60
	for _, d := range delays {
		sm.jitter = append(sm.jitter, math.Abs(d-mean)*1000/60)
	}
	for _, d := range c.bydos {
		f := c.frames[d.f]
		x, y, ok := truth.at(d.id, f.renderTick)
		if !ok {
			sm.unknown++
			continue
		}
		sm.atRender = append(sm.atRender, math.Hypot(d.x-x, d.y-y))
		x, y, _ = truth.at(d.id, a+b*f.t-mean)
		sm.atClock = append(sm.atClock, math.Hypot(d.x-x, d.y-y))
	}
	return sm
}

// tickClock keeps the server's snapshot ticks and when they were made.
type tickClock struct {
	mu    sync.Mutex
	on    bool
	ticks []float64
	times []float64 // Unix s
}

func (k *tickClock) onSnapshot(tick uint32) {
	now := float64(time.Now().UnixNano()) / 1e9
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.on {
		k.ticks = append(k.ticks, float64(tick))
		k.times = append(k.times, now)
	}
}

// fit returns the least-squares line tick = a + b t, and the largest
// residual, in ticks.
func (k *tickClock) fit() (a, b, worst float64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := float64(len(k.ticks))
	if n < 2 {
		return 0, 0, 0
	}
	t0 := k.times[0]
	var st, sk, stt, stk float64
	for i := range k.ticks {
		t := k.times[i] - t0
		st, sk, stt, stk = st+t, sk+k.ticks[i], stt+t*t, stk+t*k.ticks[i]
	}
	b = (n*stk - st*sk) / (n*stt - st*st)
	a0 := (sk - b*st) / n
	for i := range k.ticks {
		worst = max(worst, math.Abs(a0+b*(k.times[i]-t0)-k.ticks[i]))
	}
	return a0 - b*t0, b, worst
}

// bareWebGL is a page that clears a WebGL2 canvas of the game's size at
// each animation frame (with #nogl, draws nothing; with #passes=N, also
// blends N quads over the whole canvas, as many full-screen passes as a
// game's frame has): the ceilings of this browser on this machine.
const bareWebGL = `<!doctype html><html><body style="margin:0;background:#000">
<canvas id="c" width="1280" height="720"></canvas>
<script>
globalThis.bareFrames = 0;
const gl = document.getElementById("c").getContext("webgl2");
const passes = +((location.hash.match(/passes=(\d+)/) || [0, 0])[1]);
let prog = null;
if (gl && passes > 0) {
	const sh = (type, src) => { const s = gl.createShader(type); gl.shaderSource(s, src); gl.compileShader(s); return s; };
	prog = gl.createProgram();
	gl.attachShader(prog, sh(gl.VERTEX_SHADER, "#version 300 es\nin vec2 p; void main() { gl_Position = vec4(p, 0, 1); }"));
	gl.attachShader(prog, sh(gl.FRAGMENT_SHADER, "#version 300 es\nprecision mediump float; uniform float t; out vec4 c; void main() { c = vec4(t, 0.3, 0.5, 0.5); }"));
	gl.linkProgram(prog);
	gl.useProgram(prog);
	gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
	gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1]), gl.STATIC_DRAW);
	gl.enableVertexAttribArray(0);
	gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
	gl.enable(gl.BLEND);
	gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
}
function frame(t) {
	bareFrames++;
	if (gl && location.hash !== "#nogl") {
		gl.clearColor((t / 1000) % 1, 0.2, 0.3, 1);
		gl.clear(gl.COLOR_BUFFER_BIT);
		for (let i = 0; i < passes; i++) {
			gl.uniform1f(gl.getUniformLocation(prog, "t"), i / passes);
			gl.drawArrays(gl.TRIANGLES, 0, 6);
		}
	}
	requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
</script></body></html>`

// barePasses is how many full-canvas quads the bare page blends in its
// third measure: about what a frame of the game fills (the backdrop, the
// scene drawn into Ebitengine's offscreen screen, and its copy to the
// canvas).
const barePasses = 3

// rafRate is the script that counts a page's animation frames for ms
// milliseconds and returns their rate per second.
func rafRate(ms int) string {
	return fmt.Sprintf(`new Promise(r => { const f0 = bareFrames, t0 = performance.now();
		setTimeout(() => r((bareFrames - f0) * 1000 / (performance.now() - t0)), %d); })`, ms)
}

func runBrowser(ctx context.Context, o *opts) ([]row, error) {
	const measure = "Browser against native"
	path, ok := browsertest.FindChromium()
	if !ok {
		return []row{{measure, "", "not measured: no chromium", "install Debian's chromium package (./build.sh deps does)"}}, nil
	}
	gz, _, err := browsertest.BuildWasm()
	if err != nil {
		// Not in the source tree: the game embedded by ./build.sh build.
		if h, herr := web.New(web.Config{}); herr == nil && h.HasGame() {
			gz = nil
			logf(o, "building the wasm failed, using the embedded one: %v", err)
		} else {
			return []row{{measure, "", "not measured: no wasm", esc(err.Error())}}, nil
		}
	}
	warm, window := 4*time.Second, 30*time.Second
	if o.quick {
		warm, window = 2*time.Second, 4*time.Second
	}

	rules := testrules.FullStrength()
	rules.JoinInvulnTicks = 1 << 30 // the measured ships never die
	truth := &serverPath{motions: map[uint32]wire.Motion{}}
	clock := &tickClock{}
	onSnap := func(g int, sn server.Snapshot) {
		clock.onSnapshot(sn.Tick)
		truth.onSnapshot(g, sn)
	}
	cfg := server.Config{MaxGames: 2, Seed: o.seed, Rules: &rules, OnSnapshot: onSnap,
		WebTransportAddr: "127.0.0.1:0",
		Bots:             func(mode uint8, seed uint64) server.Bots { return bot.NewRoomBots(mode, seed) }}
	srv, stopSrv, err := startServer(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer stopSrv()
	info, ok := srv.WebTransport()
	if !ok {
		return nil, errors.New("the server does not speak WebTransport")
	}
	var relays [3]*wirecount.Relay // UDP, WT, browser
	for i, to := range []string{srv.Addr(), info.Addr, info.Addr} {
		if relays[i], err = wirecount.New(to); err != nil {
			return nil, err
		}
		defer relays[i].Close()
	}

	// The page, and the bare WebGL page.
	h, err := web.New(web.Config{Wasm: gz, Logger: quiet(), Server: func() (web.Server, bool) {
		return web.Server{Addr: info.Addr, CertHashes: info.CertHashes}, true
	}})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("/bare", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(bareWebGL))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: mux}
	go hs.Serve(ln)
	defer hs.Close()
	pageURL := "http://" + ln.Addr().String()

	// The room: the UDP native's, with a bot; the WT native and the
	// browser join it.
	lctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	host, err := lobby.Dial(lctx, lobby.Config{Addr: srv.Addr(), Name: "native-udp", Mode: wire.ModeClassic, Logger: quiet()})
	if err != nil {
		return nil, fmt.Errorf("the UDP native's lobby: %w", err)
	}
	defer host.Close()
	if err := host.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: wire.MaxPlayers,
		Flags: wire.RoomJoinLate}); err != nil {
		return nil, err
	}
	room, err := awaitRoom(lctx, host, "the room", func(r wire.Room) bool { return r.Code != (wire.RoomCode{}) })
	if err != nil {
		return nil, err
	}
	if err := host.AddBot(); err != nil {
		return nil, err
	}
	wtl, err := lobby.Dial(lctx, lobby.Config{Addr: relays[1].Addr(), Name: "native-wt", Mode: wire.ModeClassic, Logger: quiet(),
		Transport: &wtclient.Transport{CertHashes: info.CertHashes}})
	if err != nil {
		return nil, fmt.Errorf("the WebTransport native's lobby: %w", err)
	}
	defer wtl.Close()
	if err := wtl.Join(room.Code); err != nil {
		return nil, err
	}

	dir, err := os.MkdirTemp("", "rtype-bench-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	br, stopBr := browsertest.Start(path, dir, window+3*time.Minute, func(string, ...any) {})
	defer stopBr()
	hashes := webaddr.HexHashes(info.CertHashes...)
	q := url.Values{"room": {room.Code.String()}, "name": {"browser"}, "mute": {"1"}, "addr": {relays[2].Addr()}}
	q.Set("hash", strings.Join(hashes, ","))
	if err := chromedp.Do(br.Ctx, chromedp.Navigate(pageURL+"/?"+q.Encode())); err != nil {
		return nil, fmt.Errorf("chromium: loading the page: %w", err)
	}
	if _, err := awaitRoom(lctx, host, "the WT native and the browser in the room", func(r wire.Room) bool { return r.Count == 4 }); err != nil {
		return nil, fmt.Errorf("%w\npage log:\n%s", err, br.Log())
	}
	if err := host.Start(); err != nil {
		return nil, err
	}
	for _, l := range []*lobby.Lobby{host, wtl} {
		if _, err := awaitRoom(lctx, l, "the game", func(r wire.Room) bool { return r.State == wire.RoomPlaying }); err != nil {
			return nil, err
		}
	}
	udpC, err := host.Play(lctx, client.Config{Logger: quiet(), Transport: relays[0].UDP(), OnEvent: truth.onEvent})
	if err != nil {
		return nil, fmt.Errorf("the UDP native's game: %w", err)
	}
	defer udpC.Close()
	wtC, err := wtl.Play(lctx, client.Config{Logger: quiet()})
	if err != nil {
		return nil, fmt.Errorf("the WebTransport native's game: %w", err)
	}
	defer wtC.Close()
	if _, err := chromedp.Run(br.Ctx, chromedp.Poll[bool](`globalThis.rtype && rtype.scene === "*game.PlayScene"`, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		return nil, fmt.Errorf("the browser did not start playing: %w\npage log:\n%s", err, br.Log())
	}
	logf(o, "room %s: a bot, UDP, WT and the browser play; %v to settle, then %v measured", room.Code, warm, window)
	if err := sleepCtx(ctx, warm); err != nil {
		return nil, err
	}

	// The window.
	clients := []*brClient{{name: "UDP native"}, {name: "WT native"}, {name: "browser"}}
	var w0 [3]wirecount.Counts
	for i, r := range relays {
		w0[i] = r.Counts()
	}
	natives := []*client.Client{udpC, wtC}
	var p0 [2]wirecount.Counts
	for i, c := range natives {
		p0[i] = linkCounts(c)
	}
	if _, err := chromedp.Run(br.Ctx, chromedp.Evaluate[bool](`rtype.drawn = []; rtype.record = true`)); err != nil {
		return nil, err
	}
	clock.mu.Lock()
	clock.on = true
	clock.mu.Unlock()
	t0 := time.Now()
	end := t0.Add(window)
	var wg sync.WaitGroup
	loopErr := make([]error, 2)
	for i, c := range natives {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bc := clients[i]
			v := newViewer(c, rules)
			_, err := renderLoop(ctx, t0, func(_ int64, now time.Time) bool {
				f := v.frame(now, 0)
				bc.add(float64(now.UnixNano())/1e9, f.RenderTick)
				for j := range f.Sprites {
					if d := &f.Sprites[j]; d.Kind == wire.KindBydosSlave {
						bc.addBydos(d.ID, d.X, d.Y)
					}
				}
				return now.Before(end)
			})
			loopErr[i] = err
		}()
	}
	// The browser's frames, taken every half second.
	var recs [][]float64
	for time.Now().Before(end) {
		if err := sleepCtx(ctx, 500*time.Millisecond); err != nil {
			return nil, err
		}
		r, err := takeDrawn(br)
		if err != nil {
			return nil, fmt.Errorf("the browser's frames: %w\npage log:\n%s", err, br.Log())
		}
		recs = append(recs, r...)
	}
	secs := time.Since(t0).Seconds()
	var w1 [3]wirecount.Counts
	for i, r := range relays {
		w1[i] = r.Counts()
	}
	for i, c := range natives {
		clients[i].payload = linkCounts(c).Sub(p0[i])
	}
	wg.Wait()
	for i, err := range loopErr {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", clients[i].name, err)
		}
	}
	for i, c := range natives {
		if err := c.Err(); err != nil {
			return nil, fmt.Errorf("%s: the session ended: %w", clients[i].name, err)
		}
	}
	r, err := takeDrawn(br)
	if err != nil {
		return nil, err
	}
	recs = append(recs, r...)
	for i := range clients {
		clients[i].wire = w1[i].Sub(w0[i])
		clients[i].secs = secs
	}
	clock.mu.Lock()
	clock.on = false
	clock.mu.Unlock()
	for _, c := range clients[:2] {
		c.fps = float64(len(c.frames)) / secs
	}
	b := clients[2]
	if len(recs) < 2 {
		return nil, fmt.Errorf("the browser recorded %d frames in %.0f s\npage log:\n%s", len(recs), secs, br.Log())
	}
	first, last := recs[0], recs[len(recs)-1]
	b.secs = (last[0] - first[0]) / 1000
	b.fps = float64(len(recs)-1) / b.secs
	b.payload = wirecount.Counts{DownB: uint64(last[2] - first[2]), UpB: uint64(last[3] - first[3]), DownPk: uint64(last[4] - first[4]), UpPk: uint64(last[5] - first[5])}
	for _, rec := range recs {
		b.add(rec[0]/1000, rec[1])
		for j := 6; j+2 < len(rec); j += 3 {
			b.addBydos(uint32(rec[j]), rec[j+1], rec[j+2])
		}
	}
	gameFPS, _ := chromedp.Run(br.Ctx, chromedp.Evaluate[float64](`rtype.fps`))

	// The ceilings: the bare pages in the same browser.
	rafMS := 5000
	if o.quick {
		rafMS = 2000
	}
	var ceil [3]float64
	for i, frag := range []string{"", "#nogl", "#passes=" + fmt.Sprint(barePasses)} {
		if err := chromedp.Do(br.Ctx, chromedp.Navigate(pageURL+"/bare"+frag)); err != nil {
			return nil, err
		}
		if ceil[i], err = chromedp.Run(br.Ctx, chromedp.Evaluate[float64](rafRate(rafMS), chromedp.EvalAwaitPromise)); err != nil {
			return nil, fmt.Errorf("the bare page's frame rate: %w", err)
		}
	}

	truth.mu.Lock()
	checked, mismatch := truth.checked, truth.mismatch
	truth.mu.Unlock()
	a, rate, worst := clock.fit()
	sm := make([]brSmooth, len(clients))
	for i, c := range clients {
		sm[i] = c.smoothness(truth, a, rate)
	}
	logf(o, "the server's clock: %.3f ticks/s, snapshots within %.2f ticks of that line", rate, worst)
	return browserRows(clients, sm, ceil, gameFPS, checked, mismatch), nil
}

// browserRows makes the table of the section.
func browserRows(cs []*brClient, sm []brSmooth, ceil [3]float64, gameFPS float64, checked, mismatch int) []row {
	udp, wt, br := cs[0], cs[1], cs[2]
	pay := func(c *brClient) (float64, float64) {
		return float64(c.payload.DownB) / c.secs, float64(c.payload.UpB) / c.secs
	}
	wir := func(c *brClient) (float64, float64) {
		return float64(c.wire.DownB) / c.secs, float64(c.wire.UpB) / c.secs
	}
	var rows []row
	for _, c := range cs {
		pd, pu := pay(c)
		wd, wu := wir(c)
		rows = append(rows, row{"Payload down / up", c.name, fmt.Sprintf("%s / %s B/s", num(pd), num(pu)),
			fmt.Sprintf("our datagrams (link.Stats): %.1f / %.1f per second, over %.1f s", float64(c.payload.DownPk)/c.secs, float64(c.payload.UpPk)/c.secs, c.secs)})
		over := ""
		if c.payload.DownPk > 0 && c.payload.UpPk > 0 {
			over = fmt.Sprintf("; %.1f / %.1f B more than our bytes per datagram of ours", (float64(c.wire.DownB)-float64(c.payload.DownB))/float64(c.payload.DownPk),
				(float64(c.wire.UpB)-float64(c.payload.UpB))/float64(c.payload.UpPk))
		}
		rows = append(rows, row{"Wire down / up", c.name, fmt.Sprintf("%s / %s B/s", num(wd), num(wu)),
			fmt.Sprintf("the UDP datagrams of the client's counting relay, each + 28 B of IPv4 and UDP: %.1f / %.1f per second%s", float64(c.wire.DownPk)/c.secs, float64(c.wire.UpPk)/c.secs, over)})
	}
	for i, c := range cs {
		mean, p99, mx := errStats(sm[i].atRender)
		rows = append(rows, row{"Smoothness (section 5's): distance of the drawn Bydos from the server's path at the frame's render tick, mean / p99 / max", c.name,
			fmt.Sprintf("%.3f / %.3f / %.3f px", mean, p99, mx),
			fmt.Sprintf("%d Bydos on screen over %d frames (%d whose Spawn the path had not seen left out); the path: the v2 Spawns' motions, equal to the server's state at %d of %d Bydos-snapshots", len(sm[i].atRender), len(c.frames), sm[i].unknown, checked-mismatch, checked)})
	}
	for i, c := range cs {
		mean, p99, mx := errStats(sm[i].atClock)
		jm, jp, _ := errStats(sm[i].jitter)
		rows = append(rows, row{"Smoothness on the clock: distance of the drawn Bydos from the server's path at the frame's time less the client's mean delay, mean / p99 / max", c.name,
			fmt.Sprintf("%.2f / %.2f / %.2f px", mean, p99, mx),
			fmt.Sprintf("mean delay behind the server's clock %.1f ms; the render tick off that delay by %.2f ms mean, %.2f ms p99 (the server's clock: its snapshots' ticks against the time they were made, a least-squares line)", sm[i].delay, jm, jp)})
	}
	for _, c := range cs {
		note := "a 60 Hz render loop in the bench (section 5's)"
		if c == br {
			note = fmt.Sprintf("the frames the page drew (its requestAnimationFrame), recorded by the page; ebiten.ActualFPS at the end %.1f", gameFPS)
		}
		rows = append(rows, row{"Frames per second", c.name, fmt.Sprintf("%.1f", c.fps), note})
	}
	rows = append(rows, row{"Frames per second of a bare page in the same browser", fmt.Sprintf("clearing a 1280×720 WebGL2 canvas / drawing nothing / clearing and blending %d full-canvas quads", barePasses),
		fmt.Sprintf("%.1f / %.1f / %.1f", ceil[0], ceil[1], ceil[2]),
		"this machine's ceiling apart from our client: headless Chromium draws WebGL with SwiftShader (software), in its GPU process"})
	ratio := func(a, b float64) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	bpd, bpu := pay(br)
	wpd, wpu := pay(wt)
	upd, upu := pay(udp)
	bwd, bwu := wir(br)
	wwd, wwu := wir(wt)
	uwd, uwu := wir(udp)
	bm, bp, _ := errStats(sm[2].atClock)
	wm, wp, _ := errStats(sm[1].atClock)
	um, up, _ := errStats(sm[0].atClock)
	rows = append(rows,
		row{"Ratios browser / WT native", "payload down, up; wire down, up",
			fmt.Sprintf("%s, %s; %s, %s", ratio(bpd, wpd), ratio(bpu, wpu), ratio(bwd, wwd), ratio(bwu, wwu)), "the same binding: the browser's client against ours (target: within 10%)"},
		row{"Ratios browser / UDP native", "payload down, up; wire down, up",
			fmt.Sprintf("%s, %s; %s, %s", ratio(bpd, upd), ratio(bpu, upu), ratio(bwd, uwd), ratio(bwu, uwu)), "the browser against the native game as it plays by default"},
		row{"Ratios WT native / UDP native", "payload down, up; wire down, up",
			fmt.Sprintf("%s, %s; %s, %s", ratio(wpd, upd), ratio(wpu, upu), ratio(wwd, uwd), ratio(wwu, uwu)), "the binding's cost: QUIC against bare UDP"},
		row{"Smoothness on the clock, browser against natives", "mean; p99 (px)",
			fmt.Sprintf("browser %.2f; %.2f, WT %.2f; %.2f, UDP %.2f; %.2f", bm, bp, wm, wp, um, up),
			fmt.Sprintf("frame rate: browser %.1f fps, the bare WebGL page %.1f fps (the browser at %.0f%% of this machine's ceiling)", br.fps, ceil[0], 100*br.fps/max(ceil[0], 1e-9))},
	)
	return rows
}

// errStats returns the mean, the 99th percentile and the largest of v.
func errStats(v []float64) (mean, p99, mx float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	for _, x := range v {
		mean += x
		mx = max(mx, x)
	}
	return mean / float64(len(v)), quantile(v, 0.99), mx
}

// linkCounts are a client's payload bytes and datagrams so far.
func linkCounts(c *client.Client) wirecount.Counts {
	ls := c.Stats().Link
	return wirecount.Counts{DownB: ls.RecvBytes, UpB: ls.SentBytes, DownPk: ls.RecvDatagrams, UpPk: ls.SentDatagrams}
}

// takeDrawn takes the frames the page recorded (recordDrawn), each as
// its float64 values.
func takeDrawn(br *browsertest.Browser) ([][]float64, error) {
	return chromedp.Run(br.Ctx, chromedp.Evaluate[[][]float64](`(() => {
		const d = rtype.drawn || []; rtype.drawn = [];
		return d.map(u => Array.from(new Float64Array(u.buffer, u.byteOffset, u.byteLength / 8)));
	})()`))
}

// awaitRoom waits for the lobby's room state to satisfy ok.
func awaitRoom(ctx context.Context, l *lobby.Lobby, what string, ok func(wire.Room) bool) (wire.Room, error) {
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	r, err := l.AwaitRoom(wctx, ok)
	if err != nil && ctx.Err() == nil {
		last, _ := l.State()
		return r, fmt.Errorf("waiting for %s (60 s at most): %w; room %+v", what, err, last)
	}
	return r, err
}
