package core

import (
	"net/netip"
	"testing"
	"time"

	"rtype/net/discovery"
	"rtype/net/wire"
)

func TestDescribeLAN(t *testing.T) {
	at := netip.MustParseAddrPort("192.0.2.20:4242")
	stage, both := discovery.ModeBit(wire.ModeStage), discovery.ModeBit(wire.ModeStage)|discovery.ModeBit(wire.ModeClassic)
	for _, c := range []struct {
		s    discovery.Server
		want LANRow
	}{
		{discovery.Server{Addr: at, Info: discovery.Info{Name: "Ripley", Modes: stage, Players: 1, Capacity: 4}, RTT: 3200 * time.Microsecond},
			LANRow{Name: "Ripley", Info: "Stage · 1/4 · 3 ms"}},
		{discovery.Server{Addr: at, Info: discovery.Info{Modes: both, Players: 5, Capacity: 32}, RTT: 100 * time.Microsecond},
			LANRow{Name: "192.0.2.20:4242", Info: "Stage/Classic · 5/32 · 1 ms"}},
		{discovery.Server{Addr: at, Info: discovery.Info{Name: "hangar-7", Players: 4, Capacity: 4}, RTT: 12 * time.Millisecond},
			LANRow{Name: "hangar-7", Info: "full · 4/4 · 12 ms", Full: true}},
		{discovery.Server{Addr: at, Info: discovery.Info{Name: "Ellen's Nostromo ★ long name", Modes: stage, Capacity: 4}},
			LANRow{Name: "Ellen's Nostromo ★ lo…", Info: "Stage · 0/4 · 0 ms"}},
	} {
		if got := DescribeLAN(c.s); got != c.want {
			t.Errorf("%+v: %+v, want %+v", c.s, got, c.want)
		}
	}
}
