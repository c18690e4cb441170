package wire

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Ellipsis marks a text that CleanText cut.
const Ellipsis = "…"

// CleanName makes a player name received from a server safe to draw, by
// the rules of 3.2: invalid UTF-8 bytes dropped, Unicode NFKC, every
// character that a name may not have (controls, bidi overrides, format
// and private-use characters, symbols...) removed, runs of white space
// collapsed to one space, trimmed, and cut to MaxNameLen characters (a
// renderer shows the cut with an ellipsis where the name does not fit).
// A name that 3.2 accepts comes back unchanged, and so does a cleaned
// name. The result is one line and may be empty.
func CleanName(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	s = clean(norm.NFKC.String(s), MaxNameLen, "", func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) || r == '_' || r == '-'
	})
	// What was removed may have let marks meet the letter before them:
	// compose them, so that a cleaned name is normalized too.
	return norm.NFKC.String(s)
}

// CleanText makes a text received from a server (the text of a
// LoginRejected) safe to draw: as CleanName, but without the NFKC
// normalization and keeping every printable character (letters, marks,
// numbers, punctuation, symbols), cut to
// MaxTextLen characters, the cut marked by Ellipsis. A cleaned text comes
// back unchanged. The result is one line and may be empty.
func CleanText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	return clean(s, MaxTextLen, Ellipsis, func(r rune) bool {
		return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
	})
}

// clean drops what keep refuses, collapses white space and cuts the text
// to max characters, adding mark where it cut. The work is bounded by the
// input's length, which the protocol bounds (1024 bytes).
func clean(s string, max int, mark string, keep func(rune) bool) string {
	var b strings.Builder
	n := 0
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = n > 0
			continue
		case !keep(r):
			continue
		}
		if n == max {
			b.WriteString(mark)
			return b.String()
		}
		if space {
			if n+1 == max {
				b.WriteString(mark)
				return b.String()
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// cutString returns s cut to at most n bytes, at a rune boundary.
func CutString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
