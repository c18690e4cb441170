package portmap

import (
	"net/netip"
	"strings"
	"testing"
)

// TestParseRoutes reads the default gateway of a /proc/net/route.
func TestParseRoutes(t *testing.T) {
	const table = `Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT
lan	0001A8C0	00000000	0001	0	0	0	00FFFFFF	0	0	0
lan	00000000	0101A8C0	0003	0	0	0	00000000	0	0	0
`
	gw, err := parseRoutes(strings.NewReader(table))
	if err != nil || gw != netip.MustParseAddr("192.168.1.1") {
		t.Errorf("gateway %v, %v; want 192.168.1.1", gw, err)
	}
	if _, err := parseRoutes(strings.NewReader(strings.Join(strings.Split(table, "\n")[:2], "\n"))); err == nil {
		t.Error("a table without a default route gave a gateway")
	}
}
