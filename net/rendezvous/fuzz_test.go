package rendezvous

import (
	"bytes"
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
		var a JoinAnswer
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

// FuzzParseAnswers feeds the decoders of what a host or a friend reads
// from the rendezvous and from its peer (Retry, Registered, Peer, Intro,
// Error, Probe, Reach, Relay, Punch) any datagram: none panics, and what
// one accepts encodes back to the same bytes (a message has one form).
func FuzzParseAnswers(f *testing.F) {
	for _, b := range []string{exRetry, exPeer, exIntro, exRelay} {
		f.Add(mustHex(f, b))
	}
	f.Add(AppendRegistered(nil, &Registered{Nonce: 8, HostToken: exToken, Observed: netip.MustParseAddrPort("203.0.113.10:1"), TTL: 30, Page: 443}))
	f.Add(AppendError(nil, &Error{Nonce: 9, Code: CodeUnknownRoom}))
	f.Add(AppendPunch(nil, exToken))
	f.Fuzz(func(t *testing.T, b []byte) {
		same := func(what string, back []byte) {
			if !bytes.Equal(back, b) {
				t.Fatalf("%s %x encodes back as %x", what, b, back)
			}
		}
		if m, err := ParseRetry(b); err == nil {
			same("Retry", AppendRetry(nil, &m))
		}
		if m, err := ParseRegistered(b); err == nil {
			same("Registered", AppendRegistered(nil, &m))
		}
		if m, err := ParsePeer(b); err == nil {
			same("Peer", AppendPeer(nil, &m))
		}
		if m, err := ParseIntro(b); err == nil {
			same("Intro", AppendIntro(nil, &m))
		}
		if m, err := ParseError(b); err == nil {
			same("Error", AppendError(nil, &m))
		}
		if m, err := ParseProbe(b); err == nil {
			same("Probe", AppendProbe(nil, &m))
		}
		if m, err := ParseReach(b); err == nil {
			same("Reach", AppendReach(nil, &m))
		}
		if tok, p, err := ParseRelay(b); err == nil {
			same("Relay", AppendRelay(nil, tok, p))
		}
		if tok, err := ParsePunch(b); err == nil {
			same("Punch", AppendPunch(nil, tok))
		}
	})
}
