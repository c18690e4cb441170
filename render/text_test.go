package render

import (
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"Ripley":                "Ripley",
		"two\nlines\r\tand tab": "two lines  and tab",
		"\u202Eevil\u202C":      "evil",
		"bell\x07!":             "bell !",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// A name drawn in the HUD is one line, cut with an ellipsis.
func TestFitOneLine(t *testing.T) {
	f, _ := LoadFonts()
	got := Fit("Evil\nName "+strings.Repeat("W", 200), f.Small, 150)
	if w, _ := Measure(got, f.Small); w > 150 || strings.ContainsAny(got, "\n\r") || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "Evil Name") {
		t.Errorf("Fit = %q (%v wide)", got, w)
	}
	if got := Fit("WWW", f.Small, 1); got != "…" {
		t.Errorf("Fit in 1 px = %q", got)
	}
}

// A long unbroken text wraps at any character, within the width, and
// loses none of its characters.
func TestWrapTextUnbroken(t *testing.T) {
	f, _ := LoadFonts()
	long := strings.Repeat("A", 500)
	lines := WrapText("Refused: "+long+" end", f.Body, 300)
	if len(lines) < 5 {
		t.Fatalf("got %d lines", len(lines))
	}
	for _, l := range lines {
		if w, _ := Measure(l, f.Body); w > 300 {
			t.Errorf("line %q is %v wide", l, w)
		}
	}
	if got := strings.ReplaceAll(strings.Join(lines, ""), " ", ""); got != "Refused:"+long+"end" {
		t.Errorf("the lines lose characters: %q", got)
	}
	if lines[0] != "Refused:" {
		t.Errorf("first line %q, want the words before the long one", lines[0])
	}
	// Ordinary texts wrap at spaces, as Wrap does.
	msg := "cannot reach server 10.0.0.1:4242: connection refused: no server is listening on that port"
	if got, want := WrapText(msg, f.Body, 300), Wrap(msg, f.Body, 300); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("WrapText = %q, Wrap = %q", got, want)
	}
	// A width narrower than a character still ends.
	if got := WrapText("abc", f.Body, 0); len(got) != 3 {
		t.Errorf("WrapText in 0 px = %q", got)
	}
}
