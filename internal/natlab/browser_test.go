//go:build linux

package natlab

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"regexp"
	"testing"
	"time"

	"rtype/bot"
	"rtype/internal/testutil"
	"rtype/net/client"
	netlobby "rtype/net/lobby"
	"rtype/net/rendezvous"
	"rtype/net/webaddr"
	"rtype/net/wire"
	"rtype/net/wtclient"
)

// lookupFrom asks the lookup at url from namespace ns, as a page does:
// its connections are opened in ns by Dialer (http.Client dials on
// goroutines of its own, which are outside ns).
func lookupFrom(t *testing.T, ns NS, url string) (int, rendezvous.JoinAnswer) {
	t.Helper()
	cl := &http.Client{Timeout: testutil.Wait, Transport: &http.Transport{DialContext: Dialer(ns)}}
	defer cl.CloseIdleConnections()
	rsp, err := cl.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer rsp.Body.Close()
	var a rendezvous.JoinAnswer
	if err := json.NewDecoder(rsp.Body).Decode(&a); err != nil {
		t.Fatalf("%s: %s, not JSON: %v", url, rsp.Status, err)
	}
	return rsp.StatusCode, a
}

// TestBrowserByCode: a browser in a home behind a cone NAT joins hosted
// games by their codes as the page does it, a Go WebTransport client in
// its place (the lookup over HTTP, then WebTransport from a socket of its
// home): a host on the internet is given direct, and its session goes
// there; a host behind a symmetric NAT, which a browser cannot punch to,
// is given the rendezvous' relay, whose session reaches the host through
// the pair's relay path. The rendezvous runs alone with -web
// (rtype-server -listen "" -rendezvous-listen -web), the hosts are
// rtype-server -webtransport -rendezvous, their rooms made by rtype-bot.
func TestBrowserByCode(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("no NAT lab here: %v", err)
	}
	if testing.Short() {
		t.Skip("-short: the lab runs the real binaries")
	}
	l := newLab(t, Direct, Symmetric, Cone)
	server, bot := buildBinaries(t)
	rvAddr := l.Public.Addr.String() + ":4250"
	page := l.Public.Addr.String() + ":8443"
	rv := start(t, l.Public, server, "-listen", "", "-rendezvous-listen", rvAddr, "-web", page)
	rv.wait(t, false, regexp.MustCompile(`msg="serving the game's page"`))
	browser := l.Homes[2]

	for i, want := range []string{"direct", "relayed"} {
		h := l.Homes[i]
		hp := start(t, h.Host, server, "-listen", "0.0.0.0:4242", "-webtransport", "0.0.0.0:4243",
			"-rendezvous", rvAddr, "-login-limit", "1000", "-db", "")
		hp.wait(t, false, regexp.MustCompile(`msg="rendezvous: registered"`))
		owner := start(t, h.Host, bot, "-addr", "127.0.0.1:4242", "-create", "-name", "owner", "-duration", "60s")
		code := owner.wait(t, true, reRoom)[1]
		hp.wait(t, false, regexp.MustCompile(`msg="rendezvous: rooms registered" codes=\S*`+code))

		st, a := lookupFrom(t, browser.Host, "http://"+page+"/join?code="+code)
		if st != http.StatusOK || a.Path != want {
			t.Fatalf("host %v: lookup %d %+v, want the %s path", h.NAT, st, a, want)
		}
		addr, hs := a.Addr, a.CertHashes
		if want == "relayed" {
			if a.Addr != "" || a.Relay != rvAddr {
				t.Errorf("host %v: %+v, want only the relay at %s", h.NAT, a, rvAddr)
			}
			addr, hs = a.Relay+"/room/"+code, a.RelayCertHashes
		} else if a.Addr != h.Public().String()+":4243" {
			t.Errorf("host %v: addr %q, want its binding at %v:4243", h.NAT, a.Addr, h.Public())
		}
		rc, _ := wire.ParseRoomCode(code)
		// The session's socket, of the browser's home (one QUIC
		// transport per socket: a socket per session).
		var udp *net.UDPConn
		if err := Do(browser.Host, func() error {
			var err error
			udp, err = net.ListenUDP("udp4", nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		defer udp.Close()
		certs, err := webaddr.ParseHashes(hs)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
		f, err := netlobby.Dial(ctx, netlobby.Config{Addr: addr, Name: "browser",
			Transport: &wtclient.Transport{CertHashes: certs, Conn: udp}, Logger: testutil.Logger(t)})
		cancel()
		if err != nil {
			t.Fatalf("host %v: %s: %v\nrendezvous:\n%s\nhost:\n%s", h.NAT, addr, err, rv.err.String(), hp.err.String())
		}
		f.Join(rc)
		deadline := time.After(testutil.Wait)
		for joined := false; !joined; {
			if st, ok := f.State(); ok && st.Code == rc && st.Count == 2 {
				joined = true
				continue
			}
			select {
			case <-f.Changed():
			case <-f.Done():
				t.Fatalf("host %v: the lobby ended: %v", h.NAT, f.Err())
			case <-deadline:
				t.Fatalf("host %v: the browser did not join room %s", h.NAT, code)
			}
		}
		if want == "relayed" && os.Getenv("NATLAB_FIGURES") != "" {
			browserRelayFigures(t, rv, f)
		}
		f.Close()
		if want == "relayed" {
			hp.wait(t, false, regexp.MustCompile(`msg="rendezvous: a browser comes through the relay"`))
			rv.wait(t, false, regexp.MustCompile(`msg="rendezvous: a browser's session relayed" room=`+code))
		}
		owner.stop()
		hp.stop()
	}
	// A code nobody hosts, from the browser's home.
	if st, a := lookupFrom(t, browser.Host, "http://"+page+"/join?code=ZZZZZZ"); st != http.StatusNotFound || a.Error == "" {
		t.Errorf("an unknown code: %d %+v, want 404 and why", st, a)
	}
}

// browserRelayFigures plays lobby f's room (the owner, rtype-bot
// -create, readies once the browser came) for 20 s through the relay,
// and logs the rendezvous' CPU time and the game's bytes over it: the
// cost of one relayed browser (NATLAB_FIGURES).
func browserRelayFigures(t *testing.T, rv *proc, f *netlobby.Lobby) {
	f.Ready(true)
	deadline := time.After(testutil.Wait)
	for st, _ := f.State(); st.State != wire.RoomPlaying; st, _ = f.State() {
		select {
		case <-f.Changed():
		case <-deadline:
			t.Fatal("the game did not start")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := f.Play(ctx, client.Config{Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const play = 20 * time.Second
	pctx, pcancel := context.WithTimeout(ctx, play)
	defer pcancel()
	cpu0, ls0 := rv.cpu(), c.Stats().Link
	bot.Play(pctx, c, rand.New(rand.NewPCG(1, 2)))
	cpu, ls := rv.cpu()-cpu0, c.Stats().Link
	in, out := ls.RecvBytes-ls0.RecvBytes, ls.SentBytes-ls0.SentBytes
	t.Logf("a relayed browser, %v of play: the rendezvous' CPU %v (%.1f%% of a core); the game's payload %d bytes in (%.1f kbit/s), %d out (%.1f kbit/s)",
		play, cpu, 100*cpu.Seconds()/play.Seconds(), in, float64(in)*8/play.Seconds()/1000, out, float64(out)*8/play.Seconds()/1000)
}
