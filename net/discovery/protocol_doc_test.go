package discovery

import (
	"bytes"
	"encoding/hex"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"testing"

	"rtype/net/wire"
)

// docExample reads the bytes of the worked example name of PROTOCOL.md:
// the fenced block right after `<!-- example: name -->`, each line's
// leading two-digit hex tokens.
func docExample(t *testing.T, md, name string) []byte {
	t.Helper()
	m := regexp.MustCompile("(?s)<!-- example: " + regexp.QuoteMeta(name) + " -->\\s*```[a-z]*\n(.*?)```").FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("PROTOCOL.md has no example %q", name)
	}
	var b []byte
	for _, line := range strings.Split(m[1], "\n") {
		for _, tok := range strings.Fields(line) {
			v, err := hex.DecodeString(tok)
			if err != nil || len(v) != 1 {
				break
			}
			b = append(b, v...)
		}
	}
	return b
}

// TestProtocolDoc checks the worked examples of PROTOCOL.md section 8
// byte for byte, both ways.
func TestProtocolDoc(t *testing.T) {
	raw, err := os.ReadFile("../../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)

	q := docExample(t, md, "discovery-query")
	if got := AppendQuery(nil, exNonce); !bytes.Equal(got, q) {
		t.Errorf("query:\n  doc % X\ncodec % X", q, got)
	}
	if n, err := ParseQuery(q); err != nil || n != exNonce {
		t.Errorf("query: decoded %v %v", n, err)
	}

	for _, c := range []struct {
		name  string
		nonce Nonce
		info  Info
	}{
		{"discovery-answer-hosted", exNonce, Info{Port: 4242, Modes: ModeBit(wire.ModeStage), DefaultMode: wire.ModeStage,
			Versions: 3, Revision: 4, Players: 1, Capacity: 4, Games: 1, MaxGames: 1, Name: "Ripley"}},
		{"discovery-answer-dedicated", Nonce{0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6, 0x07, 0x18}, Info{Port: 4242,
			Modes: ModeBit(wire.ModeClassic) | ModeBit(wire.ModeStage), DefaultMode: wire.ModeStage,
			Versions: 3, Revision: 4, Players: 5, Capacity: 32, Games: 2, MaxGames: 8, Name: "hangar-7"}},
	} {
		doc := docExample(t, md, c.name)
		if got := AppendAnswer(nil, c.nonce, &c.info); !bytes.Equal(got, doc) {
			t.Errorf("%s:\n  doc % X\ncodec % X", c.name, doc, got)
		}
		if n, info, err := ParseAnswer(doc); err != nil || n != c.nonce || info != c.info {
			t.Errorf("%s: decoded %v %+v %v", c.name, n, info, err)
		}
	}
}

// TestProtocolDocSources checks that 8.1 names the sources answered, and
// that Answers answers each of them, from the first address to the last.
func TestProtocolDocSources(t *testing.T) {
	raw, err := os.ReadFile("../../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)
	for _, p := range []string{"127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7",
		"169.254.0.0/16", "fe80::/10"} {
		if !strings.Contains(md, p) {
			t.Errorf("PROTOCOL.md does not name %s", p)
		}
		pfx := netip.MustParsePrefix(p)
		last := pfx.Addr().As16()
		bits := pfx.Bits()
		if pfx.Addr().Is4() {
			bits += 96
		}
		for i := bits; i < 128; i++ {
			last[i/8] |= 0x80 >> (i % 8)
		}
		for _, a := range []netip.Addr{pfx.Addr(), netip.AddrFrom16(last).Unmap()} {
			if !Answers(a) {
				t.Errorf("%s: %s not answered", p, a)
			}
		}
	}
}
