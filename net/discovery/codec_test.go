package discovery

import (
	"bytes"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"rtype/net/wire"
)

var (
	exNonce = Nonce{1, 2, 3, 4, 5, 6, 7, 8}
	exInfo  = Info{Port: 4242, Modes: ModeBit(wire.ModeClassic) | ModeBit(wire.ModeStage), DefaultMode: wire.ModeStage,
		Versions: 0x03, Revision: 4, Players: 1, Capacity: 4, Games: 1, MaxGames: 1, Name: "Ripley"}
)

func TestQueryRoundTrip(t *testing.T) {
	b := AppendQuery(nil, exNonce)
	if len(b) != QuerySize {
		t.Fatalf("query of %d bytes, want %d", len(b), QuerySize)
	}
	n, err := ParseQuery(b)
	if err != nil || n != exNonce {
		t.Fatalf("ParseQuery: %v %v", n, err)
	}
	// The padding's content is ignored (8.2).
	b[QuerySize-1] = 0xFF
	if n, err := ParseQuery(b); err != nil || n != exNonce {
		t.Fatalf("padding not ignored: %v %v", n, err)
	}
}

func TestAnswerRoundTrip(t *testing.T) {
	for _, name := range []string{"", "Ripley", "Ellen's Nostromo ★", strings.Repeat("é", MaxName/2)} {
		in := exInfo
		in.Name = name
		b := AppendAnswer(nil, exNonce, &in)
		if len(b) != AnswerHeaderSize+len(name) || len(b) > QuerySize {
			t.Fatalf("%q: answer of %d bytes", name, len(b))
		}
		n, out, err := ParseAnswer(b)
		if err != nil || n != exNonce || out != in {
			t.Fatalf("%q: got %v %+v %v", name, n, out, err)
		}
	}
}

// An answer is never longer than the query it answers (8.4): names are
// cut to MaxName bytes, at a character boundary.
func TestAnswerNeverLongerThanTheQuery(t *testing.T) {
	in := exInfo
	for _, name := range []string{strings.Repeat("x", 300), strings.Repeat("€", 100), "a" + strings.Repeat("€", 100)} {
		in.Name = name
		b := AppendAnswer(nil, exNonce, &in)
		if len(b) > QuerySize {
			t.Fatalf("answer of %d bytes to a %d-byte query", len(b), QuerySize)
		}
		_, out, err := ParseAnswer(b)
		if err != nil || !strings.HasPrefix(name, out.Name) || len(out.Name) < MaxName-2 {
			t.Fatalf("%q: got %q, %v", name[:10], out.Name, err)
		}
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"Ripley":                    "Ripley",
		"Rip\x00ley\n":              "Ripley",
		"evil\u202egnp.exe":         "evilgnp.exe",
		"bad\xffutf8":               "badutf8",
		"\u200fright\u2066to\u2069": "rightto",
	} {
		if got := CleanName(in); got != want {
			t.Errorf("CleanName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseQueryRejects(t *testing.T) {
	good := AppendQuery(nil, exNonce)
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for _, c := range []struct {
		name string
		b    []byte
		err  error
	}{
		{"empty", nil, ErrSize},
		{"short header", good[:5], ErrSize},
		{"unpadded", good[:14], ErrSize},
		{"one byte short", good[:QuerySize-1], ErrSize},
		{"one byte long", append(bytes.Clone(good), 0), ErrSize},
		{"magic", mod(func(b []byte) []byte { b[3] = 'P'; return b }), ErrMagic},
		{"version", mod(func(b []byte) []byte { b[4] = 2; return b }), ErrVersion},
		{"an answer", mod(func(b []byte) []byte { b[5] = TypeAnswer; return b }), ErrType},
		{"type 0", mod(func(b []byte) []byte { b[5] = 0; return b }), ErrType},
	} {
		if _, err := ParseQuery(c.b); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
}

func TestParseAnswerRejects(t *testing.T) {
	good := AppendAnswer(nil, exNonce, &exInfo)
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	named := func(name string) []byte {
		b := AppendAnswer(nil, exNonce, &Info{Port: 1, DefaultMode: wire.ModeClassic, Versions: 1})
		b[28] = byte(len(name))
		return append(b, name...)
	}
	for _, c := range []struct {
		name string
		b    []byte
		err  error
	}{
		{"empty", nil, ErrSize},
		{"header only", good[:AnswerHeaderSize-1], ErrSize},
		{"name cut", good[:len(good)-1], ErrSize},
		{"byte after the name", append(bytes.Clone(good), 'x'), ErrSize},
		{"longer than a query", named(strings.Repeat("x", MaxName+1)), ErrSize},
		{"magic", mod(func(b []byte) []byte { b[0] = 0; return b }), ErrMagic},
		{"version", mod(func(b []byte) []byte { b[4] = 0; return b }), ErrVersion},
		{"a query", mod(func(b []byte) []byte { b[5] = TypeQuery; return b }), ErrType},
		{"port 0", mod(func(b []byte) []byte { b[14], b[15] = 0, 0; return b }), ErrField},
		{"default mode any", mod(func(b []byte) []byte { b[17] = wire.ModeAny; return b }), ErrField},
		{"default mode 3", mod(func(b []byte) []byte { b[17] = 3; return b }), ErrField},
		{"no version", mod(func(b []byte) []byte { b[18] = 0; return b }), ErrField},
		{"players above capacity", mod(func(b []byte) []byte { b[20] = 5; return b }), ErrField},
		{"games above max", mod(func(b []byte) []byte { b[24] = 2; return b }), ErrField},
		{"control in the name", named("Rip\nley"), ErrName},
		{"bidi in the name", named("Rip\u202eley"), ErrName},
		{"invalid UTF-8", named("Rip\xc3"), ErrName},
		{"encoded U+FFFD", named("Rip\uFFFD"), ErrName},
	} {
		if _, _, err := ParseAnswer(c.b); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	// Unknown mode and version bits are ignored, not refused (8.3).
	b := mod(func(b []byte) []byte { b[16] |= 0x80; b[18] |= 0x80; return b })
	if _, info, err := ParseAnswer(b); err != nil || !info.Offers(wire.ModeStage) || info.Offers(wire.ModeAny) {
		t.Fatalf("unknown bits: %+v %v", info, err)
	}
}

func TestCodecAllocs(t *testing.T) {
	buf := make([]byte, 0, MaxAnswerSize)
	q := AppendQuery(nil, exNonce)
	if n := testing.AllocsPerRun(100, func() {
		buf = AppendAnswer(buf[:0], exNonce, &exInfo)
		if _, err := ParseQuery(q); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("answering a query allocates %v times", n)
	}
}

// The responder answers a query without allocating (the rate limit's
// address known).
func TestResponderAllocs(t *testing.T) {
	r := &Responder{cfg: ResponderConfig{Info: func() Info { return exInfo }}, lim: newLimiter(1e9, 1e9, 16)}
	q, out := AppendQuery(nil, exNonce), make([]byte, 0, MaxAnswerSize)
	from, now := netip.MustParseAddrPort("127.0.0.1:5000"), time.Now()
	if n := testing.AllocsPerRun(100, func() {
		if out = r.handle(out[:0], q, from, now); len(out) == 0 {
			t.Fatal("no answer")
		}
	}); n != 0 {
		t.Fatalf("answering allocates %v times", n)
	}
}

func BenchmarkResponderHandle(b *testing.B) {
	r := &Responder{cfg: ResponderConfig{Info: func() Info { return exInfo }}, lim: newLimiter(1e9, 1e9, 16)}
	q, out := AppendQuery(nil, exNonce), make([]byte, 0, MaxAnswerSize)
	from, now := netip.MustParseAddrPort("127.0.0.1:5000"), time.Now()
	b.ReportAllocs()
	for b.Loop() {
		out = r.handle(out[:0], q, from, now)
	}
}

func BenchmarkAnswer(b *testing.B) {
	buf := make([]byte, 0, MaxAnswerSize)
	q := AppendQuery(nil, exNonce)
	b.ReportAllocs()
	for b.Loop() {
		n, _ := ParseQuery(q)
		buf = AppendAnswer(buf[:0], n, &exInfo)
	}
}
