package game

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"

	"rtype/game/settings"
	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/render"
	"rtype/render/model"
)

// shownChat returns the chat lines the play shows now, as "name: text".
func shownChat(g *Game, p *PlayScene) []string {
	var out []string
	for _, l := range p.chat.log.Lines(nil, g.T(), p.chat.open) {
		if l.Name != "" {
			out = append(out, l.Name+": "+l.Text)
		} else {
			out = append(out, l.Text)
		}
	}
	return out
}

// press runs the play scene's input for one tick with in as the devices
// read, as the game loop does after Input.Update; it returns the ship's
// actions.
func press(g *Game, p *PlayScene, in Input) uint8 {
	in.keys, in.controls = g.in.keys, g.in.controls
	g.in = in
	actions, _ := p.input(g)
	return actions
}

// TestChatInThePlay: in a hosted game with a friend, T opens the chat
// box, what is typed goes to it and not to the ship, Enter sends, Esc
// cancels; the friend's lines show, the server's announcements too, and
// the pause menu mutes the friend.
func TestChatInThePlay(t *testing.T) {
	g := newTestGame(t, Options{Host: true, Port: 0, Name: "Tester"})
	defer g.shutdown()
	screen := ebiten.NewImage(render.Width, render.Height)
	defer screen.Deallocate()
	p := waitScene[*PlayScene](t, g, screen, testutil.Wait, "no play scene")
	friend, err := client.Dial(context.Background(), client.Config{Addr: g.host.LocalAddr(), Name: "Hicks", Logger: testutil.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer friend.Close()
	if !run(t, g, screen, testutil.Wait, func() bool { return p.view.Players()[friend.Player()].Present }) {
		t.Fatal("the friend did not join")
	}

	// T opens the box; typing fills it, the ship gets nothing.
	if a := press(g, p, Input{Chat: true, Chars: []rune{'t'}}); a != 0 || !p.chat.open || p.chat.field.Text != "" {
		t.Fatalf("after T: open %v, text %q, actions %#x", p.chat.open, p.chat.field.Text, a)
	}
	if !g.in.TextMode {
		t.Fatal("the box does not put the input in text mode")
	}
	if a := press(g, p, Input{Chars: []rune("hello team"), TextMode: true}); a != 0 || p.chat.field.Text != "hello team" {
		t.Fatalf("typed %q, actions %#x", p.chat.field.Text, a)
	}
	p.Draw(screen, g) // the open box draws
	press(g, p, Input{Confirm: true, TextMode: true})
	if p.chat.open || g.in.TextMode {
		t.Fatal("Enter did not close the box")
	}
	if !run(t, g, screen, testutil.Wait, func() bool { return slices.Contains(shownChat(g, p), "Tester: hello team") }) {
		t.Fatalf("own line not shown: %q", shownChat(g, p))
	}
	testutil.WaitFor(t, testutil.Wait, "the friend receiving the line", func() bool {
		return slices.ContainsFunc(friend.DrainChat(nil), func(c client.Chat) bool { return c.Name == "Tester" && c.Text == "hello team" })
	})

	// Esc cancels: nothing sent, and the pause menu does not open.
	press(g, p, Input{Chat: true})
	press(g, p, Input{Chars: []rune("never mind"), TextMode: true})
	press(g, p, Input{Back: true, Pause: true, TextMode: true})
	if p.chat.open || p.paused {
		t.Fatalf("after Esc: open %v, paused %v", p.chat.open, p.paused)
	}

	// The friend's lines and the server's announcement show.
	if err := friend.SendChat("hi from Hicks"); err != nil {
		t.Fatal(err)
	}
	g.host.srv.Announce("server restarts soon")
	if !run(t, g, screen, testutil.Wait, func() bool {
		s := shownChat(g, p)
		return slices.Contains(s, "Hicks: hi from Hicks") && slices.Contains(s, "Server: server restarts soon")
	}) {
		t.Fatalf("lines shown: %q", shownChat(g, p))
	}
	for _, l := range p.chat.log.Lines(nil, g.T(), false) {
		if l.Name == "Server" && l.Kind != model.ChatServer {
			t.Errorf("the announcement is not highlighted: %+v", l)
		}
	}

	// The pause menu mutes Hicks: his lines go, and come back unmuted.
	press(g, p, Input{Pause: true})
	if !p.paused {
		t.Fatal("no pause menu")
	}
	i := slices.IndexFunc(p.pause.Items, func(it MenuItem) bool { return it.Label == "Chat of Hicks" })
	if i < 0 {
		t.Fatalf("no mute row for Hicks in %v", p.pause.Items)
	}
	if v := p.pause.Items[i].Value(); v != "Shown" {
		t.Fatalf("row shows %q", v)
	}
	p.Draw(screen, g) // the longer pause menu draws
	p.pause.Items[i].Activate()
	if v := p.pause.Items[i].Value(); v != "Muted" {
		t.Fatalf("row shows %q after muting", v)
	}
	press(g, p, Input{Back: true})
	if err := friend.SendChat("muted line"); err != nil {
		t.Fatal(err)
	}
	press(g, p, Input{Chat: true})
	press(g, p, Input{Chars: []rune("after"), TextMode: true})
	press(g, p, Input{Confirm: true, TextMode: true})
	if !run(t, g, screen, testutil.Wait, func() bool { return slices.Contains(shownChat(g, p), "Tester: after") }) {
		t.Fatalf("lines shown: %q", shownChat(g, p))
	}
	for _, s := range shownChat(g, p) {
		if strings.HasPrefix(s, "Hicks:") {
			t.Fatalf("a muted player's line shows: %q", shownChat(g, p))
		}
	}
	p.chat.log.SetMuted("Hicks", false)
	if s := shownChat(g, p); !slices.Contains(s, "Hicks: muted line") {
		t.Fatalf("unmuted, lines shown: %q", s)
	}

	// A refusal shows as a notice: the server takes 5 lines per 5 s.
	for range 6 {
		press(g, p, Input{Chat: true})
		press(g, p, Input{Chars: []rune("spam"), TextMode: true})
		press(g, p, Input{Confirm: true, TextMode: true})
	}
	if !run(t, g, screen, testutil.Wait, func() bool {
		return slices.ContainsFunc(shownChat(g, p), func(s string) bool { return strings.HasPrefix(s, "Not sent: too fast") })
	}) {
		t.Fatalf("no refusal shown: %q", shownChat(g, p))
	}
}

// TestChatKeyRebinds: the settings screen rebinds the Chat key (T by
// default), and the play's hint says the key.
func TestChatKeyRebinds(t *testing.T) {
	g := newTestGame(t, Options{Name: "Tester"})
	defer g.shutdown()
	s := NewSettingsScene(g)
	g.setScene(s)
	i := slices.IndexFunc(s.menu.Items, func(it MenuItem) bool { return it.Label == settings.ActChat.Label() })
	if i < 0 {
		t.Fatal("no Chat row in the settings")
	}
	if v := s.menu.Items[i].Value(); v != "T" || g.chatKey() != "T" {
		t.Fatalf("Chat row %q, key %q", v, g.chatKey())
	}
	if bottom := s.menu.Y + s.menu.ShownHeight(); bottom > 650 { // a long menu scrolls
		t.Errorf("the settings rows end at y=%v, over the hint line", bottom)
	}
	s.bind(g, settings.ActChat, "Y")
	if len(g.in.keys[settings.ActChat]) == 0 || g.in.keys[settings.ActChat][0] != ebiten.KeyY || g.chatKey() != "Y" {
		t.Fatalf("chat keys %v, label %q", g.in.keys[settings.ActChat], g.chatKey())
	}
}
