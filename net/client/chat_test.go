package client

import (
	"errors"
	"strings"
	"testing"
	"time"

	"rtype/internal/evilserver"
	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
)

// waitChat drains c until a Chat matching want arrives, and returns it
// with what came before.
func waitChat(t *testing.T, c *Client, what string, want func(*Chat) bool) (Chat, []Chat) {
	t.Helper()
	var seen []Chat
	var got Chat
	found := testutil.Eventually(testutil.Wait, func() bool {
		for _, ch := range c.DrainChat(nil) {
			if want(&ch) {
				got = ch
				return true
			}
			seen = append(seen, ch)
		}
		return false
	})
	if !found {
		t.Fatalf("%s: not received; got %+v", what, seen)
	}
	return got, seen
}

// TestChatThroughTheServer: two v2 clients of a game chat through the
// real server; a v1 client of the same game has no chat.
func TestChatThroughTheServer(t *testing.T) {
	srv := testserver.Start(t, server.Config{LoginLimit: 100})
	dial := func(name string, version uint8) *Client {
		c, err := Dial(dialCtx(t), Config{Addr: srv.Addr(), Name: name, Version: version, Logger: testLogger()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b, old := dial("Ripley", 0), dial("Hicks", 0), dial("Bishop", 1)
	if !a.CanChat() || !b.CanChat() || old.CanChat() {
		t.Fatalf("CanChat: %v %v %v, want true true false", a.CanChat(), b.CanChat(), old.CanChat())
	}
	if err := old.SendChat("hi"); !errors.Is(err, ErrNoChat) {
		t.Fatalf("v1 SendChat: %v", err)
	}
	if err := a.SendChat("ｇｏ！\u202e"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Client{a, b} {
		got, _ := waitChat(t, c, "Ripley's line", func(ch *Chat) bool { return ch.Text == "go!" })
		if got.Player != a.Player() || got.Name != "Ripley" || got.Refused != 0 {
			t.Fatalf("%+v", got)
		}
	}
	// Refused before sending: nothing would be left, or too much.
	var ce *ChatError
	if err := a.SendChat(" \u200b "); !errors.As(err, &ce) || ce.Reason != wire.ChatEmpty {
		t.Fatalf("empty: %v", err)
	}
	if err := a.SendChat(strings.Repeat("x", wire.MaxChatLen+1)); !errors.As(err, &ce) || ce.Reason != wire.ChatTooLong {
		t.Fatalf("too long: %v", err)
	}
	// The server's rate limit: 5 lines per 5 s, one was sent already.
	for i := range 5 {
		if err := a.SendChat("again"); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
	}
	got, seen := waitChat(t, a, "the refusal", func(ch *Chat) bool { return ch.Refused != 0 })
	if got.Refused != wire.ChatRateLimited || got.Wait <= 0 || got.Wait > 5*time.Second || len(seen) != 4 {
		t.Fatalf("refusal %+v after %d lines", got, len(seen))
	}
	srv.Announce("server going down")
	for _, c := range []*Client{a, b} {
		got, _ := waitChat(t, c, "the announcement", func(ch *Chat) bool { return ch.Player == wire.ServerPlayer })
		if got.Text != "server going down" || got.Name != "" {
			t.Fatalf("%+v", got)
		}
	}
	if n := len(old.DrainChat(nil)); n != 0 {
		t.Fatalf("the v1 client got %d lines", n)
	}
}

// TestChatFromAHostileServer: what a server sends is cleaned and bounded;
// a malformed ChatMessage ends the session as a protocol error.
func TestChatFromAHostileServer(t *testing.T) {
	s := startEvil(t, evilserver.Config{Version2: true})
	c, err := Dial(dialCtx(t), Config{Addr: s.Addr(), Name: "victim", Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.CanChat() {
		t.Fatal("no chat in a v2 session")
	}
	line := func(player uint8, name, text string) []byte {
		return wire.AppendChatMessage(nil, 1, player, name, []byte(text))
	}
	var flood []byte
	for range 1000 {
		flood = append(flood, line(1, "spam", "spam")...)
	}
	s.TCP(flood)
	s.TCP(line(2, "Evil\u202e\x00name", "\x1b[2J\u202eowned\u200b \t "+strings.Repeat("y", 300)))
	s.TCP(line(3, "Empty", "\u200b\x00"))                                                         // left empty: ignored
	s.TCP(wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgChatRefused, Reason: 0, Wait: 9})) // generic
	testutil.WaitFor(t, testutil.Wait, "the refusal", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.chats) > 0 && c.chats[len(c.chats)-1].Refused != 0
	})
	seen := c.DrainChat(nil)
	if len(seen) > maxChats || len(seen) < 2 {
		t.Fatalf("%d lines kept, want at most %d", len(seen), maxChats)
	}
	if got := seen[len(seen)-1]; got.Refused != 255 || got.Wait != 9*time.Millisecond {
		t.Fatalf("refusal %+v", got)
	}
	evil := seen[len(seen)-2]
	want := "[2Jowned " + strings.Repeat("y", wire.MaxChatLen-10) + wire.Ellipsis
	if evil.Name != "Evilname" || evil.Text != want {
		t.Fatalf("cleaned %q %q, want %q", evil.Name, evil.Text, want)
	}
	// A player of 7: malformed, a protocol error.
	s.TCP(line(7, "bad", "bad"))
	if err := waitDone(t, c, testutil.Wait); !errors.Is(err, ErrProtocol) {
		t.Fatalf("after a malformed ChatMessage: %v", err)
	}
}
