package wire

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Name limits of 3.2, in characters after normalization.
const (
	MinNameLen = 3
	MaxNameLen = 20
)

// Errors of NormalizeName, readable by a player.
var (
	ErrNameLength = errors.New("a name has 3 to 20 characters")
	ErrNameChars  = errors.New("a name uses only letters, digits, spaces, '_' and '-'")
	ErrNameEmpty  = errors.New("a name needs at least one letter or digit")
)

// NormalizeName applies 3.2 to a requested name: Unicode NFKC, runs of
// white space collapsed to one space, trimmed; then it checks the length
// (3 to 20 characters), the characters (letters, combining marks, digits,
// space, '_', '-') and that at least one is a letter or a digit. It
// returns the normalized name or an error that a player can read.
func NormalizeName(raw string) (string, error) {
	if !utf8.ValidString(raw) {
		return "", ErrNameChars
	}
	if len(raw) > 4*MaxNameLen*4 { // far too long whatever it normalizes to
		return "", ErrNameLength
	}
	s := strings.Join(strings.Fields(norm.NFKC.String(raw)), " ")
	n := utf8.RuneCountInString(s)
	if n < MinNameLen || n > MaxNameLen {
		return "", ErrNameLength
	}
	alnum := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			alnum = true
		case unicode.Is(unicode.M, r), r == ' ', r == '_', r == '-':
		default:
			return "", ErrNameChars
		}
	}
	if !alnum {
		return "", ErrNameEmpty
	}
	return s, nil
}
