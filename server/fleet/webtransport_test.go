package fleet

import (
	"crypto/sha256"
	"slices"
	"strings"
	"testing"

	"rtype/net/wire"
)

// TestWebTransportEntry: a server's WebTransport entry round-trips, and
// what another server wrote is checked as any input.
func TestWebTransportEntry(t *testing.T) {
	wt := WebTransport{Addr: "[::1]:4443", CertHashes: [][32]byte{sha256.Sum256(nil), sha256.Sum256([]byte("x"))}}
	got, err := ParseWebTransport(encodeWT(&wt))
	if err != nil || got.Addr != wt.Addr || !slices.Equal(got.CertHashes, wt.CertHashes) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	h := strings.Repeat("ab", 32)
	for _, bad := range []string{"", "nohost", "a:0", "a:1 " + h[:62], "a:1 " + h + "0", "a:1 " + strings.Repeat("zz", 32),
		"a:1" + strings.Repeat(" "+h, wire.MaxRedirectHashes+1), strings.Repeat("a", 1100)} {
		if _, err := ParseWebTransport(bad); err == nil {
			t.Errorf("ParseWebTransport(%.90q) accepted", bad)
		}
	}
	var r Registry
	r.SetWebTransport(WebTransport{Addr: "a:1", CertHashes: make([][32]byte, 6)})
	if len(r.wt.CertHashes) != wire.MaxRedirectHashes {
		t.Errorf("SetWebTransport kept %d hashes", len(r.wt.CertHashes))
	}
	r.SetWebTransport(WebTransport{Addr: "bad"})
	if r.wt.Addr != "" {
		t.Errorf("SetWebTransport kept the address %q", r.wt.Addr)
	}
}
