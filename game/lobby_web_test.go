package game

import (
	"net/url"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/net/wire"
	"rtype/render"
)

// TestLobbyShowsBrowserURL: the lobby of a game hosted while the page is
// served (Options.WebURL, the URL the command prints) shows the link a
// friend's browser opens, with the room's code in ?room=, which the page
// reads; a lobby that hosts nothing shows none.
func TestLobbyShowsBrowserURL(t *testing.T) {
	const page = "http://127.0.0.1:4280/"
	host := newTestGame(t, Options{Port: 0, Name: "Ripley", WebURL: page})
	defer host.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	host.hostCfg.Mode = wire.ModeClassic
	hl := hostRoom(t, host, screen, "host")
	got := hl.browserURL(host)
	u, err := url.Parse(got)
	if err != nil || got == "" {
		t.Fatalf("the hosted lobby shows the browser URL %q (%v), want %s?room=CODE", got, err, page)
	}
	if code := u.Query().Get("room"); code != hl.st.Code.String() || got != page+"?room="+code {
		t.Errorf("browser URL %q, want %s?room=%s", got, page, hl.st.Code)
	}
	host.Draw(screen) // draws it

	friend := newTestGame(t, Options{Name: "Hicks", WebURL: page})
	defer friend.shutdown()
	fl := &LobbyScene{in: true, st: hl.st}
	if u := fl.browserURL(friend); u != "" {
		t.Errorf("a lobby that hosts nothing shows the browser URL %q", u)
	}
}
