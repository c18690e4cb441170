package rendezvous

import (
	"bytes"
	"encoding/hex"
	"net/netip"
	"os"
	"reflect"
	"strings"
	"testing"

	"rtype/net/wire"
)

// unhex reads the hex of PROTOCOL.md's examples (spaces and line breaks
// ignored).
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func seq(from byte, n int) (b []byte) {
	for i := range n {
		b = append(b, from+byte(i))
	}
	return b
}

var (
	exCode  = wire.RoomCode{'A', 'B', 'C', '2', '3', '4'}
	exNonce = uint64(0x0102030405060708)
	exToken = Token(seq(0xa0, TokenLen))
	exHash  = [HashLen]byte(bytes.Repeat([]byte{0xcc}, HashLen))
)

// The worked example of PROTOCOL.md 10.6, byte for byte.
const (
	exLookup = `0e 01 02 00  01 02 03 04 05 06 07 08
		00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
		41 42 43 32 33 34`
	exRetry = `0e 01 03 00  01 02 03 04 05 06 07 08
		10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f`
	exLookup2 = `0e 01 02 00  01 02 03 04 05 06 07 08
		10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f
		41 42 43 32 33 34`
	exPeer = `0e 01 05 00  01 02 03 04 05 06 07 08
		a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af
		04 cb 00 71 0a 9c 40
		04 c0 a8 01 02 11 5b
		00
		cc cc cc cc cc cc cc cc cc cc cc cc cc cc cc cc
		cc cc cc cc cc cc cc cc cc cc cc cc cc cc cc cc
		04 cb 00 71 0b c3 50`
	exIntro = `0e 01 06 00
		a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af
		04 cb 00 71 0b c3 50`
	exRelay = `0e 01 08 00
		a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af
		68 69`
)

func TestWorkedExample(t *testing.T) {
	hostPub := netip.MustParseAddrPort("203.0.113.10:40000")
	hostLAN := netip.MustParseAddrPort("192.168.1.2:4443")
	friend := netip.MustParseAddrPort("203.0.113.11:50000")
	cookie := Cookie(seq(0x10, CookieLen))

	lk := Lookup{Nonce: exNonce, Code: exCode}
	check(t, "Lookup", AppendLookup(nil, &lk), exLookup)
	if m, err := ParseLookup(unhex(t, exLookup)); err != nil || m != lk {
		t.Errorf("ParseLookup: %+v %v", m, err)
	}
	rt := Retry{Nonce: exNonce, Cookie: cookie}
	check(t, "Retry", AppendRetry(nil, &rt), exRetry)
	if m, err := ParseRetry(unhex(t, exRetry)); err != nil || m != rt {
		t.Errorf("ParseRetry: %+v %v", m, err)
	}
	if len(unhex(t, exRetry)) != RetryLen || len(unhex(t, exLookup)) != LookupLen || RetryLen > LookupLen {
		t.Errorf("Retry %d bytes, Lookup %d: a Retry must not be longer", RetryLen, LookupLen)
	}
	lk.Cookie = cookie
	check(t, "Lookup with cookie", AppendLookup(nil, &lk), exLookup2)
	p := Peer{Nonce: exNonce, Token: exToken, Observed: hostPub, Local: hostLAN, CertHash: exHash, You: friend}
	check(t, "Peer", AppendPeer(nil, &p), exPeer)
	if m, err := ParsePeer(unhex(t, exPeer)); err != nil || m != p {
		t.Errorf("ParsePeer: %+v %v", m, err)
	}
	in := Intro{Token: exToken, Friend: friend}
	check(t, "Intro", AppendIntro(nil, &in), exIntro)
	if m, err := ParseIntro(unhex(t, exIntro)); err != nil || m != in {
		t.Errorf("ParseIntro: %+v %v", m, err)
	}
	check(t, "Relay", AppendRelay(nil, exToken, []byte("hi")), exRelay)
	if tok, pl, err := ParseRelay(unhex(t, exRelay)); err != nil || tok != exToken || string(pl) != "hi" {
		t.Errorf("ParseRelay: %x %q %v", tok, pl, err)
	}
}

// TestWorkedExampleInDoc checks that PROTOCOL.md 10.6 shows the bytes of
// TestWorkedExample: its indented blocks, in order, each line's leading
// two-digit hex tokens (what follows them is a label).
func TestWorkedExampleInDoc(t *testing.T) {
	md, err := os.ReadFile("../../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(md)
	i := strings.Index(sec, "### 10.6 ")
	if i < 0 {
		t.Fatal("PROTOCOL.md has no 10.6")
	}
	sec = sec[i:]
	if j := strings.Index(sec[1:], "\n### "); j >= 0 {
		sec = sec[:j+1]
	}
	var blocks [][]byte
	in := false
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "    ") {
			in = false
			continue
		}
		if !in {
			blocks = append(blocks, nil)
			in = true
		}
		for _, tok := range strings.Fields(line) {
			v, err := hex.DecodeString(tok)
			if err != nil || len(v) != 1 {
				break
			}
			blocks[len(blocks)-1] = append(blocks[len(blocks)-1], v...)
		}
	}
	want := []string{exLookup, exRetry, exLookup2, exPeer, exIntro, exRelay}
	if len(blocks) != len(want) {
		t.Fatalf("PROTOCOL.md 10.6 has %d blocks, want %d", len(blocks), len(want))
	}
	for k, w := range want {
		if !bytes.Equal(blocks[k], unhex(t, w)) {
			t.Errorf("PROTOCOL.md 10.6 block %d:\n  doc % x\nwant % x", k, blocks[k], unhex(t, w))
		}
	}
}

func check(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	if w := unhex(t, want); !bytes.Equal(got, w) {
		t.Errorf("%s:\n got % x\nwant % x", what, got, w)
	}
}

// TestRoundTrip parses what Append made, for every message with every
// field set.
func TestRoundTrip(t *testing.T) {
	reg := Register{Nonce: 7, Cookie: Cookie(seq(1, CookieLen)), HostToken: exToken, CertHash: exHash,
		Local:  netip.MustParseAddrPort("[2001:db8::1]:4443"),
		Mapped: netip.MustParseAddrPort("203.0.113.10:4443"),
		Codes:  []wire.RoomCode{exCode, {'Z', 'Z', 'Z', 'Z', 'Z', 'Z'}}}
	if m, err := ParseRegister(AppendRegister(nil, &reg)); err != nil || !reflect.DeepEqual(m, reg) {
		t.Errorf("Register: %+v %v", m, err)
	}
	rd := Registered{Nonce: 8, HostToken: exToken, Observed: netip.MustParseAddrPort("203.0.113.10:1"), TTL: 30, Page: 443}
	if m, err := ParseRegistered(AppendRegistered(nil, &rd)); err != nil || m != rd {
		t.Errorf("Registered: %+v %v", m, err)
	}
	e := Error{Nonce: 9, Code: CodeUnknownRoom}
	if m, err := ParseError(AppendError(nil, &e)); err != nil || m != e {
		t.Errorf("Error: %+v %v", m, err)
	}
	if tok, err := ParsePunch(AppendPunch(nil, exToken)); err != nil || tok != exToken {
		t.Errorf("Punch: %x %v", tok, err)
	}
}

// TestMalformed checks that every message cut short, or longer, or of
// another version, is refused.
func TestMalformed(t *testing.T) {
	reg := AppendRegister(nil, &Register{Codes: []wire.RoomCode{exCode}})
	msgs := map[string][]byte{
		"Register": reg,
		"Lookup":   unhex(t, exLookup),
		"Retry":    unhex(t, exRetry),
		"Peer":     unhex(t, exPeer),
		"Intro":    unhex(t, exIntro),
	}
	parse := map[string]func([]byte) error{
		"Register": func(b []byte) error { _, err := ParseRegister(b); return err },
		"Lookup":   func(b []byte) error { _, err := ParseLookup(b); return err },
		"Retry":    func(b []byte) error { _, err := ParseRetry(b); return err },
		"Peer":     func(b []byte) error { _, err := ParsePeer(b); return err },
		"Intro":    func(b []byte) error { _, err := ParseIntro(b); return err },
	}
	for name, b := range msgs {
		for n := range len(b) {
			if parse[name](b[:n]) == nil {
				t.Errorf("%s cut to %d bytes: parsed", name, n)
			}
		}
		if parse[name](append(bytes.Clone(b), 0)) == nil {
			t.Errorf("%s with a byte more: parsed", name)
		}
		v := bytes.Clone(b)
		v[1] = 2
		if parse[name](v) == nil || Type(v) != 0 {
			t.Errorf("%s of version 2: parsed", name)
		}
	}
	bad := bytes.Clone(unhex(t, exLookup))
	bad[len(bad)-1] = '1' // not in the alphabet
	if _, err := ParseLookup(bad); err == nil {
		t.Error("a Lookup of code ABC231 parsed")
	}
	tooMany := AppendRegister(nil, &Register{Codes: make([]wire.RoomCode, MaxCodes+1)})
	if _, err := ParseRegister(tooMany); err == nil {
		t.Error("a Register of 33 codes parsed")
	}
	if _, _, err := ParseRelay(AppendRelay(nil, exToken, make([]byte, MaxRelayPayload+1))); err == nil {
		t.Error("a Relay of 1453 bytes parsed")
	}
	// QUIC's fixed bit is clear in Magic: no QUIC packet is a message.
	if Magic&0x40 != 0 {
		t.Error("Magic has QUIC's fixed bit")
	}
}

// TestSprayProbe round-trips the spray's messages and refuses them cut.
func TestSprayProbe(t *testing.T) {
	sp := Spray{Nonce: 5, Cookie: Cookie(seq(1, CookieLen)), Token: exToken}
	b := AppendSpray(nil, &sp)
	if m, err := ParseSpray(b); err != nil || m != sp {
		t.Errorf("Spray: %+v %v", m, err)
	}
	if len(b) < RetryLen {
		t.Errorf("a Spray of %d bytes is shorter than a Retry (%d): a Retry would amplify it", len(b), RetryLen)
	}
	pr := Probe{Token: exToken, Friend: netip.MustParseAddr("203.0.113.11"), Count: SprayPorts}
	pb := AppendProbe(nil, &pr)
	if m, err := ParseProbe(pb); err != nil || m != pr {
		t.Errorf("Probe: %+v %v", m, err)
	}
	for n := range len(b) {
		if _, err := ParseSpray(b[:n]); err == nil {
			t.Errorf("Spray cut to %d bytes parsed", n)
		}
	}
	for n := range len(pb) {
		if _, err := ParseProbe(pb[:n]); err == nil {
			t.Errorf("Probe cut to %d bytes parsed", n)
		}
	}
}

// TestOpenReach round-trips the reach's messages and refuses them cut.
func TestOpenReach(t *testing.T) {
	op := Spray{Nonce: 6, Cookie: Cookie(seq(2, CookieLen)), Token: exToken}
	b := AppendOpen([]byte{9}, &op)[1:]
	if Type(b) != TOpen {
		t.Fatalf("type %d", Type(b))
	}
	if m, err := ParseOpen(b); err != nil || m != op {
		t.Errorf("Open: %+v %v", m, err)
	}
	if _, err := ParseOpen(AppendSpray(nil, &op)); err == nil {
		t.Error("a Spray parsed as an Open")
	}
	re := Reach{Token: exToken, Friend: netip.MustParseAddrPort("203.0.113.11:50000"), Count: SpraySockets}
	rb := AppendReach(nil, &re)
	if m, err := ParseReach(rb); err != nil || m != re {
		t.Errorf("Reach: %+v %v", m, err)
	}
	for n := range len(rb) {
		if _, err := ParseReach(rb[:n]); err == nil {
			t.Errorf("Reach cut to %d bytes parsed", n)
		}
	}
}
