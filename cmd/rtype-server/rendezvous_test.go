package main

import (
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestRendezvousFlags: -rendezvous without -webtransport, or with an
// unknown -portmap, is a usage error; -rendezvous-listen with -listen ""
// runs the rendezvous alone, which logs its address and, at SIGTERM, its
// counters.
func TestRendezvousFlags(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-rendezvous", "127.0.0.1:1"}, "-rendezvous needs -webtransport"},
		{[]string{"-webtransport", "127.0.0.1:0", "-rendezvous", "127.0.0.1:1", "-portmap", "always"}, "-portmap"},
		{[]string{"-rendezvous-listen", "127.0.0.1:no"}, "-rendezvous-listen"},
	} {
		cmd := exec.Command(bin, append([]string{"-listen", "127.0.0.1:0", "-db", "", "-discovery-listen", ""}, c.args...)...)
		if c.args[0] == "-rendezvous-listen" {
			cmd.Args[2] = "" // alone
		}
		out, err := cmd.CombinedOutput()
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code == 0 || code == -1 || !strings.Contains(string(out), c.want) {
			t.Errorf("rtype-server %v: %v, want an error about %q; output:\n%s", c.args, err, c.want, out)
		}
	}
	p := startProcess(t, "-listen", "", "-rendezvous-listen", "127.0.0.1:0")
	p.wait(regexp.MustCompile(`msg="rendezvous listening" addr=127\.0\.0\.1:\d+`))
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(regexp.MustCompile(`msg="rendezvous stopped" hosts=0 pairs=0`))
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}
