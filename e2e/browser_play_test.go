package e2e

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rtype/bot"
	"rtype/internal/browsertest"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/lobby"
	"rtype/net/netsim"
	"rtype/net/wire"
	"rtype/server"
	"rtype/web"
)

// browserWorld is what the page publishes of the game it plays
// (game/page_js.go, pageWorld).
type browserWorld struct {
	Tick     uint32       `json:"tick"`
	Player   uint8        `json:"player"`
	Names    []string     `json:"names"`
	Entities [][4]float64 `json:"entities"`
	KbitIn   float64      `json:"kbitIn"`
	KbitOut  float64      `json:"kbitOut"`
	RTT      float64      `json:"rtt"`
}

// snapLog keeps the server's snapshots by tick, for the browser's.
type snapLog struct {
	mu    sync.Mutex
	snaps map[uint32][]wire.Entity
}

func (l *snapLog) onSnapshot(_ int, s server.Snapshot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.snaps[s.Tick] = slices.Clone(s.Entities)
	delete(l.snaps, s.Tick-600) // ten seconds are enough
}

// posTolerance is how far the browser's position of an entity may be
// from the server's in the snapshot log: the log holds the version 1
// form, in eighths of a pixel, the browser version 2's finer one.
const posTolerance = 1.0/8 + 1e-3

// check compares what the browser published with the server's snapshot
// at the same tick: every entity the snapshot updated is the server's,
// with its kind and position. It returns how many it compared.
func (l *snapLog) check(w browserWorld) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	snap, ok := l.snaps[w.Tick]
	if !ok {
		return 0, fmt.Errorf("the browser shows tick %d, which the server never sent", w.Tick)
	}
	for _, e := range w.Entities {
		id := uint32(e[0])
		i := slices.IndexFunc(snap, func(s wire.Entity) bool { return s.ID == id })
		if i < 0 {
			return 0, fmt.Errorf("tick %d: the browser has entity %d, the server had none", w.Tick, id)
		}
		s := &snap[i]
		if uint8(e[1]) != s.Kind || math.Abs(e[2]-float64(s.X())) > posTolerance || math.Abs(e[3]-float64(s.Y())) > posTolerance {
			return 0, fmt.Errorf("tick %d entity %d: the browser has kind %v at (%v, %v), the server kind %d at (%v, %v)",
				w.Tick, id, e[1], e[2], e[3], s.Kind, s.X(), s.Y())
		}
	}
	return len(w.Entities), nil
}

// TestBrowserPlays plays in the browser against a real server over
// WebTransport (issue 18): a native player makes a room with two bots,
// the browser joins it from a link (/?room=CODE&name=NAME), the game
// starts, and for browserTicks of the game (at least browserFrames
// frames of the browser) the browser's world must be the server's at the
// same tick, each player must see the other, and the screenshot must
// show the game. Then the same through an impaired link (netsim in
// front of the WebTransport port).
func TestBrowserPlays(t *testing.T) {
	browsertest.Chromium(t)
	for _, tc := range []struct {
		name   string
		im     netsim.Impairment
		friend bool
	}{
		{"clean", netsim.Impairment{}, false},
		{"lossy-friend", netsim.Impairment{Loss: 0.03, Delay: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Reorder: 0.02}, true},
	} {
		t.Run(tc.name, func(t *testing.T) { browserPlays(t, tc.im, tc.friend) })
	}
}

// The browser's world is compared with the server's over browserTicks
// ticks of the game and at least browserFrames of its frames (and 20
// entities): how many frames that is depends on the machine, not the
// game, and is logged.
const (
	browserTicks  = 3 * wire.TickRate
	browserFrames = 5
)

// friendHost is the name under which the "friend" browser opens the page:
// not this machine's name, so the page is a secure context (and has
// WebTransport) only over https. Chromium resolves it to 127.0.0.1.
const friendHost = "friend.test"

// browserPlays plays in the browser through im; friend opens the page as
// a friend on the LAN does, https://NAME:PORT/ with the certificate the
// page made (web.Serve), which the browser is told to accept as a
// player clicks through its warning.
func browserPlays(t *testing.T, im netsim.Impairment, friend bool) {
	sl := &snapLog{snaps: map[uint32][]wire.Entity{}}
	cfg := server.Config{MaxGames: 2, Seed: 11, OnSnapshot: sl.onSnapshot,
		Bots: func(mode uint8, seed uint64) server.Bots { return bot.NewRoomBots(mode, seed) }}
	cfg.WebTransportAddr = "127.0.0.1:0"
	srv := testserver.Start(t, cfg)
	info, ok := srv.WebTransport()
	if !ok {
		t.Fatal("the server was asked for WebTransport and does not speak it")
	}
	wtAddr := info.Addr
	if im != (netsim.Impairment{}) {
		relay, err := netsim.New(netsim.Config{To: info.Addr, Up: im, Down: im, Seed: 5, Logger: testutil.Logger(t)})
		if err != nil {
			t.Fatal(err)
		}
		go relay.Run(context.Background())
		t.Cleanup(func() {
			up, down := relay.Stats()
			t.Logf("relay %v: up %v, down %v", im, up, down)
			relay.Close()
		})
		wtAddr = relay.Addr()
	}
	gz, _ := browsertest.Wasm(t)
	h, err := web.New(web.Config{Wasm: gz, Server: func() (web.Server, bool) {
		return web.Server{Addr: info.Addr, CertHashes: info.CertHashes}, true
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pageURL, flags := "", []chromedp.ExecAllocatorOption(nil)
	if friend {
		cert, err := web.SelfSigned([]string{friendHost}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go web.Serve(ctx, ln, h, &cert, testutil.Logger(t))
		pageURL = fmt.Sprintf("https://%s:%d", friendHost, ln.Addr().(*net.TCPAddr).Port)
		flags = append(flags, chromedp.Flag("ignore-certificate-errors", true),
			chromedp.Flag("host-resolver-rules", "MAP "+friendHost+" 127.0.0.1"))
	} else {
		hs := httptest.NewServer(h)
		defer hs.Close()
		pageURL = hs.URL
	}
	// The native player's room: Classic, two bots, open to late joiners.
	l, err := lobby.Dial(ctx, lobby.Config{Addr: srv.Addr(), Name: "Native", Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: wire.MaxPlayers, Flags: wire.RoomPublic | wire.RoomJoinLate}); err != nil {
		t.Fatal(err)
	}
	room := waitRoom(t, l, "the room", func(r wire.Room) bool { return r.Code != (wire.RoomCode{}) })
	for range 2 {
		if err := l.AddBot(); err != nil {
			t.Fatal(err)
		}
	}

	br := browsertest.New(t, 2*time.Minute, flags...)
	bctx := br.Ctx
	q := url.Values{"room": {room.Code.String()}, "name": {"Webby"}, "mute": {"1"}}
	if wtAddr != info.Addr {
		q.Set("addr", wtAddr)
		var hs []string
		for _, x := range info.CertHashes {
			hs = append(hs, hex.EncodeToString(x[:]))
		}
		q.Set("hash", strings.Join(hs, ","))
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(pageURL+"/?"+q.Encode())); err != nil {
		t.Fatal(err)
	}
	// The browser joins the room: four members, then the owner starts.
	waitRoom(t, l, "the browser in the room", func(r wire.Room) bool { return r.Count == 4 })
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	waitRoom(t, l, "the game", func(r wire.Room) bool { return r.State == wire.RoomPlaying })
	native, err := l.Play(ctx, client.Config{Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer native.Close()
	go bot.Play(ctx, native, rand.New(rand.NewPCG(3, 4)))

	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`globalThis.rtype && rtype.scene === "*game.PlayScene" && !!rtype.world`, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("the browser did not start playing: %v\npage log:\n%s", err, br.Log())
	}
	// For browserTicks of the game: the browser's world is the server's.
	compared, samples := 0, 0
	var bw bandwidth
	var first, last browserWorld
	start := time.Now()
	for samples < browserFrames || compared < 20 || last.Tick < first.Tick+browserTicks {
		if time.Since(start) > 2*testutil.Wait {
			t.Fatalf("still comparing after %v: %d entities in %d frames of the browser, ticks %d to %d",
				time.Since(start), compared, samples, first.Tick, last.Tick)
		}
		s, err := chromedp.Run(bctx, chromedp.Poll[string](`rtype.world`, chromedp.WithPollingTimeout(testutil.Wait)))
		if err != nil {
			t.Fatal(err)
		}
		var w browserWorld
		if err := json.Unmarshal([]byte(s), &w); err != nil {
			t.Fatalf("the page's world %q: %v", s, err)
		}
		if w.Tick == last.Tick {
			time.Sleep(50 * time.Millisecond) // polling the page, not synchronising
			continue
		}
		if samples == 0 {
			first = w
		}
		last = w
		n, err := sl.check(w)
		if err != nil {
			t.Fatal(err)
		}
		compared += n
		samples++
		ns := native.Stats()
		bw.add(w.KbitIn, w.KbitOut, ns.KbitIn, ns.KbitOut)
	}
	// Each player sees the other.
	if !slices.Contains(last.Names, "Native") {
		t.Errorf("the browser's player table %q lacks the native player", last.Names)
	}
	var seen bool
	for _, p := range native.Players() {
		seen = seen || p.Present && p.Name == "Webby"
	}
	if !seen {
		t.Errorf("the native client's player table %+v lacks the browser's player", native.Players())
	}
	if lit, colours, ok := br.ShowsGame(t, "play-"+strings.ReplaceAll(t.Name(), "/", "-")+".png", testutil.Wait); !ok {
		t.Errorf("the screenshot does not show the game: %d lit pixels, %d colours", lit, colours)
	}
	ns := native.Stats()
	fps, _ := chromedp.Run(bctx, chromedp.Evaluate[float64](`rtype.fps`))
	t.Logf("browser: %d entities in %d frames equal to the server's, ticks %d to %d, in %v; RTT %.1f ms, %.0f fps; native: RTT %v",
		compared, samples, first.Tick, last.Tick, time.Since(start).Round(time.Millisecond), last.RTT, fps, ns.RTT)
	t.Logf("bandwidth, mean of %d samples: browser %.1f kbit/s in, %.1f out; native %.1f in, %.1f out (browser/native: in %.2f, out %.2f)",
		bw.n, bw.bIn/float64(bw.n), bw.bOut/float64(bw.n), bw.nIn/float64(bw.n), bw.nOut/float64(bw.n), bw.bIn/bw.nIn, bw.bOut/bw.nOut)
}

// bandwidth sums the browser's and the native client's bandwidth
// (client.Stats), sampled at the same moments.
type bandwidth struct {
	n                    int
	bIn, bOut, nIn, nOut float64
}

func (b *bandwidth) add(bIn, bOut, nIn, nOut float64) {
	b.n++
	b.bIn, b.bOut, b.nIn, b.nOut = b.bIn+bIn, b.bOut+bOut, b.nIn+nIn, b.nOut+nOut
}

// waitRoom waits for the lobby's room state to satisfy ok.
func waitRoom(t *testing.T, l *lobby.Lobby, what string, ok func(wire.Room) bool) wire.Room {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	r, err := l.AwaitRoom(ctx, ok)
	if err != nil {
		last, _ := l.State()
		t.Fatalf("no %s within 60 s: %v; room %+v", what, err, last)
	}
	return r
}
