package rendezvous

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// FuzzJoin feeds the browsers' lookup any query: it answers one of its
// statuses, in JSON, and never panics.
func FuzzJoin(f *testing.F) {
	for _, q := range []string{"code=ABC234", "code=abc234", "code=", "code=ZZZZZZ", "code=%00%ff", "code=ABC234&code=X", "x=1"} {
		f.Add(q)
	}
	v := newVRV(Config{LookupBurst: 1 << 20, LookupRate: 1 << 20})
	v.register(f, netip.MustParseAddrPort("198.51.100.7:4244"), exCode)
	w, err := NewWeb(v.s, WebConfig{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		req := httptest.NewRequest("GET", "/join", nil)
		req.URL.RawQuery = q
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusGone, http.StatusServiceUnavailable:
		default:
			t.Fatalf("%q: status %d", q, rec.Code)
		}
		var a joinAnswer
		if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if (rec.Code == http.StatusOK) != (a.Error == "") {
			t.Fatalf("%q: %d with error %q", q, rec.Code, a.Error)
		}
	})
}

// FuzzHandle feeds the rendezvous any datagram, from a host's address
// and from another: it never panics, and never answers an address that
// has not proven it with more bytes than it sent.
func FuzzHandle(f *testing.F) {
	for _, b := range []string{exLookup, exRetry, exLookup2, exPeer, exIntro, exRelay} {
		f.Add(mustHex(f, b))
	}
	v := newVRV(Config{})
	host := netip.MustParseAddrPort("198.51.100.7:4244")
	v.register(f, host, exCode)
	stranger := netip.MustParseAddrPort("203.0.113.9:5000")
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, from := range []netip.AddrPort{host, stranger} {
			for _, s := range v.handle(b, from) {
				if from == stranger && s.to == stranger && len(s.b) > len(b) {
					t.Fatalf("%x: %d bytes answered to %d", b, len(s.b), len(b))
				}
			}
		}
	})
}

func mustHex(f *testing.F, s string) []byte {
	f.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		f.Fatal(err)
	}
	return b
}
