package main

import (
	"errors"
	"flag"
	"io"
	"log/slog"
	"strings"
	"testing"

	"rtype/net/wire"
)

func TestParseFlags(t *testing.T) {
	opt, level, err := parseFlags([]string{"-host", "-stage", "1", "-warp", "boss", "-port", "0", "-debug"}, io.Discard)
	if err != nil || !opt.Host || opt.Stage != "1" || opt.Warp != "boss" || opt.Mode != 0 || opt.Port != 0 || level != slog.LevelDebug {
		t.Fatalf("-host -stage 1 -warp boss: %+v, %v, %v", opt, level, err)
	}
	opt, _, err = parseFlags([]string{"-host", "-mode", "classic"}, io.Discard)
	if err != nil || opt.Mode != wire.ModeClassic {
		t.Fatalf("-host -mode classic: mode %d, %v", opt.Mode, err)
	}
	opt, _, err = parseFlags([]string{"-join", "example.org", "-mode", "stage"}, io.Discard)
	if err != nil || opt.Mode != wire.ModeStage || opt.Join != "example.org" {
		t.Fatalf("-join -mode stage: %+v, %v", opt, err)
	}
	opt, _, err = parseFlags([]string{"-host", "-db", "scores.db"}, io.Discard)
	if err != nil || opt.ScoresDB != "scores.db" {
		t.Fatalf("-db scores.db: %+v, %v", opt, err)
	}
	opt, _, err = parseFlags([]string{"-host", "-warp", "90"}, io.Discard)
	if err != nil || opt.Warp != "90" {
		t.Fatalf("-warp 90: %+v, %v", opt, err)
	}
	if _, _, err := parseFlags([]string{"-version"}, io.Discard); !errors.Is(err, errVersion) {
		t.Errorf("-version: %v", err)
	}
	if _, _, err := parseFlags([]string{"-help"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-help: %v", err)
	}
	var usage strings.Builder
	parseFlags([]string{"-help"}, &usage)
	for _, f := range []string{"-stage", "-warp", "-mode", "-db"} {
		if !strings.Contains(usage.String(), f) {
			t.Errorf("the usage does not say %s", f)
		}
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-mode", "deathmatch"}, "-mode"},
		{[]string{"-host", "-mode", "classic", "-stage", "1"}, "Stage games"},
		{[]string{"-host", "-mode", "classic", "-warp", "boss"}, "Stage games"},
		{[]string{"-join", "x", "-stage", "1"}, "-host"},
		{[]string{"-host", "-join", "x"}, "together"},
		{[]string{"-host", "extra"}, "unexpected"},
	} {
		if _, _, err := parseFlags(bad.args, io.Discard); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one saying %q", bad.args, err, bad.want)
		}
	}
}

func TestDiscoveryFlag(t *testing.T) {
	for _, c := range []struct{ arg, query, listen string }{
		{"", "", ""},
		{"255.255.255.255:4243", "255.255.255.255:4243", ":4243"},
		{"127.255.255.255:5000", "127.255.255.255:5000", "127.255.255.255:5000"},
		{"192.168.1.255:4243", "192.168.1.255:4243", ":4243"},
	} {
		opt, _, err := parseFlags([]string{"-discovery", c.arg}, io.Discard)
		if err != nil || opt.Discovery != c.query || opt.DiscoveryListen != c.listen {
			t.Errorf("-discovery %q: %q %q %v", c.arg, opt.Discovery, opt.DiscoveryListen, err)
		}
	}
	opt, _, err := parseFlags(nil, io.Discard)
	if err != nil || opt.Discovery != "255.255.255.255:4243" || opt.DiscoveryListen != ":4243" {
		t.Errorf("default: %q %q %v", opt.Discovery, opt.DiscoveryListen, err)
	}
	if _, _, err := parseFlags([]string{"-discovery", "nowhere"}, io.Discard); err == nil || !strings.Contains(err.Error(), "-discovery") {
		t.Errorf("-discovery nowhere: %v", err)
	}
}

// TestParseReplayFlags: -replay with its speed and player; what does not
// go with it is refused.
func TestParseReplayFlags(t *testing.T) {
	opt, _, err := parseFlags([]string{"-replay", "a.rtreplay", "-replay-speed", "2", "-replay-follow", "3"}, io.Discard)
	if err != nil || opt.Replay != "a.rtreplay" || opt.ReplaySpeed != 2 || opt.ReplayFollow != 2 {
		t.Fatalf("-replay: %+v, %v", opt, err)
	}
	opt, _, err = parseFlags(nil, io.Discard)
	if err != nil || opt.ReplayFollow != -1 || opt.ReplaySpeed != 1 {
		t.Fatalf("defaults: follow %d, speed %g, %v", opt.ReplayFollow, opt.ReplaySpeed, err)
	}
	for _, bad := range [][]string{
		{"-replay", "a", "-host"},
		{"-replay", "a", "-replay-speed", "8"},
		{"-replay", "a", "-replay-follow", "5"},
	} {
		if _, _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestSpectateFlag(t *testing.T) {
	opt, _, err := parseFlags([]string{"-spectate", "K7MX2Q@example.org"}, io.Discard)
	if err != nil || opt.Spectate != "K7MX2Q@example.org" || opt.Join != "" || opt.Host {
		t.Fatalf("-spectate: %+v, %v", opt, err)
	}
	for _, bad := range [][]string{{"-spectate", "x", "-host"}, {"-spectate", "x", "-join", "y"}, {"-spectate", "x", "-replay", "f"}} {
		if _, _, err := parseFlags(bad, io.Discard); err == nil || !strings.Contains(err.Error(), "-spectate") {
			t.Errorf("%q: %v, want an error about -spectate", bad, err)
		}
	}
}
