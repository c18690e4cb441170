package core

import (
	"os"
	"strings"
	"unicode"

	"rtype/net/wire"
)

// NormalizeName checks a player's name as the server will (3.2) and
// returns it normalized, or an error a player can read.
func NormalizeName(s string) (string, error) { return wire.NormalizeName(s) }

// SuggestedName is a name to offer on the first run: the login name of the
// user when it makes a valid name, else "Pilot".
func SuggestedName() string {
	for _, env := range []string{"USER", "USERNAME", "LOGNAME"} {
		u := os.Getenv(env)
		if u == "" || u == "root" {
			continue
		}
		r := []rune(u)
		r[0] = unicode.ToUpper(r[0])
		if n, err := NormalizeName(string(r)); err == nil && !strings.EqualFold(n, "root") {
			return n
		}
	}
	return "Pilot"
}
