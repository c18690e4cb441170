package rendezvous_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/client"
	netlobby "rtype/net/lobby"
	"rtype/net/rendezvous"
	"rtype/net/webaddr"
	"rtype/net/wire"
	"rtype/net/wtclient"
	"rtype/server"
)

const wait = 30 * time.Second

// webLab is a rendezvous with its browsers' side on 127.0.0.1 (its UDP
// socket, its lookup over HTTP), and a game server registered at it.
type webLab struct {
	rv   *rendezvous.Server
	web  *rendezvous.Web
	pc   *net.UDPConn
	http *httptest.Server
	srv  *server.Server
}

func newWebLab(t *testing.T, rcfg rendezvous.Config) *webLab {
	t.Helper()
	if rcfg.Logger == nil {
		rcfg.Logger = testutil.Logger(t)
	}
	l := &webLab{rv: rendezvous.NewServer(rcfg)}
	var err error
	if l.web, err = rendezvous.NewWeb(l.rv, rendezvous.WebConfig{MaxSessionsPerIP: 1}); err != nil {
		t.Fatal(err)
	}
	if l.pc, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- l.web.Serve(ctx, l.pc) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	mux := http.NewServeMux()
	mux.Handle(rendezvous.JoinPath, l.web)
	l.http = httptest.NewServer(mux)
	t.Cleanup(l.http.Close)
	return l
}

// host starts a game server with the WebTransport binding, registered at
// the rendezvous, and returns a room made in it: its code and its
// owner's lobby.
func (l *webLab) host(t *testing.T) (wire.RoomCode, *netlobby.Lobby) {
	t.Helper()
	cfg := server.Config{Listen: "127.0.0.1:0", WebTransportAddr: "127.0.0.1:0", MaxTickLoad: 1,
		LoginLimit: 1 << 20, MaxSessionsPerIP: 1 << 20, MaxRoomsPerIP: 1 << 20, Logger: testutil.Logger(t)}
	l.srv = testutil.Start(t, server.New, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	rooms := make(chan []wire.RoomCode, 16)
	go func() {
		done <- l.srv.RunRendezvous(ctx, server.RendezvousConfig{Addr: l.pc.LocalAddr().String(),
			Rooms: func(cs []wire.RoomCode) { rooms <- cs }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	lctx, lcancel := context.WithTimeout(context.Background(), wait)
	defer lcancel()
	owner, err := netlobby.Dial(lctx, netlobby.Config{Addr: l.srv.Addr(), Name: "owner", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { owner.Close() })
	owner.Create(wire.RoomSettings{Mode: wire.ModeClassic, Difficulty: wire.DifficultyNormal, MaxPlayers: wire.MaxPlayers})
	code := waitLobby(t, owner, func(*wire.Room) bool { return true }).Code
	for { // registered
		select {
		case cs := <-rooms:
			for _, c := range cs {
				if c == code {
					return code, owner
				}
			}
		case <-time.After(wait):
			t.Fatal("the room's code was not registered")
		}
	}
}

// waitLobby waits until l's room satisfies cond.
func waitLobby(t *testing.T, l *netlobby.Lobby, cond func(r *wire.Room) bool) wire.Room {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	st, err := l.AwaitRoom(ctx, func(r wire.Room) bool { return cond(&r) })
	if err != nil {
		t.Fatalf("the room did not come: %v", err)
	}
	return st
}

// join looks code up over HTTP as the page does.
func (l *webLab) join(t *testing.T, code string) (int, rendezvous.JoinAnswer) {
	t.Helper()
	rsp, err := http.Get(l.http.URL + rendezvous.JoinPath + "?code=" + code)
	if err != nil {
		t.Fatal(err)
	}
	defer rsp.Body.Close()
	var a rendezvous.JoinAnswer
	if err := json.NewDecoder(rsp.Body).Decode(&a); err != nil {
		t.Fatalf("the lookup's answer (%s): %v", rsp.Status, err)
	}
	if got := rsp.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	return rsp.StatusCode, a
}

func hashes(t *testing.T, hs []string) [][32]byte {
	t.Helper()
	out, err := webaddr.ParseHashes(hs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// play joins room code over WebTransport at addr (the host's binding or
// the relay's room URL) as the browser's game does, and checks that the
// room counts the friend.
func play(t *testing.T, addr string, hs [][32]byte, code wire.RoomCode, name string) *netlobby.Lobby {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	f, err := netlobby.Dial(ctx, netlobby.Config{Addr: addr, Name: name, Transport: &wtclient.Transport{CertHashes: hs},
		Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatalf("%s: %v", addr, err)
	}
	f.Join(code)
	st := waitLobby(t, f, func(r *wire.Room) bool { return r.Code == code && r.Count >= 2 })
	if st.Count < 2 {
		t.Errorf("the friend's room has %d players", st.Count)
	}
	return f
}

// TestBrowserJoinByCode: a page looks a hosted room's code up over HTTP
// (GET /join?code=): a host on the browser's own address is direct, and
// a friend's lobby session over WebTransport to the address given takes
// the room; through the relay's room URL (/room/CODE/rtype on the
// rendezvous' UDP port, trusted by the hashes given) it takes the room
// too, its bytes relayed by the pair's relay path, and plays: the game's
// snapshots come through the relay as datagrams, its inputs go. Wrong codes get 400,
// 404 and, once the rate is spent, 429; a relayed session beyond the
// address' cap is 503.
func TestBrowserJoinByCode(t *testing.T) {
	l := newWebLab(t, rendezvous.Config{LookupBurst: 6, LookupRate: 0.001})
	code, owner := l.host(t)

	st, a := l.join(t, code.String())
	if st != http.StatusOK || a.Room != code.String() || a.Path != "direct" {
		t.Fatalf("lookup: %d %+v, want 200 and the direct path", st, a)
	}
	info, _ := l.srv.WebTransport()
	if a.Addr != info.Addr || len(a.CertHashes) != 1 || hashes(t, a.CertHashes)[0] != info.CertHashes[0] {
		t.Errorf("lookup: %s %v, want the binding's %s %x", a.Addr, a.CertHashes, info.Addr, info.CertHashes[0])
	}
	port := l.pc.LocalAddr().(*net.UDPAddr).Port
	if want := net.JoinHostPort("127.0.0.1", strconv.Itoa(port)); a.Relay != want || len(a.RelayCertHashes) != 2 {
		t.Errorf("relay %q %v, want %q and 2 hashes", a.Relay, a.RelayCertHashes, want)
	}
	f1 := play(t, a.Addr, hashes(t, a.CertHashes), code, "direct")
	f1.Close()
	waitLobby(t, owner, func(r *wire.Room) bool { return r.Count == 1 })

	before := l.rv.Stats()
	f2 := play(t, a.Relay+"/room/"+code.String(), hashes(t, a.RelayCertHashes), code, "relayed")
	ws := l.web.Stats()
	if ws.Opened != 1 || ws.Sessions != 1 || ws.Refused != 0 {
		t.Errorf("web stats %+v, want 1 session opened and open", ws)
	}
	if after := l.rv.Stats(); after.RelayedPackets == before.RelayedPackets || after.Pairs != before.Pairs+1 {
		t.Errorf("the relayed session's pair: relayed packets %d → %d, pairs %d → %d", before.RelayedPackets,
			after.RelayedPackets, before.Pairs, after.Pairs)
	}
	// One relayed session per address (WebConfig.MaxSessionsPerIP 1):
	// a second is refused before its session, 503.
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	_, err := (&wtclient.Transport{CertHashes: hashes(t, a.RelayCertHashes)}).DialStream(ctx, a.Relay+"/room/"+code.String())
	cancel()
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a second relayed session of 127.0.0.1: %v, want 503", err)
	}

	// The game, its datagrams through the relay both ways.
	owner.Ready(true)
	f2.Ready(true)
	var games []*client.Client
	for _, lb := range []*netlobby.Lobby{owner, f2} {
		waitLobby(t, lb, func(r *wire.Room) bool { return r.State == wire.RoomPlaying })
		c, err := lb.Play(context.Background(), client.Config{Logger: testutil.Logger(t)})
		if err != nil {
			t.Fatalf("play: %v", err)
		}
		defer c.Close()
		games = append(games, c)
	}
	var frames []client.Frame
	testutil.WaitFor(t, wait, "snapshots through the relay", func() bool {
		frames = games[1].Frames(frames)
		ls := games[1].Stats().Link
		return len(frames) > 0 && ls.RecvDatagrams >= 30 && ls.SentDatagrams >= 30
	})
	if p := games[1].Player(); p != 1 {
		t.Errorf("the relayed friend is player %d, want 1", p)
	}
	games[1].Close()
	f2.Close()
	testutil.WaitFor(t, wait, "the relayed session's end", func() bool {
		return l.web.Stats().Sessions == 0 && l.rv.Stats().Pairs == before.Pairs
	})

	// Wrong codes: a malformed one costs nothing; unknown ones spend
	// the address' lookups (6 in all, 2 spent above: a lookup, a
	// relayed session).
	if st, a := l.join(t, "nope"); st != http.StatusBadRequest || a.Error == "" {
		t.Errorf("a malformed code: %d %+v, want 400 and an error", st, a)
	}
	unknown := wire.RoomCode{'Z', 'Z', 'Z', 'Z', 'Z', 'Z'}
	for i := range 4 {
		if st, a := l.join(t, unknown.String()); st != http.StatusNotFound || a.Error == "" {
			t.Errorf("unknown code %d: %d %+v, want 404 and an error", i, st, a)
		}
	}
	if st, a := l.join(t, code.String()); st != http.StatusTooManyRequests || a.Error == "" {
		t.Errorf("beyond the rate: %d %+v, want 429", st, a)
	}
	rs := l.rv.Stats()
	if rs.WebLookups != 1 || rs.RateLimited == 0 {
		t.Errorf("stats %+v, want 1 web lookup answered and some rate-limited", rs)
	}

}
