package server

import (
	"encoding/binary"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"rtype/net/wire"
)

// Name limits of 3.2, in characters after normalization.
const (
	MinNameLen = 3
	MaxNameLen = 20
)

var (
	errNameLength = errors.New("a name has 3 to 20 characters")
	errNameChars  = errors.New("a name uses only letters, digits, spaces, '_' and '-'")
	errNameEmpty  = errors.New("a name needs at least one letter or digit")
)

// NormalizeName applies 3.2 to a requested name: Unicode NFKC, runs of
// white space collapsed to one space, trimmed; then it checks the length
// (3 to 20 characters), the characters (letters, combining marks, digits,
// space, '_', '-') and that at least one is a letter or a digit. It
// returns the normalized name or an error that a player can read.
func NormalizeName(raw string) (string, error) {
	if !utf8.ValidString(raw) {
		return "", errNameChars
	}
	if len(raw) > 4*MaxNameLen*4 { // far too long whatever it normalizes to
		return "", errNameLength
	}
	s := strings.Join(strings.Fields(norm.NFKC.String(raw)), " ")
	n := utf8.RuneCountInString(s)
	if n < MinNameLen || n > MaxNameLen {
		return "", errNameLength
	}
	alnum := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			alnum = true
		case unicode.Is(unicode.M, r), r == ' ', r == '_', r == '-':
		default:
			return "", errNameChars
		}
	}
	if !alnum {
		return "", errNameEmpty
	}
	return s, nil
}

// badUTF8Name reports a LoginRequest frame (type and body) that is well
// formed but for its name, which is not valid UTF-8: InvalidName (3.2).
func badUTF8Name(frame []byte) bool {
	if len(frame) < 4 || frame[0] != byte(wire.MsgLoginRequest) {
		return false
	}
	n := int(binary.LittleEndian.Uint16(frame[2:]))
	return n == len(frame)-4 && !utf8.Valid(frame[4:])
}
