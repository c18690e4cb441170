package view

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"rtype/net/client"
	"rtype/net/wire"
	"rtype/render/model"
)

// texts returns the lines as "name: text" (notices as their text).
func texts(lines []model.ChatLine) []string {
	var out []string
	for _, l := range lines {
		if l.Name != "" {
			out = append(out, l.Name+": "+l.Text)
		} else {
			out = append(out, l.Text)
		}
	}
	return out
}

func TestChatLogShowsTheLastLines(t *testing.T) {
	var l ChatLog
	for i := range 8 {
		l.Add(&client.Chat{Player: uint8(i % 2), Name: []string{"Ripley", "Hicks"}[i%2], Text: fmt.Sprint(i)}, float64(i))
	}
	got := texts(l.Lines(nil, 8, false))
	if len(got) != model.ChatShown || got[0] != "Ripley: 2" || got[5] != "Hicks: 7" {
		t.Fatalf("lines %q", got)
	}
	// They fade over the last ChatFade seconds of ChatLife, then go.
	lines := l.Lines(nil, 2+model.ChatLife-model.ChatFade/2, false)
	if lines[0].Text != "2" || lines[0].Alpha < 0.49 || lines[0].Alpha > 0.51 || lines[1].Alpha != 1 {
		t.Fatalf("fading: %+v", lines[:2])
	}
	if got := texts(l.Lines(nil, 7+model.ChatLife, false)); len(got) != 0 {
		t.Fatalf("old lines still shown: %q", got)
	}
	// With the box open, the last lines show whatever their age.
	if got := l.Lines(nil, 1000, true); len(got) != model.ChatShown || got[5].Alpha != 1 {
		t.Fatalf("open: %+v", got)
	}
	// The log keeps a bounded history.
	for i := range 1000 {
		l.Add(&client.Chat{Player: 0, Name: "Ripley", Text: "x"}, float64(i))
	}
	if len(l.lines) > chatKept {
		t.Fatalf("%d lines kept", len(l.lines))
	}
}

func TestChatLogMutes(t *testing.T) {
	var l ChatLog
	l.Add(&client.Chat{Player: 0, Name: "Ripley", Text: "one"}, 0)
	l.Add(&client.Chat{Player: 1, Name: "Hicks", Text: "spam"}, 0)
	l.Add(&client.Chat{Player: wire.ServerPlayer, Text: "restart soon"}, 0)
	l.SetMuted("HICKS", true) // names compare ignoring case
	if !l.Muted("Hicks") {
		t.Fatal("Hicks not muted")
	}
	l.Add(&client.Chat{Player: 1, Name: "Hicks", Text: "more spam"}, 1)
	l.Add(&client.Chat{Player: 0, Name: "Ripley", Text: "two"}, 1)
	got := l.Lines(nil, 2, false)
	if strings.Join(texts(got), "|") != "Ripley: one|Server: restart soon|Ripley: two" {
		t.Fatalf("muted: %q", texts(got))
	}
	if got[1].Kind != model.ChatServer || got[0].Kind != model.ChatPlayer || got[0].Player != 0 {
		t.Fatalf("kinds %+v", got)
	}
	// Many lines of a muted player do not push the others out.
	for range 100 {
		l.Add(&client.Chat{Player: 1, Name: "Hicks", Text: "flood"}, 3)
	}
	if got := texts(l.Lines(nil, 3, false)); len(got) == 0 || got[len(got)-1] != "Ripley: two" {
		t.Fatalf("after a muted flood: %q", got)
	}
	l.SetMuted("hicks", false)
	if got := texts(l.Lines(nil, 3, false)); got[len(got)-1] != "Hicks: flood" {
		t.Fatalf("unmuted: %q", got)
	}
}

func TestChatLogRefusals(t *testing.T) {
	var l ChatLog
	l.Add(&client.Chat{Refused: wire.ChatRateLimited, Wait: 1750 * time.Millisecond}, 0)
	l.Add(&client.Chat{Refused: wire.ChatTooLong}, 0)
	l.Add(&client.Chat{Refused: 200}, 0)
	got := l.Lines(nil, 0, false)
	want := []string{
		"Not sent: too fast: at most 5 lines in 5 seconds (wait 2 s)",
		"Not sent: too long: at most 120 characters",
		"Not sent: refused by the server",
	}
	for i, w := range want {
		if got[i].Kind != model.ChatNotice || got[i].Text != w {
			t.Errorf("notice %d: %+v, want %q", i, got[i], w)
		}
	}
}
