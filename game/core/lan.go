package core

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"rtype/net/discovery"
	"rtype/net/wire"
)

// LANRow is how the join screen lists a server found on the LAN
// (PROTOCOL.md section 8): its name (its address when it has none), and
// what it offers: modes, players and ping, e.g. "Stage · 1/4 · 3 ms".
// Full is set when no login would find a game there now.
type LANRow struct {
	Name, Info string
	Full       bool
}

// MaxLANName is how many characters of a server's name a row shows.
const MaxLANName = 22

// DescribeLAN returns the row of s.
func DescribeLAN(s discovery.Server) LANRow {
	r := LANRow{Name: s.Name}
	if r.Name == "" {
		r.Name = s.Addr.String()
	}
	if utf8.RuneCountInString(r.Name) > MaxLANName {
		r.Name = string([]rune(r.Name)[:MaxLANName-1]) + "…"
	}
	var modes []string
	if s.Offers(wire.ModeStage) {
		modes = append(modes, "Stage")
	}
	if s.Offers(wire.ModeClassic) {
		modes = append(modes, "Classic")
	}
	what := strings.Join(modes, "/")
	if len(modes) == 0 {
		what, r.Full = "full", true
	}
	ms := max(1, (s.RTT+time.Millisecond/2)/time.Millisecond)
	if s.RTT <= 0 {
		ms = 0
	}
	r.Info = fmt.Sprintf("%s · %d/%d · %d ms", what, s.Players, s.Capacity, ms)
	return r
}
