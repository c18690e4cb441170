package game

import (
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/settings"
	"rtype/game/view"
	"rtype/internal/testutil"
	"rtype/net/rendezvous"
	"rtype/net/wire"
	"rtype/render"
)

// TestFriendsLine: what the hosted game's lobby says of how friends
// join, for each way they reach it.
func TestFriendsLine(t *testing.T) {
	obs := netip.MustParseAddrPort("11.0.0.3:40000")
	codes := []string{"AAAAAA", "K7MX2Q"}
	for _, c := range []struct {
		r    Reach
		want string
	}{
		{Reach{}, "Only on this network: no rendezvous set"},
		{Reach{Rendezvous: "rv:4250", Waited: time.Second}, "Friends anywhere: code K7MX2Q (reaching the rendezvous…)"},
		{Reach{Rendezvous: "rv:4250", Waited: 6 * time.Second}, "Only on this network: the rendezvous rv:4250 does not answer"},
		{Reach{Rendezvous: "rv:4250", Err: "no such host"}, "Only on this network: rendezvous rv:4250: no such host"},
		{Reach{Rendezvous: "rv:4250", Registered: true, Observed: obs, Direct: true}, "Friends anywhere: code K7MX2Q (reaching the rendezvous…)"},
		{Reach{Rendezvous: "rv:4250", Registered: true, Observed: obs, Direct: true, Codes: codes}, "Friends anywhere: code K7MX2Q (direct)"},
		{Reach{Rendezvous: "rv:4250", Registered: true, Observed: obs, Mapped: obs, Method: "UPnP", Codes: codes}, "Friends anywhere: code K7MX2Q (port mapped by UPnP)"},
		{Reach{Rendezvous: "rv:4250", Registered: true, Observed: obs, Mapped: obs, Method: "NAT-PMP", Codes: codes}, "Friends anywhere: code K7MX2Q (port mapped by NAT-PMP)"},
		{Reach{Rendezvous: "rv:4250", Registered: true, Observed: obs, Codes: codes}, "Friends anywhere: code K7MX2Q (hole punching, or through the relay)"},
	} {
		if got := friendsLine(c.r, "K7MX2Q"); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}

// TestBrowserLine: the browser's link is the LAN's without a rendezvous,
// the address the rendezvous saw when the game is direct, the router's
// when it mapped the page's port and the WebTransport port as it is, and
// says that it works on this network only otherwise (a browser cannot
// punch).
func TestBrowserLine(t *testing.T) {
	const link = "https://192.168.1.20:4280/?room=K7MX2Q"
	obs := netip.MustParseAddrPort("11.0.0.3:40000")
	for _, c := range []struct {
		r    Reach
		want string
	}{
		{Reach{}, "In a browser: " + link},
		{Reach{Rendezvous: "rv:4250", Registered: true, Observed: obs, Direct: true}, "In a browser, anywhere: https://11.0.0.3:4280/?room=K7MX2Q"},
		{Reach{Rendezvous: "rv:4250", Registered: true, Observed: obs, Mapped: obs, Method: "UPnP", WTPort: 40000}, "In a browser, on this network only: " + link},
		{Reach{Rendezvous: "rv:4250", Registered: true, Observed: obs, Mapped: obs, Method: "UPnP", WTPort: 40000,
			WebMapped: netip.MustParseAddrPort("11.0.0.3:4280")}, "In a browser, anywhere: https://11.0.0.3:4280/?room=K7MX2Q"},
		{Reach{Rendezvous: "rv:4250", Registered: true, Observed: obs, Mapped: obs, Method: "NAT-PMP", WTPort: 40001, // the router moved the port: the page would name the wrong one
			WebMapped: netip.MustParseAddrPort("11.0.0.3:4280")}, "In a browser, on this network only: " + link},
		{Reach{Rendezvous: "rv:4250", Registered: true, Observed: obs}, "In a browser, on this network only: " + link},
		{Reach{Rendezvous: "rv:4250"}, "In a browser, on this network only: " + link},
	} {
		if got := browserLine(c.r, link, "K7MX2Q"); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
	if got := browserLine(Reach{}, "", "K7MX2Q"); got != "" {
		t.Errorf("no link: %q", got)
	}
	// A rendezvous with a page for browsers, and the room's code
	// confirmed: a game it does not reach directly gives that page's link
	// with the code (the rendezvous relays the browser), with or without
	// a page of its own; a direct game keeps its own.
	page := Reach{Rendezvous: "rv.example.org:4250", Registered: true, Observed: obs, Page: 443, Codes: []string{"K7MX2Q"}}
	const viaRV = "In a browser, anywhere: https://rv.example.org:443/?code=K7MX2Q"
	for _, l := range []string{link, ""} {
		if got := browserLine(page, l, "K7MX2Q"); got != viaRV {
			t.Errorf("link %q: %q, want %q", l, got, viaRV)
		}
	}
	direct := page
	direct.Direct = true
	if got := browserLine(direct, link, "K7MX2Q"); got != "In a browser, anywhere: https://11.0.0.3:4280/?room=K7MX2Q" {
		t.Errorf("direct: %q", got)
	}
	unconfirmed := page
	unconfirmed.Codes = nil
	if got := browserLine(unconfirmed, link, "K7MX2Q"); got != "In a browser, on this network only: "+link {
		t.Errorf("code not confirmed: %q", got)
	}
	v6 := page
	v6.Rendezvous = "[2001:db8::1]:4250"
	if got := browserLine(v6, "", "K7MX2Q"); got != "In a browser, anywhere: https://[2001:db8::1]:443/?code=K7MX2Q" {
		t.Errorf("IPv6 rendezvous: %q", got)
	}
}

// TestNetLinesPath: F3 shows the rendezvous' path with its round trip,
// first; a session without one shows none.
func TestNetLinesPath(t *testing.T) {
	n := &view.Net{}
	n.Stats.HasRTT, n.Stats.RTT, n.Stats.Version = true, 12300*time.Microsecond, 2
	lines := netLines(n, "punched")
	if lines[0].Label != "path" || lines[0].Value != "punched · 12.3 ms" || lines[0].Warn {
		t.Errorf("first line %+v", lines[0])
	}
	if l := netLines(n, "relayed")[0]; l.Value != "relayed · 12.3 ms" || !l.Warn {
		t.Errorf("relayed: %+v", l)
	}
	if l := netLines(n, ""); len(l) != len(lines)-1 || l[0].Label == "path" {
		t.Errorf("no path: %+v", l[0])
	}
}

// TestRendezvousSetting: the settings screen's rendezvous takes an
// address (its port added), refuses what is none, and saves it; the
// command line's goes before it, the build's default after it.
func TestRendezvousSetting(t *testing.T) {
	g := newTestGame(t, Options{Name: "Hicks"})
	defer g.shutdown()
	s := NewRendezvousScene(g)
	g.setScene(s)
	s.field.Text = "http://rv"
	g.in = Input{Confirm: true}
	s.Update(g)
	if s.errMsg == "" || g.settings.Rendezvous != "" {
		t.Fatalf("a bad address taken: %q, message %q", g.settings.Rendezvous, s.errMsg)
	}
	s.field.Text = "rv.example.org"
	g.in = Input{Confirm: true}
	s.Update(g)
	if g.settings.Rendezvous != "rv.example.org:4250" || g.rendezvousAddr() != "rv.example.org:4250" {
		t.Fatalf("rendezvous %q", g.settings.Rendezvous)
	}
	if _, ok := g.scene.(*SettingsScene); !ok {
		t.Fatalf("scene %T after Enter, want the settings", g.scene)
	}
	loaded, err := settings.Load(g.settingsPath, settings.Checks{})
	if err != nil || loaded.Rendezvous != "rv.example.org:4250" {
		t.Fatalf("saved %q, %v", loaded.Rendezvous, err)
	}
	g.opt.Rendezvous = "11.0.0.1:9"
	if got := g.rendezvousAddr(); got != "11.0.0.1:9" {
		t.Errorf("with -rendezvous: %q", got)
	}
	g.opt.Rendezvous = "off"
	if got := g.rendezvousAddr(); got != "" {
		t.Errorf("with -rendezvous off: %q", got)
	}
	// The build's default (-ldflags -X rtype/net/rendezvous.Default=...)
	// when neither names one; off turns it off too.
	was := rendezvous.Default
	defer func() { rendezvous.Default = was }()
	rendezvous.Default = "rv.default.example:4250"
	g.opt.Rendezvous, g.settings.Rendezvous = "", ""
	if got := g.rendezvousAddr(); got != "rv.default.example:4250" || rendezvousLabel(g) != "rv.default.example:4250 (default)" {
		t.Errorf("the build's default gives %q, shown %q", got, rendezvousLabel(g))
	}
	g.settings.Rendezvous = settings.RendezvousOff
	if got := g.rendezvousAddr(); got != "" || rendezvousLabel(g) != "Off" {
		t.Errorf("off over the build's default gives %q, shown %q", got, rendezvousLabel(g))
	}
}

// TestJoinByCodeAlone: a game hosted with a rendezvous registers its
// room there, and its lobby says so; a friend whose settings name the
// rendezvous types the code alone, finds the room through it and plays,
// and F3 shows the path (direct: both on 127.0.0.1). The code is no
// recent server. Nothing leaves 127.0.0.0/8.
func TestJoinByCodeAlone(t *testing.T) {
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	rv := rendezvous.NewServer(rendezvous.Config{Logger: testutil.Logger(t)})
	go rv.Serve(pc)
	defer pc.Close()
	rvAddr := pc.LocalAddr().String()

	host := newTestGame(t, Options{Port: 0, Name: "Ripley", Rendezvous: rvAddr, PortMap: "off"})
	defer host.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	host.hostCfg.Mode = wire.ModeClassic
	hl := hostRoom(t, host, screen, "host")
	code := hl.st.Code.String()
	if !run(t, host, screen, testutil.Wait, func() bool { return slices.Contains(host.host.Reach().Codes, code) }) {
		t.Fatalf("not registered: %+v", host.host.Reach())
	}
	if got, want := friendsLine(host.host.Reach(), code), "Friends anywhere: code "+code+" (direct)"; got != want {
		t.Errorf("the lobby says %q, want %q", got, want)
	}

	friend := newTestGame(t, Options{Name: "Hicks", Mode: wire.ModeClassic})
	defer friend.shutdown()
	friend.settings.Rendezvous = rvAddr
	j := NewJoinScene(friend)
	friend.setScene(j)
	j.field.Text = strings.ToLower(code[:3]) + "-" + code[3:] // a code as typed, with a digit or in capitals
	if _, ok := roomCode(j.field.Text); !ok {
		j.field.Text = code
	}
	friend.in = Input{Confirm: true}
	j.Update(friend)
	cs, ok := friend.scene.(*LobbyConnectScene)
	if !ok || cs.tr == nil || cs.addr != code {
		t.Fatalf("a code alone gives the scene %T (%+v), want a LobbyConnectScene through the rendezvous", friend.scene, cs)
	}
	both := func(done func() bool) func() bool {
		return func() bool {
			if err := host.Update(); err != nil {
				t.Fatalf("host Update: %v", err)
			}
			host.Draw(screen)
			return done()
		}
	}
	var fl *LobbyScene
	if !run(t, friend, screen, testutil.Wait, both(func() bool {
		fl, _ = friend.scene.(*LobbyScene)
		return fl != nil && fl.in && fl.st.Count == 2
	})) {
		t.Fatalf("the friend is not in the room: scene %T", friend.scene)
	}
	if fl.st.Code.String() != code {
		t.Fatalf("the friend is in room %s, want %s", fl.st.Code, code)
	}
	hs := host.scene.(*LobbyScene)
	choose(t, host, hs, "Start now")
	if !run(t, friend, screen, testutil.Wait, both(func() bool {
		_, ok := friend.scene.(*PlayScene)
		return ok && friend.session != nil
	})) {
		t.Fatalf("the friend does not play: scene %T", friend.scene)
	}
	if friend.session.Path != "direct" || friend.lobbyPath() != "direct" {
		t.Errorf("the session's path %q, the lobby's %q, want direct (the lobby's games after Play again take it too)",
			friend.session.Path, friend.lobbyPath())
	}
	if host.lobbyPath() != "" || host.session.Path != "" {
		t.Errorf("the host's own session has the path %q", host.session.Path)
	}
	frames(t, friend, screen, 5)
	for _, r := range friend.settings.Recent {
		if strings.EqualFold(r, code) {
			t.Errorf("the code is a recent server: %q", friend.settings.Recent)
		}
	}
}

// TestJoinByUnknownCode: a code no host registered at the rendezvous
// ends on an error that says so, and what to check. -join takes a code
// too.
func TestJoinByUnknownCode(t *testing.T) {
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	rv := rendezvous.NewServer(rendezvous.Config{Logger: testutil.Logger(t)})
	go rv.Serve(pc)
	defer pc.Close()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	friend := newTestGame(t, Options{Name: "Hicks", Rendezvous: pc.LocalAddr().String()})
	defer friend.shutdown()
	j := NewJoinScene(friend)
	friend.setScene(j)
	j.field.Text = "K7MX2Q"
	friend.in = Input{Confirm: true}
	j.Update(friend)
	es := waitScene[*ErrorScene](t, friend, screen, testutil.Wait, "no error for an unknown code")
	if text := strings.Join(es.lines, " "); !strings.Contains(text, "No game has the room K7MX2Q at the rendezvous") {
		t.Errorf("the error says %q", text)
	}
	// -join CODE: through the rendezvous when one is set; without one, a
	// host name as before.
	g := newTestGame(t, Options{Name: "Vasquez", Join: "K7MX2Q", Rendezvous: pc.LocalAddr().String()})
	if cs, ok := g.scene.(*LobbyConnectScene); !ok || cs.tr == nil || cs.addr != "K7MX2Q" {
		t.Errorf("-join K7MX2Q with a rendezvous: scene %T", g.scene)
	}
	g.shutdown()
	g = newTestGame(t, Options{Name: "Vasquez", Join: "K7MX2Q", Rendezvous: "off"})
	if _, ok := g.scene.(*ConnectingScene); !ok {
		t.Errorf("-join K7MX2Q without a rendezvous: scene %T", g.scene)
	}
	g.shutdown()
}
