package flood

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"rtype/net/wire"
)

// Case is one hostile TCP connection: what it sends, and what PROTOCOL.md
// says the server answers.
type Case struct {
	Name string
	// Send is written at once after connecting (nothing when empty).
	Send []byte
	// CloseWrite half-closes the connection after Send: the server reads
	// the end of the stream.
	CloseWrite bool
	// Then, when set, is written once the first message arrives (a second
	// LoginRequest after LoginAccepted).
	Then []byte
	// LeaveAfterFirst closes the connection once the first message has
	// arrived (a login that may be accepted, and would otherwise wait for
	// its Bind timeout).
	LeaveAfterFirst bool
	// Want is what the server answers, as Outcome.String spells it.
	Want string
	// Late says the server answers only at its LoginTimeout (3.2).
	Late bool
	// Why cites the rule.
	Why string
}

// loginFrame returns a LoginRequest frame with the name's bytes as they
// are (no cut, no check): its length field says what the bytes need, even
// past 1024.
func loginFrame(version uint8, name []byte) []byte {
	b := binary.LittleEndian.AppendUint16(nil, uint16(4+len(name)))
	b = append(b, byte(wire.MsgLoginRequest), version)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
	return append(b, name...)
}

// LoginFrame returns a LoginRequest of protocol version 1 for name.
func LoginFrame(name string) []byte { return loginFrame(wire.Version, []byte(name)) }

func frame(typ byte, body ...byte) []byte {
	b := binary.LittleEndian.AppendUint16(nil, uint16(1+len(body)))
	return append(append(b, typ), body...)
}

const (
	wantKicked      = "Logout(Kicked), closed"
	wantInvalidName = "LoginRejected(InvalidName), closed"
	wantClosed      = "closed"
)

// Cases returns the hostile TCP connections, each once. Names that must
// be unique within a server (the accepted logins) end with tag.
func Cases(tag string) []Case {
	rep := func(s string, n int) []byte { return []byte(strings.Repeat(s, n)) }
	inv := func(name, raw, why string) Case {
		return Case{Name: name, Send: loginFrame(1, []byte(raw)), Want: wantInvalidName, Why: why}
	}
	junk := make([]byte, 2000)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	accepted := wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginAccepted, Session: 1})
	rejected := wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRejected, Reason: 1, Text: "no"})
	return []Case{
		{Name: "silent", Want: wantClosed, Late: true, Why: "3.2: no LoginRequest within the deadline: closed"},
		{Name: "len-0", Send: []byte{0, 0}, Want: wantKicked, Why: "3.1: length 0"},
		{Name: "len-1025", Send: append([]byte{0x01, 0x04}, junk[:1025]...), Want: wantKicked, Why: "3.1, 6.5: length above 1024, refused from the length"},
		{Name: "len-65535", Send: append([]byte{0xFF, 0xFF}, junk...), Want: wantKicked, Why: "3.1, 6.5: length above 1024, refused from the length"},
		{Name: "trunc-length", Send: []byte{0x0A}, CloseWrite: true, Want: wantClosed, Why: "1 byte of length, then the end of the stream"},
		{Name: "trunc-body", Send: LoginFrame("Ripley")[:7], CloseWrite: true, Want: wantClosed, Why: "a frame cut short by the end of the stream"},
		{Name: "trunc-stall", Send: LoginFrame("Ripley")[:5], Want: wantClosed, Late: true, Why: "3.2: a frame cut short, the deadline passes"},
		{Name: "type-0", Send: frame(0x00, 0x01), Want: wantKicked, Why: "3.1: unknown type"},
		{Name: "type-5", Send: frame(0x05, 0x01, 0x02), Want: wantKicked, Why: "3.1: unknown type"},
		{Name: "type-255", Send: frame(0xFF, junk[:100]...), Want: wantKicked, Why: "3.1: unknown type"},
		{Name: "login-accepted", Send: accepted, Want: wantKicked, Why: "3.1: a message in the wrong direction"},
		{Name: "login-rejected", Send: rejected, Want: wantKicked, Why: "3.1: a message in the wrong direction"},
		{Name: "logout-first", Send: frame(byte(wire.MsgLogout), 0), Want: wantKicked, Why: "3.1: a message the server does not expect"},
		{Name: "version-3", Send: loginFrame(3, []byte("Ripley")), Want: "LoginRejected(VersionMismatch), closed", Why: "3.2 check 2, 7.1: a server speaks 1, or 1 and 2"},
		{Name: "version-3-no-body", Send: frame(byte(wire.MsgLoginRequest), 3), Want: "LoginRejected(VersionMismatch), closed", Why: "3.2 check 2: the version before the body"},
		{Name: "no-name", Send: frame(byte(wire.MsgLoginRequest), 1), Want: wantKicked, Why: "3.1: body too short"},
		{Name: "name-past-frame", Send: frame(byte(wire.MsgLoginRequest), 1, 50, 0, 'a', 'b', 'c'), Want: wantKicked, Why: "1.5, 3.1: a string that runs past its message"},
		{Name: "trailing-byte", Send: frame(byte(wire.MsgLoginRequest), 1, 3, 0, 'a', 'b', 'c', 0), Want: wantKicked, Why: "3.1: a body longer than its type requires"},
		inv("ctl-nul", "Rip\x00ley", "3.2 rule 5: a control character"),
		inv("ctl-soh", "\x01Ripley", "3.2 rule 5: a control character"),
		inv("ctl-ansi", "\x1b[31mRed\x1b[0m", "3.2 rule 5: an ANSI escape sequence"),
		inv("ctl-del", "Ripley\x7f", "3.2 rule 5: DEL"),
		inv("ctl-c1-csi", "\u009b31mRed", "3.2 rule 5: a C1 control"),
		{Name: "ctl-tab-newline", Send: LoginFrame("Tab\t\n" + tag), LeaveAfterFirst: true, Want: "LoginAccepted, left",
			Why: "3.2 step 3: tab and newline are White_Space, collapsed to one space"},
		inv("bidi-rlo", "abc\u202Edef", "3.2 rule 5: U+202E RIGHT-TO-LEFT OVERRIDE (category Cf)"),
		inv("bidi-isolate", "\u2067Ripley\u2069", "3.2 rule 5: bidi isolates (Cf)"),
		inv("bidi-rlm", "Rip\u200Fley", "3.2 rule 5: RIGHT-TO-LEFT MARK (Cf)"),
		inv("zero-width", "Rip\u200Bley", "3.2 rule 5: ZERO WIDTH SPACE (Cf, not White_Space)"),
		inv("bom", "\uFEFFRipley", "3.2 rule 5: BOM (Cf)"),
		{Name: "name-10000", Send: loginFrame(1, rep("a", 10000)), Want: wantKicked, Why: "3.1, 6.5: 10,000 characters make a frame of 10,004 bytes, refused from its length"},
		{Name: "name-10000-2byte", Send: loginFrame(1, rep("é", 10000)), Want: wantKicked, Why: "3.1, 6.5: a frame of 20,004 bytes"},
		inv("name-1020", strings.Repeat("a", 1020), "3.2 rule 4: 1020 characters in a legal frame"),
		inv("nfkc-bomb", strings.Repeat("\uFDFA", 106), "3.2 rule 4: each U+FDFA is 18 characters after NFKC"),
		inv("zalgo", "a"+strings.Repeat("\u0301", 150), "3.2 rule 4: 151 characters"),
		inv("utf8-ff", "\xff\xfeRipley", "3.2 rule 1, C: invalid UTF-8 is InvalidName"),
		inv("utf8-overlong", "Rip\xc0\xafley", "3.2 rule 1: an overlong encoding"),
		inv("utf8-surrogate", "Rip\xed\xa0\x80ley", "3.2 rule 1: a surrogate"),
		inv("utf8-cut", "Ripley\xe2\x82", "3.2 rule 1: a sequence cut short"),
		{Name: "second-login", Send: LoginFrame("Twice" + tag), Then: LoginFrame("Again" + tag),
			Want: "LoginAccepted, Logout(Kicked), closed", Why: "3.1: a second LoginRequest on a connection"},
	}
}

// End is how a connection ended.
type End int

// The ends of a connection.
const (
	EndClosed  End = iota // the server closed it (end of stream or reset)
	EndOpen               // still open when the wait ran out
	EndLeft               // closed by us after the first message (LeaveAfterFirst)
	EndRefused            // the connection could not be made
)

// Outcome is what one connection got back.
type Outcome struct {
	Case     string
	Messages []wire.Message
	End      End
	Reset    bool          // the server's close was a reset (it had unread bytes)
	Extra    int           // bytes received that made no valid message
	Bytes    int           // bytes received in all
	After    time.Duration // from the connection to its end
	Err      error         // a dial error, or a malformed message from the server
}

// msgString names a message with its reason.
func msgString(m wire.Message) string {
	switch m.Type {
	case wire.MsgLoginRejected:
		return "LoginRejected(" + rejectName(m.Reason) + ")"
	case wire.MsgLogout:
		return "Logout(" + logoutName(m.Reason) + ")"
	}
	return m.Type.String()
}

func rejectName(r uint8) string {
	names := map[uint8]string{wire.RejectGameFull: "GameFull", wire.RejectVersionMismatch: "VersionMismatch",
		wire.RejectInvalidName: "InvalidName", wire.RejectNameTaken: "NameTaken",
		wire.RejectRateLimited: "RateLimited", wire.RejectGameEnding: "GameEnding"}
	if n, ok := names[r]; ok {
		return n
	}
	return fmt.Sprint(r)
}

func logoutName(r uint8) string {
	names := []string{"Left", "TimedOut", "Kicked", "GameOver", "ServerShutdown"}
	if int(r) < len(names) {
		return names[r]
	}
	return fmt.Sprint(r)
}

// String spells the outcome as Case.Want does: the messages, then the end.
func (o Outcome) String() string {
	var parts []string
	for _, m := range o.Messages {
		parts = append(parts, msgString(m))
	}
	if o.Extra > 0 {
		parts = append(parts, fmt.Sprintf("%d stray bytes", o.Extra))
	}
	switch o.End {
	case EndClosed:
		parts = append(parts, "closed")
	case EndOpen:
		parts = append(parts, "still open")
	case EndLeft:
		parts = append(parts, "left")
	case EndRefused:
		parts = append(parts, "refused: "+fmt.Sprint(o.Err))
	}
	return strings.Join(parts, ", ")
}

// Dialer makes the connections of RunCase; the zero value dials from any
// local address.
type Dialer struct {
	// Local, when set, is the local IP address to connect from: spreading
	// connections over several addresses of 127.0.0.0/8 keeps them apart
	// for the server's login rate limit (3.3).
	Local net.IP
}

// RunCase connects to addr, plays c and reads what the server sends until
// it closes the connection or wait passes.
func (d Dialer) RunCase(ctx context.Context, addr string, c Case, wait time.Duration) Outcome {
	o := Outcome{Case: c.Name}
	nd := net.Dialer{Timeout: wait}
	if d.Local != nil {
		nd.LocalAddr = &net.TCPAddr{IP: d.Local}
	}
	start := time.Now()
	conn, err := nd.DialContext(ctx, "tcp", addr)
	if err != nil {
		o.End, o.Err = EndRefused, err
		return o
	}
	defer conn.Close()
	deadline := start.Add(wait)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	conn.SetDeadline(deadline)
	if len(c.Send) > 0 {
		conn.Write(c.Send) // a server that closes early may cut it: its answer is what counts
	}
	if c.CloseWrite {
		conn.(*net.TCPConn).CloseWrite()
	}
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		msgs, _ := parseMessages(got)
		if len(msgs) > 0 && len(o.Messages) == 0 {
			if c.LeaveAfterFirst {
				o.Messages, o.End = msgs, EndLeft
				break
			}
			if c.Then != nil {
				conn.Write(c.Then)
			}
		}
		o.Messages = msgs
		if err != nil {
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				o.End = EndOpen
			case errors.Is(err, syscall.ECONNRESET):
				o.End, o.Reset = EndClosed, true
			default:
				o.End = EndClosed // io.EOF, or another error of a closed connection
			}
			break
		}
	}
	o.After = time.Since(start)
	o.Bytes = len(got)
	o.Messages, o.Extra = parseMessages(got)
	return o
}

// parseMessages decodes the whole messages at the start of b and returns
// them with the number of bytes left over.
func parseMessages(b []byte) ([]wire.Message, int) {
	fr := wire.FrameReader{R: bytes.NewReader(b)}
	var msgs []wire.Message
	used := 0
	for {
		m, err := fr.ReadMessage()
		if err != nil {
			return msgs, len(b) - used
		}
		msgs = append(msgs, m)
		used += 2 + int(binary.LittleEndian.Uint16(b[used:]))
	}
}

// Summary groups outcomes by case and result, in the order of cases.
type Summary struct {
	Case   Case
	Result string
	Count  int
	Resets int
	Min    time.Duration
	Max    time.Duration
}

// Summarize groups outcomes by case and result.
func Summarize(cases []Case, outcomes []Outcome) []Summary {
	var out []Summary
	for _, c := range cases {
		for _, o := range outcomes {
			if o.Case != c.Name {
				continue
			}
			r := o.String()
			i := slices.IndexFunc(out, func(s Summary) bool { return s.Case.Name == c.Name && s.Result == r })
			if i < 0 {
				out = append(out, Summary{Case: c, Result: r, Min: o.After})
				i = len(out) - 1
			}
			s := &out[i]
			s.Count++
			if o.Reset {
				s.Resets++
			}
			s.Min, s.Max = min(s.Min, o.After), max(s.Max, o.After)
		}
	}
	return out
}
