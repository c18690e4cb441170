package e2e

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rtype/internal/browsertest"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/lobby"
	"rtype/net/rendezvous"
	"rtype/net/wire"
	"rtype/server"
	"rtype/web"
)

// TestBrowserJoinsByCode: Chromium opens a rendezvous' page with
// ?code=CODE, the code of a room hosted by a server registered at the
// rendezvous; the page's game looks the code up (GET /join) and opens its
// WebTransport session to the rendezvous' relay (the lookup gives the
// relay alone, as for a host behind a symmetric NAT), which bridges it
// to the host: the browser takes the room, and plays once the owner
// starts, its snapshots coming through the relay. Then a lookup that
// names the host's binding at an address that does not answer (a stale
// port mapping): the page's game tries it, then joins through the relay.
func TestBrowserJoinsByCode(t *testing.T) {
	browsertest.Chromium(t)
	srv := testserver.Start(t, server.Config{MaxGames: 2, WebTransportAddr: "127.0.0.1:0"})
	rv := rendezvous.NewServer(rendezvous.Config{Logger: testutil.Logger(t)})
	rweb, err := rendezvous.NewWeb(rv, rendezvous.WebConfig{RelayOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rvDone := make(chan error, 1)
	go func() { rvDone <- rweb.Serve(ctx, pc) }()
	rooms := make(chan []wire.RoomCode, 16)
	hostDone := make(chan error, 1)
	go func() {
		hostDone <- srv.RunRendezvous(ctx, server.RendezvousConfig{Addr: pc.LocalAddr().String(),
			Rooms: func(cs []wire.RoomCode) { rooms <- cs }})
	}()
	defer func() {
		cancel()
		<-rvDone
		<-hostDone
	}()
	gz, _ := browsertest.Wasm(t)
	// The lookup as the page gets it: with stale set, the answer names
	// the host's binding at a dead port (a port mapping its router
	// dropped, say) before the relay.
	var stale atomic.Value
	stale.Store("")
	join := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		rweb.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if dead := stale.Load().(string); dead != "" && rec.Code == 200 {
			var a map[string]any
			json.Unmarshal(body, &a)
			a["path"], a["addr"], a["certHashes"] = "mapped", dead, a["relayCertHashes"]
			body, _ = json.Marshal(a)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
	h, err := web.New(web.Config{Wasm: gz, Join: join})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()

	l, err := lobby.Dial(ctx, lobby.Config{Addr: srv.Addr(), Name: "Host", Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: wire.MaxPlayers})
	code := waitRoom(t, l, "the room", func(r wire.Room) bool { return r.Code != (wire.RoomCode{}) }).Code
	for registered := false; !registered; {
		select {
		case cs := <-rooms:
			for _, c := range cs {
				registered = registered || c == code
			}
		case <-time.After(testutil.Wait):
			t.Fatal("the room's code was not registered")
		}
	}

	br := browsertest.New(t, 2*time.Minute)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("page log:\n%s", br.Log())
		}
	})
	q := url.Values{"code": {code.String()}, "name": {"Webby"}, "mute": {"1"}}
	if err := chromedp.Do(br.Ctx, chromedp.Navigate(hs.URL+"/?"+q.Encode())); err != nil {
		t.Fatal(err)
	}
	waitRoom(t, l, "the browser in the room", func(r wire.Room) bool { return r.Count == 2 })
	if st := rweb.Stats(); st.Opened != 1 || st.Sessions != 1 {
		t.Errorf("the relay: %+v, want the browser's session", st)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	waitRoom(t, l, "the game", func(r wire.Room) bool { return r.State == wire.RoomPlaying })
	native, err := l.Play(ctx, client.Config{Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer native.Close()
	if _, err := chromedp.Run(br.Ctx, chromedp.Poll[bool](`globalThis.rtype && rtype.scene === "*game.PlayScene" && !!rtype.world && JSON.parse(rtype.world).names.length === 2`,
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("the browser did not play: %v\npage log:\n%s", err, br.Log())
	}
	if !regexp.MustCompile(`session open.*path=relayed`).MatchString(br.Log()) {
		t.Errorf("the page's log does not say the session is relayed:\n%s", br.Log())
	}
	if st := rv.Stats(); st.RelayedPackets == 0 || st.WebLookups != 1 {
		t.Errorf("the rendezvous: %+v, want the browser's lookup and relayed packets", st)
	}

	// A host's address that does not answer: the page's game tries it,
	// then the relay.
	dead, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	stale.Store(dead.LocalAddr().String())
	dead.Close()
	l2, err := lobby.Dial(ctx, lobby.Config{Addr: srv.Addr(), Name: "Host2", Mode: wire.ModeClassic, Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	l2.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: wire.MaxPlayers})
	code2 := waitRoom(t, l2, "the second room", func(r wire.Room) bool { return r.Code != (wire.RoomCode{}) }).Code
	for registered := false; !registered; {
		select {
		case cs := <-rooms:
			for _, c := range cs {
				registered = registered || c == code2
			}
		case <-time.After(testutil.Wait):
			t.Fatal("the second room's code was not registered")
		}
	}
	q.Set("code", code2.String())
	if err := chromedp.Do(br.Ctx, chromedp.Navigate(hs.URL+"/?"+q.Encode())); err != nil {
		t.Fatal(err)
	}
	waitRoom(t, l2, "the browser in the second room", func(r wire.Room) bool { return r.Count == 2 })
	if !regexp.MustCompile(`own address did not answer: through the relay.*addr=` + regexp.QuoteMeta(stale.Load().(string))).MatchString(br.Log()) {
		t.Errorf("the page's log does not say it left the dead address for the relay:\n%s", br.Log())
	}
}
