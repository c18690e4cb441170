package main

import (
	"errors"
	"net"
	"os/exec"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// TestProtocolFlag runs the real binary: -protocol 1 is a v1-only server,
// which answers a v2 LoginRequest with LoginRejected(VersionMismatch) and
// accepts a v1 one; the default serves v2; -protocol 3 is a usage error.
func TestProtocolFlag(t *testing.T) {
	bin := buildBinary(t)
	bad := exec.Command(bin, "-protocol", "3")
	var ee *exec.ExitError
	if err := bad.Run(); !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("-protocol 3: %v, want exit status 2", err)
	}
	for _, c := range []struct {
		flag    string
		version uint8
		want    wire.MsgType
	}{
		{"1", wire.Version2, wire.MsgLoginRejected},
		{"1", wire.Version, wire.MsgLoginAccepted},
		{"2", wire.Version2, wire.MsgLoginAccepted},
	} {
		addr := startBinary(t, bin, "-protocol", c.flag)
		conn, err := net.DialTimeout("tcp", addr, testutil.Wait)
		if err != nil {
			t.Fatal(err)
		}
		req := wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: c.version, Name: "Ripley"})
		if c.version == wire.Version2 {
			req = wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: c.version, Name: "Ripley",
				Revision: wire.Revision, Mode: wire.ModeClassic})
		}
		conn.Write(req)
		conn.SetReadDeadline(time.Now().Add(testutil.Wait))
		fr := wire.FrameReader{R: conn}
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("-protocol %s, login v%d: %v", c.flag, c.version, err)
		}
		parse := wire.ParseMessage // a v1 session is strict v1 (3.1)
		if c.version == wire.Version2 {
			parse = wire2.ParseMessage
		}
		m, err := parse(f)
		if err != nil || m.Type != c.want || (c.want == wire.MsgLoginRejected && m.Reason != wire.RejectVersionMismatch) {
			t.Fatalf("-protocol %s, login v%d: %+v %v, want %v", c.flag, c.version, m, err, c.want)
		}
		conn.Close()
	}
}

// startBinary runs the built server on 127.0.0.1:0 with args, and no
// leaderboard, until the test ends and returns its address.
func startBinary(t *testing.T, bin string, args ...string) string {
	t.Helper()
	_, addr, _ := runServer(t, bin, append([]string{"-db="}, args...)...)
	return addr
}
