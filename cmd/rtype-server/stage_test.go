package main

import (
	"bytes"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/server"
)

// TestStageFlags: -mode, -stage and -warp set the server's Config; a bad
// value is an error that names its flag.
func TestStageFlags(t *testing.T) {
	for _, c := range []struct {
		f    stageFlags
		mode uint8
		warp string
		err  string
	}{
		{stageFlags{mode: "stage"}, wire.ModeStage, "", ""},
		{stageFlags{mode: "classic"}, wire.ModeClassic, "", ""},
		{stageFlags{mode: "Classic", stage: "1", warp: "boss"}, wire.ModeClassic, "boss", ""},
		{stageFlags{mode: "stage", warp: "90"}, wire.ModeStage, "90", ""},
		{stageFlags{mode: "stage", warp: "12.5"}, wire.ModeStage, "12.5", ""},
		{stageFlags{mode: "arcade"}, 0, "", "-mode"},
		{stageFlags{mode: ""}, 0, "", "-mode"},
		{stageFlags{mode: "stage", stage: "no-such-stage"}, 0, "", "-stage"},
		{stageFlags{mode: "stage", warp: "-5"}, 0, "", "-warp"},
		{stageFlags{mode: "stage", warp: "Inf"}, 0, "", "-warp"},
		{stageFlags{mode: "stage", warp: "boss!"}, 0, "", "-warp"},
		{stageFlags{mode: "stage", warp: "9 0"}, 0, "", "-warp"},
	} {
		var cfg server.Config
		err := c.f.apply(&cfg)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: %v, want an error about %s", c.f, err, c.err)
			}
			continue
		}
		if err != nil || cfg.Mode != c.mode || cfg.Warp != c.warp {
			t.Errorf("%+v: mode %d warp %q %v", c.f, cfg.Mode, cfg.Warp, err)
		}
		if c.f.stage == "1" && (cfg.Stage == nil || cfg.Stage.Name != "1") {
			t.Errorf("%+v: stage %+v", c.f, cfg.Stage)
		}
	}
}

// TestModeFlagBinary runs the real binary: bad Stage flags exit with
// status 2 and say which flag; -mode picks what a v2 login that lets
// the server choose plays (7.12).
func TestModeFlagBinary(t *testing.T) {
	bin := buildBinary(t)
	for _, args := range [][]string{{"-mode", "arcade"}, {"-stage", "nowhere"}, {"-warp", "-3"}} {
		cmd := exec.Command(bin, append([]string{"-listen", "127.0.0.1:0"}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		var ee *exec.ExitError
		if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit status 2", args, err)
		}
		if !strings.Contains(stderr.String(), args[0]) {
			t.Errorf("%v: the error does not name the flag: %q", args, stderr.String())
		}
	}
	for _, c := range []struct {
		args []string
		want uint8
	}{
		{nil, wire.ModeStage},
		{[]string{"-mode", "classic"}, wire.ModeClassic},
		{[]string{"-mode", "stage", "-stage", "1", "-warp", "boss"}, wire.ModeStage},
	} {
		addr := startBinary(t, bin, c.args...)
		conn, err := net.DialTimeout("tcp", addr, testutil.Wait)
		if err != nil {
			t.Fatal(err)
		}
		conn.Write(wire2.AppendMessage(nil, &wire.Message{Type: wire.MsgLoginRequest, Version: wire.Version2, Name: "Ripley", Revision: wire.Revision, Mode: wire.ModeAny}))
		conn.SetReadDeadline(time.Now().Add(testutil.Wait))
		fr := wire.FrameReader{R: conn}
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		m, err := wire2.ParseMessage(f)
		if err != nil || m.Type != wire.MsgLoginAccepted || m.Revision != wire.Revision || m.Mode != c.want {
			t.Errorf("%v: %+v %v, want a game of mode %d", c.args, m, err, c.want)
		}
		conn.Close()
	}
}
