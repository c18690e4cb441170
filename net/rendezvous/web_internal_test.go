package rendezvous

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"rtype/internal/testutil"
	"rtype/net/webaddr"
	"rtype/net/wire"
)

// TestWebLookup: the lookup's statuses over HTTP: a host a browser can
// reach directly is given with its hash and no relay when the Web
// serves none; one behind a NAT without a mapping, with no relay, is 503;
// the code of a host that stopped refreshing is 410; an unknown one 404;
// a malformed one 400; not a GET, 405.
func TestWebLookup(t *testing.T) {
	v := newVRV(Config{})
	w, err := NewWeb(v.s, WebConfig{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(w)
	defer hs.Close()
	get := func(q string) (int, JoinAnswer) {
		t.Helper()
		rsp, err := http.Get(hs.URL + JoinPath + q)
		if err != nil {
			t.Fatal(err)
		}
		defer rsp.Body.Close()
		var a JoinAnswer
		if err := json.NewDecoder(rsp.Body).Decode(&a); err != nil {
			t.Fatal(err)
		}
		return rsp.StatusCode, a
	}
	direct := netip.MustParseAddrPort("198.51.100.7:4244")
	v.register(t, direct, exCode)
	st, a := get("?code=" + strings.ToLower(exCode.String()))
	if st != 200 || a.Path != "direct" || a.Addr != direct.String() || a.Relay != "" {
		t.Errorf("a direct host: %d %+v", st, a)
	}
	natted := netip.MustParseAddrPort("198.51.100.8:40000")
	behind := netip.MustParseAddrPort("192.168.1.2:4244")
	c2 := wire.RoomCode{'N', 'A', 'T', '2', '3', '4'}
	out := v.handle(AppendRegister(nil, &Register{Nonce: 3, Cookie: v.cookie(t, natted), Local: behind, Codes: []wire.RoomCode{c2}}), natted)
	if len(out) != 1 || Type(out[0].b) != TRegistered {
		t.Fatal("register")
	}
	if st, a := get("?code=NAT234"); st != 503 || a.Error == "" {
		t.Errorf("a host behind a NAT, no relay: %d %+v, want 503", st, a)
	}
	if st, a := get("?code=ZZZZZZ"); st != 404 || a.Error != msgUnknown {
		t.Errorf("unknown: %d %+v", st, a)
	}
	if st, a := get("?code=AB"); st != 400 || a.Error != msgBadCode {
		t.Errorf("malformed: %d %+v", st, a)
	}
	v.now = v.now.Add(31 * time.Second)
	if st, a := get("?code=" + exCode.String()); st != 410 || a.Error != msgGone {
		t.Errorf("gone: %d %+v", st, a)
	}
	if rsp, err := http.Post(hs.URL+JoinPath+"?code="+exCode.String(), "text/plain", nil); err != nil || rsp.StatusCode != 405 {
		t.Errorf("POST: %v %v", rsp, err)
	}
}

// TestWebCerts: the relay serves an ECDSA certificate valid for at most
// 14 days, whose hash is the first of the two given; at 2/5 of its life
// the next one serves, its hash first, and a new next comes.
func TestWebCerts(t *testing.T) {
	w, err := NewWeb(NewServer(Config{}), WebConfig{})
	if err != nil {
		t.Fatal(err)
	}
	hs := w.CertHashes()
	c, _ := w.getCert(nil)
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || sha256.Sum256(c.Certificate[0]) != hs[0] || hs[0] == hs[1] {
		t.Errorf("hashes %x, served %x", hs, sha256.Sum256(c.Certificate[0]))
	}
	if life := leaf.NotAfter.Sub(leaf.NotBefore); life > 14*24*time.Hour || leaf.PublicKeyAlgorithm != x509.ECDSA {
		t.Errorf("certificate valid %v, %v", life, leaf.PublicKeyAlgorithm)
	}
	w.rotate(time.Now().Add(4*24*time.Hour - time.Hour))
	if w.CertHashes()[0] != hs[0] {
		t.Error("rotated before 2/5 of the life")
	}
	w.rotate(time.Now().Add(4*24*time.Hour + time.Minute))
	w.certMu.Lock()
	cur, next := w.curHash, w.nxtHash
	w.certMu.Unlock()
	if cur != hs[1] || next == hs[1] || next == hs[0] {
		t.Errorf("after half the life: %x %x, want the next (%x) served and a new next", cur, next, hs[1])
	}
}

// TestLookupRateIPv6: the lookups of the addresses of one IPv6 /64
// share one rate (ipkey, PROTOCOL.md 3.3).
func TestLookupRateIPv6(t *testing.T) {
	v := newVRV(Config{LookupBurst: 1, LookupRate: 0.001})
	v.register(t, netip.MustParseAddrPort("198.51.100.7:4244"), exCode)
	if _, err := v.s.Find(exCode, netip.MustParseAddr("2001:db8:1:2::a")); err != nil {
		t.Fatal(err)
	}
	if _, err := v.s.Find(exCode, netip.MustParseAddr("2001:db8:1:2::b")); err != ErrRateLimited {
		t.Errorf("another address of the /64: %v, want ErrRateLimited", err)
	}
}

// TestJoinExampleInDoc checks that PROTOCOL.md 10.8 shows the lookup's
// answer as the handler writes it (its indented JSON block).
func TestJoinExampleInDoc(t *testing.T) {
	md, err := os.ReadFile("../../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(md)
	i := strings.Index(sec, "### 10.8 ")
	if i < 0 {
		t.Fatal("PROTOCOL.md has no 10.8")
	}
	sec = sec[i:]
	if j := strings.Index(sec[1:], "\n#"); j >= 0 {
		sec = sec[:j+1]
	}
	var block []string
	for _, line := range strings.Split(sec, "\n") {
		if strings.HasPrefix(line, "    {") || (len(block) > 0 && strings.HasPrefix(line, "    ")) {
			block = append(block, strings.TrimSpace(line))
		} else if len(block) > 0 {
			break
		}
	}
	rec := httptest.NewRecorder()
	writeJSON(rec, 200, JoinAnswer{Room: "ABC234", Path: "mapped", Addr: "203.0.113.10:30000",
		CertHashes: webaddr.HexHashes([32]byte{0xcc, 0xcc}), Relay: "rv.example.org:4250", RelayCertHashes: webaddr.HexHashes([32]byte{0xdd}, [32]byte{0xee})})
	if got, want := strings.Join(block, ""), strings.TrimSpace(rec.Body.String()); got != want {
		t.Errorf("PROTOCOL.md 10.8's answer:\n%s\nthe handler's:\n%s", got, want)
	}
}

// TestWebConnCaps: the relay takes MaxConnsPerIP QUIC connections of
// one address (its /64) and refuses the next at its first packet; a
// connection closed frees its place; new addresses beyond four times
// MaxSessions are refused.
func TestWebConnCaps(t *testing.T) {
	w, err := NewWeb(NewServer(Config{}), WebConfig{MaxConnsPerIP: 2, MaxSessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	conn := func(a string) (context.CancelFunc, error) {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := w.connContext(ctx, &quic.ClientInfo{RemoteAddr: net.UDPAddrFromAddrPort(netip.MustParseAddrPort(a))})
		return cancel, err
	}
	c1, err1 := conn("[2001:db8::1]:1000")
	_, err2 := conn("[2001:db8::2]:1000") // the same /64
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if _, err := conn("[2001:db8::3]:1000"); err != errConnCap {
		t.Errorf("a third connection of the /64: %v, want refused", err)
	}
	c1()
	testutil.WaitFor(t, 10*time.Second, "the place freed", func() bool {
		c, err := conn("[2001:db8::3]:1000")
		if err == nil {
			c()
		}
		return err == nil
	})
	for i := range 3 { // 3 more addresses: 4 in all
		if _, err := conn(netip.AddrPortFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), 1).String()); err != nil {
			t.Fatalf("address %d: %v", i, err)
		}
	}
	if _, err := conn("198.51.100.1:1"); err != errConnCap {
		t.Errorf("a fifth address: %v, want refused", err)
	}
	if c, err := conn("192.0.2.0:2"); err != nil {
		t.Errorf("an address held: %v", err)
	} else {
		c()
	}
}
