package wire

import (
	"encoding/binary"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Chat message types of v2 (PROTOCOL.md 7.13), Features.Chat. A v1
// session never carries them.
const (
	// MsgChat is a player's line, client → server: text.
	MsgChat MsgType = 0x05
	// MsgChatMessage is a line to show, server → client: tick, player,
	// name, text.
	MsgChatMessage MsgType = 0x06
	// MsgChatRefused tells a client its Chat was not sent, server →
	// client: reason, wait.
	MsgChatRefused MsgType = 0x07
)

// Chat limits (7.13).
const (
	// MaxChatLen is the most characters of a chat text after
	// normalization; the fewest is 1.
	MaxChatLen = 120
	// MaxChatBytes is the most bytes of the text of a ChatMessage: 4 per
	// character.
	MaxChatBytes = 4 * MaxChatLen
	// MaxChatNameBytes is the most bytes of the name of a ChatMessage.
	MaxChatNameBytes = 4 * MaxNameLen
	// ServerPlayer is the player of a ChatMessage from the server itself
	// (an announcement).
	ServerPlayer = NoPlayer
)

// ChatRefused reasons (7.13). A client shows an unknown reason as a
// generic refusal.
const (
	ChatEmpty       uint8 = 1 // nothing left after normalization
	ChatTooLong     uint8 = 2 // more than MaxChatLen characters
	ChatRateLimited uint8 = 3 // more than 5 lines in 5 s; Wait says for how long
)

// ChatReason returns a refusal's reason for people.
func ChatReason(reason uint8) string {
	switch reason {
	case ChatEmpty:
		return "nothing to send"
	case ChatTooLong:
		return "too long: at most 120 characters"
	case ChatRateLimited:
		return "too fast: at most 5 lines in 5 seconds"
	}
	return "refused by the server"
}

// appendStr appends a u16-prefixed string (3.1) that the caller bounded.
func AppendStr[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

// appendChat appends a Chat, ChatMessage or ChatRefused (without the
// length). Texts longer than the message allows are cut at a rune
// boundary.
func AppendChat(dst []byte, m *Message) []byte {
	switch m.Type {
	case MsgChat:
		return AppendStr(dst, CutString(m.Text, MaxFrame-3))
	case MsgChatMessage:
		return appendChatBody(dst, m.Tick, m.Player, m.Name, m.Text)
	case MsgChatRefused:
		return binary.LittleEndian.AppendUint16(append(dst, m.Reason), m.Wait)
	}
	return dst
}

func appendChatBody[S ~string | ~[]byte](dst []byte, tick uint32, player uint8, name string, text S) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, tick)
	dst = append(dst, player)
	dst = AppendStr(dst, CutString(name, MaxChatNameBytes))
	if len(text) > MaxChatBytes {
		text = text[:MaxChatBytes]
		for len(text) > 0 && !utf8.RuneStart(text[len(text)-1]) {
			text = text[:len(text)-1]
		}
		if len(text) > 0 {
			text = text[:len(text)-1] // the start of the cut rune
		}
	}
	return AppendStr(dst, text)
}

// AppendChatMessage appends a whole ChatMessage frame (7.13) from a text
// in bytes, as the server sends it without building a Message: the same
// bytes as wire2.AppendMessage of the Message.
func AppendChatMessage(dst []byte, tick uint32, player uint8, name string, text []byte) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, byte(MsgChatMessage))
	dst = appendChatBody(dst, tick, player, name, text)
	binary.LittleEndian.PutUint16(dst[at:], uint16(len(dst)-at-2))
	return dst
}

// ChatText returns the text of a Chat frame (its type and body, as
// FrameReader returns it), without copying: the server reads chat without
// allocating. A text that runs past the frame or is not valid UTF-8 is
// ErrMessageBody; bytes after it are ignored (7.1).
func ChatText(b []byte) ([]byte, error) {
	if len(b) < 3 || MsgType(b[0]) != MsgChat {
		return nil, ErrMessageBody
	}
	n := int(binary.LittleEndian.Uint16(b[1:]))
	if 3+n > len(b) || !utf8.Valid(b[3:3+n]) {
		return nil, ErrMessageBody
	}
	return b[3 : 3+n], nil
}

// strAt reads the u16-prefixed string at b[0:] of at most max bytes: its
// bytes and the rest of b.
func strAt(b []byte, max int) (s, rest []byte, ok bool) {
	if len(b) < 2 {
		return nil, nil, false
	}
	n := int(binary.LittleEndian.Uint16(b))
	if n > max || 2+n > len(b) || !utf8.Valid(b[2:2+n]) {
		return nil, nil, false
	}
	return b[2 : 2+n], b[2+n:], true
}

// parseChat decodes the chat messages of 7.13 (b is the type and body);
// bytes after the fields are ignored (7.1).
func ParseChat(b []byte) (Message, error) {
	m := Message{Type: MsgType(b[0])}
	body := b[1:]
	switch m.Type {
	case MsgChat:
		t, err := ChatText(b)
		if err != nil {
			return m, err
		}
		m.Text = string(t)
	case MsgChatMessage:
		if len(body) < 5 {
			return m, ErrMessageBody
		}
		m.Tick, m.Player = binary.LittleEndian.Uint32(body), body[4]
		if m.Player >= MaxPlayers && m.Player != ServerPlayer {
			return m, ErrMessageBody
		}
		name, rest, ok := strAt(body[5:], MaxChatNameBytes)
		if !ok {
			return m, ErrMessageBody
		}
		text, _, ok := strAt(rest, MaxChatBytes)
		if !ok {
			return m, ErrMessageBody
		}
		m.Name, m.Text = string(name), string(text)
	case MsgChatRefused:
		if len(body) < 3 {
			return m, ErrMessageBody
		}
		m.Reason, m.Wait = body[0], binary.LittleEndian.Uint16(body[1:])
	default:
		return m, ErrUnknownMessage
	}
	return m, nil
}

// NormalizeChat applies the server's rules of 7.13 to a chat text:
// Unicode NFKC; every character that is not a letter, mark, number,
// punctuation, symbol or white space removed (controls, format characters
// such as bidi overrides and zero-width joiners, private use, unassigned);
// runs of white space collapsed to one space, trimmed. It appends the
// result to dst and returns it with 0, or dst unchanged with the reason to
// refuse the text: ChatEmpty when nothing is left, ChatTooLong beyond
// MaxChatLen characters. Its work is bounded by MaxChatLen, not by the
// input (it stops at the 121st character), and it allocates nothing when
// dst has room for MaxChatBytes bytes more.
func NormalizeChat(dst, raw []byte) ([]byte, uint8) {
	var c ChatNormalizer
	return c.Normalize(dst, raw)
}

// NormalizeChatString is NormalizeChat of a string.
func NormalizeChatString(dst []byte, raw string) ([]byte, uint8) {
	var c ChatNormalizer
	c.it.InitString(norm.NFKC, raw)
	return c.normalize(dst, false)
}

// ChatNormalizer is NormalizeChat's state: a reader that keeps one
// normalizes chat without allocating. The zero value is ready.
type ChatNormalizer struct {
	it  norm.Iter
	fix [MaxChatBytes + 2*utf8.UTFMax]byte
}

// Normalize is NormalizeChat, with c's buffers.
func (c *ChatNormalizer) Normalize(dst, raw []byte) ([]byte, uint8) {
	c.it.Init(norm.NFKC, raw)
	return c.normalize(dst, false)
}

// normalize runs the rules of 7.13 on c.it. With cut, a text over
// MaxChatLen characters is cut to MaxChatLen, its last one Ellipsis.
func (c *ChatNormalizer) normalize(dst []byte, cut bool) ([]byte, uint8) {
	it := &c.it
	at := len(dst)
	n, last := 0, at // characters so far, and where the last one starts
	space, removed, cutOff := false, false, false
	put := func(r rune) bool {
		if n == MaxChatLen {
			return false
		}
		last = len(dst)
		dst = utf8.AppendRune(dst, r)
		n++
		return true
	}
scan:
	for !it.Done() {
		seg := it.Next()
		for len(seg) > 0 {
			r, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			switch {
			case unicode.IsSpace(r):
				space = n > 0
				continue
			case !chatRune(r):
				removed = true
				continue
			}
			if (space && !put(' ')) || !put(r) {
				if !cut {
					return dst[:at], ChatTooLong
				}
				dst, cutOff = dst[:last], true
				break scan
			}
			space = false
		}
	}
	if n == 0 {
		return dst[:at], ChatEmpty
	}
	// What was removed may have let marks meet the character before them:
	// compose them, so that the text is NFKC (fewer characters, not more).
	if out := dst[at:]; removed {
		fixed := c.fix[:0]
		for it.Init(norm.NFKC, out); !it.Done(); {
			fixed = append(fixed, it.Next()...)
		}
		dst = append(dst[:at], fixed...)
	}
	if cutOff { // after NFKC, which would make it "..."
		dst = append(dst, Ellipsis...)
	}
	return dst, 0
}

// CleanChat makes a chat text safe to show, by the rules of 7.13 but
// without refusing: a text over MaxChatLen characters is cut to
// MaxChatLen, the cut marked by Ellipsis. The result may be empty. The
// server cleans its announcements with it; a client the lines it
// receives.
func CleanChat(s string) string {
	var c ChatNormalizer
	c.it.InitString(norm.NFKC, s)
	var buf [MaxChatBytes + 2*utf8.UTFMax]byte
	out, _ := c.normalize(buf[:0], true)
	return string(out)
}

// chatRune reports whether a chat text keeps r (other than white space):
// letters, marks, numbers, punctuation and symbols.
func chatRune(r rune) bool {
	return r != utf8.RuneError && unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}
