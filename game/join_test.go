package game

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/settings"
	"rtype/internal/testutil"
	"rtype/render"
)

// TestJoinScreenFindsAHostedGame: a hosted game answers on the loopback
// broadcast address; another game's join screen lists it with its name,
// mode, players and ping, joins it when it is chosen, and remembers it
// among the recent servers. Nothing leaves 127.0.0.0/8.
func TestJoinScreenFindsAHostedGame(t *testing.T) {
	host := newTestGame(t, Options{Host: true, Port: 0, Name: "Ripley", DiscoveryListen: "127.255.255.255:0"})
	defer host.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	waitScene[*PlayScene](t, host, screen, testutil.Wait, "the host is not playing")
	da, err := netip.ParseAddrPort(host.host.srv.DiscoveryAddr())
	if err != nil {
		t.Fatalf("the hosted game does not answer discovery: %q, %v", host.host.srv.DiscoveryAddr(), err)
	}

	friend := newTestGame(t, Options{Name: "Hicks", Discovery: da.String()})
	defer friend.shutdown()
	j := NewJoinScene(friend)
	friend.setScene(j)
	if j.q == nil {
		t.Fatalf("the join screen does not search: %s", j.lanErr)
	}
	// Both games run: the host keeps playing while its friend looks.
	step := func() bool {
		if err := host.Update(); err != nil {
			t.Fatalf("host Update: %v", err)
		}
		host.Draw(screen)
		return false
	}
	if !run(t, friend, screen, testutil.Wait, func() bool { step(); return len(j.rows) == 1 }) {
		t.Fatalf("the join screen lists %+v", j.rows)
	}
	row, want := j.rows[0], netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(host.host.Port))
	if row.Name != "Ripley" || !strings.HasPrefix(row.Info, "Stage · 1/4 · ") || !strings.HasSuffix(row.Info, " ms") || j.lan[0].Addr != want {
		t.Fatalf("listed %+v at %v, want Ripley's Stage game, 1 of 4 players, at %v", row, j.lan[0].Addr, want)
	}

	// Choose it: the friend joins the host's game, and the querier stops.
	j.focus = 0
	friend.in = Input{Confirm: true}
	if err := j.Update(friend); err != nil {
		t.Fatal(err)
	}
	if j.q != nil {
		t.Fatal("the join screen still queries after it closed")
	}
	if !run(t, friend, screen, testutil.Wait, func() bool { step(); _, ok := friend.scene.(*PlayScene); return ok }) {
		t.Fatalf("the friend did not join; scene %T", friend.scene)
	}
	if friend.session.Addr != want.String() || friend.session.Hosting {
		t.Fatalf("joined %q, want %v", friend.session.Addr, want)
	}
	// The server it joined is the first recent server, in the file too.
	saved, err := settings.Load(friend.settingsPath, settingsChecks)
	if err != nil || len(saved.Recent) == 0 || saved.Recent[0] != want.String() {
		t.Fatalf("recent servers saved %q, %v", saved.Recent, err)
	}
	// The next join screen lists it among the recent servers.
	next := NewJoinScene(friend)
	defer friend.stopLAN(nil)
	friend.setScene(next)
	if r := next.recent(friend); len(r) == 0 || r[0] != want.String() {
		t.Fatalf("recent servers shown %q", r)
	}
}
