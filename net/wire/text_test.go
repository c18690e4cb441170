package wire

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestCleanName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Ripley", "Ripley"},
		{"  Ellen   Ripley ", "Ellen Ripley"},
		{"Evil\nName\r\tX", "Evil Name X"},
		{"\u202EdesreveR\u202C", "desreveR"},   // bidi override and pop
		{"a\u200Fb\u2066c\u2069", "abc"},       // RLM, isolates
		{"Bell\x07\x1b[31mRed", "Bell31mRed"},  // controls and an escape
		{"ｆｕｌｌ", "full"},                       // NFKC
		{"bad\xffutf8", "badutf8"},             // invalid bytes dropped
		{"zero\u200Bwidth\uFEFF", "zerowidth"}, // format characters
		{strings.Repeat("W", 200), strings.Repeat("W", MaxNameLen)},
		{strings.Repeat("ab ", 30), strings.TrimSpace(strings.Repeat("ab ", 7))},
		{"\n\n\n", ""},
		{"Jean-Luc_7", "Jean-Luc_7"},
	} {
		got := CleanName(tc.in)
		if got != tc.want {
			t.Errorf("CleanName(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again := CleanName(got); again != got {
			t.Errorf("CleanName is not idempotent on %q: %q", got, again)
		}
	}
	// Every valid name of 3.2 comes back unchanged.
	for _, n := range []string{"Ripley", "Ellen Ripley", "Ça-va_3", "李小龍", "Ωmega", strings.Repeat("x", 20)} {
		norm, err := NormalizeName(n)
		if err != nil {
			t.Fatalf("%q: %v", n, err)
		}
		if got := CleanName(norm); got != norm {
			t.Errorf("CleanName(%q) = %q, want it unchanged", norm, got)
		}
	}
}

func TestCleanText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"The game is full.", "The game is full."},
		{"go\u202E away\x00\x1b[2J", "go away[2J"},
		{"two\nlines", "two lines"},
		{strings.Repeat("A", 1000), strings.Repeat("A", MaxTextLen) + Ellipsis},
		{strings.Repeat("A", MaxTextLen-1) + " B", strings.Repeat("A", MaxTextLen-1) + Ellipsis},
		{"100% (sure) ✓", "100% (sure) ✓"},
	} {
		got := CleanText(tc.in)
		if got != tc.want {
			t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again := CleanText(got); again != got {
			t.Errorf("CleanText is not idempotent on %q: %q", got, again)
		}
	}
}

// checkClean checks what makes a cleaned text safe to draw.
func checkClean(t *testing.T, in, out string, max int) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("clean(%q) = %q: not UTF-8", in, out)
	}
	if n := utf8.RuneCountInString(strings.TrimSuffix(out, Ellipsis)); n > max {
		t.Fatalf("clean(%q) = %q: %d characters", in, out, n)
	}
	if strings.HasPrefix(out, " ") || strings.HasSuffix(out, " ") || strings.Contains(out, "  ") {
		t.Fatalf("clean(%q) = %q: spaces not collapsed", in, out)
	}
	for _, r := range out {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) || (unicode.IsSpace(r) && r != ' ') || r == utf8.RuneError {
			t.Fatalf("clean(%q) = %q: keeps %U", in, out, r)
		}
	}
}

// FuzzCleanText: whatever a server sends, the cleaned name and text are
// one line of valid UTF-8, within their length, without control, format
// or bidi characters, and cleaning them again changes nothing.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"Ripley", "Evil\nName", "\u202Ex\u202C", "a\xffb", strings.Repeat("W", 300), "ｆｕｌｌ width", "e\u0301\u0301\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := CleanName(s)
		checkClean(t, s, n, MaxNameLen)
		if CleanName(n) != n {
			t.Fatalf("CleanName(%q) = %q, again %q", s, n, CleanName(n))
		}
		x := CleanText(s)
		checkClean(t, s, x, MaxTextLen)
		if CleanText(x) != x {
			t.Fatalf("CleanText(%q) = %q, again %q", s, x, CleanText(x))
		}
	})
}

// A GameOver listing a player twice is an invalid value (4.4, 6.4).
func TestGameOverRepeatingPlayer(t *testing.T) {
	ev := Event{Type: EventGameOver, Tick: 9, NumScores: 3}
	ev.Scores[0] = Score{Player: 3, Score: 1}
	ev.Scores[1] = Score{Player: 1, Score: 2}
	ev.Scores[2] = Score{Player: 3, Score: 3}
	var got Event
	if err := ParseEvent(AppendEvent(nil, &ev), &got); err != ErrEventValue {
		t.Fatalf("GameOver with player 3 twice: %v, want ErrEventValue", err)
	}
	ev.Scores[2].Player = 0
	if err := ParseEvent(AppendEvent(nil, &ev), &got); err != nil {
		t.Fatalf("GameOver with distinct players: %v", err)
	}
}

// A LoginRejected whose text is not UTF-8 is still a rejection (3.1).
func TestRejectedTextNotUTF8(t *testing.T) {
	b := []byte{byte(MsgLoginRejected), RejectNameTaken, 3, 0, 'a', 0xff, 'b'}
	m, err := ParseMessage(b)
	if err != ErrRejectedText || m.Type != MsgLoginRejected || m.Reason != RejectNameTaken || m.Text != "" {
		t.Fatalf("got %+v, %v; want the rejection and ErrRejectedText", m, err)
	}
	// A string that runs past the message is malformed, not a rejection.
	b[2] = 9
	if _, err := ParseMessage(b); err != ErrMessageBody {
		t.Fatalf("bad length: %v, want ErrMessageBody", err)
	}
}
