package wire2

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"rtype/internal/testutil"
	"rtype/net/wire"
)

// The worked examples of 7.13 (chat): Ripley types "ｇｏ！" in
// full-width letters; the server sends "go!" to the game at tick 1200;
// the operator announces a restart at tick 1500; Ripley's sixth line in
// 5 s is refused for 1.75 s.
var (
	exChat        = wire.Message{Type: wire.MsgChat, Text: "ｇｏ！"}
	exChatMessage = wire.Message{Type: wire.MsgChatMessage, Tick: 1200, Player: 0, Name: "Ripley", Text: "go!"}
	exAnnounce    = wire.Message{Type: wire.MsgChatMessage, Tick: 1500, Player: wire.ServerPlayer, Text: "Restart in 5 min"}
	exChatRefused = wire.Message{Type: wire.MsgChatRefused, Reason: wire.ChatRateLimited, Wait: 1750}
)

func docExamplesChat() []docExample {
	ex := func(name, want string, m wire.Message) docExample {
		return docExample{Name: name, Want: want, Encode: func() []byte { return AppendMessage(nil, &m) }, Decode: docMessage(m)}
	}
	return []docExample{
		ex("v2-chat", "0C 00 05 09 00 EF BD 87 EF BD 8F EF BC 81", exChat),
		ex("v2-chat-message", "13 00 06 B0 04 00 00 00 06 00 52 69 70 6C 65 79 03 00 67 6F 21", exChatMessage),
		ex("v2-announcement", "1A 00 06 DC 05 00 00 FF 00 00 10 00 52 65 73 74 61 72 74 20 69 6E 20 35 20 6D 69 6E", exAnnounce),
		ex("v2-chat-refused", "04 00 07 03 D6 06", exChatRefused),
	}
}

func TestChatExampleNormalizes(t *testing.T) {
	got, why := wire.NormalizeChatString(nil, exChat.Text)
	if why != 0 || string(got) != exChatMessage.Text {
		t.Fatalf("NormalizeChat(%q) = %q, %d; want %q", exChat.Text, got, why, exChatMessage.Text)
	}
	if b := wire.AppendChatMessage(nil, 1200, 0, "Ripley", got); !bytes.Equal(b, AppendMessage(nil, &exChatMessage)) {
		t.Fatalf("AppendChatMessage % X", b)
	}
}

func TestChatRoundTrip(t *testing.T) {
	long := strings.Repeat("é", wire.MaxChatLen) // 240 bytes
	for _, m := range []wire.Message{
		{Type: wire.MsgChat, Text: "hello"},
		{Type: wire.MsgChat, Text: strings.Repeat("x", wire.MaxFrame-3)},
		{Type: wire.MsgChatMessage, Tick: 0xFFFFFFFF, Player: 3, Name: "Ripley", Text: long},
		{Type: wire.MsgChatMessage, Player: wire.ServerPlayer, Name: "", Text: "x"},
		{Type: wire.MsgChatMessage, Player: 1, Name: strings.Repeat("ω", wire.MaxNameLen), Text: strings.Repeat("𝄞", wire.MaxChatLen)},
		{Type: wire.MsgChatRefused, Reason: wire.ChatTooLong},
		{Type: wire.MsgChatRefused, Reason: 200, Wait: 65535},
	} {
		b := AppendMessage(nil, &m)
		if len(b) > 2+wire.MaxFrame {
			t.Fatalf("%v: frame of %d bytes", m.Type, len(b))
		}
		got, err := ParseMessage(b[2:])
		if err != nil || got != m {
			t.Fatalf("%+v: got %+v, %v", m, got, err)
		}
		if len(b) > wire.MaxFrame-1 {
			continue
		}
		// Room to grow (7.1): bytes after the fields are ignored.
		got, err = ParseMessage(append(b[2:], 1, 2, 3))
		if err != nil || got != m {
			t.Fatalf("%+v with a tail: got %+v, %v", m, got, err)
		}
	}
}

func TestChatEncoderCuts(t *testing.T) {
	m := wire.Message{Type: wire.MsgChatMessage, Player: 0, Name: strings.Repeat("n", 100), Text: strings.Repeat("€", 200)}
	got, err := ParseMessage(AppendMessage(nil, &m)[2:])
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Name) != wire.MaxChatNameBytes || len(got.Text) > wire.MaxChatBytes || !utf8.ValidString(got.Text) || !strings.HasPrefix(m.Text, got.Text) {
		t.Fatalf("name %d bytes, text %d bytes %q", len(got.Name), len(got.Text), got.Text)
	}
	b := wire.AppendChatMessage(nil, 0, 0, "Ripley", []byte(strings.Repeat("€", 200)))
	if got, err := ParseMessage(b[2:]); err != nil || len(got.Text) != 159*3 {
		t.Fatalf("AppendChatMessage cut to %d bytes, %v", len(got.Text), err)
	}
}

func TestChatMalformed(t *testing.T) {
	ok := AppendMessage(nil, &exChatMessage)[2:]
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"Chat without its length", []byte{0x05, 1}},
		{"Chat text past the end", []byte{0x05, 4, 0, 'a', 'b'}},
		{"Chat text not UTF-8", []byte{0x05, 2, 0, 0xC3, 0x28}},
		{"ChatMessage short", ok[:5]},
		{"ChatMessage player 4", func() []byte { b := slices.Clone(ok); b[5] = 4; return b }()},
		{"ChatMessage player 254", func() []byte { b := slices.Clone(ok); b[5] = 254; return b }()},
		{"ChatMessage without text", ok[:14]},
		{"ChatMessage text past the end", ok[:len(ok)-1]},
		{"ChatMessage name not UTF-8", func() []byte { b := slices.Clone(ok); b[8] = 0xFF; return b }()},
		{"ChatRefused short", []byte{0x07, 3, 0}},
	} {
		if _, err := ParseMessage(c.b); !errors.Is(err, wire.ErrMessageBody) {
			t.Errorf("%s (% X): %v, want ErrMessageBody", c.name, c.b, err)
		}
	}
	// A name of 81 bytes, a text of 481: over the bounds of 7.13.
	big := func(name, text int) []byte {
		b := []byte{0x06, 0, 0, 0, 0, 0}
		b = wire.AppendStr(b, strings.Repeat("a", name))
		return wire.AppendStr(b, strings.Repeat("a", text))
	}
	if _, err := ParseMessage(big(wire.MaxChatNameBytes, wire.MaxChatBytes)); err != nil {
		t.Fatalf("name and text at their bounds: %v", err)
	}
	for _, b := range [][]byte{big(wire.MaxChatNameBytes+1, 1), big(3, wire.MaxChatBytes+1)} {
		if _, err := ParseMessage(b); !errors.Is(err, wire.ErrMessageBody) {
			t.Errorf("over the bounds: %v, want ErrMessageBody", err)
		}
	}
	// v1 knows no chat: a protocol error there (3.1).
	if _, err := wire.ParseMessage(AppendMessage(nil, &exChat)[2:]); !errors.Is(err, wire.ErrMessageType) {
		t.Fatalf("v1 ParseMessage of a Chat: %v", err)
	}
	if _, err := ParseMessage([]byte{0x08, 1}); !errors.Is(err, wire.ErrUnknownMessage) {
		t.Fatalf("type 8: %v, want ErrUnknownMessage", err)
	}
}

func TestNormalizeChat(t *testing.T) {
	for _, c := range []struct {
		in, want string
		why      uint8
	}{
		{"hello", "hello", 0},
		{"  hello \t  world \n", "hello world", 0},
		{"ｇｏ！", "go!", 0},                         // NFKC: full width
		{"ﬁne", "fine", 0},                        // NFKC: ligature
		{"e\u0301", "é", 0},                       // NFKC: composed
		{"e\u200d\u0301", "é", 0},                 // a joiner removed: composed after
		{"a\u202Eevil\u202C", "aevil", 0},         // bidi override and pop
		{"a\u2066b\u2069\u200e\u200f", "ab", 0},   // isolates, marks
		{"x\x00y\x1b[2Jz\x7f", "xy[2Jz", 0},       // controls
		{"zero\u200bwidth\ufeff", "zerowidth", 0}, // format characters
		{"\ue000private", "private", 0},           // private use
		{"gg 😀 ¥5", "gg 😀 ¥5", 0},                 // symbols stay
		{"\u3000wide\u3000space\u3000", "wide space", 0},
		{"", "", wire.ChatEmpty},
		{"   \t\n", "", wire.ChatEmpty},
		{"\u202E\u200b\x01", "", wire.ChatEmpty},
		{strings.Repeat("a", wire.MaxChatLen), strings.Repeat("a", wire.MaxChatLen), 0},
		{strings.Repeat("a", wire.MaxChatLen+1), "", wire.ChatTooLong},
		{strings.Repeat("a ", wire.MaxChatLen/2), strings.TrimSpace(strings.Repeat("a ", wire.MaxChatLen/2)), 0},
		{strings.Repeat("\u200b", 300) + "ok", "ok", 0}, // removed characters do not count
		{strings.Repeat("ﷺ", 7), "", wire.ChatTooLong},  // 18 characters each after NFKC
		{strings.Repeat("𝄞", wire.MaxChatLen), strings.Repeat("𝄞", wire.MaxChatLen), 0},
	} {
		got, why := wire.NormalizeChatString([]byte("prefix"), c.in)
		if why != c.why || (why == 0 && string(got) != "prefix"+c.want) || (why != 0 && string(got) != "prefix") {
			t.Errorf("NormalizeChat(%q) = %q, %d; want %q, %d", c.in, got, why, c.want, c.why)
		}
		if b, whyB := wire.NormalizeChat(nil, []byte(c.in)); whyB != why || (why == 0 && string(b) != c.want) {
			t.Errorf("NormalizeChat([]byte %q) = %q, %d", c.in, b, whyB)
		}
	}
}

func TestCleanChat(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  ｇｏ！\u202e ", "go!"},
		{"\x00\u200b", ""},
		{strings.Repeat("a", wire.MaxChatLen), strings.Repeat("a", wire.MaxChatLen)},
		{strings.Repeat("a", wire.MaxChatLen+1), strings.Repeat("a", wire.MaxChatLen-1) + wire.Ellipsis},
		{strings.Repeat("a", wire.MaxChatLen-1) + " b", strings.Repeat("a", wire.MaxChatLen-1) + wire.Ellipsis},
		{strings.Repeat("ab ", 100), strings.Repeat("ab ", 39) + "ab" + wire.Ellipsis},
		{"\u200b" + strings.Repeat("a", 200), strings.Repeat("a", wire.MaxChatLen-1) + wire.Ellipsis}, // removed, then cut
		{"…", "..."},
	} {
		got := wire.CleanChat(c.in)
		if got != c.want {
			t.Errorf("CleanChat(%q) = %q, want %q", c.in, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > wire.MaxChatLen {
			t.Errorf("CleanChat(%q): %d characters", c.in, n)
		}
	}
}

func TestChatNoAllocs(t *testing.T) {
	dst := make([]byte, 0, wire.MaxChatBytes+8)
	text := []byte("ｇｏ  go,\u202e team! ")
	long := bytes.Repeat([]byte("ab"), 400)
	joined := []byte("e\u200d\u0301 x\u202e")
	frame := AppendMessage(nil, &wire.Message{Type: wire.MsgChat, Text: string(text)})[2:]
	out := make([]byte, 0, 2+wire.MaxFrame)
	var cn wire.ChatNormalizer
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"ChatText", func() { wire.ChatText(frame) }},
		{"ChatNormalizer.Normalize", func() { cn.Normalize(dst[:0], text) }},
		{"ChatNormalizer.Normalize recomposed", func() { cn.Normalize(dst[:0], joined) }},
		{"ChatNormalizer.Normalize too long", func() { cn.Normalize(dst[:0], long) }},
		{"AppendChatMessage", func() { wire.AppendChatMessage(out[:0], 1200, 0, "Ripley", text) }},
	} {
		if n := testutil.AllocsPerRun(100, c.f); n != 0 {
			t.Errorf("%s: %v allocations per call", c.name, n)
		}
	}
}

func BenchmarkNormalizeChat(b *testing.B) {
	dst := make([]byte, 0, wire.MaxChatBytes+8)
	text := []byte(strings.Repeat("Bydos ahead, go go go! ", 5)) // 115 characters
	var cn wire.ChatNormalizer
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		cn.Normalize(dst[:0], text)
	}
}

// fuzzChats are the seeds of the chat fuzz targets: the examples, with a
// tail, and nearly-valid frames.
func fuzzChats() [][]byte {
	var seeds [][]byte
	for _, m := range []wire.Message{exChat, exChatMessage, exAnnounce, exChatRefused} {
		b := AppendMessage(nil, &m)[2:]
		seeds = append(seeds, b, append(slices.Clone(b), 9))
	}
	return append(seeds, []byte{0x05, 2, 0, 0xC3, 0x28}, []byte{0x06, 0, 0, 0, 0, 4, 0, 0, 0, 0},
		[]byte("\x05\x0a\x00e\u200d\u0301\u202e!"), []byte("\x05\x09\x00ﷺﷺﷺ"))
}

// FuzzParseChat decodes any frame as v2 chat: a decoded message encodes
// to a prefix of the frame, and a Chat's text normalizes within the
// bounds of 7.13.
func FuzzParseChat(f *testing.F) {
	for _, b := range fuzzChats() {
		f.Add(b)
	}
	dst := make([]byte, 0, wire.MaxChatBytes+8)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || len(b) > wire.MaxFrame {
			return
		}
		b[0] = 0x05 + b[0]%3
		m, ok := reencodes(t, b)
		if !ok || m.Type != wire.MsgChat {
			return
		}
		text, why := wire.NormalizeChatString(dst[:0], m.Text)
		n := utf8.RuneCount(text)
		switch {
		case why == 0 && (n < 1 || n > wire.MaxChatLen || len(text) > wire.MaxChatBytes || !utf8.Valid(text)):
			t.Fatalf("NormalizeChat(%q) = %q", m.Text, text)
		case why == 0:
			again, why2 := wire.NormalizeChat(nil, text)
			if why2 != 0 || !bytes.Equal(again, text) {
				t.Fatalf("NormalizeChat(%q) = %q, again %q %d", m.Text, text, again, why2)
			}
		case why != wire.ChatEmpty && why != wire.ChatTooLong:
			t.Fatalf("NormalizeChat(%q): reason %d", m.Text, why)
		}
	})
}
