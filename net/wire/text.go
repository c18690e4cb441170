package wire

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Ellipsis marks a text that CleanName or CleanText cut.
const Ellipsis = "…"

// CleanName makes a player name received from a server safe to draw, by
// the rules of 3.2: invalid UTF-8 bytes dropped, Unicode NFKC, every
// character that a name may not have (controls, bidi overrides, format
// and private-use characters, symbols...) removed, runs of white space
// collapsed to one space, trimmed, and cut to MaxNameLen characters,
// the cut marked by Ellipsis. A name that 3.2 accepts comes back
// unchanged. The result is one line and may be empty.
func CleanName(s string) string {
	return clean(s, MaxNameLen, func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) || r == '_' || r == '-'
	})
}

// CleanText makes a text received from a server (the text of a
// LoginRejected) safe to draw: as CleanName, but keeping every printable
// character (letters, marks, numbers, punctuation, symbols), cut to
// MaxTextLen characters. The result is one line and may be empty.
func CleanText(s string) string {
	return clean(s, MaxTextLen, func(r rune) bool {
		return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
	})
}

// clean drops what keep refuses, collapses white space and cuts the text
// to max characters. The work is bounded by the input's length, which
// the protocol bounds (1024 bytes).
func clean(s string, max int, keep func(rune) bool) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	s = norm.NFKC.String(s)
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
			b.WriteString(Ellipsis)
			return b.String()
		}
		if space {
			if n+1 == max {
				b.WriteString(Ellipsis)
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
