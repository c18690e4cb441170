package ipkey

import (
	"net/netip"
	"testing"
)

// TestOf: IPv4 keys are the addresses (mapped ones unmapped); IPv6 keys
// are the /64, zones dropped; nothing else shares a key.
func TestOf(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"127.0.0.1", "127.0.0.1"},
		{"203.0.113.7", "203.0.113.7"},
		{"::ffff:203.0.113.7", "203.0.113.7"},
		{"::1", "::"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::"},
		{"fe80::1%eth0", "fe80::"},
	} {
		if got := Of(netip.MustParseAddr(tc.in)); got != netip.MustParseAddr(tc.want) {
			t.Errorf("Of(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if Of(netip.MustParseAddr("2001:db8:1:2::1")) == Of(netip.MustParseAddr("2001:db8:1:3::1")) {
		t.Error("two /64s share a key")
	}
	if Of(netip.MustParseAddr("203.0.113.1")) == Of(netip.MustParseAddr("203.0.113.2")) {
		t.Error("two IPv4 addresses share a key")
	}
	if Of(netip.Addr{}) != (netip.Addr{}) {
		t.Error("the zero Addr")
	}
}
