package game

import (
	"net/netip"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/render"
)

// choose activates the lobby's menu row labelled label.
func choose(t *testing.T, g *Game, s *LobbyScene, label string) {
	t.Helper()
	for i, it := range s.menu.Items {
		if it.Label == label {
			s.menu.Sel = i
			g.in = Input{Confirm: true}
			s.menu.Update(&g.in)
			g.in = Input{}
			return
		}
	}
	var labels []string
	for _, it := range s.menu.Items {
		labels = append(labels, it.Label)
	}
	t.Fatalf("no row %q in %q", label, labels)
}

// TestLobbyHostAndFriend: two game windows, no address typed. One hosts
// from the menu: its lobby opens, nothing plays yet. The other finds it
// on the LAN (loopback broadcast) and joins its room; they chat in the
// lobby; the host adds two bots; both get ready and the game starts for
// both, with the two bots in it. Then the room code joins a third
// window to the running game (join in progress). Nothing leaves
// 127.0.0.0/8.
func TestLobbyHostAndFriend(t *testing.T) {
	host := newTestGame(t, Options{Port: 0, Name: "Ripley", DiscoveryListen: "127.255.255.255:0"})
	defer host.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	host.hostCfg.Mode = wire.ModeClassic
	hl := hostRoom(t, host, screen, "host")
	if !hl.owner() || hl.st.Count != 1 || hl.st.State != wire.RoomLobby || hl.st.Settings.Flags&wire.RoomPublic == 0 {
		t.Fatalf("host's room %+v", hl.st)
	}
	if host.session != nil {
		t.Fatal("the host plays before anyone is ready")
	}
	da, err := netip.ParseAddrPort(host.host.srv.DiscoveryAddr())
	if err != nil {
		t.Fatal(err)
	}

	friend := newTestGame(t, Options{Name: "Hicks", Discovery: da.String(), Mode: wire.ModeClassic})
	defer friend.shutdown()
	j := NewJoinScene(friend)
	friend.setScene(j)
	both := func(done func() bool) func() bool {
		return func() bool {
			if err := host.Update(); err != nil {
				t.Fatalf("host Update: %v", err)
			}
			host.Draw(screen)
			return done()
		}
	}
	if !run(t, friend, screen, testutil.Wait, both(func() bool { return len(j.rows) == 1 })) {
		t.Fatalf("the join screen lists %+v", j.rows)
	}
	j.focus = 0
	friend.in = Input{Confirm: true}
	j.Update(friend)
	var fl *LobbyScene
	if !run(t, friend, screen, testutil.Wait, both(func() bool {
		fl, _ = friend.scene.(*LobbyScene)
		return fl != nil && fl.in && fl.st.Count == 2 && hl.st.Count == 2
	})) {
		t.Fatalf("the friend is not in the host's room: scene %T", friend.scene)
	}
	if fl.st.Code != hl.st.Code || fl.st.You != 1 {
		t.Fatalf("friend's room %+v, host's %s", fl.st, hl.st.Code)
	}

	// Chat in the lobby: T, the line, Enter.
	friend.in = Input{Chat: true}
	fl.chat.update(friend)
	friend.in = Input{Chars: []rune("hello Ripley")}
	fl.chat.update(friend)
	friend.in = Input{Confirm: true}
	fl.chat.update(friend)
	friend.in = Input{}
	if !run(t, friend, screen, testutil.Wait, both(func() bool {
		for _, l := range hl.chat.log.Lines(nil, host.T(), true) {
			if l.Text == "hello Ripley" && l.Name == "Hicks" {
				return true
			}
		}
		return false
	})) {
		t.Fatalf("the host did not see the line: %+v", hl.chat.log.Lines(nil, host.T(), true))
	}

	// Two bots.
	choose(t, host, hl, "Add a bot")
	choose(t, host, hl, "Add a bot")
	if !run(t, friend, screen, testutil.Wait, both(func() bool { return fl.st.Count == 4 })) {
		t.Fatalf("friend sees %d members", fl.st.Count)
	}
	for _, m := range fl.st.Members[2:4] {
		if m.Flags != wire.MemberBot|wire.MemberReady {
			t.Fatalf("bot %+v", m)
		}
	}

	// Ready, both: the game starts for both.
	choose(t, friend, fl, "Ready")
	choose(t, host, hl, "Ready")
	if !run(t, friend, screen, testutil.Wait, both(func() bool {
		hp, _ := host.scene.(*PlayScene)
		fp, _ := friend.scene.(*PlayScene)
		return hp != nil && fp != nil && fp.frame.HUD[2].Present && fp.frame.HUD[3].Present && fp.frame.HUD[0].Present
	})) {
		t.Fatalf("not both playing with the bots: host %T, friend %T", host.scene, friend.scene)
	}
	if friend.session.C.Player() != 1 || host.session.C.Player() != 0 {
		t.Fatalf("players %d and %d", host.session.C.Player(), friend.session.C.Player())
	}

	// A third window types the room's code: the room is full (two pilots,
	// two bots), so it is refused and lists the server's public rooms,
	// the host's among them, with its ping.
	third := newTestGame(t, Options{Name: "Vasquez", Discovery: da.String(), Mode: wire.ModeClassic})
	defer third.shutdown()
	j3 := NewJoinScene(third)
	third.setScene(j3)
	if !run(t, third, screen, testutil.Wait, both(func() bool { return len(j3.rows) == 1 })) {
		t.Fatal("the third window finds no server")
	}
	j3.field.Text = hl.st.Code.String()
	j3.focus = -1
	third.in = Input{Confirm: true}
	j3.Update(third)
	var tl *LobbyScene
	if !run(t, third, screen, testutil.Wait, both(func() bool {
		tl, _ = third.scene.(*LobbyScene)
		return tl != nil && tl.browse && tl.listing.Count == 1 && tl.ping > 0
	})) {
		t.Fatalf("no room list after a refused code: scene %T", third.scene)
	}
	if r := tl.listing.Rooms[0]; r.Code != hl.st.Code || r.Players != 4 || r.State != wire.RoomPlaying || tl.notice == "" {
		t.Fatalf("listed %+v, notice %q", r, tl.notice)
	}
}

// The join field reads a room code when it is one, typed in capitals or
// with a digit; a host name stays a host name.
func TestJoinFieldRoomCode(t *testing.T) {
	for text, want := range map[string]bool{"K7MX2Q": true, "k7mx2q": true, "K7M-X2Q": true, "SERVER": true,
		"server": false, "hangar": false, "K7MX2Q:4242": false, "10.0.0.1": false, "K7MX20": false} {
		if _, ok := roomCode(text); ok != want {
			t.Errorf("roomCode(%q) = %v, want %v", text, ok, want)
		}
	}
}

// hostRoom hosts a game from the Hosting scene, as the menu does, and
// waits for the host's own room (what names the host in the failures).
func hostRoom(t *testing.T, host *Game, screen *ebiten.Image, what string) *LobbyScene {
	t.Helper()
	host.setScene(NewHostingScene(host))
	hl := waitScene[*LobbyScene](t, host, screen, testutil.Wait, "no lobby for the "+what)
	if !run(t, host, screen, testutil.Wait, func() bool { return hl.in }) {
		t.Fatalf("the %s's room did not come", what)
	}
	return hl
}
