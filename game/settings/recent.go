package settings

import (
	"slices"
	"strings"
)

// MaxRecent is how many recent servers are remembered.
const MaxRecent = 8

// AddRecent returns list with addr first, any other copy of it (compared
// ignoring case) removed, and at most MaxRecent entries. list is not
// modified.
func AddRecent(list []string, addr string) []string {
	out := make([]string, 0, MaxRecent)
	out = append(out, addr)
	for _, a := range list {
		if len(out) >= MaxRecent {
			break
		}
		if !strings.EqualFold(a, addr) && !slices.ContainsFunc(out, func(b string) bool { return strings.EqualFold(a, b) }) {
			out = append(out, a)
		}
	}
	return out
}
