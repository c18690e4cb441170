package fleet

import (
	"strings"
	"testing"

	"rtype/net/wire"
)

var exCode = wire.RoomCode{'K', '7', 'M', 'X', '2', 'Q'}

func TestParse(t *testing.T) {
	rm := Room{Code: exCode, Addr: "192.0.2.10:4242", Mode: wire.ModeStage, State: wire.RoomPlaying, Players: 3, Max: 4,
		Flags: wire.RoomPublic | wire.RoomJoinLate, Created: 1800000000123}
	got, err := Parse(exCode, encode(&rm))
	if err != nil || got != rm {
		t.Fatalf("Parse(encode) = %+v, %v", got, err)
	}
	for _, bad := range []string{"", "192.0.2.10:4242 2 2 3 4 3", "x 2 2 3 4 3 1", "192.0.2.10:4242 2 4 3 4 3 1",
		"192.0.2.10:4242 2 2 5 4 3 1", "192.0.2.10:4242 2 2 3 9 3 1", "192.0.2.10:4242 2 2 3 4 3 -1",
		"192.0.2.10:4242 2 2 3 4 300 1", strings.Repeat("a", 600)} {
		if _, err := Parse(exCode, bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// FuzzParse reads any entry: what it accepts encodes back to an entry
// that parses to the same room.
func FuzzParse(f *testing.F) {
	f.Add("192.0.2.10:4242 2 2 3 4 3 1800000000123")
	f.Add("[::1]:1 1 1 0 1 0 0")
	f.Fuzz(func(t *testing.T, s string) {
		rm, err := Parse(exCode, s)
		if err != nil {
			return
		}
		if !wire.ValidRedirectAddr(rm.Addr) || rm.Players > rm.Max || rm.Max > wire.MaxPlayers {
			t.Fatalf("accepted %+v", rm)
		}
		again, err := Parse(exCode, encode(&rm))
		if err != nil || again != rm {
			t.Fatalf("%+v encodes to what parses as %+v, %v", rm, again, err)
		}
	})
}
