package wire2

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"rtype/internal/protodoc"
	"rtype/net/wire"
	"slices"
	"strings"
	"testing"
)

// The worked examples of 7.18 (rooms across a fleet): Ripley's room
// K7MX2Q is on the server 192.0.2.10:4242; Hicks asks another server of
// the fleet for it; Vasquez's quick join is sent to the fuller room.
var (
	exRedirectCode  = wire.Redirect{Why: wire.RedirectCode, Code: exRoomCode, Addr: "192.0.2.10:4242"}
	exRedirectQuick = wire.Redirect{Why: wire.RedirectQuick, Code: exRoomCode, Addr: "[2001:db8::a]:4242"}
	// The server's WebTransport binding is on 192.0.2.10:4443, with a
	// self-made certificate whose hash (for the example, SHA-256 of
	// nothing) a browser must be given.
	exRedirectWT = wire.Redirect{Why: wire.RedirectCode, Code: exRoomCode, Addr: "192.0.2.10:4242", WebTransport: "192.0.2.10:4443",
		CertHashes: [][32]byte{sha256.Sum256(nil)}}
)

// sameRedirect reports whether two Redirects are equal.
func sameRedirect(a, b wire.Redirect) bool {
	return a.Why == b.Why && a.Code == b.Code && a.Addr == b.Addr && a.WebTransport == b.WebTransport &&
		slices.Equal(a.CertHashes, b.CertHashes)
}

func docRedirect(want wire.Redirect) func(b []byte) error {
	return func(b []byte) error {
		fr := wire.FrameReader{R: bytes.NewReader(b)}
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		var d wire.Redirect
		if err := wire.ParseRedirect(f, &d); err != nil || !sameRedirect(d, want) {
			return fmt.Errorf("decoded %+v: %v", d, err)
		}
		return nil
	}
}

func docExamplesFleet() []docExample {
	ex := func(name, want string, d wire.Redirect) docExample {
		return docExample{Name: name, Want: want, Encode: func() []byte { return wire.AppendRedirect(nil, &d) }, Decode: docRedirect(d)}
	}
	return []docExample{
		ex("v2-room-redirect", "19 00 1C 01 4B 37 4D 58 32 51 0F 00 31 39 32 2E 30 2E 32 2E 31 30 3A 34 32 34 32", exRedirectCode),
		ex("v2-room-redirect-quick", "1C 00 1C 02 4B 37 4D 58 32 51 12 00 5B 32 30 30 31 3A 64 62 38 3A 3A 61 5D 3A 34 32 34 32",
			exRedirectQuick),
		ex("v2-room-redirect-webtransport", "4B 00 1C 01 4B 37 4D 58 32 51 0F 00 31 39 32 2E 30 2E 32 2E 31 30 3A 34 32 34 32 "+
			"0F 00 31 39 32 2E 30 2E 32 2E 31 30 3A 34 34 34 33 01 "+
			"E3 B0 C4 42 98 FC 1C 14 9A FB F4 C8 99 6F B9 24 27 AE 41 E4 64 9B 93 4C A4 95 99 1B 78 52 B8 55", exRedirectWT),
	}
}

// TestFleetExamples checks the codec against 7.18's examples, and those
// of PROTOCOL.md when it exists.
func TestFleetExamples(t *testing.T) {
	md, err := os.ReadFile("../../PROTOCOL.md")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	blocks, err := protodoc.Blocks(md)
	if err != nil {
		t.Fatalf("PROTOCOL.md: %v", err)
	}
	for _, ex := range docExamplesFleet() {
		want := protodoc.Unhex(t, ex.Want)
		if got := ex.Encode(); !bytes.Equal(got, want) {
			t.Errorf("%s: encoded\n got % X\nwant % X", ex.Name, got, want)
		}
		if err := ex.Decode(want); err != nil {
			t.Errorf("%s: %v", ex.Name, err)
		}
		if md == nil {
			continue
		}
		lines, ok := blocks[ex.Name]
		if !ok {
			t.Errorf("PROTOCOL.md has no example %q", ex.Name)
			continue
		}
		if doc := protodoc.Hex(lines); !bytes.Equal(doc, want) {
			t.Errorf("PROTOCOL.md example %q:\n   doc % X\ncodec % X", ex.Name, doc, want)
		}
	}
}

func TestRedirectMalformed(t *testing.T) {
	good := wire.AppendRedirect(nil, &exRedirectCode)[2:]
	var d wire.Redirect
	wt := wire.AppendRedirect(nil, &exRedirectWT)[2:]
	if err := wire.ParseRedirect(append(slices.Clone(wt), 1, 2, 3), &d); err != nil || !sameRedirect(d, exRedirectWT) {
		t.Fatalf("a tail after the WebTransport fields is ignored (7.1): %+v %v", d, err)
	}
	// A receiver that predates the WebTransport fields sees the same
	// message without them (it ignores them as a tail).
	if !bytes.HasPrefix(wt[:len(good)], good) || wt[len(good)-1] != good[len(good)-1] {
		t.Fatalf("the WebTransport fields are not a tail: % X, % X", wt, good)
	}
	none := wire.Redirect{Why: 1, Code: exRoomCode, Addr: "example.org:1", CertHashes: exRedirectWT.CertHashes}
	if b := wire.AppendRedirect(nil, &none); len(b) != 2+1+1+wire.RoomCodeLen+2+len(none.Addr) {
		t.Errorf("hashes without a WebTransport address are sent: % X", b)
	}
	five := exRedirectWT
	five.CertHashes = make([][32]byte, 5)
	if err := wire.ParseRedirect(wire.AppendRedirect(nil, &five)[2:], &d); err != nil || len(d.CertHashes) != wire.MaxRedirectHashes {
		t.Errorf("more than MaxRedirectHashes hashes are cut when sent: %d, %v", len(d.CertHashes), err)
	}
	mut := func(f func(b []byte) []byte) []byte { return f(slices.Clone(good)) }
	for name, b := range map[string][]byte{
		"short":                          good[:len(good)-1],
		"no addr":                        good[:1+1+wire.RoomCodeLen],
		"why 0":                          mut(func(b []byte) []byte { b[1] = 0; return b }),
		"why 3":                          mut(func(b []byte) []byte { b[1] = 3; return b }),
		"code O":                         mut(func(b []byte) []byte { b[2] = 'O'; return b }),
		"empty addr":                     wire.AppendRedirect(nil, &wire.Redirect{Why: 1, Code: exRoomCode})[2:],
		"no port":                        wire.AppendRedirect(nil, &wire.Redirect{Why: 1, Code: exRoomCode, Addr: "example.org"})[2:],
		"port 0":                         wire.AppendRedirect(nil, &wire.Redirect{Why: 1, Code: exRoomCode, Addr: "example.org:0"})[2:],
		"port 65536":                     wire.AppendRedirect(nil, &wire.Redirect{Why: 1, Code: exRoomCode, Addr: "example.org:65536"})[2:],
		"no host":                        wire.AppendRedirect(nil, &wire.Redirect{Why: 1, Code: exRoomCode, Addr: ":4242"})[2:],
		"space":                          wire.AppendRedirect(nil, &wire.Redirect{Why: 1, Code: exRoomCode, Addr: "a b:4242"})[2:],
		"control":                        wire.AppendRedirect(nil, &wire.Redirect{Why: 1, Code: exRoomCode, Addr: "a\nb:4242"})[2:],
		"too long addr":                  mut(func(b []byte) []byte { b[8], b[9] = 0, 1; return append(b, make([]byte, 256)...) }),
		"a tail that is no string":       append(slices.Clone(good), 1, 2, 3),
		"webtransport addr cut":          wt[:len(good)+5],
		"no hash count":                  wt[:len(good)+2+len(exRedirectWT.WebTransport)],
		"hash cut":                       wt[:len(wt)-1],
		"5 hashes":                       append(append(slices.Clone(wt[:len(wt)-33]), 5), make([]byte, 5*32)...),
		"empty webtransport addr":        append(slices.Clone(good), 0, 0, 0),
		"webtransport addr without port": wire.AppendRedirect(nil, &wire.Redirect{Why: 1, Code: exRoomCode, Addr: "a:1", WebTransport: "a"})[2:],
	} {
		if err := wire.ParseRedirect(b, &d); !errors.Is(err, wire.ErrMessageBody) {
			t.Errorf("%s: % X: %v, want ErrMessageBody", name, b, err)
		}
	}
	if err := wire.ParseRedirect([]byte{byte(wire.MsgRoomState)}, &d); !errors.Is(err, wire.ErrUnknownMessage) {
		t.Errorf("another type: %v", err)
	}
	long := wire.Redirect{Why: 1, Code: exRoomCode, Addr: strings.Repeat("a", 300) + ":1"}
	if b := wire.AppendRedirect(nil, &long); len(b) != 2+1+1+wire.RoomCodeLen+2+wire.MaxRedirectAddr {
		t.Errorf("an address is cut to MaxRedirectAddr: %d bytes", len(b))
	}
}

func TestValidRedirectAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:4242": true, "[::1]:1": true, "game-7.example.org:65535": true,
		"": false, "x:": false, "x:04242": false, "x:-1": false, "x:+5": false, "[::1]": false,
		strings.Repeat("a", 251) + ":4242": false, strings.Repeat("a", 250) + ":4242": true,
	} {
		if got := wire.ValidRedirectAddr(addr); got != want {
			t.Errorf("ValidRedirectAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

// fuzzRedirects are the seeds of FuzzParseRedirect.
func fuzzRedirects() [][]byte {
	var seeds [][]byte
	for _, d := range []wire.Redirect{exRedirectCode, exRedirectQuick, {Why: 1, Code: exRoomCode, Addr: "localhost:1"}, exRedirectWT,
		{Why: 2, Code: exRoomCode, Addr: "localhost:1", WebTransport: "[::1]:2"}} {
		b := wire.AppendRedirect(nil, &d)[2:]
		seeds = append(seeds, b, append(slices.Clone(b), 7))
	}
	return append(seeds, []byte{byte(wire.MsgRoomRedirect), 1, 'A', 'A', 'A', 'A', 'A', 'A', 0xFF, 0xFF})
}

// FuzzParseRedirect decodes any frame as a RoomRedirect: a decoded one
// encodes to a prefix of the frame and is valid.
func FuzzParseRedirect(f *testing.F) {
	for _, b := range fuzzRedirects() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || len(b) > wire.MaxFrame {
			return
		}
		b[0] = byte(wire.MsgRoomRedirect)
		var d wire.Redirect
		if err := wire.ParseRedirect(b, &d); err != nil {
			return
		}
		if !d.Code.Valid() || !wire.ValidRedirectAddr(d.Addr) || (d.WebTransport != "" && !wire.ValidRedirectAddr(d.WebTransport)) ||
			len(d.CertHashes) > wire.MaxRedirectHashes || (d.WebTransport == "" && len(d.CertHashes) > 0) {
			t.Fatalf("accepted %+v", d)
		}
		if enc := wire.AppendRedirect(nil, &d)[2:]; !bytes.HasPrefix(b, enc) {
			t.Fatalf("% X encodes to % X", b, enc)
		}
	})
}

// TestWriteFuzzCorpusFleet writes FuzzParseRedirect's seeds as its
// committed corpus, when RTYPE_WRITE_CORPUS is set.
func TestWriteFuzzCorpusFleet(t *testing.T) {
	if os.Getenv("RTYPE_WRITE_CORPUS") == "" {
		t.Skip("set RTYPE_WRITE_CORPUS=1 to rewrite the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzParseRedirect")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, b := range fuzzRedirects() {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
